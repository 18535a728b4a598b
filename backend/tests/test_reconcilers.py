"""The reconcilers re-send work whose message may be lost, without flooding a queue that is only slow.

A run or step still waiting after the stale time is re-sent once; if it still waits, the next re-send comes
after twice that, then four times... A claim (the message arrived) resets this, so a worker that dies later
is recovered at the next sweep.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from analysis import services
from analysis.models import AnalysisRun
from bisects.models import BisectJob, BisectStep
from bisects.services import steps
from evidence.uploads import receive_upload
from outbox.models import Message
from tests.conftest import DATA


def queued_run(incident: Any, user: User) -> AnalysisRun:
    with open(DATA / "loopback" / "nstat-after.txt", "rb") as stream:
        evidence = receive_upload(
            user=user, incident=incident, filename="nstat.txt", stream=stream, content_length=None
        )
    run = AnalysisRun.objects.get(evidence=evidence)
    AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - dt.timedelta(hours=3))
    return run


def sent_for(task: str, row_id: int) -> int:
    return sum(1 for m in Message.objects.filter(task=task) if m.args == [row_id])


@pytest.mark.django_db
def test_it_resends_a_waiting_run_once_then_backs_off(owner: User, incident: Any) -> None:
    run = queued_run(incident, owner)
    before = sent_for("analysis.analyze_evidence", run.pk)

    assert services.reconcile_runs() == 1
    assert services.reconcile_runs() == 0  # the next sweep, seconds later: still waiting, not re-sent
    assert sent_for("analysis.analyze_evidence", run.pk) == before + 1
    run.refresh_from_db()
    assert run.resend_after is not None
    first_wait = run.resend_after - timezone.now()
    assert (
        dt.timedelta(seconds=settings.RUN_STALE_SECONDS - 5)
        < first_wait
        <= dt.timedelta(seconds=settings.RUN_STALE_SECONDS)
    )

    AnalysisRun.objects.filter(pk=run.pk).update(resend_after=timezone.now() - dt.timedelta(seconds=1))
    assert services.reconcile_runs() == 1
    run.refresh_from_db()
    assert run.resends == 2 and run.resend_after is not None
    assert run.resend_after - timezone.now() > dt.timedelta(seconds=2 * settings.RUN_STALE_SECONDS - 5)


@pytest.mark.django_db
def test_a_claim_resets_the_backoff_so_a_dead_worker_is_recovered_at_the_next_sweep(owner: User, incident: Any) -> None:
    run = queued_run(incident, owner)
    AnalysisRun.objects.filter(pk=run.pk).update(resends=5, resend_after=timezone.now() + dt.timedelta(hours=1))

    assert services.claim_run(run_id=run.pk) is not None
    run.refresh_from_db()
    assert (run.resends, run.resend_after) == (0, None)
    # The worker dies: its heartbeat goes stale, and the very next sweep re-sends the run.
    AnalysisRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - dt.timedelta(hours=1))
    assert services.reconcile_runs() == 1


@pytest.mark.django_db
def test_it_backs_off_a_bisect_step_waiting_behind_a_long_one(owner: User, incident: Any) -> None:
    job = BisectJob.objects.create(incident=incident, good="a", bad="b", repo="/r", command="true")
    step = BisectStep.objects.create(job=job, index=0)
    BisectStep.objects.filter(pk=step.pk).update(queued_at=timezone.now() - dt.timedelta(hours=3))

    sweeps = [steps.reconcile_steps() for _ in range(20)]

    assert sweeps == [1] + [0] * 19
    assert sent_for("bisects.run_step", step.pk) == 1
