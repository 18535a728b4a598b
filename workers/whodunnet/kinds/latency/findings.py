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
    "meaning": Field("text"),
    "window_ms": Field("ms", "Window"),
    "share": Field("share"),
}

FINDINGS = (
    FindingSpec(
        "latency.timer_signature",
        facts=("samples", "percentiles_ms", "matches", "format", "column"),
        tables=(
            Table("signatures", "Timer signatures", columns=("name", "meaning", "window_ms", "count", "share")),
            Table("histogram", "Histogram", columns=("lower_ms", "upper_ms", "count")),
            Table("modes", "Modes", columns=("lower_ms", "count")),
        ),
        hidden=("netperf",),
    ),
)
