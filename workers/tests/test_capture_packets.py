"""The packet list: the analysis's packet index, pages read from a checkpoint, and the pcap export,
each checked against tshark's view of the same real captures."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from whodunnet.capture.analyzer import analyze_capture
from whodunnet.capture.connections import Connection
from whodunnet.capture.packets import Checkpoint, Endpoints, PacketRow, index_from_json, read_page, write_pcap
from whodunnet.limits import DEFAULT_LIMITS

CAPTURES = Path(__file__).parent / "data" / "captures"
FIELDS = ("frame.number", "frame.time_epoch", "tcp.flags", "tcp.seq", "tcp.ack", "tcp.len", "tcp.window_size_value")


def tshark(path: Path, stream: int, *extra: str) -> list[list[str]]:
    args = ["tshark", "-r", str(path), "-Y", f"tcp.stream == {stream}", *extra, "-T", "fields"]
    out = subprocess.run([*args, *(a for f in FIELDS for a in ("-e", f))], capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


def analysed(path: Path) -> tuple[list[Checkpoint], tuple[Connection, ...]]:
    result, _ = analyze_capture(0, path, limits=DEFAULT_LIMITS)
    return index_from_json(result.packet_index), tuple(result.connections)


def endpoints(c: Connection) -> Endpoints:
    return Endpoints(c.client_ip, c.client_port, c.server_ip, c.server_port, c.c2s.base_seq, c.s2c.base_seq)


def every_page(path: Path, index: list[Checkpoint], c: Connection, limit: int, start: int = 1) -> list[PacketRow]:
    rows: list[PacketRow] = []
    nxt: int | None = start
    while nxt is not None:
        page = read_page(
            path, index, endpoints(c), first_packet=c.first_packet, last_packet=c.last_packet, start=nxt, limit=limit
        )
        assert page.error is None and len(page.packets) <= limit
        rows += page.packets
        nxt = page.next_from
    return rows


def pcap_checkpoints(path: Path, every: int) -> list[Checkpoint]:
    """Checkpoints of a classic pcap worked out here (not by the scan): every ``every`` records."""
    data = path.read_bytes()
    order = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, pos, frame = [Checkpoint(0, 0, 0.0)], 24, 0
    while pos + 16 <= len(data):
        secs, _, caplen = struct.unpack(order + "III", data[pos : pos + 12])
        pos += 16 + caplen
        frame += 1
        if frame % every == 0:
            out.append(Checkpoint(pos, frame, float(secs)))
    return out


def assert_like_tshark(rows: list[PacketRow], expected: list[list[str]]) -> None:
    assert [r.number for r in rows] == [int(e[0]) for e in expected]
    for r, (_, time, flags, seq, ack, length, window) in zip(rows, expected, strict=True):
        bits = int(flags, 16)
        assert abs(r.time - float(time)) < 1e-6
        assert (r.seq, r.length, r.window) == (int(seq), int(length), int(window))
        assert ("SYN" in r.flags, "ACK" in r.flags, "FIN" in r.flags, "RST" in r.flags) == (
            bool(bits & 2),
            bool(bits & 16),
            bool(bits & 1),
            bool(bits & 4),
        )
        assert r.ack == (int(ack) if bits & 16 else None)


def test_pages_from_the_analysis_index_match_tshark() -> None:
    path = CAPTURES / "retransmit-fast009.pcap"
    index, conns = analysed(path)
    assert index[0] == Checkpoint(0, 0, 0.0) and index[-1].frame == conns[-1].last_packet
    assert_like_tshark(every_page(path, index, conns[0], limit=7), tshark(path, 0))


def test_a_page_read_from_a_checkpoint_deep_in_the_file_is_the_same_page() -> None:
    path = CAPTURES / "loopback-scenarios.pcap"
    _, conns = analysed(path)
    deep = pcap_checkpoints(path, every=16)
    assert len(deep) > 10
    expected = tshark(path, 0)
    middle = int(expected[len(expected) // 2][0])
    # seeking to a checkpoint (16-packet steps) gives tshark's packets from the middle on
    rows = every_page(path, deep, conns[0], limit=50, start=middle)
    assert_like_tshark(rows, [e for e in expected if int(e[0]) >= middle])
    # and the classification (retransmission, zero window …) is the one a scan from the start makes
    from_start = [r for r in every_page(path, [], conns[0], limit=1000) if r.number >= middle]
    assert rows == from_start


def test_retransmissions_are_annotated_where_tshark_sees_them() -> None:
    path = CAPTURES / "retransmit-fast009.pcap"
    index, conns = analysed(path)
    rows = every_page(path, index, conns[0], limit=100)
    marked = {int(e[0]) for e in tshark(path, 0, "-Y", "tcp.stream == 0 && tcp.analysis.retransmission")}
    assert marked
    assert {r.number for r in rows if "retransmission" in r.annotations} == marked


@pytest.mark.parametrize("name", ["retransmit-timeout.pcapng", "echo-connections.pcap.gz"])
def test_pcapng_and_compressed_captures_page_too(name: str) -> None:
    path = CAPTURES / name
    index, conns = analysed(path)
    if name.endswith(".gz"):
        assert index == []  # a compressed file cannot be sought: pages scan from the start
    assert_like_tshark(every_page(path, index, conns[0], limit=5), tshark(path, 0))


@pytest.mark.parametrize("name", ["loopback-scenarios.pcap", "retransmit-timeout.pcapng"])
def test_the_pcap_export_holds_exactly_the_listed_packets(name: str, tmp_path: Path) -> None:
    path = CAPTURES / name
    index, conns = analysed(path)
    rows = every_page(path, index, conns[0], limit=1000)[2:40]
    out = tmp_path / "out.pcap"
    with open(out, "wb") as f:
        assert write_pcap(path, index, [r.number for r in rows], f) == len(rows)
    listed = subprocess.run(
        ["tshark", "-r", str(out), "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.seq_raw", "-e", "tcp.len"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert [(round(float(t), 6), int(n)) for t, _, n in (x.split("\t") for x in listed)] == [
        (round(r.time, 6), r.length) for r in rows
    ]


def test_a_connection_whose_syns_were_never_answered_shows_its_retries() -> None:
    # tshark: stream 3 of this loopback capture is 4 SYNs (3 retransmitted), no SYN-ACK.
    from whodunnet.capture.timeseq import time_sequence

    path = CAPTURES / "loopback-scenarios.pcap"
    index, conns = analysed(path)
    c = conns[3]
    assert (c.syn_count, c.synack_count, c.handshake_complete) == (4, 0, False)
    assert "never answered" in c.window_scale_note and "not captured" not in c.window_scale_note
    graph = time_sequence(path, 3)
    assert graph.sender == "client" and len(graph.seg_time) == 4
    assert graph.seg_retransmission == (False, True, True, True)
    rows = every_page(path, index, c, limit=100)
    assert_like_tshark(rows, tshark(path, 3))
    assert [r.annotations for r in rows] == [(), ("SYN retry",), ("SYN retry",), ("SYN retry",)]


class _Counting:
    """A capture file that counts the bytes read from it (a stream, as the store gives one)."""

    def __init__(self, path: Path) -> None:
        self._f = open(path, "rb")  # noqa: SIM115 - closed by the test
        self.read_bytes = 0

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def tell(self) -> int:
        return self._f.tell()

    def seekable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        out = self._f.read(n)
        self.read_bytes += len(out)
        return out

    def readinto(self, view: memoryview) -> int:
        n = self._f.readinto(view)
        self.read_bytes += n
        return n

    def close(self) -> None:
        self._f.close()


@pytest.mark.parametrize("name", ["loopback-scenarios.pcap", "206_example_b.pcap", "ssh.pcap"])
def test_the_graph_read_from_the_connection_s_stretch_is_the_graph_of_the_whole_file(name: str) -> None:
    """The Stevens graph read from the checkpoint before a connection's first packet to its last is the one a scan
    of the whole file draws, for every connection and sender, whatever connections came before on the same ports."""
    from whodunnet.capture.timeseq import Span, time_sequence

    path = CAPTURES / name
    _, conns = analysed(path)
    index = pcap_checkpoints(path, every=16)
    for c in conns:
        span = Span(index, endpoints(c), c.first_packet, c.last_packet)
        for sender in ("auto", "client", "server"):
            whole = time_sequence(path, c.id, sender=sender, max_points=200)
            assert time_sequence(path, c.id, sender=sender, max_points=200, span=span) == whole, (c.id, sender)


def test_the_graph_of_a_short_connection_late_in_a_file_reads_only_its_stretch() -> None:
    from whodunnet.capture.timeseq import Span, time_sequence

    path = CAPTURES / "loopback-scenarios.pcap"
    _, conns = analysed(path)
    index = pcap_checkpoints(path, every=16)
    c = conns[-1]
    assert c.first_packet > 100  # late in the file
    stream = _Counting(path)
    try:
        graph = time_sequence(stream, c.id, span=Span(index, endpoints(c), c.first_packet, c.last_packet))  # type: ignore[arg-type]
    finally:
        stream.close()
    assert graph == time_sequence(path, c.id) and graph.seg_time
    # The file's header, then from the checkpoint before its first packet to (a buffer past) its last.
    assert stream.read_bytes < path.stat().st_size // 2


def test_the_graph_of_an_early_connection_stops_reading_after_its_last_packet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan stops once it is past the connection's last packet, even though no more of its packets come."""
    from whodunnet.capture import scanner
    from whodunnet.capture.timeseq import Span, time_sequence

    # ssh.pcap's packets (its first connection ends at packet 45), then 206_example_b.pcap's twelve times: 23 MB
    # read 1 MiB at a time (the smallest read the scan makes; the read-ahead thread keeps 4 more ready), so where
    # the scan stops shows in the bytes it read.
    monkeypatch.setattr(scanner, "CHUNK", 1 << 20)
    path = tmp_path / "long.pcap"
    path.write_bytes((CAPTURES / "ssh.pcap").read_bytes() + (CAPTURES / "206_example_b.pcap").read_bytes()[24:] * 12)
    _, conns = analysed(path)
    c = conns[0]
    assert c.last_packet < 100
    stream = _Counting(path)
    try:
        graph = time_sequence(stream, c.id, span=Span([], endpoints(c), c.first_packet, c.last_packet))  # type: ignore[arg-type]
    finally:
        stream.close()
    assert graph == time_sequence(path, c.id) and graph.seg_time
    assert stream.read_bytes < path.stat().st_size // 2
