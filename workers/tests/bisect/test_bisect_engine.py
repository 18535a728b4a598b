"""The bisect engine against a real git repository with a planted regression (see conftest)."""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

from bisect_testrepo import PlantedRepo

from whodunnet.bisect.driver import drive, run_bisect
from whodunnet.bisect.repo import RepoCache
from whodunnet.bisect.runner import LocalRunner
from whodunnet.bisect.session import BisectSession, Candidate, Done
from whodunnet.bisect.spec import BisectSpec, MetricRule
from whodunnet.bisect.step import StepResult, run_step


def spec_for(repo: PlantedRepo, script: Path, **kwargs: object) -> BisectSpec:
    return BisectSpec(
        repo=str(repo.path),
        good=repo.good,
        bad=repo.bad,
        command=(str(script),),
        step_timeout=30.0,
        **kwargs,  # type: ignore[arg-type]
    )


def commits_of(steps: tuple[StepResult, ...]) -> list[str]:
    return [step.commit for step in steps]


def bisect_commands(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("git bisect ")]


def test_the_fixture_has_over_a_thousand_commits_with_merges(
    planted_repo: PlantedRepo,
) -> None:
    merges = subprocess.run(
        ["git", "rev-list", "--count", "--merges", "v1.0..v2.0"],
        cwd=planted_repo.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert planted_repo.commits >= 1000
    assert int(merges) >= 20


def test_it_finds_the_planted_regression_within_log2_steps(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    assert report.status == "found", report.error
    assert report.done is not None and report.done.first_bad is not None
    first_bad = report.done.first_bad
    assert first_bad.id == planted_repo.planted
    assert first_bad.title == "tcp: shrink the default send buffer"
    assert first_bad.author.startswith("Dev ")
    assert first_bad.date.startswith("2023-")
    assert set(first_bad.files) == {"net/ipv4/value.txt", "net/ipv4/tcp_output.c"}
    assert len(report.steps) <= planted_repo.max_steps, [s.verdict for s in report.steps]
    assert f"# first bad commit: [{planted_repo.planted}]" in report.log


def test_it_skips_commits_where_the_build_is_broken(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    skipped = [s.commit for s in report.steps if s.verdict == "skip"]
    assert skipped, "the first midpoint should land in the broken range"
    assert set(skipped) <= planted_repo.broken
    assert all(f"git bisect skip {c}" in report.log for c in skipped)


def test_it_resumes_from_the_stored_log_alone_in_a_new_worktree(
    planted_repo: PlantedRepo, tmp_path: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])
    runner = LocalRunner()
    first_worker = RepoCache(tmp_path / "worker-1")
    worktree = first_worker.add_worktree(spec.repo, tmp_path / "job-a", spec.bad)
    session = BisectSession.start(spec, worktree)
    before = drive(spec, session, runner, max_steps=4)
    stored_log = before.log
    expected_next = session.next_candidate()
    first_worker.remove_worktree(spec.repo, worktree)
    del session

    # Another worker, another clone, another worktree: only the log text carries over.
    second_worker = RepoCache(tmp_path / "worker-2")
    other = second_worker.add_worktree(spec.repo, tmp_path / "job-b", spec.bad)
    resumed = BisectSession.resume(spec, other, stored_log)
    assert resumed.next_candidate() == expected_next
    after = drive(spec, resumed, runner)

    assert before.status == "paused" and len(before.steps) == 4
    assert after.status == "found", after.error
    assert after.done is not None and after.done.first_bad is not None
    assert after.done.first_bad.id == planted_repo.planted
    assert bisect_commands(after.log)[: len(bisect_commands(stored_log))] == bisect_commands(stored_log)
    assert set(commits_of(before.steps)).isdisjoint(commits_of(after.steps))
    assert len(before.steps) + len(after.steps) <= planted_repo.max_steps


def test_it_records_a_step_again_without_changing_the_log(
    planted_repo: PlantedRepo, tmp_path: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])
    cache = RepoCache(tmp_path / "cache")
    with cache.worktree(spec.repo, tmp_path / "job", spec.bad) as worktree:
        session = BisectSession.start(spec, worktree)
        candidate = session.next_candidate()
        assert isinstance(candidate, Candidate)
        session.record(candidate.commit, "bad")
        log = session.log()

        # A worker died after recording but before the database saw it; the step runs again.
        again = BisectSession.resume(spec, worktree, log)
        again.record(candidate.commit, "bad")

        assert again.log() == log
        assert log.count(f"git bisect bad {candidate.commit}") == 1


def test_it_estimates_the_steps_left_from_the_remaining_range(
    planted_repo: PlantedRepo, tmp_path: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])
    cache = RepoCache(tmp_path / "cache")
    with cache.worktree(spec.repo, tmp_path / "job", spec.bad) as worktree:
        session = BisectSession.start(spec, worktree)
        first = session.next_candidate()
        assert isinstance(first, Candidate)
        second = session.record(first.commit, "good")

    assert first.revisions_left == planted_repo.commits
    assert first.steps_left == math.ceil(math.log2(planted_repo.commits))
    assert isinstance(second, Candidate)
    assert second.revisions_left < first.revisions_left * 0.6
    assert second.steps_left == math.ceil(math.log2(second.revisions_left))


def test_a_flaky_reproducer_with_five_repeats_still_finds_the_regression(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["flaky"], repeats=5)

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    assert report.status == "found", report.error
    assert report.done is not None and report.done.first_bad is not None
    assert report.done.first_bad.id == planted_repo.planted
    good_runs = [r for s in report.steps if s.verdict == "good" for r in s.runs]
    assert any(r.exit_code == 1 for r in good_runs), "the reproducer should have flaked"


def test_the_metric_rule_judges_by_the_printed_value(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(
        planted_repo,
        scripts["metric"],
        rule=MetricRule(metric="transfer_seconds", threshold=15.0, direction="above_is_bad"),
    )

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    assert report.status == "found", report.error
    assert report.done is not None and report.done.first_bad is not None
    assert report.done.first_bad.id == planted_repo.planted
    values = {s.verdict: s.runs[0].metric_value for s in report.steps if s.verdict in ("good", "bad")}
    assert values == {"good": 10.0, "bad": 25.0}


def test_a_reproducer_that_times_out_is_a_step_error_and_its_processes_are_killed(
    planted_repo: PlantedRepo, tmp_path: Path
) -> None:
    pidfile = tmp_path / "child.pid"
    spec = BisectSpec(
        repo=str(planted_repo.path),
        good=planted_repo.good,
        bad=planted_repo.bad,
        command=f"sleep 60 & echo $! > {pidfile}; wait",
        step_timeout=0.5,
    )
    cache = RepoCache(tmp_path / "cache")
    with cache.worktree(spec.repo, tmp_path / "job", spec.bad) as worktree:
        session = BisectSession.start(spec, worktree)
        candidate = session.next_candidate()
        assert isinstance(candidate, Candidate)
        result = run_step(spec, session, LocalRunner(kill_grace=0.2), candidate.commit)
        report = drive(spec, session, LocalRunner(kill_grace=0.2))

    assert result.verdict == "error"
    assert result.runs[0].timed_out and result.runs[0].exit_code is None
    assert result.duration < 5
    child = int(pidfile.read_text())
    assert not _alive(child)
    assert report.status == "error" and report.error and "timed out" in report.error
    assert "git bisect bad" not in report.log and "git bisect good" not in report.log


def test_the_path_filter_only_tests_commits_touching_the_path(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"], path="net/ipv4")

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    assert report.status == "found", report.error
    assert report.done is not None and report.done.first_bad is not None
    assert report.done.first_bad.id == planted_repo.planted
    assert report.done.first_bad.touches_path is True
    assert "'--' 'net/ipv4'" in report.log
    touching = set(
        subprocess.run(
            ["git", "rev-list", "v1.0..v2.0", "--", "net/ipv4"],
            cwd=planted_repo.path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    )
    assert set(commits_of(report.steps)) <= touching
    assert len(report.steps) <= math.ceil(math.log2(planted_repo.path_commits)) + 3


def test_it_reports_the_possible_commits_when_only_skipped_ones_are_left(
    planted_repo: PlantedRepo, shared_cache: Path, scripts: dict[str, Path]
) -> None:
    spec = BisectSpec(
        repo=str(planted_repo.path),
        good=planted_repo.good,
        bad=planted_repo.bad,
        command=f'[ "$WHODUNNET_COMMIT" = {planted_repo.planted} ] && exit 125; exec {scripts["plain"]}',
        step_timeout=30.0,
    )

    report = run_bisect(spec, cache=RepoCache(shared_cache))

    assert report.status == "ambiguous", report.error
    assert isinstance(report.done, Done)
    assert report.done.first_bad is None
    assert planted_repo.planted in report.done.possible_first_bad


def test_the_cache_clones_once_and_worktrees_do_not_share_bisect_state(
    planted_repo: PlantedRepo, tmp_path: Path, scripts: dict[str, Path]
) -> None:
    spec = spec_for(planted_repo, scripts["plain"])
    cache = RepoCache(tmp_path / "cache")
    with (
        cache.worktree(spec.repo, tmp_path / "a", spec.bad) as a,
        cache.worktree(str(planted_repo.path) + "/", tmp_path / "b", spec.bad) as b,
    ):
        one = BisectSession.start(spec, a)
        two = BisectSession.start(spec, b)
        first = one.next_candidate()
        assert isinstance(first, Candidate)
        one.record(first.commit, "good")

        assert "git bisect good" not in two.log()
        assert two.next_candidate() == first
    assert [p.name for p in (tmp_path / "cache").glob("*.git")] == [cache.clone_path(spec.repo).name]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
