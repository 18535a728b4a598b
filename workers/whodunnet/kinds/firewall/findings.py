"""How the UI shows ``firewall.drops``'s numbers."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "delta": Field("text", "Difference of two snapshots"),
    "interval_s": Field("seconds", "Interval"),
    "evidence": Field("count"),
    "dropped_packets": Field("count", "Packets dropped or rejected"),
    "dropped_bytes": Field("bytes", "Bytes dropped or rejected"),
    "table": Field("text"),
    "chain": Field("text"),
    "rule": Field("text"),
    "verdict": Field("text"),
    "packets": Field("count"),
    "bytes": Field("bytes"),
    "new": Field("text", "New rule"),
    "decided_packets": Field("count", "Packets its counted rules decided on"),
    "share": Field("share", "Share dropped"),
    "resets": Field("text", "Counters reset"),
}

FINDINGS = (
    FindingSpec(
        "firewall.drops",
        facts=("dropped_packets", "dropped_bytes", "interval_s", "delta", "resets"),
        tables=(
            Table("rules", "Dropping rules", columns=("table", "chain", "rule", "verdict", "packets", "bytes", "new")),
            Table("tables", "Per table", columns=("table", "decided_packets", "dropped_packets", "share")),
        ),
        hidden=("evidence", "host", "hosts", "ordered_by"),
    ),
)
