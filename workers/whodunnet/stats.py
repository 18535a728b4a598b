"""Small statistics shared by the analyzers."""

from __future__ import annotations

import math


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (``q`` in 0..100), ``None`` for no values."""
    if not values:
        return None
    v = sorted(values)
    pos = (len(v) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def percent(share: float) -> str:
    """A share in words that never rounds a share above zero to 0 %: 0.25 → ``25%``, 0.004 → ``0.4%``."""
    if share <= 0:
        return "0%"
    if share >= 0.1:
        return f"{share:.0%}"
    if share >= 0.0001:
        return f"{share * 100:.2g}%"
    return "<0.01%"
