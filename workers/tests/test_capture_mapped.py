"""A plain capture file is scanned where it lies (mapped, ``source.MappedFile``); a stream is read into a buffer.

The two must be indistinguishable to a user: the same summary, connection table and packet index, and for a
broken or oversized file the same error at the same offset with the same partial result. Each case here is read
both ways, from a file several windows long so that records, skipped options and cuts straddle the windows.
"""

from __future__ import annotations

import gzip
import io
import struct
from pathlib import Path
from typing import Any

import pytest
from capture_builders import ethernet, ipv4, pcap, pcap_records, pcapng_idb, pcapng_shb, tcp_segment
from capture_testdata import CAPTURES

from whodunnet.capture import CaptureAnalysis
from whodunnet.capture.source import HEADROOM, MAX_INFLATE, WINDOW
from whodunnet.errors import InputTooLarge, MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, Limits

#: 82,582 packets, 6.8 MB: seven windows.
ECHO = gzip.decompress((CAPTURES / "echo-connections.pcap.gz").read_bytes())


def read(source: Path | io.BytesIO, limits: Limits) -> dict[str, Any]:
    """Everything a user sees of one capture: its summary or error, table and index."""
    analysis = CaptureAnalysis(limits=limits)
    error = None
    try:
        summary = analysis.run(source)
    except MalformedInput as exc:
        summary = exc.partial
        error = (type(exc).__name__, exc.message, exc.offset)
    return {
        "summary": summary,
        "error": error,
        "table": repr(list(analysis.connections())),  # repr: a NaN is the same NaN
        "index": analysis.index,
        "read": analysis.decompressed_bytes,
    }


def both_ways(tmp_path: Path, data: bytes, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    path = tmp_path / "capture"
    path.write_bytes(data)
    mapped = read(path, limits)
    assert mapped == read(io.BytesIO(data), limits)
    return mapped


def epb_with_options(frame: bytes, ticks: int, options: int) -> bytes:
    """An enhanced packet block whose options (one comment) are longer than the reader buffers: it skips them."""
    comment = b"c" * options
    body = struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(frame), len(frame)) + frame
    body += b"\x00" * (-len(frame) % 4) + struct.pack("<HH", 1, len(comment)) + comment + struct.pack("<HH", 0, 0)
    blen = 12 + len(body)
    return struct.pack("<II", 6, blen) + body + struct.pack("<I", blen)


def test_a_capture_over_many_windows_reads_the_same_from_its_file_as_from_a_stream(tmp_path: Path) -> None:
    seen = both_ways(tmp_path, ECHO)
    assert seen["error"] is None
    assert seen["summary"]["packets"] == 82582
    assert seen["summary"]["tcp_connections"] > 0
    # a checkpoint per window, the last where the file ends
    assert len(seen["index"]) >= len(ECHO) // WINDOW
    assert seen["index"][-1].offset == len(ECHO)


@pytest.mark.parametrize("cut", [100, WINDOW - 5, WINDOW + 3, 3 * WINDOW + 17, len(ECHO) - 1])
def test_a_cut_file_stops_at_the_same_record_with_the_same_partial_result(tmp_path: Path, cut: int) -> None:
    seen = both_ways(tmp_path, ECHO[:cut])
    assert seen["error"] is not None and seen["error"][0] == "MalformedInput"
    assert seen["error"][2] < cut
    assert seen["summary"]["packets"] < 82582
    assert seen["summary"]["packets"] > 0 or cut < 200


@pytest.mark.parametrize("after", [WINDOW - 8, 2 * WINDOW])
def test_a_corrupt_length_fails_at_the_same_record(tmp_path: Path, after: int) -> None:
    at = next(offset for offset, _ in pcap_records(ECHO) if offset >= after)
    data = bytearray(ECHO)
    data[at + 8 : at + 12] = struct.pack("<I", 1 << 30)  # the record's caplen
    seen = both_ways(tmp_path, bytes(data))
    assert seen["error"] is not None and seen["error"][2] == at


@pytest.mark.parametrize("limit", [WINDOW - 1, WINDOW, 2 * WINDOW + 1000, len(ECHO) - 1, len(ECHO)])
def test_the_input_limit_stops_both_at_the_limit(tmp_path: Path, limit: int) -> None:
    seen = both_ways(tmp_path, ECHO, Limits(max_input_bytes=limit))
    if limit >= len(ECHO):
        assert seen["error"] is None
        return
    assert seen["error"] is not None and seen["error"][0] == InputTooLarge.__name__
    assert seen["error"][2] == limit
    assert seen["read"] == limit


def test_records_longer_than_the_room_before_a_stream_block_read_the_same(tmp_path: Path) -> None:
    # A stream's block is scanned where it is, with the end of the block before it (a cut record) copied in
    # front: a record too long for that room (``HEADROOM``) is read in the scanner's own buffer instead, and the
    # blocks after it where they are again. Frames of 60 kB and of 200 kB (their IP packets of 60 kB and a 140 kB
    # trailer), so that records of both kinds are cut by blocks' ends.
    frames = []
    for i in range(60):
        payload = b"x" * 60_000
        segment = ethernet(
            ipv4("192.0.2.1", "192.0.2.2", tcp_segment(5555, 443, seq=i * 60_000, flags=0x10, payload=payload))
        )
        frames.append(segment + b"\x00" * (140_000 if i % 3 else 0))
    data = pcap(frames, snaplen=256 * 1024)
    cut_before = [
        (at // MAX_INFLATE + 1) * MAX_INFLATE - at
        for at, caplen in pcap_records(data)
        if at // MAX_INFLATE != (at + 16 + caplen - 1) // MAX_INFLATE
    ]
    assert any(n > HEADROOM for n in cut_before) and any(n <= HEADROOM for n in cut_before)
    seen = both_ways(tmp_path, data)
    assert seen["error"] is None
    assert seen["summary"]["packets"] == 60
    assert seen["summary"]["captured_bytes"] == sum(map(len, frames))


#: A frame a whole number of 32-bit words long, as a pcapng block holds it without padding.
FRAME = ethernet(ipv4("192.0.2.1", "192.0.2.2", tcp_segment(5555, 443, payload=b"x" * 62)))
T0 = 1_700_000_000_000_000


def epb(ticks: int, options: bytes = b"") -> bytes:
    body = struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(FRAME), len(FRAME)) + FRAME + options
    blen = 12 + len(body)
    return struct.pack("<II", 6, blen) + body + struct.pack("<I", blen)


def comments(size: int) -> bytes:
    """Options of about ``size`` bytes: comments (at most 65,532 bytes each), then the end of options."""
    one = b"c" * 65532
    return (struct.pack("<HH", 1, len(one)) + one) * (size // len(one) + 1) + struct.pack("<HH", 0, 0)


def pcapng_with_long_options() -> tuple[bytes, int, int]:
    """Packets up to near a window's end, one whose options reach over the next boundary, then ten more; and
    where that block starts and how many packets come before it."""
    head = pcapng_shb() + pcapng_idb(1)
    before = [epb(T0 + i) for i in range((WINDOW - 3000) // len(epb(0)))]
    long = epb(T0 + 10**6, comments(3 * WINDOW // 2))
    after = [epb(T0 + 2 * 10**6 + i) for i in range(10)]
    start = len(head) + sum(map(len, before))
    return head + b"".join(before) + long + b"".join(after), start, len(before)


def test_options_skipped_over_a_window_boundary_read_the_same(tmp_path: Path) -> None:
    data, _, before = pcapng_with_long_options()
    seen = both_ways(tmp_path, data)
    assert seen["error"] is None
    assert seen["summary"]["format"] == "pcapng"
    assert seen["summary"]["packets"] == before + 11


@pytest.mark.parametrize("short_by", [1, WINDOW])
def test_options_that_run_past_the_end_fail_at_their_block(tmp_path: Path, short_by: int) -> None:
    data, start, before = pcapng_with_long_options()
    long_end = start + len(epb(0, comments(3 * WINDOW // 2)))
    seen = both_ways(tmp_path, data[: long_end - short_by])
    assert seen["error"] is not None and seen["error"][2] == start
    assert seen["summary"]["packets"] == before + 1  # its packet was read before its options


def test_a_mapped_file_keeps_no_more_than_a_few_windows_of_it_in_memory(tmp_path: Path) -> None:
    # The mapping counts in the process's memory for the pages it has touched, until it gives them back: the
    # analysis of a 1 GB file must not hold 1 GB of it.
    path = tmp_path / "echo.pcap"
    path.write_bytes(ECHO)
    mapped_kb: list[int] = []

    def resident(_: float) -> None:
        lines = Path("/proc/self/smaps").read_text().splitlines()
        for i, line in enumerate(lines):
            if line.endswith(str(path)):
                rss = next(x for x in lines[i + 1 :] if x.startswith("Rss:"))
                mapped_kb.append(int(rss.split()[1]))

    CaptureAnalysis(on_progress=resident).run(path)
    assert len(mapped_kb) >= 5  # it was mapped, and looked at while the scan went on
    assert max(mapped_kb) <= 3 * WINDOW // 1024
