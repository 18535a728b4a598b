"""Snapshots of every snapshot kind are dated and paired the same way."""

from __future__ import annotations

import pytest

from whodunnet.model import EvidenceResult
from whodunnet.snapshots import UNREADABLE, snapshot_pairing, timestamp_line


@pytest.mark.parametrize(
    ("line", "when"),
    [
        ("=== 1795294294.15", 1795294294.15),
        ("# 2026-11-20T10:00:00Z", 1795168800.0),
        ("date: 1795294294", 1795294294.0),
        ("Timestamp: 2026-11-20 10:00:00+00:00", 1795168800.0),
        ("# 2026-13-45T10:00:00Z", UNREADABLE),
        ("# limit eth0 10G", None),
        ("TcpRetransSegs 3", None),
    ],
)
def test_it_reads_the_time_a_snapshot_says(line: str, when: float | str | None) -> None:
    assert timestamp_line(line) == when


def snap(kind: str, formats: list[str], timestamp: float | None = None) -> EvidenceResult:
    return EvidenceResult(path=f"{kind}.txt", kind=kind, summary={"formats": formats, "timestamp": timestamp})


def test_it_pairs_snapshots_of_one_kind_and_formats_never_across_kinds() -> None:
    evidence = [
        snap("counters", ["nstat"], 200.0),
        snap("softnet", ["nstat"]),
        snap("counters", ["nstat"], 100.0),
        snap("strace", ["nstat"]),
    ]
    pairs = {p["evidence"]: p for p in snapshot_pairing(evidence, ("counters", "softnet"))}
    assert set(pairs) == {0, 1, 2}  # strace is not a snapshot kind here
    assert (pairs[2]["role"], pairs[2]["other"], pairs[0]["role"]) == ("before", 0, "after")
    assert pairs[0]["interval_s"] == 100.0 and pairs[0]["ordered_by"] == "time"
    assert pairs[1]["role"] == "only" and pairs[1]["other"] is None
