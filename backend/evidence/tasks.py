"""Celery entry points of the evidence app: thin, they only call a service."""

from __future__ import annotations

from celery import shared_task

from evidence import dispatch, uploads


@shared_task(name=dispatch.REAP_UPLOADS, ignore_result=True)
def reap_uploads() -> int:
    """Remove stale unfinished uploads and orphaned part files (scheduled by beat, config/beat.py)."""
    return uploads.reap_uploads()
