"""Timer modes in a latency distribution: clusters of samples standing out from the service's own latency.

A TCP timer adds a fixed delay to the requests it hits: a retransmission after the 200 ms
minimum RTO (or a tail-loss probe, which waits as long for a lone segment) adds 200 ms or a bit
more, a SYN retransmitted after the initial timeout adds 1 s (Linux; 2 s and 3 s after two and
three retries 1 s apart with Linux ≥ 6.5's linear timeouts), 3 s (Windows, Linux before 3.1, or
1 + 2 s), 7 s (1 + 2 + 4 s) or 9 s (Windows' 3 + 6 s). So a timer shows as a cluster at the
service's own latency *plus* the timer, not at the timer's value: a service answering in
240 ± 15 ms has no 200 ms signature, one answering in 20 ms whose lost requests wait for the RTO
has a cluster near 220–320 ms. Timeouts the application or client sets (5 s connects, 30 s and
60 s requests) end a request at their own value: those are absolute.

The service's own latency is its 25th percentile (robust while up to three quarters of the
requests are hit) and its spread the distance from there down to the 5th. A window (the timer's
offset above that baseline, or the timeout's value, widened by twice the spread) holds a mode when
it holds at least 3 samples and at least twice as many as the stretch of the same width just below
it: a bump, not the shoulder of the body. When every sample sits in one long timer's window (seed
002: every request at 9–10.5 s) there is nothing faster to compare with: that is reported as such,
for the timers of 7 s and more only (a service can well take 1 s or 3 s).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from whodunnet.stats import percentile


@dataclass(frozen=True)
class Signature:
    """A timer: its name, what it means, and where it puts a request (``offset``: above the service's latency)."""

    name: str
    meaning: str
    lo_ms: float
    hi_ms: float
    offset: bool = True


SIGNATURES: tuple[Signature, ...] = (
    Signature("rto_min_200ms", "a retransmission after the 200 ms minimum RTO, or a tail-loss probe as late", 200, 300),
    Signature("syn_timeout_1s", "one SYN (or SYN-ACK) retransmitted after the 1 s initial timeout (Linux)", 1000, 1500),
    Signature("syn_linear_2s", "two SYN retransmissions 1 s apart (Linux ≥ 6.5 linear timeouts)", 2000, 2500),
    Signature("syn_timeout_3s", "a SYN retransmitted after a 3 s initial timeout (Windows, Linux < 3.1), or 1 + 2 s",
              3000, 3900),
    Signature("syn_1_2_4s", "three Linux SYN retransmissions (1 + 2 + 4 s)", 7000, 7900),
    Signature("syn_3_plus_6s", "two Windows SYN retransmissions (3 s + 6 s)", 9000, 10500),
    Signature("client_timeout_5s", "a 5 s client timeout (a common connect timeout)", 4950, 5200, offset=False),
    Signature("app_timeout_30s", "a 30 s application timeout", 29500, 31500, offset=False),
    Signature("app_timeout_60s", "a 60 s application timeout", 59500, 61500, offset=False),
)  # fmt: skip
#: A mode needs this many samples, and this many times as many as the stretch just below it.
MIN_SAMPLES = 3
CONTRAST = 2.0
#: Whole-distribution matches are only said for timers at least this long.
WHOLE_MIN_MS = 7000.0


class Distribution:
    """Latency values (or histogram bins) that can be counted in a range, with percentiles."""

    def __init__(self, values: Sequence[float] = (), bins: Sequence[dict[str, float]] = (), scale: float = 1.0) -> None:
        self.values = sorted(values)
        #: (midpoint, count) of histogram bins, when there are no values.
        self.bins = sorted(((b["lower_ms"] + min(b["upper_ms"], b["lower_ms"] * 10)) / 2, b["count"]) for b in bins)
        #: Each kept value stands for this many samples (a uniform sample of a huge file).
        self.scale = scale
        self.total = len(self.values) * scale if self.values else sum(c for _, c in self.bins)

    def count(self, lo: float, hi: float) -> float:
        if self.values:
            return (bisect.bisect_left(self.values, hi) - bisect.bisect_left(self.values, lo)) * self.scale
        return sum(c for mid, c in self.bins if lo <= mid < hi)

    def percentile(self, q: float) -> float | None:
        if self.values:
            return percentile(self.values, q)
        if not self.bins or not self.total:
            return None
        target, seen = self.total * q / 100, 0.0
        for mid, c in self.bins:
            seen += c
            if seen >= target:
                return mid
        return self.bins[-1][0]


def find_modes(dist: Distribution) -> dict[str, Any]:
    """The baseline, its spread and every signature's window, count and share; ``matches`` the modes found."""
    if not dist.total:
        return {"baseline_ms": None, "spread_ms": None, "signatures": [], "matches": [], "whole": None}
    base = dist.percentile(25) or 0.0
    spread = max(0.0, base - (dist.percentile(5) or base))
    out, matches, whole = [], [], None
    p5, p95 = dist.percentile(5) or 0.0, dist.percentile(95) or 0.0
    for sig in SIGNATURES:
        shift = base if sig.offset else 0.0
        lo, hi = shift + sig.lo_ms - 2 * spread, shift + sig.hi_ms + 2 * spread
        k = dist.count(lo, hi)
        below = dist.count(lo - (hi - lo), lo)
        stands_out = k >= MIN_SAMPLES and k >= CONTRAST * below and lo > base
        every = not stands_out and sig.lo_ms >= WHOLE_MIN_MS and sig.lo_ms <= p5 and p95 < sig.hi_ms
        if stands_out:
            matches.append(sig.name)
        elif every and whole is None:
            whole = sig.name
            lo, hi = sig.lo_ms, sig.hi_ms  # the timer's own values: there is no faster baseline to add them to
            k = dist.count(lo, hi)
        out.append(
            {"name": sig.name, "meaning": sig.meaning, "window_ms": [round(lo, 3), round(hi, 3)],
             "offset_ms": sig.lo_ms if sig.offset else None, "count": round(k),
             "share": k / dist.total, "mode": stands_out or every}
        )  # fmt: skip
    if whole is not None:
        matches.append(whole)
    return {"baseline_ms": base, "spread_ms": spread, "signatures": out, "matches": matches, "whole": whole}
