"""How the UI shows ``latency.timer_signature``'s numbers."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "samples": Field("count"),
    "percentiles_ms": Field("ms", "Percentiles"),
    "matches": Field("text", "Timer signatures matched"),
    "format": Field("text"),
    "column": Field("text", "Column read"),
    "netperf": Field("number"),
    "lower_ms": Field("ms", "From"),
    "upper_ms": Field("ms", "To"),
    "count": Field("count"),
    "name": Field("text", "Signature"),
    "meaning": Field("text", "Signature"),
    "window_ms": Field("ms", "Window"),
    "share": Field("share"),
    "offset_ms": Field("ms", "Delay it adds"),
    "mode": Field("text", "Stands out"),
    "baseline_ms": Field("ms", "The service's own latency (p25)"),
    "spread_ms": Field("ms", "Its spread (p25 − p5)"),
    "tail_ratio": Field("ratio", "p99 against the median"),
    "failed": Field("count", "Failed requests"),
    "failed_share": Field("share", "Failed share"),
    "failed_at_ms": Field("ms", "Failed after (median)"),
    "reason": Field("text"),
}

FINDINGS = (
    FindingSpec(
        "latency.timer_signature",
        facts=("samples", "percentiles_ms", "baseline_ms", "spread_ms", "tail_ratio", "failed",
               "failed_share", "failed_at_ms", "format", "column"),
        tables=(
            Table("signatures", "Timer signatures",
                  columns=("meaning", "offset_ms", "window_ms", "count", "share", "mode")),
            Table("failures", "Failed requests", columns=("reason", "count")),
            Table("histogram", "Histogram", columns=("lower_ms", "upper_ms", "count")),
            Table("modes", "Modes", columns=("lower_ms", "count")),
        ),
        hidden=("netperf", "matches"),
    ),
)  # fmt: skip
