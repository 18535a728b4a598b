"""Point-in-time snapshots (host counters, softnet_stat) paired for diffing.

A snapshot kind's summary carries ``formats`` (what it holds: ``nstat``, ``ip -s link`` ...)
and ``timestamp`` (when it was taken, from the file or given by a person; None when unknown).
A file says when it was taken in a timestamp line (``timestamp_line``), which every snapshot
kind reads the same way.
Snapshots are grouped by kind and formats: an nstat file is compared with an nstat file,
never across kinds. In a group, the order is the time each was taken when every one of
the group has a time, otherwise the order given (upload order); the first and the last
are diffed. A group of one is totals since boot.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from whodunnet.model import EvidenceResult

if TYPE_CHECKING:
    from whodunnet.kinds.text import LineLog

_TS_EPOCH = re.compile(r"^(?:===|#|date:|timestamp:|time:)\s*(?P<v>\d{9,11}(?:\.\d+)?)\s*$", re.IGNORECASE)
_TS_ISO = re.compile(
    r"^(?:===|#|date:|timestamp:|time:)\s*(?P<v>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)\s*$",
    re.IGNORECASE,
)
#: What ``timestamp_line`` returns for a timestamp line whose time does not parse.
UNREADABLE = "unreadable"


def timestamp_line(text: str) -> float | str | None:
    """The time a snapshot's timestamp line says, in seconds since the epoch.

    ``=== 1795294294.15``, ``# 2024-05-01T12:00:00Z``, ``date: <epoch>`` (also ``timestamp:``
    and ``time:``). None when ``text`` is not a timestamp line; ``UNREADABLE`` when it is one
    but its time does not parse.
    """
    s = text.strip()
    if (m := _TS_EPOCH.match(s)) is not None:
        return float(m.group("v"))
    if (m := _TS_ISO.match(s)) is not None:
        try:
            return datetime.fromisoformat(m.group("v").replace("Z", "+00:00").replace(" ", "T")).timestamp()
        except ValueError:
            return UNREADABLE
    return None


def snapshot_groups(evidence: Sequence[EvidenceResult], kinds: Collection[str]) -> list[tuple[list[int], bool]]:
    """Snapshots of the same kind and formats, earliest first, and whether their times ordered them."""
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = defaultdict(list)
    for i, ev in enumerate(evidence):
        if ev.kind in kinds and ev.summary.get("formats"):
            groups[(ev.kind, tuple(sorted(ev.summary["formats"])))].append(i)
    out = []
    for members in groups.values():
        timed = all(evidence[i].summary.get("timestamp") is not None for i in members)
        if timed:
            members = sorted(members, key=lambda i: float(evidence[i].summary["timestamp"]))
        out.append((members, timed))
    return out


@dataclass(frozen=True)
class Diff:
    """One group of snapshots as it is diffed: its first and last (``before`` is None for a group of one)."""

    before: int | None
    after: int
    interval_s: float | None

    @property
    def key(self) -> str:
        return f"{self.before}-{self.after}" if self.before is not None else f"{self.after}"

    @property
    def evidence(self) -> list[int]:
        return [i for i in (self.before, self.after) if i is not None]

    def when(self, evidence: Sequence[EvidenceResult], alone: str = "since boot (one snapshot)") -> str:
        """``over 10.0 s (a.txt → b.txt)``; ``alone`` for one snapshot."""
        if self.before is None:
            return alone
        names = f"{evidence[self.before].name} → {evidence[self.after].name}"
        if self.interval_s is not None:
            return f"over {self.interval_s:.1f} s ({names})"
        return f"between {evidence[self.before].name} and {evidence[self.after].name} (interval unknown)"

    def data(self) -> dict[str, Any]:
        """The keys every diff finding's data starts with."""
        return {"delta": self.before is not None, "interval_s": self.interval_s, "evidence": self.evidence}


def diffs(evidence: Sequence[EvidenceResult], kind: str) -> list[Diff]:
    """Each group of ``kind``'s snapshots as the pair it is diffed over (``snapshot_groups``)."""
    out = []
    for members, _ in snapshot_groups(evidence, (kind,)):
        if len(members) == 1:
            out.append(Diff(None, members[0], None))
            continue
        t0, t1 = (evidence[i].summary.get("timestamp") for i in (members[0], members[-1]))
        interval = float(t1) - float(t0) if t0 is not None and t1 is not None else None
        out.append(Diff(members[0], members[-1], interval))
    return out


class SnapshotTime:
    """The time a snapshot file says it was taken: its first timestamp line (``timestamp_line``)."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.value: float | None = None

    def feed(self, number: int, text: str) -> bool:
        """Whether ``text`` is a timestamp line (the first one dates the snapshot)."""
        when = timestamp_line(text)
        if when is None:
            return False
        if self.value is None:
            if when is UNREADABLE:
                self.log.bad(number, "unreadable timestamp", text)
            else:
                self.value = float(when)
        return True


def snapshot_pairing(evidence: Sequence[EvidenceResult], kinds: Collection[str]) -> list[dict[str, Any]]:
    """For each snapshot: its role in the diff, the snapshot it is compared with, the interval.

    ``role`` is ``before`` or ``after`` for the two snapshots that are diffed, ``only`` for a
    snapshot alone in its group (totals since boot) and ``between`` for the ones in the middle
    of a group of three or more (only the first and the last are diffed).
    """
    out: list[dict[str, Any]] = []
    for members, timed in snapshot_groups(evidence, kinds):
        first, last = members[0], members[-1]
        t0, t1 = evidence[first].summary.get("timestamp"), evidence[last].summary.get("timestamp")
        interval = float(t1) - float(t0) if t0 is not None and t1 is not None and len(members) > 1 else None
        formats = sorted(evidence[first].summary["formats"])
        for i in members:
            if len(members) == 1:
                role, other = "only", None
            elif i == first:
                role, other = "before", last
            elif i == last:
                role, other = "after", first
            else:
                role, other = "between", None
            out.append(
                {"evidence": i, "role": role, "other": other, "interval_s": interval,
                 "ordered_by": "time" if timed else "upload order", "formats": formats}
            )  # fmt: skip
    return out


def diff_counts(before: dict[str, int], after: dict[str, int], resets: list[str], prefix: str = "") -> dict[str, int]:
    """``after - before`` per name in both; a counter that went down was reset (its delta is its value)."""
    out = {}
    for k, v in after.items():
        if k in before:
            d = v - before[k]
            if d < 0:
                resets.append(prefix + k)
                d = v
            out[k] = d
    return out
