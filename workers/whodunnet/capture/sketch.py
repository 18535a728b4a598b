"""A bounded quantile sketch for per-connection medians and percentiles.

Counts exact values until ``EXACT_KEYS`` distinct values have been seen, then folds
every value (old and new) onto a log-scale grid with ``MANTISSA_BITS`` significant bits
(relative error below 1 / 2**(MANTISSA_BITS - 1), under 1.6 %). The number of keys is
then bounded by the grid (64 per octave), so memory stays per connection, never per packet.
Values are non-negative integers (windows in bytes, RTTs in microseconds).
"""

from __future__ import annotations

import math

EXACT_KEYS = 256
MANTISSA_BITS = 7


def quantize(v: int) -> int:
    """``v`` rounded down to ``MANTISSA_BITS`` significant bits."""
    b = v.bit_length()
    if b <= MANTISSA_BITS:
        return v
    shift = b - MANTISSA_BITS
    return (v >> shift) << shift


class Sketch:
    """Counts of (possibly quantized) values; exact until it has to fold."""

    __slots__ = ("counts", "folded", "n")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.folded = False
        self.n = 0

    def add(self, v: int) -> None:
        counts = self.counts
        if self.folded:
            v = quantize(v)
        counts[v] = counts.get(v, 0) + 1
        self.n += 1
        if not self.folded and len(counts) > EXACT_KEYS:
            self.folded = True
            folded: dict[int, int] = {}
            for k, c in counts.items():
                q = quantize(k)
                folded[q] = folded.get(q, 0) + c
            self.counts = folded

    def add_n(self, v: int, n: int) -> None:
        """``add(v)`` ``n`` times (the fold depends only on which values were seen)."""
        counts = self.counts
        if self.folded:
            v = quantize(v)
        counts[v] = counts.get(v, 0) + n
        self.n += n
        if not self.folded and len(counts) > EXACT_KEYS:
            self.folded = True
            folded: dict[int, int] = {}
            for k, c in counts.items():
                q = quantize(k)
                folded[q] = folded.get(q, 0) + c
            self.counts = folded

    def quantile(self, q: float) -> int | None:
        """The value at rank ``ceil(q * n)`` (nearest-rank), or None when empty."""
        if not self.n:
            return None
        rank = max(1, math.ceil(q * self.n - 1e-9))
        seen = 0
        for k in sorted(self.counts):
            seen += self.counts[k]
            if seen >= rank:
                return k
        return max(self.counts)
