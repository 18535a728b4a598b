// A kernel-team member bisects a regression from the incident page and watches it live.
// The repository is real git, built here on disk; the console's Celery worker runs on this machine,
// so a local path is a repository it can clone.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { launch, screenshot, signIn, USERS } from './browser.mjs';
import { plantedRegression } from './git-repo.mjs';

const COMMITS = 64;
const REGRESSION = 40;
const REGRESSION_TITLE = `Raise value to 2 (commit ${REGRESSION})`;
let browser;
let repo;

/** 64 commits; commit 40 changes value.txt from 1 to 2 and is the only one that touches it after commit 1. */
function buildRepository() {
  return plantedRegression({
    commits: COMMITS,
    regression: REGRESSION,
    title: REGRESSION_TITLE,
    file: 'value.txt',
    good: '1',
    bad: '2',
    routine: 'Routine change',
    goodTag: 'good-start',
    badTag: 'bad-end',
  });
}

before(async () => {
  repo = buildRepository();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

test('a bisect started from the kernel step finds the planted commit and the timeline says so', async () => {
  const owner = await signIn(browser, USERS.owner);
  const { page } = owner;

  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Tail latency after the kernel upgrade');
  await page.getByLabel('Symptom').fill('p99 doubled after 6.5 → 6.6');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Tail latency after the kernel upgrade' }).waitFor();
  const incidentUrl = page.url();

  const teammate = await signIn(browser, USERS.teammate);
  await teammate.page.goto(incidentUrl);
  await teammate.page.getByRole('heading', { name: 'Tail latency after the kernel upgrade' }).waitFor();

  // The entry point on the kernel step opens the start form, with the hint that no versions are known yet.
  await page.getByRole('region', { name: 'Kernel' }).getByRole('button', { name: 'Start a bisect' }).click();
  const form = page.getByRole('form', { name: 'Start a bisect' });
  await form.waitFor();
  await form.getByText(/No kernel versions found in the evidence/).waitFor();

  // Submitting an empty form says what is missing, field by field.
  await form.getByRole('button', { name: 'Start bisect' }).click();
  await form.getByText(/Give a git repository/).waitFor();
  assert.equal(await form.getByLabel('Repository').getAttribute('aria-invalid'), 'true');

  await form.getByLabel('Repository').fill(repo);
  await form.getByLabel('Good ref').fill('good-start');
  await form.getByLabel('Bad ref').fill('bad-end');
  await form.getByLabel('Reproducer command').fill('test "$(cat value.txt)" = 1');
  await form.getByLabel('Step timeout').fill('60');
  await screenshot(page, 'bisect-01-start-form');
  await form.getByLabel('Step timeout').press('Enter');

  await page.waitForURL(/\/incidents\/\d+\/bisects\/\d+$/);
  await page.getByRole('heading', { name: /^Bisect #\d+$/ }).waitFor();
  await page.getByRole('progressbar', { name: 'Bisect progress' }).waitFor();

  const result = page.getByRole('article', { name: 'First bad commit' });
  await result.getByText(REGRESSION_TITLE).waitFor({ timeout: 120_000 });
  assert.deepEqual(await result.getByRole('list', { name: 'Files touched' }).getByRole('listitem').allInnerTexts(), [
    'history.txt',
    'value.txt',
  ]);
  assert.equal(await page.getByRole('progressbar', { name: 'Bisect progress' }).getAttribute('aria-valuenow'), '100');
  const steps = page.getByRole('list', { name: 'Bisect steps' });
  // 63 candidates: about log2(63) = 6 steps, each listed with its commit and verdict.
  const stepCount = await steps.getByRole('listitem').count();
  assert.ok(stepCount >= 5 && stepCount <= 9, `${stepCount} steps`);
  await steps
    .getByRole('listitem', { name: 'Step 1' })
    .getByText(/Good|Bad/)
    .waitFor();
  await page.getByText('Bisect log').click();
  await page
    .getByLabel('Bisect log')
    .getByText(/first bad commit|git bisect/)
    .first()
    .waitFor();
  await screenshot(page, 'bisect-02-job-found');

  // The teammate, who never reloaded, sees the steps and the result on the timeline and in the list.
  const timeline = teammate.page.getByRole('region', { name: 'Timeline' });
  await timeline
    .getByText(/Bisect #\d+ step 1:/)
    .first()
    .waitFor({ timeout: 10_000 });
  await timeline.getByText(/found the first bad commit .* “Raise value to 2/).waitFor({ timeout: 10_000 });
  const jobs = teammate.page.getByRole('table', { name: 'Bisect jobs' });
  await jobs.getByText(REGRESSION_TITLE).waitFor({ timeout: 10_000 });
  await screenshot(teammate.page, 'bisect-03-teammate-timeline');

  await Promise.all([owner.context.close(), teammate.context.close()]);
});
