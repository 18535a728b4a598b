"""The compiled kernel against expected values, and against itself run without the JIT.

With ``NUMBA_DISABLE_JIT=1`` numba runs the very same kernel functions as plain Python over
the same numpy records: the mode for debugging and for fuzzing (atheris cannot see into
compiled code). Every input below (the test captures, cut-short, corrupted and mutated
copies, and captures built here for what the corpus lacks) is analysed in one such process,
and the compiled kernel must give the same summary, connection table, findings, error
message and offset. The expected-value tests hold the kernel to what the bytes say.
"""

from __future__ import annotations

import gzip
import math
import random
import struct
from collections.abc import Iterator
from typing import Any

import pytest
from capture_builders import (
    ethernet,
    ipv4,
    pcap,
    pcap_records,
    pcapng_block,
    pcapng_epb,
    pcapng_idb,
    pcapng_shb,
    pcapng_spb,
)
from capture_results import Result, results, without_jit
from capture_testdata import CAPTURES

#: Without the JIT the kernel takes ~0.5 ms a packet: the largest capture is cut to its start.
NO_JIT_MAX_RECORDS = 3000
ALL = sorted(p.name for p in CAPTURES.iterdir() if p.is_file() and not p.name.endswith(".md"))


def first_records(data: bytes, n: int) -> bytes:
    """The pcap header and its first ``n`` records."""
    ends = [off + 16 + caplen for off, caplen in pcap_records(data)]
    return data[: ends[n - 1]] if len(ends) >= n else data


def as_pcapng(data: bytes, *, endian: str = "<", nano: bool = False) -> bytes:
    """A pcap (µs) re-written as pcapng with one interface, µs or ns timestamps."""
    src = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    link = struct.unpack_from(src + "I", data, 20)[0] & 0xFFFF
    blocks = [pcapng_shb(endian), pcapng_idb(link, endian=endian, tsresol=9 if nano else None)]
    for off, caplen in pcap_records(data):
        sec, usec, _, wirelen = struct.unpack_from(src + "IIII", data, off)
        ticks = sec * 10**9 + usec * 1000 if nano else sec * 10**6 + usec
        head = struct.pack(endian + "IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, caplen, wirelen)
        blocks.append(pcapng_block(6, head + data[off + 16 : off + 16 + caplen], endian=endian))
    return b"".join(blocks)


def timed_pcap(frames: list[tuple[float, bytes]]) -> bytes:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for ts, frame in frames:
        usec = round(ts * 1e6)
        out.append(struct.pack("<IIII", 1_700_000_000 + usec // 1_000_000, usec % 1_000_000, len(frame), len(frame)))
        out.append(frame)
    return b"".join(out)


def segment(sport: int, dport: int, seq: int, ack: int, flags: int, window: int, payload: bytes = b"") -> bytes:
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, window, 0, 0) + payload


def many_connections(n: int) -> bytes:
    """``n`` connections of three data segments each, as gzip (the arrays grow several times)."""
    frames = []
    for i in range(n):
        for k in range(3):
            seg = segment(1024 + i, 80, 1000 + k * 10, 1, 0x18, 100 + i + k, b"x" * 10)
            frames.append(ethernet(ipv4(f"10.0.{i % 7}.1", "10.1.0.2", seg)))
    return gzip.compress(pcap(frames))


#: One long connection whose window and RTT sketches fold, with segments lost and resent.
LOSSY_ROUNDS = 3000


def lossy_connection() -> bytes:
    frames: list[tuple[float, bytes]] = []
    seq = 1
    for k in range(LOSSY_ROUNDS):
        if k % 97 != 5:
            data = segment(5555, 80, seq, 1, 0x18, 64000, b"d" * 100)
            frames.append((k * 0.001, ethernet(ipv4("10.9.0.1", "10.9.0.2", data))))
        seq += 100
        if k % 3 == 0:
            ack = seq - 100 * (k % 5)
            back = segment(80, 5555, 1, ack, 0x10, 3000 + (k * 7919) % 60000)
            frames.append((k * 0.001 + (k % 11) * 1e-4, ethernet(ipv4("10.9.0.2", "10.9.0.1", back))))
        if k % 97 == 50:  # a segment sent 45 rounds ago, resent
            data = segment(5555, 80, seq - 4500, 1, 0x18, 64000, b"d" * 100)
            frames.append((k * 0.001 + 0.0005, ethernet(ipv4("10.9.0.1", "10.9.0.2", data))))
    frames.sort(key=lambda f: f[0])
    return timed_pcap(frames)


def variant_frames() -> list[bytes]:
    out = []
    for k in range(50):
        seg = segment(40000, 443, 7 + k * 5, 1, 0x18, 1000, b"abcde")
        out.append(ethernet(ipv4("192.0.2.1", "198.51.100.2", seg), vlans=(10, 20)))
    return out


PCAP_VARIANTS = {(endian, nano): pcap(variant_frames(), endian=endian, nano=nano) for endian in "<>" for nano in (0, 1)}


def pcapng_blocks(endian: str) -> bytes:
    """Two sections, interfaces with other link types and time resolutions, simple packet
    blocks, unknown blocks and a packet block with 8 KB of options (streamed past)."""
    blocks = [pcapng_shb(endian), pcapng_idb(1, endian=endian), pcapng_idb(101, endian=endian, tsresol=9)]
    for k in range(300):
        frame = ipv4("192.0.2.1", "198.51.100.2", segment(40000, 443, 7 + k * 5, 1, 0x18, 1000 + k, b"abcde"))
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
            blocks += [pcapng_shb(endian), pcapng_idb(1, endian=endian, tsresol=3), pcapng_idb(101, endian=endian)]
    return b"".join(blocks)


def mutants(name: str, n: int) -> Iterator[tuple[str, bytes]]:
    """``editcap -E`` style: random bytes changed anywhere past the file header. The kernel reads
    without Python's bounds checks, so every length it trusts is exercised here."""
    rng = random.Random(f"kernel-{name}")
    data = (CAPTURES / name).read_bytes()
    for i in range(n):
        mutant = bytearray(data)
        for _ in range(rng.randrange(1, 40)):
            mutant[rng.randrange(24, len(mutant))] = rng.randrange(256)
        yield f"{name}#mutant{i}", bytes(mutant)


def corrupt_caplen(data: bytes) -> bytes:
    out = bytearray(data)
    out[24 + 8 : 24 + 12] = (1 << 30).to_bytes(4, "little" if data[0] == 0xD4 else "big")
    return bytes(out)


CUT_PCAPS = ["206_example_b.pcap", "ipv6.pcap", "retransmit-fast009.pcap"]
CUT_PCAPNGS = ["retransmit-timeout.pcapng", "gap-data-missing.pcapng"]


def cuts(n: int) -> tuple[int, ...]:
    return (23, 24, 30, 40, n // 3, n - 5)


def build_inputs() -> dict[str, tuple[bytes, int | None]]:
    inputs: dict[str, tuple[bytes, int | None]] = {}
    for name in ALL:
        data = (CAPTURES / name).read_bytes()
        if name == "echo-connections.pcap.gz":
            data = first_records(gzip.decompress(data), NO_JIT_MAX_RECORDS)
        inputs[name] = (data, None)
    for name in CUT_PCAPS:
        data = (CAPTURES / name).read_bytes()
        for cut in cuts(len(data)):
            inputs[f"{name}[:{cut}]"] = (data[:cut], None)
        inputs[f"{name}#corrupt-caplen"] = (corrupt_caplen(data), None)
        inputs[f"{name}#caplen-60"] = (data, 60)
    for name in CUT_PCAPNGS:
        data = (CAPTURES / name).read_bytes()
        for cut in (10, 40, len(data) // 2, len(data) - 3):
            inputs[f"{name}[:{cut}]"] = (data[:cut], None)
    for name in ("206_example_b.pcap", "ipv6.pcap", "mixed-vlan-mpls.pcap", "retransmit-timeout.pcapng"):
        for key, data in mutants(name, 8 if name.startswith("206") else 25):
            inputs[key] = (data, None)
    inputs["many-connections.pcap.gz"] = (many_connections(1500), None)
    inputs["lossy-connection.pcap"] = (lossy_connection(), None)
    for (endian, nano), data in PCAP_VARIANTS.items():
        inputs[f"variant{endian}{'ns' if nano else 'us'}.pcap"] = (data, None)
    for endian in "<>":
        data = pcapng_blocks(endian)
        inputs[f"blocks{endian}.pcapng"] = (data, None)
        inputs[f"blocks{endian}.pcapng[:half]"] = (data[: len(data) // 2], None)
    for nano in (False, True):
        inputs[f"206_example_b{'-ns' if nano else ''}.pcapng"] = (
            as_pcapng((CAPTURES / "206_example_b.pcap").read_bytes(), endian=">", nano=nano),
            None,
        )
    return inputs


INPUTS = build_inputs()


@pytest.fixture(scope="module")
def no_jit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    return without_jit(INPUTS, tmp_path_factory.mktemp("no-jit"))


@pytest.mark.parametrize("name", list(INPUTS))
def test_it_gives_the_same_results_without_the_jit(name: str, no_jit: dict[str, Result]) -> None:
    data, caplen = INPUTS[name]
    compiled = results(data, max_caplen=caplen)
    plain = no_jit[name]
    for a, b, what in zip(
        compiled, plain, ("summary", "error", "connections", "findings", "summary finding"), strict=True
    ):
        assert a == b, what


@pytest.mark.parametrize("name", CUT_PCAPS)
def test_it_stops_at_the_start_of_the_record_a_cut_falls_in(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    records = list(pcap_records(data))
    for cut in cuts(len(data)):
        summary, error, _, _, _ = results(data[:cut])
        complete = [off for off, caplen in records if off + 16 + caplen <= cut]
        assert summary["packets"] == len(complete)
        if cut < 24:
            assert error == ("MalformedInput", "the pcap file header is cut short (it needs 24 bytes)", 0)
            continue
        start = complete[-1] + 16 + records[len(complete) - 1][1] if complete else 24
        if cut == start:
            assert error is None
        else:
            assert error is not None and error[2] == start, (cut, error)


@pytest.mark.parametrize("name", CUT_PCAPS)
def test_it_rejects_a_caplen_over_the_limit_at_its_record(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    summary, error, conns, _, _ = results(corrupt_caplen(data))
    assert error == ("MalformedInput", f"record caplen {1 << 30:,} is larger than the 262,144-byte limit", 24)
    assert summary["packets"] == 0 and conns == []
    first_big = next(i for i, (_, caplen) in enumerate(pcap_records(data)) if caplen > 60)
    summary, error, _, _, _ = results(data, max_caplen=60)
    assert error is not None and error[2] == list(pcap_records(data))[first_big][0]
    assert summary["packets"] == first_big


def test_it_reads_gzip_and_grows_its_arrays_for_many_connections() -> None:
    summary, error, conns, _, _ = results(many_connections(5000))
    assert error is None and summary["compressed"] is True
    assert (summary["packets"], summary["tcp_packets"], summary["tcp_connections"]) == (15000, 15000, 5000)
    assert [c["id"] for c in conns] == list(range(5000))
    assert all(c["c2s"]["packets"] == 3 and c["c2s"]["payload_bytes"] == 30 for c in conns)
    assert conns[4999]["client_port"] == 1024 + 4999 and conns[4999]["c2s"]["window_max"] == 100 + 4999 + 2


def test_it_folds_sketches_and_counts_the_resent_segments() -> None:
    _, error, conns, _, _ = results(lossy_connection())
    (c,) = conns
    sender = c["c2s"]
    resent = sum(1 for k in range(LOSSY_ROUNDS) if k % 97 == 50)
    assert error is None and sender["retransmissions"] == resent and sender["out_of_order"] == 0
    assert sender["rtt_samples"] > 100 and sender["rtt_min"] is not None
    receiver = c["s2c"]
    windows = {3000 + (k * 7919) % 60000 for k in range(0, LOSSY_ROUNDS, 3)}
    assert len(windows) > 256  # past EXACT_KEYS: the window sketch folded
    assert (receiver["window_min"], receiver["window_max"]) == (min(windows), max(windows))
    ordered = sorted(3000 + (k * 7919) % 60000 for k in range(0, LOSSY_ROUNDS, 3))
    exact_median = ordered[math.ceil(len(ordered) / 2) - 1]
    assert receiver["window_median"] == pytest.approx(exact_median, rel=0.016)


def test_every_pcap_variant_gives_the_same_table() -> None:
    tables = {key: results(data) for key, data in PCAP_VARIANTS.items()}
    reference = tables[("<", 0)]
    assert reference[0]["packets"] == 50 and reference[2][0]["c2s"]["payload_bytes"] == 250
    for key, got in tables.items():
        assert got[0] == reference[0] and got[2] == reference[2], key


def approx(a: Any, b: Any) -> bool:
    """Equal; floats close: a time read at another resolution may differ in its last bit, which
    moves a rate in its 7th digit and an RTT sample (kept in whole µs) by a microsecond."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=2e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(approx(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(approx(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize("name", ["206_example_b.pcap", "ipv6.pcap", "tcp_handshake_synthetic.pcap"])
@pytest.mark.parametrize(("endian", "nano"), [("<", False), (">", True)])
def test_pcapng_gives_the_table_the_same_packets_give_in_pcap(name: str, endian: str, nano: bool) -> None:
    data = (CAPTURES / name).read_bytes()
    as_pcap = results(data)
    as_ng = results(as_pcapng(data, endian=endian, nano=nano))
    assert as_ng[0]["format"] == "pcapng" and as_ng[1] is None
    assert approx({**as_ng[0], "format": "pcap"}, as_pcap[0])
    assert approx(as_ng[2], as_pcap[2]) and approx(as_ng[3], as_pcap[3])


def pcapng_block_starts(data: bytes) -> list[int]:
    """Where each block starts (one byte order for the whole file)."""
    endian = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    pos, starts = 0, []
    while pos + 12 <= len(data):
        starts.append(pos)
        pos += struct.unpack_from(endian + "I", data, pos + 4)[0]
    return starts


@pytest.mark.parametrize("name", CUT_PCAPNGS)
def test_it_stops_at_the_start_of_the_pcapng_block_a_cut_falls_in(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    starts = pcapng_block_starts(data)
    for cut in (10, 40, len(data) // 2, len(data) - 3):
        _, error, _, _, _ = results(data[:cut])
        assert error is not None and error[2] == max(s for s in starts if s < cut), cut


@pytest.mark.parametrize("endian", ["<", ">"])
def test_it_reads_sections_interfaces_simple_and_unknown_blocks(endian: str) -> None:
    summary, error, conns, _, _ = results(pcapng_blocks(endian))
    assert error is None
    assert (summary["packets"], summary["tcp_packets"], summary["tcp_connections"]) == (301, 301, 1)
    assert summary["link_types"] == ["ethernet", "raw"]
    assert conns[0]["c2s"]["payload_bytes"] == 301 * 5
    half = pcapng_blocks(endian)
    _, error, _, _, _ = results(half[: len(half) // 2])
    assert error is not None and error[2] in pcapng_block_starts(half)


def test_it_rejects_a_packet_on_an_interface_its_section_did_not_describe() -> None:
    frame = ethernet(ipv4("192.0.2.1", "198.51.100.2", segment(1, 2, 3, 4, 0x10, 5)))
    first = pcapng_shb() + pcapng_idb(1) + pcapng_idb(1) + pcapng_epb(1, 10**15, frame)
    data = first + pcapng_shb() + pcapng_idb(1) + pcapng_epb(1, 10**15, frame)
    summary, error, _, _, _ = results(data)
    assert error == (
        "MalformedInput",
        "packet on interface 1, but only 1 interfaces are described",
        len(first) + 28 + 20,
    )
    assert summary["packets"] == 1


def test_every_kernel_function_is_cached_under_a_stamp_of_all_the_kernel_sources() -> None:
    # numba would stamp the cached loop with scan.py alone and load it stale after an edit to
    # table.py (its callees are compiled into it) or to a constant.
    from whodunnet.capture.kernel import KERNEL_SOURCES, kernel_stamp
    from whodunnet.capture.kernel.scan import scan
    from whodunnet.capture.kernel.table import track_data

    assert {"table.py", "decode.py", "records.py", "constants.py", "fields.py"} <= {p.name for p in KERNEL_SOURCES}
    for dispatcher in (scan, track_data):
        assert dispatcher._cache._impl.locator.get_source_stamp() == kernel_stamp()
