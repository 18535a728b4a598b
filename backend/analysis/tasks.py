"""Celery entry points: thin, take ids, call one service, write nothing themselves.

Each task is registered under the stable name ``analysis.dispatch`` sends it by.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from analysis import dispatch, services


@shared_task(name=dispatch.ANALYZE_EVIDENCE, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def analyze_evidence(run_id: int) -> None:
    """Analyse one piece of evidence; a no-op if its run is finished or held by a live worker."""
    services.execute_run(run_id=run_id)


@shared_task(name=dispatch.CORRELATE_INCIDENT, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def correlate_incident(incident_id: int) -> None:
    """Recompute the findings across an incident's evidence (idempotent: a rerun replaces them)."""
    services.correlate(incident_id=incident_id)


@shared_task(name=dispatch.RECONCILE_RUNS, ignore_result=True)
def reconcile_analysis_runs() -> int:
    """Re-queue runs whose enqueue was lost or whose worker died (scheduled by beat)."""
    return services.reconcile_runs()


@worker_ready.connect
def _reconcile_on_start(**_: Any) -> None:
    # A worker that starts after a crash picks up orphaned runs at once, not at the next beat.
    dispatch.reconcile()
