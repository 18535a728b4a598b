"""The outbox relay: beat sends it every few seconds; each worker runs it once when it starts."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from outbox import dispatch, services


@shared_task(name=dispatch.RELAY, ignore_result=True)
def relay_outbox() -> int:
    """Send the messages whose commit-time send failed (the broker was down)."""
    return services.relay_pending()


@worker_ready.connect
def _relay_on_start(**_: Any) -> None:
    # A worker starting means the broker is reachable: send what piled up while it was not.
    services.relay_pending()
