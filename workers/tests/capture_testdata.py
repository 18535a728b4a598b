"""Where the capture tests' data lives and tshark's view of it (a plain module, not a conftest,
so it cannot collide with other test folders' conftest modules)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

CAPTURES = Path(__file__).parent / "data" / "captures"


@dataclass(frozen=True)
class TsharkView:
    """What tshark 4.0.17 saw in a capture: one row per TCP stream."""

    streams: int
    tcp_packets: int


def tshark_view(name: str) -> TsharkView:
    path = CAPTURES / "tshark" / f"{name}.tcp_streams.tsv"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines, delimiter="\t"))
    return TsharkView(
        streams=len(rows),
        tcp_packets=sum(int(r["orig_pkts"]) + int(r["resp_pkts"]) for r in rows),
    )
