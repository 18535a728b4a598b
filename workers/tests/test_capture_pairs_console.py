"""The console's way into the two-capture matching: results without connection tables, files on disk."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from whodunnet import capture_pairs
from whodunnet.engine import analyze, combine

CAPTURES = Path(__file__).parent / "data" / "captures"


def test_combine_matches_stored_results_and_notices_a_changed_file(tmp_path: Path) -> None:
    a, b = tmp_path / "client.pcap", tmp_path / "server.pcap"
    shutil.copy(CAPTURES / "loopback-scenarios.pcap", a)
    shutil.copy(CAPTURES / "loopback-scenarios.pcap", b)
    read = analyze([a, b], combine_evidence=False)
    stored = [replace(ev, connections=()) for ev in read.evidence]  # as the backend keeps them
    first = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    again = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    (cli,) = [f for f in analyze([a, b]).findings if f.kind.startswith("path.")]
    assert first == again == [cli] and cli.kind == "path.no_loss_between_captures"
    # The same names with other content are read again, not answered from the cache.
    cut = (CAPTURES / "loopback-scenarios.pcap").read_bytes()
    b.write_bytes(cut[: len(cut) * 2 // 3])
    changed = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    assert changed != first
    assert len(capture_pairs._CACHE) <= capture_pairs.CACHE_SIZE
