"""The numba path against the pure-Python reference: identical tables, findings and errors.

Every test capture (and cut-short and corrupted copies of them) is analysed both ways; the
summary, every connection row and every finding must be equal, and a broken input must stop
with the same message at the same offset, with the same partial result.
"""

from __future__ import annotations

import gzip
import io
import random
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from capture_builders import ethernet, ipv4, pcap, pcapng_block, pcapng_epb, pcapng_idb, pcapng_shb, pcapng_spb
from capture_testdata import CAPTURES

from whodunnet.capture import CaptureAnalysis
from whodunnet.capture.analyzer import summary_finding
from whodunnet.capture.findings import tcp_findings
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS

fast = pytest.importorskip("whodunnet.capture.fast", reason="numba is not installed")

ALL = sorted(p.name for p in CAPTURES.iterdir() if p.is_file() and not p.name.endswith(".md"))


def run(data: bytes, *, compiled: bool, max_caplen: int | None = None) -> tuple[object, ...]:
    limits = DEFAULT_LIMITS if max_caplen is None else replace(DEFAULT_LIMITS, max_caplen=max_caplen)
    analysis = CaptureAnalysis(compiled=compiled, limits=limits)
    error = None
    try:
        summary = analysis.run(io.BytesIO(data))
    except MalformedInput as exc:
        summary = exc.partial
        error = (type(exc).__name__, exc.message, exc.offset)
    conns = analysis.connections()
    findings = tcp_findings(0, conns)
    assert isinstance(summary, dict)
    return summary, error, conns, findings, summary_finding(0, summary, None)


def same(data: bytes, **kw: int) -> None:
    pure = run(data, compiled=False, **kw)
    jit = run(data, compiled=True, **kw)
    for a, b, what in zip(pure, jit, ("summary", "error", "connections", "findings", "summary finding"), strict=True):
        assert a == b, what


@pytest.mark.parametrize("name", ALL)
def test_the_compiled_path_matches_the_pure_path(name: str) -> None:
    same((CAPTURES / name).read_bytes())


@pytest.mark.parametrize("name", ["206_example_b.pcap", "ipv6.pcap", "retransmit-fast009.pcap"])
def test_the_compiled_path_breaks_where_the_pure_path_breaks(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    for cut in (23, 24, 30, 40, len(data) // 3, len(data) - 5):
        same(data[:cut])
    corrupt = bytearray(data)
    corrupt[24 + 8 : 24 + 12] = (1 << 30).to_bytes(4, "little" if data[0] == 0xD4 else "big")
    same(bytes(corrupt))
    same(data, max_caplen=60)


def test_the_compiled_path_reads_gzip_and_many_connections(tmp_path: Path) -> None:
    # Enough connections to make the state grow several times and the events buffer flush.
    frames = []
    for i in range(5000):
        sport = 1024 + i
        for k in range(3):
            seg = struct.pack("!HHIIBBHHH", sport, 80, 1000 + k * 10, 1, 5 << 4, 0x18, 100 + i + k, 0, 0)
            frames.append(ethernet(ipv4(f"10.0.{i % 7}.1", "10.1.0.2", seg + b"x" * 10)))
    same(gzip.compress(pcap(frames)))


def _timed_pcap(frames: list[tuple[float, bytes]]) -> bytes:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for ts, frame in frames:
        usec = round(ts * 1e6)
        out.append(struct.pack("<IIII", 1_700_000_000 + usec // 1_000_000, usec % 1_000_000, len(frame), len(frame)))
        out.append(frame)
    return b"".join(out)


def test_the_compiled_path_folds_sketches_and_counts_losses_as_the_pure_path_does() -> None:
    # One long connection whose windows and RTT samples fold their sketches, with losses.
    frames: list[tuple[float, bytes]] = []
    seq, ack = 1, 1
    for k in range(3000):
        if k % 97 != 5:
            data = struct.pack("!HHIIBBHHH", 5555, 80, seq, 1, 5 << 4, 0x18, 64000, 0, 0) + b"d" * 100
            frames.append((k * 0.001, ethernet(ipv4("10.9.0.1", "10.9.0.2", data))))
        seq += 100
        if k % 3 == 0:
            ack = seq - 100 * (k % 5)
            back = struct.pack("!HHIIBBHHH", 80, 5555, 1, ack, 5 << 4, 0x10, 3000 + (k * 7919) % 60000, 0, 0)
            frames.append((k * 0.001 + (k % 11) * 1e-4, ethernet(ipv4("10.9.0.2", "10.9.0.1", back))))
        if k % 97 == 50:  # the lost segment, resent
            lost = seq - 4500
            data = struct.pack("!HHIIBBHHH", 5555, 80, lost, 1, 5 << 4, 0x18, 64000, 0, 0) + b"d" * 100
            frames.append((k * 0.001 + 0.0005, ethernet(ipv4("10.9.0.1", "10.9.0.2", data))))
    frames.sort(key=lambda f: f[0])
    data = _timed_pcap(frames)
    same(data)
    state = CaptureAnalysis(compiled=True)
    state.run(io.BytesIO(data))
    sides = [side for c in state.table.all_connections() for side in c.sides]
    assert any(side.windows.folded for side in sides) and any(side.rtt.n > 100 for side in sides)


@pytest.mark.parametrize(("endian", "nano"), [(">", False), ("<", True), (">", True)])
def test_the_compiled_path_reads_every_pcap_variant(endian: str, nano: bool) -> None:
    frames = []
    for k in range(50):
        seg = struct.pack("!HHIIBBHHH", 40000, 443, 7 + k * 5, 1, 5 << 4, 0x18, 1000, 0, 0) + b"abcde"
        frames.append(ethernet(ipv4("192.0.2.1", "198.51.100.2", seg), vlans=(10, 20)))
    same(pcap(frames, endian=endian, nano=nano))


def test_pcapng_blocks_are_walked_by_the_pure_reader_and_their_packets_by_the_kernel() -> None:
    analysis = CaptureAnalysis(compiled=True)
    analysis.run(CAPTURES / "gap-data-missing.pcapng")
    assert isinstance(analysis.reader, fast.FastReader) and analysis.reader.compiled
    assert analysis.summary()["format"] == "pcapng"


@pytest.mark.parametrize("name", ["retransmit-timeout.pcapng", "gap-data-missing.pcapng"])
def test_the_compiled_path_breaks_where_the_pure_path_breaks_in_pcapng(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    for cut in (10, 40, len(data) // 2, len(data) - 3):
        same(data[:cut])


@pytest.mark.parametrize(
    "name", ["206_example_b.pcap", "ipv6.pcap", "mixed-vlan-mpls.pcap", "retransmit-timeout.pcapng"]
)
def test_the_compiled_path_matches_the_pure_path_on_mutated_captures(name: str) -> None:
    # editcap -E style: random bytes changed anywhere past the file header; the kernel reads
    # without Python's bounds checks, so every length it trusts is exercised here.
    rng = random.Random(f"fast-{name}")
    data = (CAPTURES / name).read_bytes()
    for _ in range(40):
        mutant = bytearray(data)
        for _ in range(rng.randrange(1, 40)):
            mutant[rng.randrange(24, len(mutant))] = rng.randrange(256)
        same(bytes(mutant))


@pytest.mark.parametrize("endian", ["<", ">"])
def test_the_compiled_path_reads_pcapng_blocks_as_the_pure_reader_does(endian: str) -> None:
    # Two sections, interfaces with different link types and time resolutions, simple packet
    # blocks, unknown blocks and a packet block with large options (read by the pure reader).
    def seg(k: int) -> bytes:
        return struct.pack("!HHIIBBHHH", 40000, 443, 7 + k * 5, 1, 5 << 4, 0x18, 1000 + k, 0, 0) + b"abcde"

    blocks = [pcapng_shb(endian), pcapng_idb(1, endian=endian), pcapng_idb(101, endian=endian, tsresol=9)]
    for k in range(300):
        frame = ipv4("192.0.2.1", "198.51.100.2", seg(k))
        if k % 3 == 0:
            blocks.append(pcapng_epb(0, 1_700_000_000_000_000 + k * 1000, ethernet(frame), endian=endian))
        elif k % 3 == 1:
            blocks.append(pcapng_epb(1, 1_700_000_000_000_000_000 + k * 10**6, frame, endian=endian))
        else:
            blocks.append(pcapng_spb(ethernet(frame), endian=endian))
        if k % 50 == 7:
            blocks.append(pcapng_block(0x0BAD, b"\x00" * 64, endian=endian))
        if k == 150:
            big = pcapng_epb(0, 1_700_000_000_200_000, ethernet(frame), endian=endian)
            body = big[8:-4] + struct.pack(endian + "HH", 1, 8000) + b"c" * 8000 + b"\x00" * 4
            blocks.append(pcapng_block(6, body, endian=endian))
            blocks += [pcapng_shb(endian), pcapng_idb(1, endian=endian, tsresol=3)]
    data = b"".join(blocks)
    same(data)
    for cut in (len(data) // 2, len(data) - 10):
        same(data[:cut])
