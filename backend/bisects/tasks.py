"""Celery entry points: thin, take ids, call one service, write nothing themselves.

Each task is registered under the stable name ``bisects.dispatch`` sends it by.
"""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from bisects import dispatch
from bisects.services import schedules, steps


@shared_task(name=dispatch.RUN_STEP, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_bisect_step(step_id: int) -> None:
    """Test one candidate commit of a bisect; a no-op if the step is done or held by a live worker."""
    steps.execute_step(step_id=step_id, worker=socket.gethostname())


@shared_task(name=dispatch.CHECK_WATCH, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def check_watch(firing_id: int) -> None:
    """Test a watch's newest tag or branch head once; may start one bisect."""
    schedules.check_watch(firing_id=firing_id)


@shared_task(name=dispatch.TICK_SCHEDULES, ignore_result=True)
def tick_bisect_schedules() -> int:
    """Fire the bisect schedules and watches due now, once per period (scheduled by beat)."""
    return schedules.tick_schedules()


@shared_task(name=dispatch.RECONCILE_STEPS, ignore_result=True)
def reconcile_bisect_steps() -> int:
    """Re-queue bisect steps and watch checks whose enqueue was lost or whose worker died (scheduled by beat)."""
    return steps.reconcile_steps() + schedules.reconcile_firings()


@worker_ready.connect
def _reconcile_on_start(**_: Any) -> None:
    # A worker that starts after a crash continues orphaned bisects at once, not at the next beat.
    dispatch.reconcile()
