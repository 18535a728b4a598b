"""The latency analyzer: ``latency.timer_signature``.

A latency distribution with a mode at a TCP timer is a diagnosis in itself: +200 ms is
one retransmission at RTO-min, +1 s / +3 s an initial SYN timeout (Linux / Windows and
old Linux), +3 s +6 s = 9 s two Windows SYN retries (an ECN black hole makes Windows
clients pay exactly that), 1+2+4 = 7 s Linux exponential SYN retries, 30 s / 60 s an
application timeout. Each signature is a window of absolute latency [target, target + slack);
the finding gives the share of samples in each, and the histogram.

Samples stream into a ``Samples`` tally: exact counts per histogram bin and per signature, and
the values themselves for the percentiles, up to ``MAX_KEPT`` (past that, a uniform sample of
that many), so memory stays bounded whatever the file's length.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whodunnet.kinds.latency.parser import Latency, LatencyReader
from whodunnet.kinds.text import LineLog, read_text, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref
from whodunnet.stats import percentile

KIND = "latency"
#: (name, what it means, window start ms, window end ms)
SIGNATURES: tuple[tuple[str, str, float, float], ...] = (
    ("rto_min_200ms", "one retransmission after the 200 ms minimum RTO", 200.0, 300.0),
    ("syn_timeout_1s", "one SYN (or SYN-ACK) retransmitted after the 1 s initial timeout (Linux)", 1000.0, 1500.0),
    ("syn_timeout_3s", "one SYN retransmitted after a 3 s initial timeout (Windows, Linux before 3.1), or 1 s + 2 s", 3000.0, 3900.0),  # noqa: E501
    ("syn_1_2_4s", "three Linux SYN retransmissions (1 + 2 + 4 s)", 7000.0, 7900.0),
    ("syn_3_plus_6s", "two Windows SYN retransmissions (3 s + 6 s)", 9000.0, 10500.0),
    ("app_timeout_30s", "a 30 s application timeout", 29500.0, 31500.0),
    ("app_timeout_60s", "a 60 s application timeout", 59500.0, 61500.0),
)  # fmt: skip
#: A signature is reported when it holds at least this share of the samples (or 3 samples).
MIN_SHARE = 0.01
#: Sample values kept for the percentiles; past this many, a uniform sample of this many.
MAX_KEPT = 1_000_000


class Samples:
    """Latency values (ms) as they stream by: see the module docstring."""

    def __init__(self) -> None:
        self.count = 0
        self.kept = array("d")
        self.first_line: int | None = None
        self.last_line: int | None = None
        self.bins: dict[int, int] = {}
        self.windows = [0] * len(SIGNATURES)
        self._random = random.Random(0)

    def add(self, value: float, line: int) -> None:
        self.count += 1
        if self.first_line is None:
            self.first_line = line
        self.last_line = line
        b = -12 if value <= 0 else max(-12, min(24, math.floor(math.log10(value) * 4)))
        self.bins[b] = self.bins.get(b, 0) + 1
        for i, (_, _, lo, hi) in enumerate(SIGNATURES):
            if lo <= value < hi:
                self.windows[i] += 1
        if len(self.kept) < MAX_KEPT:
            self.kept.append(value)
        elif (j := self._random.randrange(self.count)) < MAX_KEPT:
            self.kept[j] = value

    def histogram(self) -> list[dict[str, float]]:
        """Log-spaced bins (4 per decade) from 1 µs to 1000 s, empty bins left out."""
        return [
            {"lower_ms": 10 ** (b / 4), "upper_ms": 10 ** ((b + 1) / 4), "count": float(c)}
            for b, c in sorted(self.bins.items())
        ]

    def percentiles(self) -> dict[str, float | None]:
        values = list(self.kept)
        return {f"p{q}": percentile(values, q) for q in (50, 90, 99, 100)} if values else {}


def analyze_latency(
    index: int, path: Path, *, limits: Limits = DEFAULT_LIMITS, progress: Callable[[float], None] | None = None
) -> tuple[EvidenceResult, list[Finding]]:
    """Latency samples or a netperf result: the histogram and the TCP timer modes in it."""
    log = LineLog()
    samples = Samples()
    reader = LatencyReader(log, samples.add)
    run = read_text(path, reader, log=log, limits=limits, progress=progress)
    lat = reader.out
    summary: dict[str, Any] = lat.to_json()
    if samples.count > MAX_KEPT:
        summary["percentiles_from"] = f"a uniform sample of {MAX_KEPT:,} of the {samples.count:,} samples"
    found = [timer_finding(index, lat, samples)] if samples.count or lat.bins or lat.netperf else []
    return text_result(path, KIND, summary, run), found


def signatures(samples: Samples, bins: list[dict[str, float]]) -> list[dict[str, Any]]:
    """Each timer signature's count and share: of the samples, or else of the histogram's bins."""
    out = []
    total = float(samples.count) if samples.count else sum(b["count"] for b in bins)
    for i, (name, meaning, lo, hi) in enumerate(SIGNATURES):
        if samples.count:
            count = float(samples.windows[i])
        else:
            count = sum(
                b["count"] for b in bins if lo <= (b["lower_ms"] + min(b["upper_ms"], b["lower_ms"] * 10)) / 2 < hi
            )
        share = count / total if total else 0.0
        out.append(
            {"name": name, "meaning": meaning, "window_ms": [lo, hi], "count": int(count), "share": round(share, 4)}
        )
    return out


def timer_finding(index: int, lat: Latency, samples: Samples) -> Finding:
    bins = lat.bins or samples.histogram()
    sigs = signatures(samples, lat.bins)
    hits = [s for s in sigs if s["count"] >= 3 or (s["share"] >= MIN_SHARE and s["count"] > 0)]
    total = samples.count if samples.count else int(sum(b["count"] for b in lat.bins))
    pct = samples.percentiles()
    modes = sorted(bins, key=lambda b: -b["count"])[:3]
    parts = [f"{total:,} sample{'s' if total != 1 else ''}"]
    if pct.get("p50") is not None:
        parts.append(f"median {pct['p50']:.4g} ms, p99 {pct['p99']:.4g} ms")
    if lat.netperf.get("mean_latency_us"):
        parts.append(
            f"netperf {lat.netperf.get('test', '')} mean {lat.netperf['mean_latency_us']:.4g} µs per transaction"
        )
    if hits:
        described = "; ".join(f"{s['share']:.1%} at {s['window_ms'][0] / 1000:g} s+ ({s['meaning']})" for s in hits)
        explanation = f"{', '.join(parts)}. Modes that match TCP timers: {described}."
        title = ", ".join(f"{s['share']:.0%} of samples at the {s['name']} signature" for s in hits[:3])
    else:
        explanation = f"{', '.join(parts)}. No mode matches a TCP timer (200 ms RTO-min, 1 s/3 s SYN, 3+6 s, 30/60 s)."
        title = "no TCP timer signature in the latency samples"
    refs = (
        [Ref(evidence=index, label="samples", lines=(samples.first_line, samples.last_line))]
        if samples.first_line is not None and samples.last_line is not None
        else []
    )
    if lat.netperf.get("result_line"):
        refs.append(Ref(evidence=index, label="netperf result", lines=(lat.netperf["result_line"],) * 2))
    top_share = max((s["share"] for s in hits), default=0.0)
    return Finding(
        kind="latency.timer_signature",
        layer="network",
        severity="medium" if top_share >= 0.05 else "low" if hits else "info",
        title=title,
        explanation=explanation,
        refs=tuple(refs),
        key=f"evidence-{index}",
        data={
            "samples": total,
            "percentiles_ms": pct,
            "histogram": [{**b, "upper_ms": b["upper_ms"] if math.isfinite(b["upper_ms"]) else None} for b in bins],
            "modes": [{"lower_ms": m["lower_ms"], "count": int(m["count"])} for m in modes],
            "signatures": sigs,
            "matches": [s["name"] for s in hits],
            "netperf": lat.netperf,
            "format": lat.format,
            "column": lat.column,
        },
    )
