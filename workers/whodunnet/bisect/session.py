"""The resumable bisect state machine, driving real ``git bisect`` in a job's worktree.

The truth is the bisect log (``git bisect log``): the caller stores :meth:`BisectSession.log`
after every recorded verdict, and any process on any worker can continue the job from that
text alone with :meth:`BisectSession.resume` (``git bisect replay``) in a fresh worktree.
Good and bad refs are resolved to commit ids before ``git bisect start``, so the log names
commits, not branches that may move before the job is resumed.

Typical use (what the CLI driver and a Celery step task do)::

    session = BisectSession.start(spec, worktree)        # or .resume(spec, worktree, log)
    while isinstance(nxt := session.next_candidate(), Candidate):
        result = run_step(spec, session, runner, nxt.commit)
        session.record(nxt.commit, "bad")                 # whatever the step decided
        store(session.log())
    nxt.first_bad                                         # a Done
"""

from __future__ import annotations

import math
import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from whodunnet.bisect.errors import BisectError
from whodunnet.bisect.gitcmd import git, rev_parse
from whodunnet.bisect.spec import BisectSpec

Verdict = Literal["good", "bad", "skip"]
VERDICTS: tuple[Verdict, ...] = ("good", "bad", "skip")

_CANDIDATE = re.compile(r"^Bisecting: .*\n\[([0-9a-f]{40,64})\] ?(.*)$", re.MULTILINE)
_LOG_COMMAND = re.compile(r"^git bisect (good|bad|skip|new|old) ([0-9a-f]{40,64})$")
_LOG_FIRST_BAD = re.compile(r"^# first bad commit: \[([0-9a-f]{40,64})\]")
_LOG_POSSIBLE = re.compile(r"^# possible first bad commit: \[([0-9a-f]{40,64})\]")
_LOG_ONLY_SKIPPED = "# only skipped commits left to test"


@dataclass(frozen=True)
class Candidate:
    """The commit to test next, and how much is left.

    ``revisions_left`` counts the commits that can still be the first bad one (the bad end
    included, skipped ones included; with a path filter only commits touching the path);
    ``steps_left`` is ceil(log2(revisions_left)), the tests needed if none is skipped.
    """

    commit: str
    title: str
    revisions_left: int
    steps_left: int


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the result shows it; ``files`` are relative to the first parent."""

    id: str
    title: str
    author: str
    date: str
    files: tuple[str, ...]
    touches_path: bool | None


@dataclass(frozen=True)
class Done:
    """The end of a bisect: the first bad commit, or the commits it could be.

    ``first_bad`` is None when only skipped commits were left; ``possible_first_bad`` then
    lists every commit the regression could be (as ``git bisect`` logs them).
    """

    first_bad: CommitInfo | None
    possible_first_bad: tuple[str, ...]
    log: str

    @property
    def found(self) -> bool:
        return self.first_bad is not None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class BisectSession:
    """One job's ``git bisect`` in its own worktree. Build it with :meth:`start` or :meth:`resume`."""

    def __init__(self, spec: BisectSpec, workdir: Path, output: str) -> None:
        self.spec = spec
        self.workdir = workdir
        git_path = git(["rev-parse", "--git-path", "BISECT_LOG"], cwd=workdir).stdout.strip()
        self._log_path = workdir / git_path
        self._candidate = self._parse_candidate(output)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def start(cls, spec: BisectSpec, workdir: Path | str) -> BisectSession:
        """Start bisecting ``spec.bad`` against ``spec.good`` (limited to ``spec.path``)."""
        workdir = Path(workdir)
        good = rev_parse(spec.good, cwd=workdir)
        bad = rev_parse(spec.bad, cwd=workdir)
        if good is None or bad is None:
            missing = [r for r, c in ((spec.good, good), (spec.bad, bad)) if c is None]
            raise BisectError(f"no commit named {', '.join(missing)} in {workdir}")
        _clean(workdir)
        git(["bisect", "reset"], cwd=workdir, check=False)
        args = ["bisect", "start", bad, good]
        if spec.path:
            args += ["--", spec.path]
        return cls(spec, workdir, _bisect(args, workdir))

    @classmethod
    def resume(cls, spec: BisectSpec, workdir: Path | str, log: str) -> BisectSession:
        """Continue a job from its stored bisect log, in any worktree of the same repository."""
        workdir = Path(workdir)
        if "git bisect start" not in log:
            raise BisectError("the stored bisect log has no 'git bisect start' line")
        _clean(workdir)
        with tempfile.NamedTemporaryFile("w", prefix="whodunnet-bisect-", suffix=".log") as f:
            f.write(log if log.endswith("\n") else log + "\n")
            f.flush()
            output = _bisect(["bisect", "replay", f.name], workdir)
        return cls(spec, workdir, output)

    # -- state ----------------------------------------------------------------------------

    def log(self) -> str:
        """The bisect log: store it after every step, it is all :meth:`resume` needs."""
        # What ``git bisect log`` prints is this file; reading it directly saves the
        # shell start-up of git-bisect, which is most of a step's git time.
        try:
            return self._log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise BisectError(f"no bisect is in progress in {self.workdir}") from None

    def next_candidate(self) -> Candidate | Done:
        """The commit to test next, or the result when the bisect is over. Changes nothing."""
        log = self.log()
        first_bad, possible = _outcome(log)
        if first_bad is not None:
            return Done(first_bad=self.commit_info(first_bad), possible_first_bad=(), log=log)
        if possible:
            return Done(first_bad=None, possible_first_bad=possible, log=log)
        if self._candidate is None:
            raise BisectError("git bisect gave no commit to test and no result", output=log)
        commit, title = self._candidate
        left = self._revisions_left()
        return Candidate(commit=commit, title=title, revisions_left=left, steps_left=_steps(left))

    def record(self, commit: str, verdict: Verdict) -> Candidate | Done:
        """Mark ``commit`` good, bad or skip; return what comes next.

        Recording the same verdict for the same commit again changes nothing, so a step whose
        result was recorded before its worker died can be recorded again safely. A different
        verdict for a commit already judged, or any verdict after the first bad commit was
        found, raises :class:`BisectError`.
        """
        if verdict not in VERDICTS:
            raise BisectError(f"unknown verdict {verdict!r}")
        log = self.log()
        if _outcome(log)[0] is not None:
            raise BisectError("the bisect is finished; nothing more can be recorded")
        earlier = _recorded(log).get(commit)
        if earlier == verdict:
            return self.next_candidate()
        if earlier is not None:
            raise BisectError(f"{commit} was already recorded {earlier}, not {verdict}")
        _clean(self.workdir)
        self._candidate = self._parse_candidate(_bisect(["bisect", verdict, commit], self.workdir))
        return self.next_candidate()

    def checkout(self, commit: str) -> None:
        """Put the worktree at ``commit`` with no local changes, for a run of the reproducer."""
        _clean(self.workdir)
        head = rev_parse("HEAD", cwd=self.workdir)
        if head != commit:
            git(["checkout", "--quiet", "--force", "--detach", commit], cwd=self.workdir)

    def commit_info(self, commit: str) -> CommitInfo:
        """Id, title, author, date and files of ``commit``; whether it touches the path filter."""
        shown = git(
            ["show", "-s", "--format=%H%x00%s%x00%an <%ae>%x00%aI", commit],
            cwd=self.workdir,
        ).stdout
        cid, title, author, date = shown.rstrip("\n").split("\x00", 3)
        files = self._files(commit)
        touches = bool(self._files(commit, self.spec.path)) if self.spec.path else None
        return CommitInfo(
            id=cid,
            title=title,
            author=author,
            date=date,
            files=files,
            touches_path=touches,
        )

    # -- helpers --------------------------------------------------------------------------

    def _files(self, commit: str, path: str | None = None) -> tuple[str, ...]:
        # -m --first-parent: a merge's files are what it brought into the first parent,
        # which is the useful answer when a merge is the first bad commit.
        args = [
            "diff-tree",
            "-r",
            "--no-commit-id",
            "--name-only",
            "--root",
            "-m",
            "--first-parent",
            commit,
        ]
        if path:
            args += ["--", path]
        out = git(args, cwd=self.workdir).stdout
        return tuple(dict.fromkeys(line for line in out.splitlines() if line))

    def _revisions_left(self) -> int:
        args = [
            "rev-list",
            "--count",
            "refs/bisect/bad",
            "--not",
            "--glob=refs/bisect/good-*",
        ]
        if self.spec.path:
            args += ["--", self.spec.path]
        proc = git(args, cwd=self.workdir, check=False)
        count = int(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip().isdigit() else 0
        return max(count, 1)

    @staticmethod
    def _parse_candidate(output: str) -> tuple[str, str] | None:
        matches = _CANDIDATE.findall(output)
        if not matches:
            return None
        commit, title = matches[-1]
        return str(commit), str(title)


def _steps(revisions_left: int) -> int:
    return math.ceil(math.log2(revisions_left)) if revisions_left > 1 else 0


def _clean(workdir: Path) -> None:
    # The reproducer may have changed tracked files or left untracked ones; git bisect
    # would refuse to check out the next commit over them. Ignored files (build output)
    # stay, so an incremental build keeps its objects between steps.
    git(["reset", "--quiet", "--hard"], cwd=workdir, check=False)
    git(["clean", "-ffdq"], cwd=workdir, check=False)


def _bisect(args: list[str], workdir: Path) -> str:
    proc = git(args, cwd=workdir, check=False)
    output = proc.stdout + proc.stderr
    # Exit 2 with "only 'skip'ped commits left" is an outcome, not a failure.
    if proc.returncode != 0 and not (proc.returncode == 2 and "only 'skip'ped commits left" in output):
        raise BisectError(f"git {' '.join(args[:2])} failed (exit {proc.returncode})", output=output)
    return output


def _outcome(log: str) -> tuple[str | None, tuple[str, ...]]:
    """(first bad commit, possible first bad commits) as the log's last state says."""
    first_bad: str | None = None
    possible: list[str] = []
    for line in log.splitlines():
        if line.startswith("git bisect "):
            first_bad, possible = None, []
        elif m := _LOG_FIRST_BAD.match(line):
            first_bad = m.group(1)
        elif line.startswith(_LOG_ONLY_SKIPPED):
            possible = []
        elif m := _LOG_POSSIBLE.match(line):
            possible.append(m.group(1))
    return first_bad, tuple(possible)


def _recorded(log: str) -> dict[str, str]:
    verdicts: dict[str, str] = {}
    for line in log.splitlines():
        if m := _LOG_COMMAND.match(line.strip()):
            verdict = {"new": "bad", "old": "good"}.get(m.group(1), m.group(1))
            verdicts.setdefault(m.group(2), verdict)
    return verdicts
