"""Point-in-time snapshots (host counters, softnet_stat) paired for diffing.

A snapshot kind's summary carries ``formats`` (what it holds: ``nstat``, ``ip -s link`` ...)
and ``timestamp`` (when it was taken, from the file or given by a person; None when unknown).
A file says when it was taken in a timestamp line (``timestamp_line``), which every snapshot
kind reads the same way.
Snapshots are grouped by host (``EvidenceResult.provenance``), kind and formats: an nstat
file is compared with an nstat file of the same host, never across kinds or hosts. In a
group, the order is the time each was taken when every one has a time, else the file names'
before/after, else the counters themselves (monotonic counters that mostly went down from A
to B mean B was taken first, not a reset), else the order given; the first and the last are
diffed. A group of one is totals since boot.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cmp_to_key
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from whodunnet.model import EvidenceResult
from whodunnet.provenance import order_hint

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


#: Gauges among the snapshot numbers: they go up and down, so they say nothing about order.
GAUGES = frozenset({"count", "max", "entries", "cpu", "line", "TcpCurrEstab", "IpForwarding", "IpDefaultTTL",
                    "TcpRtoAlgorithm", "TcpRtoMin", "TcpRtoMax", "TcpMaxConn", "mtu", "qlen", "speed"})  # fmt: skip


def taken_at(ev: EvidenceResult) -> float | None:
    """When a snapshot was taken: its provenance (a person's or the file's), else its timestamp line."""
    if ev.provenance.taken_at is not None:
        return ev.provenance.taken_at
    t = ev.summary.get("timestamp")
    return float(t) if isinstance(t, int | float) else None


def monotonic_numbers(summary: Mapping[str, Any]) -> dict[str, int]:
    """Every counter of a snapshot summary that only ever grows, by a flat name (gauges left out).

    counters: ``counters``, ``interfaces``, ``conntrack``, ``ethtool``; softnet: ``cpus``; firewall: ``rules``.
    """
    out: dict[str, int] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            if prefix.rsplit(".", 1)[-1] not in GAUGES:
                out[prefix] = value
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(f"{prefix}.{k}", v)
        elif isinstance(value, list):
            for n, item in enumerate(value):
                label = item.get("cpu", item.get("rule", n)) if isinstance(item, Mapping) else n
                walk(f"{prefix}[{label}]", item)

    for table in ("counters", "interfaces", "conntrack", "ethtool", "cpus", "rules"):
        if table in summary:
            walk(table, summary[table])
    return out


def counters_say_first(a: EvidenceResult, b: EvidenceResult) -> int:
    """-1 when ``a``'s counters say it was taken before ``b`` (most shared counters grew from a to b),
    1 when they say after (most went down: b was taken first, not reset), 0 when they cannot tell."""
    na, nb = monotonic_numbers(a.summary), monotonic_numbers(b.summary)
    up = down = 0
    for k, v in na.items():
        w = nb.get(k)
        if w is None or w == v:
            continue
        if w > v:
            up += 1
        else:
            down += 1
    if up > down:
        return -1
    if down > up:
        return 1
    return 0


def _order(evidence: Sequence[EvidenceResult], members: list[int]) -> tuple[list[int], str]:
    """The members earliest first, and what decided it: "time", "file name", "counters" or "upload order"."""
    if len(members) < 2:
        return members, "time" if all(taken_at(evidence[i]) is not None for i in members) else "upload order"
    times = [taken_at(evidence[i]) for i in members]
    if all(t is not None for t in times) and len(set(times)) == len(times):
        return sorted(members, key=lambda i: float(taken_at(evidence[i]) or 0.0)), "time"
    hints = [order_hint(evidence[i].path) for i in members]
    if len(members) == 2 and sorted(h for h in hints if h is not None) == [0, 1]:
        return sorted(members, key=lambda i: order_hint(evidence[i].path) or 0), "file name"

    def compare(i: int, j: int) -> int:
        return counters_say_first(evidence[i], evidence[j])

    ordered = sorted(members, key=cmp_to_key(compare))
    if all(compare(i, j) == -1 for i, j in pairwise(ordered)):
        return ordered, "counters"
    return members, "upload order"


def snapshot_groups(evidence: Sequence[EvidenceResult], kinds: Collection[str]) -> list[tuple[list[int], str]]:
    """Snapshots of the same host, kind and formats, earliest first, and what ordered them.

    Never across hosts: a snapshot whose host is unknown is grouped with the others of
    unknown host only. The order is the time each was taken (its provenance or timestamp
    line) when all have one, else the file names' before/after, else the counters themselves
    (counters only grow: a pair where most went down was given in reverse), else upload order.
    """
    groups: dict[tuple[str | None, str, tuple[str, ...]], list[int]] = defaultdict(list)
    for i, ev in enumerate(evidence):
        if ev.kind in kinds and ev.summary.get("formats"):
            groups[(ev.provenance.host, ev.kind, tuple(sorted(ev.summary["formats"])))].append(i)
    return [_order(evidence, members) for members in groups.values()]


@dataclass(frozen=True)
class Diff:
    """One group of snapshots as it is diffed: its first and last (``before`` is None for a group of one)."""

    before: int | None
    after: int
    interval_s: float | None
    host: str | None = None
    ordered_by: str = "time"
    #: Every snapshot of the group, earliest first (``before`` … ``after``): the intervals between them.
    members: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.before}-{self.after}" if self.before is not None else f"{self.after}"

    @property
    def evidence(self) -> list[int]:
        return [i for i in (self.before, self.after) if i is not None]

    def when(self, evidence: Sequence[EvidenceResult], alone: str = "since boot (one snapshot)") -> str:
        """``on db1 over 10.0 s (a.txt → b.txt)``; ``alone`` for one snapshot."""
        on = f"on {self.host} " if self.host else ""
        if self.before is None:
            return on + alone
        names = f"{evidence[self.before].name} → {evidence[self.after].name}"
        if self.interval_s is not None:
            return f"{on}over {self.interval_s:.1f} s ({names})"
        return f"{on}between {evidence[self.before].name} and {evidence[self.after].name} (interval unknown)"

    def data(self) -> dict[str, Any]:
        """The keys every diff finding's data starts with."""
        return {
            "delta": self.before is not None,
            "interval_s": self.interval_s,
            "evidence": self.evidence,
            "host": self.host,
            "hosts": [self.host] if self.host else [],
            "ordered_by": self.ordered_by,
        }


def diffs(evidence: Sequence[EvidenceResult], kind: str) -> list[Diff]:
    """Each group of ``kind``'s snapshots as the pair it is diffed over (``snapshot_groups``)."""
    out = []
    for members, ordered_by in snapshot_groups(evidence, (kind,)):
        host = evidence[members[0]].provenance.host
        if len(members) == 1:
            out.append(Diff(None, members[0], None, host, ordered_by, tuple(members)))
            continue
        t0, t1 = (taken_at(evidence[i]) for i in (members[0], members[-1]))
        interval = t1 - t0 if t0 is not None and t1 is not None else None
        out.append(Diff(members[0], members[-1], interval, host, ordered_by, tuple(members)))
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
    """For each snapshot: its role in the diff, the snapshot it is compared with, the interval, the host.

    ``role`` is ``before`` or ``after`` for the two snapshots that are diffed, ``only`` for a
    snapshot alone in its group (totals since boot) and ``between`` for the ones in the middle
    of a group of three or more (only the first and the last are diffed). ``ordered_by`` says
    what put them in order: ``time``, ``file name``, ``counters`` or ``upload order``.
    """
    out: list[dict[str, Any]] = []
    for members, ordered_by in snapshot_groups(evidence, kinds):
        first, last = members[0], members[-1]
        t0, t1 = taken_at(evidence[first]), taken_at(evidence[last])
        interval = t1 - t0 if t0 is not None and t1 is not None and len(members) > 1 else None
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
                {"evidence": i, "role": role, "other": other, "interval_s": interval, "ordered_by": ordered_by,
                 "formats": formats, "host": evidence[i].provenance.host}
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


def per_interval(
    evidence: Sequence[EvidenceResult], members: Sequence[int], values: Callable[[Mapping[str, Any]], Mapping[str, Any]]
) -> dict[str, Any] | None:
    """How much each counter grew over each interval between consecutive snapshots of a group of three or more
    (two snapshots are one interval: the finding's own numbers say it). ``values`` picks the counters out of a
    summary. A counter that went down (a reset, a reboot) counts its new value, as ``diff_counts`` does.

    ``{"start": [t or None], "end": [...], "from": [file], "to": [file], "series": {counter: [change, ...]}}``:
    one entry per interval, earliest first; a counter is a series when it moved in some interval.
    """
    if len(members) < 3:
        return None
    series: dict[str, list[int]] = {}
    names = [evidence[i].name for i in members]
    for n, (a, b) in enumerate(pairwise(members)):
        changes = diff_counts(
            {k: int(v) for k, v in values(evidence[a].summary).items() if isinstance(v, (int, float))},
            {k: int(v) for k, v in values(evidence[b].summary).items() if isinstance(v, (int, float))},
            [],
        )
        for key, change in changes.items():
            series.setdefault(key, [0] * (len(members) - 1))[n] = change
    moved = {k: v for k, v in series.items() if any(v)}
    if not moved:
        return None
    times = [taken_at(evidence[i]) for i in members]
    return {
        "start": times[:-1],
        "end": times[1:],
        "from": names[:-1],
        "to": names[1:],
        "series": moved,
    }
