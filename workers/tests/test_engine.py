"""``analyze()``: the interface the Celery worker calls."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from capture_testdata import CAPTURES

from whodunnet import ENGINE_VERSION
from whodunnet.engine import analyze


def test_it_returns_one_evidence_entry_per_file_and_a_summary_finding_per_capture(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("client timed out at 30 s\n")
    result = analyze([CAPTURES / "ipv6.pcap", notes, str(CAPTURES / "iso-download.pcap.gz")])
    assert result.engine_version == ENGINE_VERSION
    assert [e.kind for e in result.evidence] == ["capture", "unknown", "capture"]
    assert result.evidence[1].error is not None and "text" in result.evidence[1].error.message
    assert [f.kind for f in result.findings] == ["capture.summary", "capture.summary"]
    assert [f.refs[0].evidence for f in result.findings] == [0, 2]
    assert len({f.key for f in result.findings}) == 2


def test_it_titles_the_summary_with_packets_time_and_connections() -> None:
    findings = analyze([CAPTURES / "echo-connections.pcap.gz"]).findings
    (finding,) = [f for f in findings if f.kind == "capture.summary"]
    assert finding.title == "82,582 packets over 6.5 s, 500 TCP connections"
    assert finding.layer == "network" and finding.severity == "info"
    assert "82,582" in finding.explanation and "gzip" in finding.explanation
    assert finding.data["tcp_connections"] == 500


def test_it_reports_progress_from_zero_to_one_at_most_ten_times_a_second() -> None:
    calls: list[tuple[float, float, str]] = []
    started = time.monotonic()
    analyze(
        [CAPTURES / "echo-connections.pcap.gz", CAPTURES / "ipv6.pcap"],
        progress=lambda fraction, message: calls.append((time.monotonic(), fraction, message)),
    )
    elapsed = time.monotonic() - started
    fractions = [c[1] for c in calls]
    assert fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert len(calls) <= 2 + elapsed * 10
    assert any("echo-connections" in c[2] for c in calls)


def test_it_result_is_json_ready() -> None:
    data = analyze([CAPTURES / "pptp.pcap"]).to_json()
    assert set(data) == {"engine_version", "evidence", "findings", "capture_pairs"}
    assert set(data["evidence"][0]) == {"path", "kind", "summary", "error", "connections", "provenance", "packet_index"}
    assert set(data["evidence"][0]["summary"]) == {
        "format",
        "compressed",
        "link_types",
        "packets",
        "bytes",
        "captured_bytes",
        "first_ts",
        "last_ts",
        "duration",
        "tcp_packets",
        "tcp_connections",
        "truncated_packets",
        "ip_fragments",
        "rtt",
        "largest_transfer",
        "server_ports",
        "server_port_count",
        "deadline_closes",
        "receive_window",
        "ip_length_beyond_frame",
        "duplicate_packets",
        "duplicate_ttl",
    }
    assert set(data["findings"][0]) == {"kind", "layer", "severity", "title", "explanation", "refs", "key", "data"}


class _StreamOnly:
    """A ``Source`` as an object store gives one: no path, a stream, and a copy only when asked for."""

    def __init__(self, path: Path, scratch: Path) -> None:
        self.name = "stored-object"
        self.size = path.stat().st_size
        self._path = path
        self._scratch = scratch
        self.copies = 0
        self.opened = 0

    def open(self) -> Any:
        self.opened += 1
        return open(self._path, "rb")

    @contextlib.contextmanager
    def local_copy(self) -> Iterator[Path]:
        self.copies += 1
        copy = self._scratch / "copy"
        shutil.copyfile(self._path, copy)
        try:
            yield copy
        finally:
            copy.unlink()


def test_it_reads_a_source_as_it_reads_a_path_as_a_stream_never_a_copy(tmp_path: Path) -> None:
    capture = CAPTURES / "echo-connections.pcap.gz"  # gzip: sniffed through the stream too
    text = tmp_path / "sysctl.txt"
    text.write_text("net.ipv4.tcp_rmem = 4096 131072 6291456\nnet.core.somaxconn = 4096\n")
    by_path = analyze([capture, text], combine_evidence=False)
    sources = [_StreamOnly(capture, tmp_path), _StreamOnly(text, tmp_path)]
    by_source = analyze(sources, combine_evidence=False)
    for a, b in zip(by_path.evidence, by_source.evidence, strict=True):
        assert (a.kind, a.summary, a.error) == (b.kind, b.summary, b.error)
        assert b.path == "stored-object"
    assert by_source.evidence[0].kind == "capture" and by_source.evidence[0].summary["packets"] > 0
    assert sources[0].copies == 0 and sources[0].opened >= 2  # streamed: never copied
    assert sources[1].copies == 0 and sources[1].opened >= 2  # text kinds stream as well
    assert [f.kind for f in by_path.findings] == [f.kind for f in by_source.findings]
