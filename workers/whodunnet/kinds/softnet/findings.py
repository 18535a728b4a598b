"""How the UI shows ``host.softnet_backlog``'s numbers."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "delta": Field("text", "Difference of two snapshots"),
    "interval_s": Field("seconds", "Interval"),
    "evidence": Field("count"),
    "cpu": Field("count", "CPU"),
    "processed": Field("count", "Packets processed"),
    "dropped": Field("count", "Dropped (backlog full)"),
    "time_squeeze": Field("count", "Time squeezes"),
    "cpu_collision": Field("count", "CPU collisions"),
    "received_rps": Field("count", "RPS wake-ups"),
    "flow_limit_count": Field("count", "Flow-limit hits"),
    "resets": Field("text", "Counters reset"),
}

FINDINGS = (
    FindingSpec(
        "host.softnet_backlog",
        facts=("dropped", "time_squeeze", "processed", "received_rps", "flow_limit_count", "interval_s", "delta",
               "resets"),
        tables=(
            Table("cpus", "Per CPU", columns=("cpu", "processed", "dropped", "time_squeeze", "received_rps",
                                              "flow_limit_count")),
        ),
        hidden=("evidence", "cpu_collision", "host", "hosts", "ordered_by"),
    ),
)  # fmt: skip
