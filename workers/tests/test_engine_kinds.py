"""A person's correction of the detected kind, and combining stored results."""

from __future__ import annotations

from pathlib import Path

import pytest
from capture_testdata import CAPTURES

from whodunnet.engine import EVIDENCE_KINDS, analyze, combine

STRACE = b"1234 10:00:00.000001 setsockopt(3, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0\n"


def test_it_reads_a_file_as_the_kind_a_person_chose(tmp_path: Path) -> None:
    text = tmp_path / "client.txt"
    text.write_bytes(STRACE)
    detected = analyze([text]).evidence[0]
    chosen = analyze([text], kinds=["strace"]).evidence[0]
    assert chosen.kind == "strace"
    assert chosen.summary["syscalls"] >= 1
    assert detected.kind in EVIDENCE_KINDS or detected.kind == "unknown"


def test_it_refuses_to_read_text_as_a_capture(tmp_path: Path) -> None:
    text = tmp_path / "notes.pcap"
    text.write_bytes(b"hello, this is not a capture\n")
    result = analyze([text], kinds=["capture"]).evidence[0]
    assert result.kind == "unknown"
    assert result.error is not None and "not a capture" in result.error.message


def test_it_still_reads_a_capture_chosen_as_a_capture() -> None:
    result = analyze([CAPTURES / "twovlan.pcap"], kinds=["capture"]).evidence[0]
    assert result.kind == "capture" and result.summary["packets"] == 6


def test_it_wants_one_kind_per_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        analyze([CAPTURES / "twovlan.pcap"], kinds=[])


def test_it_combines_stored_kernel_results_into_a_range_finding(tmp_path: Path) -> None:
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text("6.5.13\n")
    after.write_text("6.6.10-1-aws\n")
    separately = [analyze([before]).evidence[0], analyze([after]).evidence[0]]
    kinds = {f.kind for f in combine(separately, [])}
    assert "kernel.known_change_in_range" in kinds
