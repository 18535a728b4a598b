"""Latency samples' one line on their card: how many, from which column, how many failed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import plural, seconds


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``1,500 latency samples (column latency_ms, in ms); 3 failed``; for netperf, its test and rate."""
    samples = summary.get("samples")
    if not isinstance(samples, int):
        return None
    netperf = summary.get("netperf")
    if not samples and isinstance(netperf, Mapping) and netperf.get("test"):
        text = f"netperf {netperf['test']}"
        if isinstance(netperf.get("rate"), (int, float)):
            text += f": {netperf['rate']:,.0f} transactions/s"
        if isinstance(netperf.get("mean_latency_us"), (int, float)):
            text += f", mean latency {seconds(netperf['mean_latency_us'] / 1e6)}"
        if isinstance(netperf.get("hist_total"), int):
            text += f" ({plural(netperf['hist_total'], 'transaction')} in its histogram)"
        return text
    text = plural(samples, "latency sample")
    column, unit = summary.get("column"), summary.get("unit")
    if column:
        text += f" (column {column}" + (f", in {unit})" if unit else ")")
    failed = summary.get("failed")
    if isinstance(failed, int) and failed:
        text += f"; {failed:,} failed"
    return text
