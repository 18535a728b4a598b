"""Where the bisects app sends its Celery tasks, and the only place: by stable name, after commit.

Like ``analysis.dispatch``: services never import ``bisects.tasks`` (which imports them), and a queued message
names a task, not a module. ``config/queues.py`` puts steps and watch checks on the bisect queue.
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
