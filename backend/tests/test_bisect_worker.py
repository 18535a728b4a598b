"""Bisect jobs through the broker and real worker processes, on a real 1,000+ commit git repository.

The repository comes from the engine's own test builder (workers/tests/bisect/bisect_testrepo.py):
merges, a range where the build is broken (the reproducer exits 125) and one planted regression.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.contrib.auth.models import User

from bisects.models import BisectJob, BisectStep, ScheduleFiring, WatchState
from bisects.services import schedules
from config.celery import app
from incidents.models import TimelineEvent
from tests.conftest import client_for
from tests.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

TESTREPO = Path(__file__).resolve().parents[2] / "workers" / "tests" / "bisect" / "bisect_testrepo.py"


def _load_testrepo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bisect_testrepo", TESTREPO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bisect_testrepo"] = module
    spec.loader.exec_module(module)
    return module


testrepo = _load_testrepo()


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return testrepo.build_planted_repo(tmp_path_factory.mktemp("planted") / "repo")


class Workers:
    """Starts worker processes, each with its own clone cache (as on separate hosts)."""

    def __init__(self, evidence_dir: Path, tmp_path: Path, cache_root: Path) -> None:
        self.evidence_dir = evidence_dir
        self.tmp_path = tmp_path
        self.cache_root = cache_root
        self.started: list[WorkerProcess] = []

    def start(self, kind: str = "bisect") -> WorkerProcess:
        n = len(self.started)
        cache = self.cache_root / f"bisect-cache-{n}"
        worker = WorkerProcess(
            kind=kind,
            evidence_dir=self.evidence_dir,
            log_dir=self.tmp_path,
            extra_env={"WHODUNNET_BISECT_CACHE_DIR": str(cache)},
        ).start()
        self.started.append(worker)
        return worker

    def stop(self) -> None:
        for worker in self.started:
            worker.stop()


@pytest.fixture
def workers(evidence_dir: Path, tmp_path: Path, bisect_cache: Path) -> Iterator[Workers]:
    app.control.purge()
    pool = Workers(evidence_dir, tmp_path, bisect_cache)
    yield pool
    pool.stop()


def start_job(user: User, incident: Any, planted: Any, command: str, **extra: Any) -> int:
    body = {
        "repo": str(planted.path),
        "good": planted.good,
        "bad": planted.bad,
        "command": command,
        "step_timeout": 30,
        **extra,
    }
    response = client_for(user).post(f"/api/incidents/{incident.pk}/bisects/", body, format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def finished(job_id: int) -> BisectJob | None:
    job = BisectJob.objects.get(pk=job_id)
    return job if job.is_terminal else None


def recorded_steps(job: BisectJob) -> list[BisectStep]:
    return list(job.steps.filter(status="done").order_by("index"))


def bisect_commands(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("git bisect ")]


def assert_found_once(job: BisectJob, planted: Any) -> list[BisectStep]:
    assert job.status == "found", (job.status, job.error)
    assert job.first_bad_commit == planted.planted
    assert job.first_bad_title == "tcp: shrink the default send buffer"
    assert set(job.first_bad_files) == {"net/ipv4/value.txt", "net/ipv4/tcp_output.c"}
    steps = recorded_steps(job)
    assert len(steps) <= planted.max_steps, [(s.commit[:8], s.verdict) for s in steps]
    assert [s.index for s in job.steps.order_by("index")] == list(range(job.steps.count()))
    verdicts = bisect_commands(job.log)[1:]  # after "git bisect start"
    judged = [line.split()[-1] for line in verdicts]
    assert len(judged) == len(set(judged)), "a commit was recorded twice in the bisect log"
    events = TimelineEvent.objects.filter(incident=job.incident, kind="bisect_step", data__bisect=job.pk)
    assert events.count() == len(steps), "a step was posted to the timeline twice"
    return steps


def test_it_finds_the_planted_regression_in_a_real_worker_within_log2_steps(
    owner: User, teammate: User, incident: Any, planted: Any, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    job_id = start_job(owner, incident, planted, testrepo.REPRODUCER)

    job = wait_for(lambda: finished(job_id), timeout=90, what="the bisect to finish", worker=worker)

    steps = assert_found_once(job, planted)
    skipped = [s.commit for s in steps if s.verdict == "skip"]
    assert skipped and set(skipped) <= planted.broken
    assert job.steps_done == len(steps) and job.steps_left == 0 and job.revisions_left == 1
    body = client_for(teammate).get(f"/api/incidents/{incident.pk}/bisects/{job_id}/").json()
    assert body["first_bad"]["id"] == planted.planted
    assert body["progress"]["seconds_left"] == 0.0
    assert all(s["runs"] and s["duration"] is not None for s in body["steps"])
    assert f"# first bad commit: [{planted.planted}]" in body["log"]
    finished_event = TimelineEvent.objects.get(incident=incident, kind="bisect_finished")
    assert planted.planted[:12] in finished_event.summary


def test_it_resumes_from_the_stored_log_after_its_worker_is_killed_mid_step(
    owner: User, incident: Any, planted: Any, workers: Workers, tmp_path: Path
) -> None:
    slow = testrepo.REPRODUCER.replace("#!/bin/sh\n", "#!/bin/sh\nsleep 0.4\n", 1)
    workers.start("analysis")  # serves the housekeeping queue the reconciler runs on, as in production
    first = workers.start()
    job_id = start_job(owner, incident, planted, slow)

    def running_step() -> BisectStep | None:
        return BisectStep.objects.filter(job_id=job_id, status="running", index__gte=3).exclude(commit="").first()

    victim = wait_for(running_step, timeout=60, what="the fourth step to be running", worker=first)
    time.sleep(0.15)  # inside the reproducer's sleep
    first.kill()
    victim.refresh_from_db()
    assert victim.status == "running" and victim.claims == 1
    log_at_kill = BisectJob.objects.get(pk=job_id).log

    time.sleep(3.5)  # the dead step's heartbeat goes stale; the new worker's start-up reconcile re-queues it
    second = workers.start()
    job = wait_for(lambda: finished(job_id), timeout=90, what="the bisect to finish on a new worker", worker=second)

    assert_found_once(job, planted)
    victim.refresh_from_db()
    assert victim.status == "done" and victim.claims == 2
    assert job.log.startswith(log_at_kill.rstrip("\n").rsplit("\n", 1)[0])
    assert job.steps.filter(commit=victim.commit, attempt=victim.attempt).count() == 1


def test_it_finds_the_regression_with_a_flaky_reproducer_and_five_repeats(
    owner: User, incident: Any, planted: Any, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    job_id = start_job(owner, incident, planted, testrepo.FLAKY_REPRODUCER, repeats=5)

    job = wait_for(lambda: finished(job_id), timeout=120, what="the flaky bisect to finish", worker=worker)

    assert job.status == "found", job.error
    assert job.first_bad_commit == planted.planted
    steps = recorded_steps(job)
    assert max(len(s.runs) for s in steps) == 5
    # Some good commit had a false failure among its runs and was still judged good.
    outvoted = [s for s in steps if s.verdict == "good" and any(r["exit_code"] == 1 for r in s.runs)]
    assert outvoted, [(s.verdict, [r["exit_code"] for r in s.runs]) for s in steps]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def test_a_watch_that_turns_bad_starts_exactly_one_bisect(
    owner: User, incident: Any, workers: Workers, tmp_path: Path
) -> None:
    planted = testrepo.build_planted_repo(tmp_path / "watched")
    bad_commit = git(planted.path, "rev-parse", "v2.0")
    good_commit = git(planted.path, "rev-parse", "v1.0")
    git(planted.path, "tag", "-d", "v2.0")  # the regressing release is not out yet
    schedule = schedules.create_schedule(
        user=owner,
        incident=incident,
        values={
            "name": "releases",
            "kind": "watch",
            "repo": str(planted.path),
            "tag_pattern": "v*",
            "interval_minutes": 60,
            "command": testrepo.REPRODUCER,
            "step_timeout": 30,
        },
    )
    worker = workers.start()
    t0 = dt.datetime(2026, 5, 1, 10, 5, tzinfo=dt.UTC)

    def firings_done(count: int) -> bool:
        return ScheduleFiring.objects.filter(schedule=schedule, status="done").count() >= count

    assert schedules.tick_schedules(now=t0) == 1
    wait_for(lambda: firings_done(1), timeout=60, what="the first watch check", worker=worker)
    schedule.refresh_from_db()
    assert (schedule.state, schedule.last_good_ref, schedule.last_good_commit) == ("good", "v1.0", good_commit)

    git(planted.path, "tag", "v2.0", bad_commit)  # the new release regresses
    later = t0 + dt.timedelta(hours=1)
    fired = [schedules.tick_schedules(now=later), schedules.tick_schedules(now=later + dt.timedelta(minutes=1))]
    assert fired == [1, 0]
    wait_for(lambda: firings_done(2), timeout=60, what="the second watch check", worker=worker)
    # A later period tests the same (still bad) release: no second bisect.
    assert schedules.tick_schedules(now=t0 + dt.timedelta(hours=2)) == 1
    wait_for(lambda: firings_done(3), timeout=60, what="the third watch check", worker=worker)

    jobs = list(BisectJob.objects.filter(incident=incident))
    assert len(jobs) == 1
    assert (jobs[0].good, jobs[0].bad, jobs[0].started_by) == (good_commit, bad_commit, None)
    schedule.refresh_from_db()
    assert schedule.state == WatchState.BAD
    started = TimelineEvent.objects.get(incident=incident, kind="bisect_started")
    assert "v2.0 regressed against v1.0" in started.summary
    job = wait_for(lambda: finished(jobs[0].pk), timeout=90, what="the watch's bisect to finish", worker=worker)
    assert job.status == "found" and job.first_bad_commit == planted.planted
