"""The streaming text runner: every text kind reads line by line, with line numbers, in bounded memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from whodunnet.engine import analyze
from whodunnet.kinds.latency import analyzer as latency_analyzer
from whodunnet.kinds.text import HeadFirst, LineLog, TextRun, read_text, text_result

#: Far less than the files below take as a list of lines (each over 10 MB of Python objects).
PEAK_BYTES = 6 * 1024 * 1024


class Lines:
    def __init__(self) -> None:
        self.seen: list[tuple[int, str]] = []
        self.finished = False

    def feed(self, number: int, text: str) -> None:
        self.seen.append((number, text))

    def finish(self) -> None:
        self.finished = True


def peak_while(fn: object) -> int:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_it_feeds_numbered_lines_and_finishes_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"one\r\n\ntwo\xff\n")
    reader = Lines()
    run = read_text(path, reader)
    assert reader.seen == [(1, "one"), (2, ""), (3, "two\ufffd")] and reader.finished
    assert run.lines == 3 and run.error is None


def test_it_stops_at_a_corrupt_gzip_with_the_line_it_reached(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    good = gzip.compress(b"".join(f"line {i}\n".encode() for i in range(50_000)))
    path.write_bytes(good[: len(good) // 2] + bytes(64) + good[len(good) // 2 :])
    reader = Lines()
    run = read_text(path, reader)
    assert run.error is not None and "gzip" in run.error.message and run.error.line == run.lines + 1
    assert reader.seen and reader.finished


def test_head_first_lets_the_first_lines_choose_the_reader() -> None:
    chosen = Lines()
    head = HeadFirst(2, lambda lines: chosen if lines[0][1] == "a" else Lines())
    for n, t in enumerate(["", "a", "b", "c"], start=1):
        head.feed(n, t)
    head.finish()
    assert chosen.seen == [(2, "a"), (3, "b"), (4, "c")] and chosen.finished


def test_a_short_file_is_still_chosen_for_at_the_end() -> None:
    chosen = Lines()
    head = HeadFirst(60, lambda lines: chosen)
    head.feed(1, "only")
    head.finish()
    assert chosen.seen == [(1, "only")]


def test_the_bad_lines_are_counted_and_the_first_said(tmp_path: Path) -> None:
    log = LineLog()
    for n in range(1, 61):
        log.bad(n, "odd", "x")
    result = text_result(tmp_path / "f", "strace", {"syscalls": 0}, TextRun(lines=70, log=log))
    assert list(result.summary)[:2] == ["lines", "syscalls"] and result.summary["bad_line_count"] == 60
    assert len(result.summary["bad_lines"]) == 50
    assert result.error is not None and result.error.line == 1 and "60 lines could not be read" in result.error.message


@pytest.mark.parametrize(
    ("name", "header", "line"),
    [
        ("latency.csv", "request,elapsed_ms\n", "{i},{ms}\n"),
        ("kafka.properties", "bootstrap.servers=k:9092\n", "receive.buffer.bytes={i}\n"),
        ("versions.txt", "", "6.6.{i}-1-aws\n"),
        ("sysctl.txt", "", "net.core.rmem_max = {i}\n"),
    ],
)
def test_a_text_kind_reads_a_long_file_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, header: str, line: str
) -> None:
    monkeypatch.setattr(latency_analyzer, "MAX_KEPT", 10_000)  # the samples kept for percentiles are bounded too
    path = tmp_path / name
    with path.open("w") as f:
        f.write(header)
        for i in range(150_000):
            f.write(line.format(i=i, ms=i % 997))
    results: list[object] = []
    peak = peak_while(lambda: results.append(analyze([path], kinds=[_kind(name)])))
    assert peak < PEAK_BYTES, f"{peak:,} bytes at the peak"
    (ev,) = results[0].evidence  # type: ignore[attr-defined]
    assert ev.summary["lines"] == 150_000 + bool(header) and ev.error is None


def _kind(name: str) -> str:
    return {"latency.csv": "latency", "kafka.properties": "app_config", "versions.txt": "kernel_versions",
            "sysctl.txt": "sysctl"}[name]  # fmt: skip


def test_latency_percentiles_come_from_a_bounded_sample_of_a_huge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(latency_analyzer, "MAX_KEPT", 1000)
    path = tmp_path / "lat.csv"
    # 20 ms requests, one in a hundred 210 ms later (an RTO): the mode is found in the kept sample,
    # and its count is scaled back to the whole file.
    rows = "".join(f"{i},{20 + i % 5 + (210 if i % 100 == 7 else 0)}\n" for i in range(20_000))
    path.write_text("request,latency_ms\n" + rows)
    result = analyze([path])
    (f,) = result.findings
    assert f.data["samples"] == 20_000 and 20 <= f.data["percentiles_ms"]["p50"] <= 24
    assert f.data["matches"] == ["rto_min_200ms"]
    assert 100 <= next(s for s in f.data["signatures"] if s["name"] == "rto_min_200ms")["count"] <= 300
    assert "uniform sample of 1,000" in result.evidence[0].summary["percentiles_from"]


TCPINFO_ROWS = [
    {"ts": 1, "saddr": "10.0.0.1", "sport": 40000, "daddr": "203.0.113.7", "dport": 443, "tcpi_rtt": 20000},
    {"ts": 2, "saddr": "10.0.0.1", "sport": 40000, "daddr": "203.0.113.7", "dport": 443, "tcpi_rtt": 30000},
]


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("\n".join(json.dumps(r) for r in TCPINFO_ROWS) + "\n", "tcp_info JSON"),
        (json.dumps(TCPINFO_ROWS, indent=2) + "\n", "tcp_info JSON"),
        (json.dumps({"sockets": TCPINFO_ROWS}) + "\n", "tcp_info JSON"),
        ("ts,saddr,sport,daddr,dport,tcpi_rtt,note\n1,10.0.0.1,40000,203.0.113.7,443,20000,\"a\nb\"\n"
         "2,10.0.0.1,40000,203.0.113.7,443,30000,c\n", "tcp_info CSV"),
    ],
)  # fmt: skip
def test_it_streams_tcp_info_exports(tmp_path: Path, text: str, fmt: str) -> None:
    path = tmp_path / "tcpinfo"
    path.write_text(text)
    (ev,) = analyze([path], kinds=["sockets"]).evidence
    assert ev.summary["format"] == fmt and ev.summary["samples"] == 2 and ev.summary["snapshots"] == 2
    (sock,) = ev.summary["socket_list"]
    assert sock["rtt_ms"] == 30.0 and sock["peer"] == "203.0.113.7:443" and ev.error is None


def test_a_json_line_that_is_not_an_object_is_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "tcpinfo.jsonl"
    path.write_text(json.dumps(TCPINFO_ROWS[0]) + "\n[1, 2]\n{oops\n" + json.dumps(TCPINFO_ROWS[1]) + "\n")
    (ev,) = analyze([path], kinds=["sockets"]).evidence
    assert ev.summary["samples"] == 2 and [b["line"] for b in ev.summary["bad_lines"]] == [2, 3]
