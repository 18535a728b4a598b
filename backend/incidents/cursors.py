"""The timeline's cursors: signed, opaque to clients, naming a place in the (created_at, id) order.

A ``before`` cursor is one key: "the events before this one". An ``after`` cursor is the last key a reader
was given plus the transactions that were still open then (their start times, and the highest id already
delivered from each), because only those can still commit an event at or before that key (``selectors``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.core import signing

SALT = "whodunnet.timeline.cursor"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

Key = tuple[dt.datetime, int]


class BadCursor(ValueError):
    """A cursor this server did not issue for this incident."""


@dataclasses.dataclass(frozen=True)
class After:
    """Everything up to ``key`` was delivered, except what the transactions in ``pending`` may still commit."""

    key: Key | None
    # (start of a transaction open at the last read, highest id of its events delivered so far)
    pending: tuple[tuple[dt.datetime, int], ...] = ()


@dataclasses.dataclass(frozen=True)
class Before:
    key: Key


def _us(moment: dt.datetime) -> int:
    delta = moment - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _moment(us: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=us)


def encode(cursor: After | Before, *, incident_id: int) -> str:
    payload: dict[str, Any] = {"i": incident_id}
    if isinstance(cursor, Before):
        payload["b"] = [_us(cursor.key[0]), cursor.key[1]]
    else:
        payload["a"] = None if cursor.key is None else [_us(cursor.key[0]), cursor.key[1]]
        payload["p"] = [[_us(start), floor] for start, floor in cursor.pending]
    return signing.dumps(payload, salt=SALT, compress=True)


def decode(raw: str, *, incident_id: int) -> After | Before:
    try:
        payload = signing.loads(raw, salt=SALT)
        if payload["i"] != incident_id:
            raise BadCursor("a cursor of another incident")
        if "b" in payload:
            return Before(key=(_moment(int(payload["b"][0])), int(payload["b"][1])))
        key = payload["a"]
        return After(
            key=None if key is None else (_moment(int(key[0])), int(key[1])),
            pending=tuple((_moment(int(start)), int(floor)) for start, floor in payload["p"]),
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError, IndexError) as exc:
        raise BadCursor("not a cursor this server issued for this timeline") from exc
