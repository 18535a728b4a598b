"""The one place the analysis app sends its Celery tasks: by stable name, once the transaction commits.

Services call these functions instead of importing ``analysis.tasks`` (which imports the services back): the
broker, beat and this module know a task by its name alone, so moving or renaming a module never strands a
queued message. Which queue each task goes on is decided in ``config/queues.py``. Outside a transaction (a
reconciler, a worker starting) ``on_commit`` sends at once.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction

ANALYZE_EVIDENCE = "analysis.analyze_evidence"
CORRELATE_INCIDENT = "analysis.correlate_incident"
RECONCILE_RUNS = "analysis.reconcile_runs"


def analyze(*, run_id: int) -> None:
    """Have an analysis worker run the engine for this run."""
    _send_on_commit(ANALYZE_EVIDENCE, run_id)


def correlate(*, incident_id: int) -> None:
    """Have an analysis worker recompute the findings across this incident's evidence."""
    _send_on_commit(CORRELATE_INCIDENT, incident_id)


def reconcile() -> None:
    """Have a worker re-queue the runs whose message was lost or whose worker died."""
    _send_on_commit(RECONCILE_RUNS)


def _send_on_commit(name: str, *args: Any) -> None:
    transaction.on_commit(lambda: current_app.send_task(name, args=args))
