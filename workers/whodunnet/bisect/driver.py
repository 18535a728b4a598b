"""Run a whole bisect in one process: the loop the CLI uses, step for step what the backend does.

The backend runs the same loop body as one Celery task per step: ``next_candidate`` →
``run_step`` → ``next_action`` → ``record`` → store ``log()``. This module is that loop
without a database, for the CLI, tests and benchmarks.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from whodunnet.bisect.errors import BisectError
from whodunnet.bisect.repo import RepoCache
from whodunnet.bisect.runner import LocalRunner, Runner
from whodunnet.bisect.session import BisectSession, Done
from whodunnet.bisect.spec import BisectSpec
from whodunnet.bisect.step import Record, Retry, StepResult, next_action, run_step

Status = Literal["found", "ambiguous", "error", "paused"]
OnStep = Callable[[StepResult, BisectSession], None]


@dataclass(frozen=True)
class BisectReport:
    """How a bisect ended: found, ambiguous (only skipped commits left), error, or paused."""

    status: Status
    spec: BisectSpec
    done: Done | None
    steps: tuple[StepResult, ...]
    log: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        first_bad = self.done.first_bad if self.done else None
        return {
            "status": self.status,
            "first_bad": None
            if first_bad is None
            else {
                "id": first_bad.id,
                "title": first_bad.title,
                "author": first_bad.author,
                "date": first_bad.date,
                "files": list(first_bad.files),
                "touches_path": first_bad.touches_path,
            },
            "possible_first_bad": list(self.done.possible_first_bad) if self.done else [],
            "error": self.error,
            "steps": [step.to_json() for step in self.steps],
            "step_count": len(self.steps),
            "duration": sum(step.duration for step in self.steps),
            "spec": self.spec.to_json(),
            "log": self.log,
        }


def drive(
    spec: BisectSpec,
    session: BisectSession,
    runner: Runner,
    *,
    on_step: OnStep | None = None,
    max_steps: int | None = None,
    scratch_root: Path | None = None,
) -> BisectReport:
    """Run steps until the bisect is done, a step stops it, or ``max_steps`` were run."""
    steps: list[StepResult] = []
    try:
        return _drive(spec, session, runner, steps, on_step, max_steps, scratch_root)
    except BisectError as exc:
        log = ""
        with contextlib.suppress(BisectError):
            log = session.log()
        return BisectReport(
            status="error",
            spec=spec,
            done=None,
            steps=tuple(steps),
            log=log,
            error=str(exc),
        )


def _drive(
    spec: BisectSpec,
    session: BisectSession,
    runner: Runner,
    steps: list[StepResult],
    on_step: OnStep | None,
    max_steps: int | None,
    scratch_root: Path | None,
) -> BisectReport:
    attempt = 0
    while True:
        nxt = session.next_candidate()
        if isinstance(nxt, Done):
            return BisectReport(
                status="found" if nxt.found else "ambiguous",
                spec=spec,
                done=nxt,
                steps=tuple(steps),
                log=nxt.log,
            )
        if max_steps is not None and len(steps) >= max_steps:
            return BisectReport(
                status="paused",
                spec=spec,
                done=None,
                steps=tuple(steps),
                log=session.log(),
            )
        result = run_step(
            spec,
            session,
            runner,
            nxt.commit,
            attempt=attempt,
            scratch_root=scratch_root,
        )
        steps.append(result)
        action = next_action(spec, result)
        if isinstance(action, Record):
            session.record(nxt.commit, action.verdict)
            attempt = 0
        elif isinstance(action, Retry):
            attempt = action.attempt
        else:
            return BisectReport(
                status="error",
                spec=spec,
                done=None,
                steps=tuple(steps),
                log=session.log(),
                error=action.reason,
            )
        if on_step is not None:
            on_step(result, session)


@contextlib.contextmanager
def job_worktree(spec: BisectSpec, cache: RepoCache, workdir: Path | None = None) -> Iterator[Path]:
    """A worktree of the cached clone for one job, removed afterwards (in a temp dir by default)."""
    cache.ensure(spec.repo, [spec.good, spec.bad])
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="whodunnet-bisect-")))
        path = stack.enter_context(cache.worktree(spec.repo, workdir / "worktree", spec.bad))
        yield path


def run_bisect(
    spec: BisectSpec,
    *,
    cache: RepoCache,
    runner: Runner | None = None,
    workdir: Path | None = None,
    on_step: OnStep | None = None,
) -> BisectReport:
    """Bisect ``spec`` from start to end in a temporary worktree; git failures end as ``error``."""
    try:
        with job_worktree(spec, cache, workdir) as worktree:
            session = BisectSession.start(spec, worktree)
            return drive(spec, session, runner or LocalRunner(), on_step=on_step)
    except BisectError as exc:
        return BisectReport(status="error", spec=spec, done=None, steps=(), log="", error=str(exc))
