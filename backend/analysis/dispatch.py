"""The one place the analysis app sends its Celery tasks: by stable name, through the outbox.

Services call these functions instead of importing ``analysis.tasks`` (which imports the services back): the
broker, beat and this module know a task by its name alone, so moving or renaming a module never strands a
queued message. Which queue each task goes on is decided in ``config/queues.py``. A task is written to the
outbox in the caller's transaction and sent once it commits, or later by the relay if the broker is down
(``outbox/services.py``); outside a transaction (a reconciler) the row commits and is sent at once.
"""

from __future__ import annotations

from celery import current_app

from outbox import services as outbox

ANALYZE_EVIDENCE = "analysis.analyze_evidence"
CORRELATE_INCIDENT = "analysis.correlate_incident"
RECONCILE_RUNS = "analysis.reconcile_runs"


def analyze(*, run_id: int) -> None:
    """Have an analysis worker run the engine for this run."""
    outbox.send(task=ANALYZE_EVIDENCE, args=[run_id])


def correlate(*, incident_id: int) -> None:
    """Have an analysis worker recompute the findings across this incident's evidence."""
    outbox.send(task=CORRELATE_INCIDENT, args=[incident_id])


def reconcile() -> None:
    """Have a worker re-queue the runs whose message was lost or whose worker died.

    Sent straight to the broker, not through the outbox: it is a sweep that beat repeats every few seconds and
    no row waits for it; it is sent when a worker starts, when the broker is up.
    """
    current_app.send_task(RECONCILE_RUNS)
