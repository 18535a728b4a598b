"""Analyses and bisect steps run on their own queues and workers: a long step never delays an analysis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis.models import AnalysisRun
from bisects.models import BisectStep
from config.celery import app
from config.queues import BISECT
from tests.conftest import DATA, client_for
from tests.gitrepo import git
from tests.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

STEP_SECONDS = 60


def small_repo(path: Path) -> None:
    """Three commits tagged good (the first) and bad (the last): one candidate to test in between."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    for i in range(3):
        (path / "value.txt").write_text(f"{i}\n")
        git(path, "add", "-A")
        git(path, "commit", "--quiet", "-m", f"change {i}")
        if i == 0:
            git(path, "tag", "good")
    git(path, "tag", "bad")


@pytest.fixture
def workers(evidence_dir: Path, tmp_path: Path, bisect_cache: Path) -> Iterator[dict[str, WorkerProcess]]:
    app.control.purge()
    started = {}
    for kind in ("analysis", "bisect"):
        log_dir = tmp_path / f"{kind}-logs"
        log_dir.mkdir()
        started[kind] = WorkerProcess(
            kind=kind,
            evidence_dir=evidence_dir,
            log_dir=log_dir,
            extra_env={"WHODUNNET_BISECT_CACHE_DIR": str(bisect_cache)},
        ).start()
    # Each worker sends the reconcilers as it starts (analysis/tasks.py, bisects/tasks.py) and the analysis worker
    # runs them. Let both sweeps run before the test queues its step: on a loaded machine a sweep that came later
    # than the test's stale age (3 s, tests/worker.py) after the step was queued would rightly re-queue it, leaving
    # a second message on the bisect queue behind the running step.
    for worker in started.values():
        worker.wait_ready()
    wait_for(
        lambda: started["analysis"].count(r"bisects\.reconcile_steps\[\S+\] succeeded") >= 2,
        timeout=60,
        what="the start-up reconcilers",
        worker=started["analysis"],
    )
    yield started
    for worker in started.values():
        worker.stop()


def test_it_finishes_an_analysis_while_a_long_bisect_step_holds_the_bisect_worker(
    owner: User, incident: Any, workers: dict[str, WorkerProcess], tmp_path: Path
) -> None:
    small_repo(tmp_path / "repo")
    client = client_for(owner)
    bisect = client.post(
        f"/api/incidents/{incident.pk}/bisects/",
        {
            "repo": str(tmp_path / "repo"),
            "good": "good",
            "bad": "bad",
            "command": f"sleep {STEP_SECONDS}",
            "step_timeout": STEP_SECONDS * 2,
        },
        format="json",
    )
    assert bisect.status_code == 201, bisect.content

    def testing() -> BisectStep | None:
        return BisectStep.objects.filter(job_id=bisect.json()["id"], status="running").exclude(commit="").first()

    step = wait_for(testing, timeout=60, what="the bisect worker to be running the step", worker=workers["bisect"])

    upload = client.post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=client.pcap",
        (DATA / "retransmit-fast009.pcap").read_bytes(),
        content_type="application/octet-stream",
    )
    assert upload.status_code == 201, upload.content

    def analysed() -> AnalysisRun | None:
        run = AnalysisRun.objects.get(evidence_id=upload.json()["id"])
        return run if run.status in ("done", "failed") else None

    run = wait_for(analysed, timeout=STEP_SECONDS / 2, what="the analysis to finish", worker=workers["analysis"])
    assert run.status == "done", run.error
    step.refresh_from_db()
    assert step.status == "running", "the step was expected to be still running: the test proves nothing"
    # Each worker took only its own queue's tasks (a worker logs "Task <name>[<id>] received").
    assert "analysis.analyze_evidence[" in workers["analysis"].logs()
    assert "analysis.analyze_evidence[" not in workers["bisect"].logs()
    assert "bisects.run_step[" in workers["bisect"].logs()
    assert "bisects.run_step[" not in workers["analysis"].logs()
    with app.connection_for_read() as connection:
        # (name, message_count, consumer_count); the stubs say str.
        declared: Any = app.amqp.queues[BISECT].bind(connection.default_channel).queue_declare()
        waiting = declared.message_count
    assert waiting == 0, "an analysis message was also delivered to the bisect queue"

    # Cancelling stops the running reproducer at its next heartbeat, so the workers stop promptly.
    assert client.post(f"/api/incidents/{incident.pk}/bisects/{bisect.json()['id']}/cancel/").status_code == 200
