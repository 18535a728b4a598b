"""Celery entry points of the evidence app: thin, they only call a service."""

from __future__ import annotations

from celery import shared_task

from evidence import dispatch, services, uploads


@shared_task(name=dispatch.REAP_UPLOADS, ignore_result=True)
def reap_uploads() -> int:
    """Remove stale unfinished uploads and orphaned part files (scheduled by beat, config/beat.py)."""
    return uploads.reap_uploads()


@shared_task(name=dispatch.PURGE_DELETED, ignore_result=True)
def purge_deleted() -> int:
    """Remove deleted evidence whose grace period is over (scheduled by beat, config/beat.py)."""
    return services.purge_deleted()
