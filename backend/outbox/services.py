"""Write a task into the outbox with the transaction that needs it; relay what the broker has not taken yet.

``send`` is the only way the apps' ``dispatch.py`` modules queue work: the message row commits with the rows
the task will read, and is sent once that commit happened. A broker that is down at that moment costs nothing
but time: the request still answers 2xx, and ``relay_pending`` (beat's ``outbox.relay``, and each worker as it
starts) sends the message when the broker is back. Every task claims its row, so a message sent twice (the
commit hook and a relay racing) does the work once.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from typing import Any

from celery import current_app
from django.db import transaction
from django.db.models import F

from outbox.models import Message

logger = logging.getLogger(__name__)

# After a commit, the request (or task) that wrote the message tries the broker once and moves on: a broker
# that is down must not hold up an answer the database already gave. The relay retries later.
ON_COMMIT_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
RELAY_BATCH = 200


def send(*, task: str, args: Iterable[Any] = (), options: dict[str, Any] | None = None) -> Message:
    """Queue ``task`` with the current transaction; it reaches the broker after the commit, or later."""
    message = Message.objects.create(task=task, args=list(args), options=options or {})
    transaction.on_commit(lambda: relay(message_ids=[message.pk]), robust=True)
    return message


def relay_pending() -> int:
    """Send every message still waiting (oldest first); stops at the first broker error. Returns how many."""
    sent = 0
    while True:
        ids = list(Message.objects.values_list("pk", flat=True)[:RELAY_BATCH])
        if not ids:
            return sent
        done, failed = _relay(ids)
        sent += done
        if failed or done == 0:
            return sent


def relay(*, message_ids: list[int]) -> int:
    """Send these messages unless another relay holds them or already sent them. Returns how many were sent."""
    return _relay(message_ids)[0]


def _relay(message_ids: list[int]) -> tuple[int, bool]:
    # SKIP LOCKED: a message another relay is sending right now is its business, not a duplicate send.
    with transaction.atomic():
        messages = list(Message.objects.select_for_update(skip_locked=True).filter(pk__in=message_ids))
        sent: list[int] = []
        failed = False
        for message in messages:
            try:
                current_app.send_task(
                    message.task, args=message.args, retry_policy=ON_COMMIT_RETRY_POLICY, **message.options
                )
            except Exception as exc:  # the broker's errors differ by transport; any of them means "later"
                failed = True
                logger.warning("outbox: %s not sent yet (%s); the relay will retry", message, exc)
                Message.objects.filter(pk=message.pk).update(attempts=F("attempts") + 1, last_error=str(exc)[:500])
                break
            sent.append(message.pk)
        Message.objects.filter(pk__in=sent).delete()
    return len(sent), failed


#: A waiting row is re-sent after the stale time, then after 2x, 4x ... that (at most 64x) since its last re-send.
MAX_BACKOFF_DOUBLINGS = 6


def next_resend(*, now: dt.datetime, stale_seconds: float, resends: int) -> dt.datetime:
    """When a reconciler may send a still-waiting row's task again, after it has been re-sent ``resends`` times.

    A run queued behind a long backlog (or a bisect step behind an hours-long one) is not lost, only waiting:
    re-sending it on every sweep would add a no-op message per sweep to the queue. Backing off exponentially
    keeps a lost message's recovery quick (one stale time) and a long wait's duplicates few (log2 of the wait).
    """
    return now + dt.timedelta(seconds=stale_seconds * 2 ** min(resends, MAX_BACKOFF_DOUBLINGS))
