"""The sockets analyzer: ``sockets.summary``, ``sockets.states`` and ``sockets.bbr_candidates``.

``sockets.summary`` groups sockets by remote prefix (/24 for IPv4, /56 for IPv6) and
gives percentiles of rtt, delivery rate and cwnd, with retransmits and the
congestion controls in use (from each socket's last sample).

``sockets.bbr_candidates`` (``bbr.py``) finds the prefixes consistently slower than the others by
delivery rate over the snapshots: the BBR-candidate method's duty cycle and flap rate, decided from pairwise
comparisons within each snapshot over time rather than one rank per snapshot. ``sockets.states``
(``states.py``) counts sockets per state and the TIME-WAIT ones per remote port.

The file is streamed (``whodunnet.kinds.text``): the analyzer keeps the latest sample of each
socket and, per snapshot and prefix, the delivery rates of the flows that count, never the file
or the samples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kinds.sockets.bbr import BbrTally, bbr_finding, prefix_of
from whodunnet.kinds.sockets.parser import Sample, choose_reader
from whodunnet.kinds.sockets.settings import DEFAULT_BBR, BbrParams
from whodunnet.kinds.sockets.states import StateTally, states_finding
from whodunnet.kinds.text import HeadFirst, LineLog, LineReader, read_text, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref
from whodunnet.stats import percentile

KIND = "sockets"
#: Lines looked at to choose the reader (a ``=== <time>`` line may come before an ss or netstat header).
HEAD_LINES = 3


class SocketTally:
    """What the findings need from the samples, kept as they stream by."""

    def __init__(self, bbr: BbrParams) -> None:
        self.bbr = BbrTally(bbr)
        self.samples = 0
        self.snapshots: set[int] = set()
        #: The latest sample of each socket (listeners left out), in order of first appearance.
        self.last: dict[str, Sample] = {}
        self.states = StateTally()
        #: Samples with tcp_info (rtt, cwnd or a delivery rate): none in a state listing (ss -tan, netstat).
        self.with_info = 0
        self.with_rate = 0

    def add(self, sample: Sample) -> None:
        self.samples += 1
        self.snapshots.add(sample.snapshot)
        if sample.state not in ("LISTEN", "UNCONN"):
            self.last[sample.key] = sample
        fields = sample.fields
        self.with_info += any(k in fields for k in ("rtt_ms", "cwnd", "delivery_rate_bps"))
        self.with_rate += "delivery_rate_bps" in fields
        self.states.add(sample)
        self.bbr.add(sample)


def analyze_sockets(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
    bbr: BbrParams = DEFAULT_BBR,
) -> tuple[EvidenceResult, list[Finding]]:
    """One ss/tcp_info file: its sockets per snapshot, the per-prefix summary and, over snapshots, BBR candidates."""
    log = LineLog()
    tally = SocketTally(bbr)
    chosen: list[str] = []

    def choose(head: list[tuple[int, str]]) -> LineReader:
        fmt, reader = choose_reader(head, log, tally.add)
        chosen.append(fmt)
        return reader

    run = read_text(path, HeadFirst(HEAD_LINES, choose), log=log, limits=limits, progress=progress)
    snapshots = len(tally.snapshots)
    last = tally.last
    fmt = chosen[0] if chosen else "ss"
    states = tally.states.to_json()
    summary: dict[str, Any] = {
        "format": fmt,
        "snapshots": snapshots,
        "samples": tally.samples,
        "sockets": len(last),
        "socket_list": [s.to_json() for s in list(last.values())[:500]],
        "states": states,
    }
    found: list[Finding] = []
    if last and tally.with_info:
        found.append(summary_finding(index, last, snapshots))
    if states["last"] is not None and (not tally.with_info or (states["peak"] or {}).get("time_wait")):
        found.append(states_finding(index, states, fmt))
    if snapshots >= 2 and tally.with_rate:
        found.append(bbr_finding(index, tally.bbr))
    return text_result(path, KIND, summary, run), found


def _pcts(values: list[float]) -> dict[str, Any]:
    return {
        "p10": percentile(values, 10),
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "n": len(values),
    }


def summary_finding(index: int, last: dict[str, Sample], snapshots: int) -> Finding:
    groups: dict[str, list[Sample]] = defaultdict(list)
    for s in last.values():
        groups[prefix_of(s.peer)].append(s)
    rows: list[dict[str, Any]] = []
    for prefix, socks in sorted(groups.items(), key=lambda kv: -len(kv[1])):

        def vals(name: str, socks: list[Sample] = socks) -> list[float]:
            return [float(s.fields[name]) for s in socks if isinstance(s.fields.get(name), (int, float))]

        ccs: dict[str, int] = defaultdict(int)
        for s in socks:
            ccs[str(s.fields.get("cc", "?"))] += 1
        rows.append(
            {
                "prefix": prefix,
                "sockets": len(socks),
                "rtt_ms": _pcts(vals("rtt_ms")),
                "delivery_rate_bps": _pcts(vals("delivery_rate_bps")),
                "cwnd": _pcts(vals("cwnd")),
                "retrans_total": int(sum(vals("retrans_total"))),
                "app_limited": sum(1 for s in socks if s.fields.get("app_limited")),
                "rwnd_limited": sum(1 for s in socks if s.fields.get("rwnd_limited_ms")),
                "congestion_control": dict(ccs),
                "lines": [s.line for s in socks[:50]],
            }
        )
    top = rows[0]
    rtt = top["rtt_ms"]["p50"]
    return Finding(
        kind="sockets.summary",
        layer="network",
        severity="info",
        title=f"{len(last)} socket{'s' if len(last) != 1 else ''} to {len(rows)} prefix{'es' if len(rows) != 1 else ''}"
        f" over {snapshots} snapshot{'s' if snapshots != 1 else ''}",
        explanation=(
            f"Per remote prefix (/24, /56): rtt, delivery rate and cwnd percentiles, retransmits and congestion control. "  # noqa: E501
            f"The busiest prefix, {top['prefix']}, has {top['sockets']} socket(s)"
            + (f" with a median rtt of {rtt:.3g} ms." if rtt is not None else ".")
        ),
        refs=tuple(
            Ref(evidence=index, label=f"{s.local} → {s.peer}", lines=(s.line, s.line)) for s in list(last.values())[:50]
        ),
        key=f"evidence-{index}",
        data={"sockets": len(last), "snapshots": snapshots, "prefixes": rows},
    )
