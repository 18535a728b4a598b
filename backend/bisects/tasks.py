"""Celery entry points: thin, take ids, call a service."""

from __future__ import annotations

import logging
import socket
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.utils import timezone

from bisects import services
from bisects.models import FiringStatus, ScheduleFiring

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_bisect_step(step_id: int) -> None:
    """Test one candidate commit of a bisect; a no-op if the step is done or held by a live worker."""
    services.execute_step(step_id=step_id, worker=socket.gethostname())


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def check_watch(firing_id: int) -> None:
    """Test a watch's newest tag or branch head once; may start one bisect."""
    try:
        services.check_watch(firing_id=firing_id)
    except Exception as exc:
        logger.exception("watch check %s crashed", firing_id)
        ScheduleFiring.objects.filter(pk=firing_id, status=FiringStatus.RUNNING).update(
            status=FiringStatus.FAILED,
            detail=f"internal error: {type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
            claim_token=None,
        )


@shared_task(ignore_result=True)
def tick_bisect_schedules() -> int:
    """Fire the bisect schedules and watches due now, once per period (scheduled by beat)."""
    return services.tick_schedules()


@shared_task(ignore_result=True)
def reconcile_bisect_steps() -> int:
    """Re-queue bisect steps whose enqueue was lost or whose worker died (scheduled by beat)."""
    return services.reconcile_steps()


@worker_ready.connect
def _reconcile_on_start(**_: Any) -> None:
    # A worker that starts after a crash continues orphaned bisects at once, not at the next beat.
    reconcile_bisect_steps.delay()
