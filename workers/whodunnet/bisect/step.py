"""One bisect step: run the reproducer R times at a commit and agree on a verdict.

Each run is first judged on its own (:func:`classify_run`) as good, bad, skip or error by the
spec's rule (see ``whodunnet.bisect.spec``). The R runs then combine by the agreement rule
(:func:`combine`):

1. **skip** or **error** when that kind holds a strict majority of the R runs (more than
   R/2): the commit cannot be built, or the reproducer is broken;
2. otherwise **good** or **bad** when at least ``need`` runs say so, where
   ``need = max(floor(R/2) + 1, ceil(min_agreement * R))`` - always a majority, and by
   default (``min_agreement = 0.8``) 1 of 1, 2 of 2, 3 of 3, 4 of 5, 8 of 10;
3. otherwise **inconclusive**.

Skips and errors count in R but never as agreement, so 3 good + 2 errors of 5 is
inconclusive. The default of 80 % is chosen for flaky reproducers: with a reproducer that
fails 20 % of the time on good commits, 5 runs call a good commit bad with probability
0.7 % (at a simple majority, 3 of 5, it would be 5.8 %, a wrong answer in one bisect
out of three or four) and inconclusive with probability 26 %.

An inconclusive step is, by the spec's ``on_inconclusive`` policy, run once more with fresh
runs (``retry_then_skip``; if it is still inconclusive the commit is skipped) or skipped at
once (``skip``). A skip costs a step; a wrong verdict costs the answer. An error stops the
job (``on_error="stop"``, as ``git bisect run`` stops) or skips the commit (``"skip"``).
:func:`next_action` applies these policies, so the CLI and the backend act the same way.

With ``stop_early`` (the default) a step stops running as soon as the remaining runs could
not change the verdict (e.g. 4 good of 5), which matters when a run boots a kernel.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from whodunnet.bisect.runner import Runner, RunOutcome
from whodunnet.bisect.session import BisectSession, Verdict
from whodunnet.bisect.spec import BisectSpec, ExitCodeRule, MetricRule, VerdictRule

RunVerdict = Literal["good", "bad", "skip", "error"]
StepVerdict = Literal["good", "bad", "skip", "error", "inconclusive"]
RUN_VERDICTS: tuple[RunVerdict, ...] = ("good", "bad", "skip", "error")


@dataclass(frozen=True)
class StepResult:
    """The verdict of one step at one commit, the runs behind it, and why."""

    commit: str
    verdict: StepVerdict
    runs: tuple[RunOutcome, ...]
    duration: float
    attempt: int = 0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "verdict": self.verdict,
            "duration": self.duration,
            "attempt": self.attempt,
            "reason": self.reason,
            "runs": [run.to_json() for run in self.runs],
        }


@dataclass(frozen=True)
class Record:
    """Record this verdict with :meth:`BisectSession.record`."""

    verdict: Verdict


@dataclass(frozen=True)
class Retry:
    """Run the same commit again as attempt ``attempt``."""

    attempt: int


@dataclass(frozen=True)
class Stop:
    """End the job with an error."""

    reason: str


Action = Record | Retry | Stop


def classify_run(rule: VerdictRule, run: RunOutcome) -> RunVerdict:
    """Judge one run by the rule: exit codes as ``git bisect run``, or a metric threshold."""
    if run.timed_out or run.exit_code is None:
        return "error"
    if run.exit_code == 125:
        return "skip"
    if isinstance(rule, ExitCodeRule):
        if run.exit_code == 0:
            return "good"
        if 1 <= run.exit_code <= 127:
            return "bad"
        return "error"
    if run.exit_code != 0 or run.metric_value is None:
        return "error"
    return "bad" if rule.is_bad(run.metric_value) else "good"


def describe_failure(rule: VerdictRule, run: RunOutcome) -> str:
    """Why a run was judged an error, in a few words."""
    if run.error:
        return run.error
    code = run.exit_code
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    if isinstance(rule, MetricRule) and code == 0:
        return f"no {rule.metric}=<number> on stdout"
    return f"exit {code}"


def combine(spec: BisectSpec, verdicts: Iterable[RunVerdict]) -> tuple[StepVerdict, str]:
    """The step verdict of the run verdicts so far, and a one-line reason.

    Given fewer than R verdicts it answers as if the step had stopped early, which is
    right only when :func:`decided` says the rest cannot change it.
    """
    counts = Counter(verdicts)
    done = sum(counts.values())
    total = spec.repeats
    need = spec.needed_votes
    summary = ", ".join(f"{counts[v]} {v}" for v in RUN_VERDICTS if counts[v]) or "no runs"
    summary += f" of {done} run{'s' if done != 1 else ''}"
    if done < total:
        summary += f" (stopped early; the other {total - done} could not change the verdict)"
    if counts["error"] * 2 > total:
        return "error", f"{summary}: most of {total} runs failed"
    if counts["skip"] * 2 > total:
        return "skip", f"{summary}: most of {total} runs could not test the commit"
    if counts["bad"] >= need:
        return "bad", f"{summary}: at least {need} of {total} agree"
    if counts["good"] >= need:
        return "good", f"{summary}: at least {need} of {total} agree"
    return "inconclusive", f"{summary}: fewer than {need} of {total} agree"


def decided(spec: BisectSpec, so_far: list[RunVerdict]) -> bool:
    """Whether the remaining runs can no longer change the step verdict."""
    remaining = spec.repeats - len(so_far)
    if remaining <= 0:
        return True
    outcomes = {
        combine(spec, [*so_far, *rest])[0] for rest in itertools.combinations_with_replacement(RUN_VERDICTS, remaining)
    }
    return len(outcomes) == 1


def run_step(
    spec: BisectSpec,
    session: BisectSession,
    runner: Runner,
    commit: str,
    *,
    attempt: int = 0,
    scratch_root: Path | None = None,
) -> StepResult:
    """Run the reproducer up to R times at ``commit`` and apply the agreement rule.

    Every run starts from a clean worktree at ``commit`` and an empty scratch directory
    (removed afterwards). Run indexes continue across attempts (attempt 1 of R=5 runs
    5..9), so a reproducer that seeds itself from ``WHODUNNET_RUN`` is not replayed.
    Nothing is recorded in the bisect; the caller applies :func:`next_action`.
    """
    started = time.monotonic()
    runs: list[RunOutcome] = []
    verdicts: list[RunVerdict] = []
    for i in range(spec.repeats):
        session.checkout(commit)
        scratch = Path(tempfile.mkdtemp(prefix="whodunnet-scratch-", dir=scratch_root))
        try:
            outcome = runner.run(
                spec,
                commit,
                session.workdir,
                scratch,
                run_index=attempt * spec.repeats + i,
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        runs.append(outcome)
        verdicts.append(classify_run(spec.rule, outcome))
        if spec.stop_early and decided(spec, verdicts):
            break
    verdict, reason = combine(spec, verdicts)
    if verdict == "error":
        first = next(r for r, v in zip(runs, verdicts, strict=True) if v == "error")
        reason = f"{reason} (first failure: {describe_failure(spec.rule, first)})"
    return StepResult(
        commit=commit,
        verdict=verdict,
        runs=tuple(runs),
        duration=time.monotonic() - started,
        attempt=attempt,
        reason=reason,
    )


def next_action(spec: BisectSpec, result: StepResult) -> Action:
    """What the job does with a step result, by the spec's inconclusive and error policies."""
    if result.verdict == "good" or result.verdict == "bad" or result.verdict == "skip":
        return Record(result.verdict)
    if result.verdict == "inconclusive":
        if spec.on_inconclusive == "retry_then_skip" and result.attempt == 0:
            return Retry(attempt=1)
        return Record("skip")
    if spec.on_error == "skip":
        return Record("skip")
    return Stop(f"step at {result.commit[:12]} failed: {result.reason}")
