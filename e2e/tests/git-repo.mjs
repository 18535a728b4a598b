// A real git repository on disk with one planted regression, for the bisect tests: the console's worker runs on
// this machine, so a local path is a repository it can clone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `commits` commits; the first writes `file` as `good`, commit `regression` (titled `title`) changes it to `bad`
 * and is the only later one that touches it; the first commit is tagged `goodTag`, the last `badTag`.
 */
export function plantedRegression({ commits, regression, title, file, good, bad, routine, goodTag, badTag }) {
  const dir = mkdtempSync(join(tmpdir(), 'whodunnet-bisect-e2e-'));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Ann Dev',
    GIT_AUTHOR_EMAIL: 'ann@example.org',
    GIT_COMMITTER_NAME: 'Ann Dev',
    GIT_COMMITTER_EMAIL: 'ann@example.org',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  for (let i = 1; i <= commits; i += 1) {
    if (i === 1) writeFileSync(join(dir, file), `${good}\n`);
    if (i === regression) writeFileSync(join(dir, file), `${bad}\n`);
    writeFileSync(join(dir, 'history.txt'), `commit ${i}\n`, { flag: 'a' });
    git('add', '-A');
    git('commit', '-q', '-m', i === regression ? title : `${routine} ${i}`);
    if (i === 1) git('tag', goodTag);
  }
  git('tag', badTag);
  return dir;
}
