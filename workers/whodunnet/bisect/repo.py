"""A clone per repository shared by the jobs on a worker, and a worktree per job.

The cache holds one bare clone per repository at ``cache_dir/<sha256 of the url>.git``
(local paths are made absolute first, so ``./linux`` and ``/src/linux`` are the same key).
A kernel clone is gigabytes, so it is made once and then only fetched, and only when a
ref a job needs is missing (or the caller asks for a refresh, e.g. to see a branch move).

Each job bisects in its own ``git worktree add --detach`` of that clone: bisect state
(``refs/bisect/*`` and ``BISECT_*``) is per worktree in git, so jobs on the same clone do
not see each other. Clone, fetch and worktree changes take an exclusive ``flock`` on
``<key>.lock`` because Celery may run several jobs of the same repository at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from whodunnet.bisect.errors import BisectError
from whodunnet.bisect.gitcmd import git, rev_parse

_HEX_ID = re.compile(r"^[0-9a-f]{7,64}$")
_FETCH_REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")


def repo_key(repo: str) -> str:
    """The cache key of a repository: a hash of its URL, or of its absolute local path."""
    if "://" not in repo and not re.match(r"^[\w.-]+@[\w.-]+:", repo):
        repo = os.path.realpath(os.path.expanduser(repo))
    return hashlib.sha256(repo.encode()).hexdigest()[:24]


def _source(repo: str) -> str:
    if "://" in repo or re.match(r"^[\w.-]+@[\w.-]+:", repo):
        return repo
    return os.path.realpath(os.path.expanduser(repo))


class RepoCache:
    """Bare clones of the repositories bisected on this worker, under ``cache_dir``."""

    def __init__(self, cache_dir: Path | str) -> None:
        self.cache_dir = Path(cache_dir)

    def clone_path(self, repo: str) -> Path:
        return self.cache_dir / f"{repo_key(repo)}.git"

    @contextlib.contextmanager
    def _locked(self, repo: str) -> Iterator[None]:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        with open(self.cache_dir / f"{repo_key(repo)}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def ensure(self, repo: str, refs: Sequence[str] = (), *, refresh: bool = False) -> Path:
        """Return the cached clone of ``repo``, cloning or fetching so that every ref resolves.

        A ref missing after fetching all branches and tags is fetched by name (a full
        ``refs/...`` name is kept under the same name; a commit id just lands in the object
        store). Raises :class:`BisectError` when a ref still does not resolve.
        """
        with self._locked(repo):
            path = self.clone_path(repo)
            if not (path / "HEAD").exists():
                self._clone(repo, path)
            elif refresh or any(rev_parse(r, cwd=path) is None for r in refs):
                git(
                    ["fetch", "--quiet", "--force", "origin", *_FETCH_REFSPECS],
                    cwd=path,
                )
            missing = [r for r in refs if rev_parse(r, cwd=path) is None]
            for ref in missing:
                spec = f"+{ref}:{ref}" if ref.startswith("refs/") else ref
                if ref.startswith("refs/") or _HEX_ID.match(ref):
                    git(["fetch", "--quiet", "origin", spec], cwd=path, check=False)
            still = [r for r in missing if rev_parse(r, cwd=path) is None]
            if still:
                raise BisectError(f"{repo}: no commit named {', '.join(still)}")
            return path

    def _clone(self, repo: str, path: Path) -> None:
        partial = path.with_name(path.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        git(
            ["clone", "--quiet", "--bare", "--", _source(repo), str(partial)],
            cwd=self.cache_dir,
        )
        # A bare clone has no fetch refspec; give it one that keeps branches and tags
        # current without pruning anything a running job might still need.
        git(["config", "--unset-all", "remote.origin.fetch"], cwd=partial, check=False)
        for refspec in _FETCH_REFSPECS:
            git(["config", "--add", "remote.origin.fetch", refspec], cwd=partial)
        # Bisecting never needs reflogs, and gc must not run inside a job's git command.
        git(["config", "gc.auto", "0"], cwd=partial)
        partial.rename(path)

    def add_worktree(self, repo: str, dest: Path | str, commit: str = "HEAD") -> Path:
        """Make ``dest`` a fresh detached worktree of the cached clone at ``commit``.

        A worktree left at ``dest`` by an earlier (perhaps killed) process is removed first:
        a resumed job replays its log, so nothing in the old worktree is needed.
        """
        clone = self.ensure(repo, [commit] if commit != "HEAD" else [])
        dest = Path(dest).absolute()
        with self._locked(repo):
            if dest.exists():
                git(
                    ["worktree", "remove", "--force", "--force", str(dest)],
                    cwd=clone,
                    check=False,
                )
                shutil.rmtree(dest, ignore_errors=True)
            git(["worktree", "prune"], cwd=clone)
            dest.parent.mkdir(parents=True, exist_ok=True)
            git(
                [
                    "worktree",
                    "add",
                    "--quiet",
                    "--force",
                    "--detach",
                    str(dest),
                    commit,
                ],
                cwd=clone,
            )
        return dest

    def remove_worktree(self, repo: str, dest: Path | str) -> None:
        """Remove a job's worktree (and its bisect state); the cached clone stays."""
        clone = self.clone_path(repo)
        dest = Path(dest).absolute()
        with self._locked(repo):
            if clone.exists():
                git(
                    ["worktree", "remove", "--force", "--force", str(dest)],
                    cwd=clone,
                    check=False,
                )
            shutil.rmtree(dest, ignore_errors=True)
            if clone.exists():
                git(["worktree", "prune"], cwd=clone, check=False)

    @contextlib.contextmanager
    def worktree(self, repo: str, dest: Path | str, commit: str = "HEAD") -> Iterator[Path]:
        """A worktree for the length of a ``with`` block (the CLI and tests use this)."""
        path = self.add_worktree(repo, dest, commit)
        try:
            yield path
        finally:
            self.remove_worktree(repo, path)
