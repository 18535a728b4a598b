"""Verdict rules, the agreement rule and the local runner, without a repository."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from whodunnet.bisect.errors import SpecError
from whodunnet.bisect.runner import TAIL_BYTES, LocalRunner, RunOutcome, parse_metric
from whodunnet.bisect.spec import BisectSpec, ExitCodeRule, MetricRule
from whodunnet.bisect.step import (
    Record,
    Retry,
    RunVerdict,
    StepResult,
    Stop,
    classify_run,
    combine,
    decided,
    next_action,
)


def spec(**kwargs: object) -> BisectSpec:
    base: dict[str, object] = {
        "repo": "/r",
        "good": "g",
        "bad": "b",
        "command": ("true",),
    }
    base.update(kwargs)
    return BisectSpec(**base)  # type: ignore[arg-type]


def outcome(code: int | None, *, timed_out: bool = False, metric: float | None = None) -> RunOutcome:
    return RunOutcome(
        exit_code=code,
        timed_out=timed_out,
        duration=0.1,
        stdout_tail="",
        stderr_tail="",
        metric_value=metric,
    )


@pytest.mark.parametrize(
    ("code", "timed_out", "expected"),
    [
        (0, False, "good"),
        (1, False, "bad"),
        (127, False, "bad"),
        (125, False, "skip"),
        (128, False, "error"),
        (139, False, "error"),
        (-9, False, "error"),
        (None, True, "error"),
    ],
)
def test_it_judges_exit_codes_as_git_bisect_run_does(code: int | None, timed_out: bool, expected: str) -> None:
    assert classify_run(ExitCodeRule(), outcome(code, timed_out=timed_out)) == expected


def test_it_judges_a_metric_against_the_threshold_in_either_direction() -> None:
    above = MetricRule(metric="t", threshold=15.0, direction="above_is_bad")
    below = MetricRule(metric="mbps", threshold=900.0, direction="below_is_bad")

    assert classify_run(above, outcome(0, metric=25.0)) == "bad"
    assert classify_run(above, outcome(0, metric=15.0)) == "good"
    assert classify_run(below, outcome(0, metric=400.0)) == "bad"
    assert classify_run(below, outcome(0, metric=940.0)) == "good"
    assert classify_run(above, outcome(0)) == "error"
    assert classify_run(above, outcome(1, metric=1.0)) == "error"
    assert classify_run(above, outcome(125)) == "skip"


def test_it_reads_the_last_value_of_the_named_metric() -> None:
    text = "warming up\ntransfer_seconds=3\nother_seconds=99 transfer_seconds=39.2\nmy_transfer_seconds=1\n"
    assert parse_metric(text, "transfer_seconds") == 39.2
    assert parse_metric("transfer_seconds=fast", "transfer_seconds") is None
    assert parse_metric("rate=1e3,", "rate") == 1000.0


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        (["good"] * 5, "good"),
        (["good"] * 4 + ["bad"], "good"),
        (["bad"] * 4 + ["good"], "bad"),
        (["good"] * 3 + ["bad"] * 2, "inconclusive"),
        (["good"] * 3 + ["error"] * 2, "inconclusive"),
        (["skip"] * 3 + ["good"] * 2, "skip"),
        (["error"] * 3 + ["bad"] * 2, "error"),
        (["good"] * 4 + ["skip"], "good"),
    ],
)
def test_five_runs_need_four_agreeing_by_default(runs: list[RunVerdict], expected: str) -> None:
    assert combine(spec(repeats=5), runs)[0] == expected


def test_the_agreement_share_is_always_more_than_half() -> None:
    assert spec(repeats=1).needed_votes == 1
    assert spec(repeats=2).needed_votes == 2
    assert spec(repeats=3).needed_votes == 3
    assert spec(repeats=10).needed_votes == 8
    assert spec(repeats=10, min_agreement=0.55).needed_votes == 6
    with pytest.raises(SpecError):
        spec(min_agreement=0.5)


def test_it_stops_running_once_the_rest_cannot_change_the_verdict() -> None:
    five = spec(repeats=5)
    assert decided(five, ["good"] * 4)
    assert decided(five, ["good", "bad", "good", "bad"])
    assert not decided(five, ["good"] * 3)
    assert decided(five, ["skip"] * 3)


def test_an_inconclusive_step_is_retried_once_then_skipped() -> None:
    five = spec(repeats=5)
    first = StepResult(commit="c", verdict="inconclusive", runs=(), duration=1.0, attempt=0)
    second = StepResult(commit="c", verdict="inconclusive", runs=(), duration=1.0, attempt=1)

    assert next_action(five, first) == Retry(attempt=1)
    assert next_action(five, second) == Record("skip")
    assert next_action(spec(repeats=5, on_inconclusive="skip"), first) == Record("skip")


def test_a_step_error_stops_the_job_unless_the_policy_skips() -> None:
    failed = StepResult(commit="c" * 40, verdict="error", runs=(), duration=1.0, reason="boom")

    assert isinstance(next_action(spec(), failed), Stop)
    assert next_action(spec(on_error="skip"), failed) == Record("skip")


def test_the_spec_survives_a_round_trip_through_json() -> None:
    original = spec(
        repeats=3,
        path="net/ipv4",
        rule=MetricRule(metric="transfer_seconds", threshold=15.0, direction="below_is_bad"),
        memory_limit_mb=512,
        command="make -j2 && ./repro",
    )
    assert BisectSpec.from_json(original.to_json()) == original


def test_the_runner_gives_the_reproducer_its_commit_and_an_empty_scratch_dir(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    cmd = 'echo "$WHODUNNET_COMMIT $WHODUNNET_RUN $(pwd)"; ls -A "$WHODUNNET_SCRATCH" | wc -l'
    result = LocalRunner().run(spec(command=cmd), "abc123", tmp_path, scratch, run_index=7)

    assert result.exit_code == 0
    assert result.stdout_tail.split() == ["abc123", "7", str(tmp_path), "0"]


def test_the_runner_keeps_only_the_tail_of_a_long_output(tmp_path: Path) -> None:
    cmd = (
        sys.executable,
        "-c",
        "import sys\nfor i in range(20000): print(f'line {i:06d}', 'x' * 20)",
    )
    result = LocalRunner().run(spec(command=cmd), "c", tmp_path, tmp_path)

    assert len(result.stdout_tail.encode()) <= TAIL_BYTES
    assert result.stdout_tail.startswith("line ")
    assert result.stdout_tail.rstrip().endswith("line 019999 " + "x" * 20)


def test_the_runner_limits_the_memory_of_the_reproducer(tmp_path: Path) -> None:
    cmd = (sys.executable, "-c", "b = bytearray(1 << 30)")
    limited = LocalRunner().run(spec(command=cmd, memory_limit_mb=300), "c", tmp_path, tmp_path)

    assert limited.exit_code == 1
    assert "MemoryError" in limited.stderr_tail


def test_a_reproducer_that_cannot_start_is_an_error_not_bad(tmp_path: Path) -> None:
    result = LocalRunner().run(spec(command=("/nonexistent/repro",)), "c", tmp_path, tmp_path)

    assert result.exit_code is None and result.error
    assert classify_run(ExitCodeRule(), result) == "error"


def test_it_stops_a_running_reproducer_when_the_job_is_cancelled(tmp_path: Path) -> None:
    import threading
    import time

    cancel = threading.Event()
    runner = LocalRunner(cancel=cancel, kill_grace=0.5)
    spec = BisectSpec(repo=str(tmp_path), good="a", bad="b", command="sleep 30", step_timeout=60)
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    outcome = runner.run(spec, "0" * 40, tmp_path, tmp_path)
    assert outcome.error == "cancelled"
    assert outcome.exit_code is None and not outcome.timed_out
    assert time.monotonic() - started < 5
