"""The sockets analyzer: ``sockets.summary`` and ``sockets.bbr_candidates``.

``sockets.summary`` groups sockets by remote prefix (/24 for IPv4, /56 for IPv6) and
gives percentiles of rtt, delivery rate and cwnd, with retransmits and the
congestion controls in use (from each socket's last sample).

``sockets.bbr_candidates`` finds the prefixes that would gain from BBR: in every snapshot (an interval),
rank the prefixes by their median delivery rate over flows that moved at least
``min_bytes`` (100 KB: BBR does not help small responses); the bottom
``bottom_share`` (20 %) are "bad" in that interval. Over all intervals, a prefix's
duty cycle is the share of its intervals spent in the bottom group and its flap rate
the number of changes in or out divided by its intervals minus one. Prefixes with
duty ≥ ``min_duty`` and flap ≤ ``max_flap`` are consistently bad: BBR candidates.

The file is streamed (``whodunnet.kinds.text``): the analyzer keeps the latest sample of each
socket and, per snapshot and prefix, the delivery rates of the flows that count, never the file
or the samples.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from whodunnet.kinds.sockets.parser import Sample, choose_reader
from whodunnet.kinds.sockets.settings import DEFAULT_BBR, BbrParams
from whodunnet.kinds.text import HeadFirst, LineLog, LineReader, read_text, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref
from whodunnet.stats import percentile

KIND = "sockets"


class SocketTally:
    """What the findings need from the samples, kept as they stream by."""

    def __init__(self, bbr: BbrParams) -> None:
        self.bbr = BbrTally(bbr)
        self.samples = 0
        self.snapshots: set[int] = set()
        #: The latest sample of each socket (listeners left out), in order of first appearance.
        self.last: dict[str, Sample] = {}

    def add(self, sample: Sample) -> None:
        self.samples += 1
        self.snapshots.add(sample.snapshot)
        if sample.state not in ("LISTEN", "UNCONN"):
            self.last[sample.key] = sample
        self.bbr.add(sample)


def analyze_sockets(
    index: int,
    path: Path,
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

    run = read_text(path, HeadFirst(1, choose), log=log, limits=limits, progress=progress)
    snapshots = len(tally.snapshots)
    last = tally.last
    summary: dict[str, Any] = {
        "format": chosen[0] if chosen else "ss",
        "snapshots": snapshots,
        "samples": tally.samples,
        "sockets": len(last),
        "socket_list": [s.to_json() for s in list(last.values())[:500]],
    }
    found: list[Finding] = []
    if last:
        found.append(summary_finding(index, last, snapshots))
    if snapshots >= 2:
        found.append(bbr_finding(index, tally.bbr))
    return text_result(path, KIND, summary, run), found


def prefix_of(peer: str, params: BbrParams = DEFAULT_BBR) -> str:
    """``203.0.113.7:443`` → ``203.0.113.0/24``; ``[2001:db8::1]:443`` → ``2001:db8::/56``."""
    host = peer.rsplit(":", 1)[0] if peer.count(":") == 1 or peer.startswith("[") else peer
    host = host.strip("[]").split("%")[0]
    if host.startswith("::ffff:") and "." in host:
        host = host[7:]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host or "?"
    bits = params.v4_prefix if ip.version == 4 else params.v6_prefix
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


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


class BbrTally:
    """Per snapshot and prefix, the delivery rates of the flows that moved at least ``min_bytes``."""

    def __init__(self, params: BbrParams) -> None:
        self.params = params
        self.per_snap: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))

    def add(self, s: Sample) -> None:
        rate = s.fields.get("delivery_rate_bps")
        moved = max(float(s.fields.get("bytes_acked") or 0), float(s.fields.get("bytes_received") or 0))
        if not isinstance(rate, (int, float)) or moved < self.params.min_bytes:
            return
        self.per_snap[s.snapshot][prefix_of(s.peer, self.params)].append(float(rate))

    def result(self) -> dict[str, Any]:
        """Per prefix, the duty cycle and flap rate of being in the bottom group by delivery rate."""
        params = self.params
        history: dict[str, list[bool]] = defaultdict(list)
        intervals = sorted(self.per_snap)
        for snap in intervals:
            medians = {p: percentile(v, 50) or 0.0 for p, v in self.per_snap[snap].items()}
            ranked = sorted(medians, key=lambda p: medians[p])
            cut = max(1, math.ceil(len(ranked) * params.bottom_share)) if len(ranked) > 1 else 0
            bottom = set(ranked[:cut])
            for p in ranked:
                history[p].append(p in bottom)
        prefixes: list[dict[str, Any]] = []
        for p, states in history.items():
            duty = sum(states) / len(states)
            flaps = sum(1 for a, b in itertools.pairwise(states) if a != b)
            flap_rate = flaps / (len(states) - 1) if len(states) > 1 else 0.0
            prefixes.append(
                {
                    "prefix": p,
                    "intervals": len(states),
                    "bottom_intervals": sum(states),
                    "duty_cycle": round(duty, 4),
                    "flaps": flaps,
                    "flap_rate": round(flap_rate, 4),
                    "candidate": duty >= params.min_duty and flap_rate <= params.max_flap and len(states) >= 2,
                }
            )
        prefixes.sort(key=lambda r: (-r["duty_cycle"], r["flap_rate"]))
        return {"intervals": len(intervals), "params": asdict(params), "prefixes": prefixes}


def bbr_finding(index: int, tally: BbrTally) -> Finding:
    params = tally.params
    result = tally.result()
    cands = [p for p in result["prefixes"] if p["candidate"]]
    names = ", ".join(p["prefix"] for p in cands[:10])
    return Finding(
        kind="sockets.bbr_candidates",
        layer="network",
        severity="low" if cands else "info",
        title=f"{len(cands)} prefix{'es' if len(cands) != 1 else ''} consistently in the bottom "
        f"{params.bottom_share:.0%} by delivery rate" + (f": {names}" if cands else ""),
        explanation=(
            f"Over {result['intervals']} interval(s), prefixes were ranked by median delivery rate of flows ≥ "
            f"{params.min_bytes:,} bytes; a prefix is a BBR candidate when it spends ≥ {params.min_duty:.0%} of its "
            f"intervals in the bottom {params.bottom_share:.0%} (duty cycle) and changes state in at most "
            f"{params.max_flap:.0%} of them (flap rate). {len(result['prefixes'])} prefix(es) had enough data."
        ),
        refs=(Ref(evidence=index, label="all snapshots"),),
        key=f"evidence-{index}",
        data={**result, "candidates": [p["prefix"] for p in cands]},
    )
