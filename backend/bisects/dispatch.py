"""Where the bisects app sends its Celery tasks, and the only place: by stable name, through the outbox.

Like ``analysis.dispatch``: services never import ``bisects.tasks`` (which imports them), and a queued message
names a task, not a module. ``config/queues.py`` puts steps and watch checks on the bisect queue. Messages
are written to the outbox in the caller's transaction and sent after the commit, or by the relay once a
broker that was down is back (``outbox/services.py``).
"""

from __future__ import annotations

from celery import current_app

from outbox import services as outbox

RUN_STEP = "bisects.run_step"
CHECK_WATCH = "bisects.check_watch"
TICK_SCHEDULES = "bisects.tick_schedules"
RECONCILE_STEPS = "bisects.reconcile_steps"


def run_step(*, step_id: int, time_limit: int) -> None:
    """Have a bisect worker test the step's candidate; ``time_limit`` is the task's hard limit (seconds)."""
    outbox.send(task=RUN_STEP, args=[step_id], options={"time_limit": time_limit})


def check_watch(*, firing_id: int) -> None:
    """Have a bisect worker test a watch's newest tag or branch head once."""
    outbox.send(task=CHECK_WATCH, args=[firing_id])


def reconcile() -> None:
    """Have a worker re-queue the steps and watch checks whose message was lost or whose worker died.

    Straight to the broker, like ``analysis.dispatch.reconcile``: a sweep beat repeats, that no row waits for.
    """
    current_app.send_task(RECONCILE_STEPS)
