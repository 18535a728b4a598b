"""``/proc/net/softnet_stat``: one row per CPU of hex counters of the receive path's backlog.

The columns, as ``net/core/net-procfs.c`` prints them (older kernels print fewer; a row has at
least the first nine): packets processed, packets dropped because the CPU's backlog queue was
full (``net.core.netdev_max_backlog``), time squeezes (``net_rx_action`` ran out of its budget,
``net.core.netdev_budget``/``netdev_budget_usecs``, with packets still waiting), five columns
that are always 0, cpu_collision (always 0 since 4.x), RPS wake-ups received, flow-limit hits,
the backlog's length, the CPU's id, and its input and process queue lengths. Rows are listed
for online CPUs only, so the CPU id column (when there is one) names the CPU, not the row.

A ``=== <epoch>`` (or ``# <ISO time>``) line dates the snapshot, as for the counters kind.
"""

from __future__ import annotations

import re
from typing import Any

from whodunnet.kinds.text import LineLog
from whodunnet.snapshots import SnapshotTime

#: Column → name; None for the columns that are always 0.
COLUMNS: tuple[str | None, ...] = (
    "processed", "dropped", "time_squeeze", None, None, None, None, None, "cpu_collision", "received_rps",
    "flow_limit_count", "backlog_len", "cpu", "input_qlen", "process_qlen",
)  # fmt: skip
#: Counters that only grow (the others are gauges: queue lengths, the CPU id).
COUNTERS = ("processed", "dropped", "time_squeeze", "cpu_collision", "received_rps", "flow_limit_count")
MIN_COLUMNS = 9
#: Rows kept (one per CPU; a file with more is not a softnet_stat snapshot of one host).
MAX_CPUS = 8192
_HEX = re.compile(r"^[0-9a-fA-F]{1,16}$")


class SoftnetParser:
    """One CPU per line; ``cpus`` keeps each row's counters, its CPU id and its line."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.cpus: list[dict[str, Any]] = []
        self.columns = 0
        self.time = SnapshotTime(log)

    def feed(self, n: int, text: str) -> None:
        s = text.strip()
        if not s:
            return
        if self.time.feed(n, s):
            return
        if s.startswith("#"):
            return
        cells = s.split()
        if len(cells) < MIN_COLUMNS or not all(_HEX.match(c) for c in cells):
            self.log.bad(n, f"not a softnet_stat row ({MIN_COLUMNS} or more hexadecimal columns)", text)
            return
        if len(self.cpus) >= MAX_CPUS:
            self.log.bad(n, f"more than {MAX_CPUS:,} CPUs: this row is not kept", text)
            return
        row: dict[str, Any] = {name: int(cell, 16) for name, cell in zip(COLUMNS, cells, strict=False) if name}
        row.setdefault("cpu", len(self.cpus))  # no id column: rows are CPUs in order
        row["line"] = n
        self.columns = max(self.columns, len(cells))
        self.cpus.append(row)

    def to_json(self) -> dict[str, Any]:
        totals = {name: sum(c[name] for c in self.cpus if name in c) for name in COUNTERS}
        return {
            "formats": ["softnet_stat"] if self.cpus else [],
            "timestamp": self.time.value,
            "columns": self.columns,
            "cpus": self.cpus,
            "totals": {name: value for name, value in totals.items() if any(name in c for c in self.cpus)},
        }
