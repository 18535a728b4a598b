"""The one place the bisects app sends its Celery tasks: by stable name, once the transaction commits.

Services call these functions instead of importing ``bisects.tasks`` (which imports the services back): the
broker, beat and this module know a task by its name alone, so moving or renaming a module never strands a
queued message. Which queue each task goes on is decided in ``config/queues.py``. Outside a transaction (a
reconciler, a worker starting) ``on_commit`` sends at once.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction

RUN_STEP = "bisects.run_step"
CHECK_WATCH = "bisects.check_watch"
TICK_SCHEDULES = "bisects.tick_schedules"
RECONCILE_STEPS = "bisects.reconcile_steps"


def run_step(*, step_id: int, time_limit: int) -> None:
    """Have a bisect worker test the step's candidate; ``time_limit`` is the task's hard limit (seconds)."""
    _send_on_commit(RUN_STEP, step_id, time_limit=time_limit)


def check_watch(*, firing_id: int) -> None:
    """Have a bisect worker test a watch's newest tag or branch head once."""
    _send_on_commit(CHECK_WATCH, firing_id)


def reconcile() -> None:
    """Have a worker re-queue the steps and watch checks whose message was lost or whose worker died."""
    _send_on_commit(RECONCILE_STEPS)


def _send_on_commit(name: str, *args: Any, **options: Any) -> None:
    transaction.on_commit(lambda: current_app.send_task(name, args=args, **options))
