"""A person's correction of the detected kind, and combining stored results."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from capture_testdata import CAPTURES

from whodunnet import registry
from whodunnet.engine import EVIDENCE_KINDS, analyze, combine
from whodunnet.kinds.spec import Combiner
from whodunnet.model import EvidenceResult, Finding

COMBINERS = registry.combiners()

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


def test_a_failing_combiner_is_logged_and_reported_while_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[Finding]:
        raise ZeroDivisionError("division by zero")

    failing = Combiner("the imaginary diffs", "neighbours", broken)
    monkeypatch.setattr(registry, "combiners", lambda: [failing, *COMBINERS])
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text("6.5.13\n")
    after.write_text("6.6.10-1-aws\n")
    with caplog.at_level(logging.ERROR, logger="whodunnet.engine"):
        found = combine([analyze([before]).evidence[0], analyze([after]).evidence[0]], [])
    (failed,) = [f for f in found if f.kind == "engine.combiner_failed"]
    assert failed.layer == "neighbours" and failed.data == {
        "combiner": "the imaginary diffs",
        "error": "ZeroDivisionError: division by zero",
    }
    assert "the imaginary diffs" in failed.title and "ZeroDivisionError" in failed.explanation
    assert "kernel.known_change_in_range" in {f.kind for f in found}
    assert "the imaginary diffs" in caplog.text and "ZeroDivisionError" in caplog.text
