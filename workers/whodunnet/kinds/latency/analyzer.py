"""The latency analyzer: ``latency.timer_signature``.

A latency distribution with a mode at a TCP timer's delay is a diagnosis in itself: +200 ms is
one retransmission at RTO-min (or a tail-loss probe as late), +1 s / +3 s an initial SYN
timeout (Linux / Windows and old Linux), +3 s +6 s = 9 s two Windows SYN retries (an ECN black
hole makes Windows clients pay exactly that), 1+2+4 = 7 s Linux exponential SYN retries, 30 s /
60 s an application timeout. A mode is a cluster standing out from the service's own latency at
the timer's offset (``modes.py``), never any sample that happens to be near 200 ms. Failed
requests (an error column, a status of 0 or 5xx, a ``timeout`` where the latency would be) are
counted and reported apart, and a heavy tail (p99 against the median) is rated on its own.

Samples stream into a ``Samples`` tally: exact counts per histogram bin, and the values
themselves for the percentiles and the modes, up to ``MAX_KEPT`` (past that, a uniform sample of
that many, each standing for its share of the file), so memory stays bounded whatever the
file's length.
"""

from __future__ import annotations

import math
import random
from array import array
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kinds.latency.modes import Distribution, find_modes
from whodunnet.kinds.latency.parser import Latency, LatencyReader
from whodunnet.kinds.text import LineLog, read_text, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref, Severity
from whodunnet.stats import percent, percentile

KIND = "latency"
#: Sample values kept for the percentiles and modes; past this many, a uniform sample of this many.
MAX_KEPT = 1_000_000
#: A timer mode or failures holding at least this share of the requests make the finding medium.
NOTABLE_SHARE = 0.01
#: p99 over the median at which a tail is rated on its own: low, then medium (with 100 samples or more).
TAIL_LOW, TAIL_MEDIUM, TAIL_MIN_SAMPLES = 10.0, 100.0, 100
#: Distinct failure reasons kept (the count is always exact).
MAX_REASONS = 20
#: How each signature reads in a title.
SHORT = {
    "rto_min_200ms": "about 200 ms slower than the rest (an RTO-min retransmission or a tail-loss probe)",
    "syn_timeout_1s": "about 1 s slower than the rest (a SYN retransmitted after 1 s)",
    "syn_linear_2s": "about 2 s slower than the rest (two SYN retransmissions 1 s apart)",
    "syn_timeout_3s": "about 3 s slower than the rest (a SYN retransmitted after 3 s, or 1 + 2 s)",
    "syn_1_2_4s": "about 7 s slower than the rest (SYN retransmitted after 1 + 2 + 4 s)",
    "syn_3_plus_6s": "about 9 s slower than the rest (SYN retransmitted after 3 + 6 s, Windows)",
    "client_timeout_5s": "ending at 5 s (a client timeout)",
    "app_timeout_30s": "ending at 30 s (an application timeout)",
    "app_timeout_60s": "ending at 60 s (an application timeout)",
}


class Samples:
    """Latency values (ms) as they stream by: see the module docstring."""

    def __init__(self) -> None:
        self.count = 0
        self.kept = array("d")
        self.first_line: int | None = None
        self.last_line: int | None = None
        self.bins: dict[int, int] = {}
        self._random = random.Random(0)

    def add(self, value: float, line: int) -> None:
        self.count += 1
        if self.first_line is None:
            self.first_line = line
        self.last_line = line
        b = -12 if value <= 0 else max(-12, min(24, math.floor(math.log10(value) * 4)))
        self.bins[b] = self.bins.get(b, 0) + 1
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

    def distribution(self) -> Distribution:
        return Distribution(self.kept, scale=self.count / len(self.kept) if self.kept else 1.0)


class Failures:
    """Failed requests: how many, why, and the latency they failed at when the row gives one."""

    def __init__(self) -> None:
        self.count = 0
        self.reasons: Counter[str] = Counter()
        self.values = array("d")
        self.first_line: int | None = None

    def add(self, value: float | None, line: int, reason: str) -> None:
        self.count += 1
        self.first_line = line if self.first_line is None else self.first_line
        if reason in self.reasons or len(self.reasons) < MAX_REASONS:
            self.reasons[reason] += 1
        if value is not None and len(self.values) < MAX_KEPT:
            self.values.append(value)


def analyze_latency(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Latency samples or a netperf result: the histogram, the TCP timer modes in it, failures and the tail."""
    log = LineLog()
    samples, failures = Samples(), Failures()
    reader = LatencyReader(log, samples.add, failures.add)
    run = read_text(path, reader, log=log, limits=limits, progress=progress)
    lat = reader.out
    summary: dict[str, Any] = lat.to_json()
    summary["failed"] = failures.count
    if samples.count > MAX_KEPT:
        summary["percentiles_from"] = f"a uniform sample of {MAX_KEPT:,} of the {samples.count:,} samples"
    found = []
    if samples.count or lat.bins or lat.netperf or failures.count:
        found.append(timer_finding(index, lat, samples, failures))
    return text_result(path, KIND, summary, run), found


def _times(ratio: float) -> str:
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.3g}×"


def _ms(value: float) -> str:
    return f"{value / 1000:.3g} s" if value >= 1000 else f"{value:.3g} ms"


def timer_finding(index: int, lat: Latency, samples: Samples, failures: Failures) -> Finding:
    bins = lat.bins or samples.histogram()
    dist = samples.distribution() if samples.count else Distribution(bins=lat.bins)
    found = find_modes(dist)
    sigs = {s["name"]: s for s in found["signatures"]}
    matches = found["matches"]
    total = int(dist.total)
    pct = {f"p{q}": dist.percentile(q) for q in (50, 90, 99, 100)} if total else {}
    p50, p99 = pct.get("p50"), pct.get("p99")
    tail = p99 / p50 if p50 and p99 and p50 > 0 and total >= TAIL_MIN_SAMPLES else None
    attempts = total + failures.count
    failed_share = failures.count / attempts if attempts else 0.0
    failed_at = percentile(list(failures.values), 50)
    levels: list[Severity] = ["info"]
    if matches:
        big = found["whole"] is not None or any(sigs[m]["share"] >= NOTABLE_SHARE for m in matches)
        levels.append("medium" if big else "low")
    if failures.count:
        levels.append("medium" if failed_share >= NOTABLE_SHARE else "low")
    if tail is not None and tail >= TAIL_LOW:
        levels.append("medium" if tail >= TAIL_MEDIUM else "low")
    severity = max(levels, key=["info", "low", "medium", "high"].index)

    parts = [f"{total:,} sample{'s' if total != 1 else ''}"]
    if p50 is not None and p99 is not None:
        parts.append(f"median {_ms(p50)}, p99 {_ms(p99)}" + (f" ({_times(tail)} the median)" if tail else ""))
    if lat.netperf.get("mean_latency_us"):
        parts.append(
            f"netperf {lat.netperf.get('test', '')} mean {lat.netperf['mean_latency_us']:.4g} µs per transaction"
        )
    said = [", ".join(parts) + "."]
    titles = []
    if found["whole"] is not None:
        sig = sigs[found["whole"]]
        said.append(
            f"{percent(sig['share'])} of the samples sit between {_ms(sig['window_ms'][0])} and "
            f"{_ms(sig['window_ms'][1])}: {sig['meaning']}, if the service normally answers faster; there are no "
            "faster samples here to compare with."
        )
        titles.append(f"{percent(sig['share'])} of requests at {_ms(p50 or 0)}: {sig['meaning']}?")
    offsets = [sigs[m] for m in matches if m != found["whole"]]
    if offsets:
        base = found["baseline_ms"] or 0.0
        said.append(
            f"Against the service's own latency (its 25th percentile, {_ms(base)}, spread "
            f"{_ms(found['spread_ms'] or 0)}), "
            + "; ".join(
                f"{s['count']:,} ({percent(s['share'])}) between {_ms(s['window_ms'][0])} and "
                f"{_ms(s['window_ms'][1])}: {s['meaning']}"
                for s in offsets
            )
            + ". Each stands out from the samples just below it, so it is a delay added to some requests, not the "
            "service's ordinary spread."
        )
        titles += [f"{percent(s['share'])} of requests {SHORT[s['name']]}" for s in offsets[:3]]
    if not matches:
        said.append(
            "No cluster stands out at a TCP timer's delay above the service's own latency (+200 ms RTO-min, "
            "+1 s/+2 s/+3 s SYN, +7 s, +9 s) or at a timeout (5 s, 30 s, 60 s)."
        )
        titles.append("no TCP timer signature in the latency samples")
    if failures.count:
        reasons = ", ".join(f"{r} ×{n:,}" for r, n in failures.reasons.most_common(5))
        said.append(
            f"{failures.count:,} request{'s' if failures.count != 1 else ''} failed ({percent(failed_share)} of "
            f"{attempts:,}): {reasons}"
            + (f"; they took {_ms(failed_at)} (median) before failing" if failed_at else "")
            + ". Failed requests are not in the latency distribution."
        )
        titles.append(f"{failures.count:,} failed ({percent(failed_share)})")
    if tail is not None and tail >= TAIL_LOW:
        said.append(f"The tail is heavy: p99 is {_times(tail)} the median.")
        if not offsets and found["whole"] is None:
            titles.append(f"p99 {_times(tail)} the median")
    refs = []
    if samples.first_line is not None and samples.last_line is not None:
        refs.append(Ref(evidence=index, label="samples", lines=(samples.first_line, samples.last_line)))
    if failures.first_line is not None:
        refs.append(Ref(evidence=index, label="first failed request", lines=(failures.first_line,) * 2))
    if lat.netperf.get("result_line"):
        refs.append(Ref(evidence=index, label="netperf result", lines=(lat.netperf["result_line"],) * 2))
    modes = sorted(bins, key=lambda b: -b["count"])[:3]
    return Finding(
        kind="latency.timer_signature",
        layer="network",
        severity=severity,
        title="; ".join(titles),
        explanation=" ".join(said),
        refs=tuple(refs),
        key=f"evidence-{index}",
        data={
            "samples": total,
            "percentiles_ms": pct,
            "baseline_ms": found["baseline_ms"],
            "spread_ms": found["spread_ms"],
            "tail_ratio": tail,
            "histogram": [{**b, "upper_ms": b["upper_ms"] if math.isfinite(b["upper_ms"]) else None} for b in bins],
            "modes": [{"lower_ms": m["lower_ms"], "count": int(m["count"])} for m in modes],
            "signatures": [{**s, "share": round(s["share"], 6)} for s in found["signatures"]],
            "matches": matches,
            "failed": failures.count,
            "failed_share": failed_share,
            "failed_at_ms": failed_at,
            "failures": [{"reason": r, "count": n} for r, n in failures.reasons.most_common(MAX_REASONS)],
            "netperf": lat.netperf,
            "format": lat.format,
            "column": lat.column,
        },
    )
