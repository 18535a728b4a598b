"""The streaming capture reader against tshark's view of real captures, and format details."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from capture_builders import (
    ethernet,
    ipv4,
    ipv6,
    linux_sll2,
    pcap,
    pcapng_block,
    pcapng_epb,
    pcapng_idb,
    pcapng_shb,
    pcapng_spb,
    tcp_segment,
)
from capture_testdata import CAPTURES, tshark_view

from whodunnet.capture import CaptureAnalysis

# name: (total packets per capinfos, format, compressed, link types)
REAL_CAPTURES: dict[str, tuple[int, str, bool, list[str]]] = {
    "ipv6.pcap": (136, "pcap", False, ["ethernet"]),
    "pptp.pcap": (23, "pcap", False, ["ethernet"]),
    "tcp-handshake-nano.pcap": (3, "pcap", False, ["linux_sll"]),
    "get-to-ssh-server.pcap": (9, "pcap", False, ["ethernet"]),
    "gap-data-missing.pcapng": (18, "pcapng", False, ["ethernet", "linux_sll", "ethernet_mpacket"]),
    "twovlan.pcap": (6, "pcap", False, ["ethernet"]),
    "pppoe-over-qinq.pcap": (86, "pcap", False, ["ethernet"]),
    "mixed-vlan-mpls.pcap": (47, "pcap", False, ["ethernet"]),
    "iso-download.pcap.gz": (289, "pcap", True, ["ethernet"]),
    "telnet-long-line-no-eol.pcapng.gz": (13987, "pcapng", True, ["ethernet"]),
    "echo-connections.pcap.gz": (82582, "pcap", True, ["ethernet"]),
    "tcp_handshake_synthetic.pcap": (50, "pcap", False, ["ethernet"]),
    "connect-with-header.pcap": (58, "pcap", False, ["null"]),
    "payload-syn.pcap": (6, "pcap", False, ["raw"]),
    "variant-01-chunk_2pow64_overflow.pcap": (8, "pcap", False, ["ipv4"]),
    "retransmit-timeout.pcapng": (3, "pcap", False, ["ethernet"]),
    "fragmented-4.pcap": (6, "pcap", False, ["ethernet"]),
}
REAL_CAPTURES["retransmit-timeout.pcapng"] = (3, "pcapng", False, ["ethernet"])


def summarize(source: str | Path | io.BytesIO) -> dict[str, object]:
    return CaptureAnalysis().run(source)


@pytest.mark.parametrize("name", sorted(REAL_CAPTURES))
def test_it_counts_packets_and_connections_like_tshark(name: str) -> None:
    packets, fmt, compressed, links = REAL_CAPTURES[name]
    s = summarize(CAPTURES / name)
    oracle = tshark_view(name)
    assert s["packets"] == packets
    assert s["tcp_packets"] == oracle.tcp_packets
    assert s["tcp_connections"] == oracle.streams
    assert s["format"] == fmt
    assert s["compressed"] is compressed
    assert s["link_types"] == links


def test_it_reads_a_nanosecond_pcap() -> None:
    s = summarize(CAPTURES / "tcp-handshake-nano.pcap")
    # capinfos: 2014-12-09 17:16:09.924505488 .. 17:16:10.052115157 UTC
    assert s["first_ts"] == pytest.approx(1418145369.924505488, abs=1e-6)
    assert s["duration"] == pytest.approx(0.127609669, abs=1e-6)


def test_it_reads_a_big_endian_pcap() -> None:
    assert (CAPTURES / "pptp.pcap").read_bytes()[:4] == bytes.fromhex("a1b2c3d4")
    s = summarize(CAPTURES / "pptp.pcap")
    assert s["packets"] == 23
    # capinfos -S: data size 2072, start 954147395.148077, duration 1.199698
    assert s["bytes"] == 2072
    assert s["first_ts"] == pytest.approx(954147395.148077, abs=1e-6)
    assert s["duration"] == pytest.approx(1.199698, abs=1e-6)


def test_it_reads_a_pcapng_with_many_interfaces_and_time_resolutions() -> None:
    s = summarize(CAPTURES / "gap-data-missing.pcapng")
    # tshark: first packet at epoch 1725966494.956327, stream lasts 0.170839 s
    assert s["first_ts"] == pytest.approx(1725966494.956327, abs=1e-6)
    assert s["duration"] == pytest.approx(0.170839, abs=1e-5)
    assert s["bytes"] == 4969


def test_it_builds_the_same_summary_from_a_file_object() -> None:
    name = "iso-download.pcap.gz"
    from_path = summarize(CAPTURES / name)
    from_stream = summarize(io.BytesIO((CAPTURES / name).read_bytes()))
    assert from_stream == from_path


def test_it_starts_a_new_connection_when_a_port_is_reused_with_a_new_syn() -> None:
    frames = [
        ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(40000, 80, seq=100, flags=0x02))),
        ethernet(ipv4("10.0.0.2", "10.0.0.1", tcp_segment(80, 40000, seq=500, flags=0x12))),
        ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(40000, 80, seq=101, flags=0x11))),
        ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(40000, 80, seq=100, flags=0x02))),  # SYN retransmit
        ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(40000, 80, seq=9000, flags=0x02))),  # new connection
    ]
    s = summarize(io.BytesIO(pcap(frames)))
    assert s["tcp_packets"] == 5
    assert s["tcp_connections"] == 2


def test_it_reads_linux_cooked_v2_and_qinq_and_big_endian_null() -> None:
    seg = tcp_segment(1234, 80, payload=b"x" * 10)
    sll2 = pcap([linux_sll2(ipv4("10.0.0.1", "10.0.0.2", seg))], link=276)
    qinq = pcap([ethernet(ipv4("10.0.0.1", "10.0.0.2", seg), vlans=(100, 200))], endian=">")
    null_be = pcap([b"\x00\x00\x00\x02" + ipv4("10.0.0.1", "10.0.0.2", seg)], link=0, endian=">")
    null_v6 = pcap([b"\x1e\x00\x00\x00" + ipv6(1, 2, seg)], link=0)
    raw6 = pcap([ipv6(1, 2, seg)], link=229)
    for data, link in ((sll2, "linux_sll2"), (qinq, "ethernet"), (null_be, "null"), (null_v6, "null"), (raw6, "ipv6")):
        s = summarize(io.BytesIO(data))
        assert (s["link_types"], s["tcp_packets"], s["tcp_connections"]) == ([link], 1, 1)


def test_it_walks_ipv6_extension_headers_and_counts_fragments() -> None:
    seg = tcp_segment(1234, 80, payload=b"y" * 40)
    hop_by_hop = bytes([60, 0]) + bytes(6)  # next: destination options
    dest_opts = bytes([44, 0]) + bytes(6)  # next: fragment
    first_frag = bytes([6, 0, 0x00, 0x01]) + b"\x00\x00\x00\x07"  # offset 0, more fragments
    later_frag = bytes([6, 0, 0x00, 0x18]) + b"\x00\x00\x00\x07"  # offset 3 (x8 bytes), last
    frames = [
        ethernet(ipv6(1, 2, seg, next_header=0, ext=hop_by_hop + dest_opts + first_frag), ethertype=0x86DD),
        ethernet(ipv6(1, 2, b"z" * 16, next_header=44, ext=later_frag), ethertype=0x86DD),
        ethernet(ipv4("10.0.0.1", "10.0.0.2", seg, frag=0x2000)),  # first IPv4 fragment, TCP header inside
        ethernet(ipv4("10.0.0.1", "10.0.0.2", b"q" * 8, frag=0x0003)),  # a later one
    ]
    s = summarize(io.BytesIO(pcap(frames)))
    assert s["ip_fragments"] == 4
    assert s["tcp_packets"] == 2
    assert s["tcp_connections"] == 2


def test_it_counts_snaplen_truncated_packets_and_still_reads_their_headers() -> None:
    frames = [ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(1, 2, payload=b"p" * 500))) for _ in range(3)]
    s = summarize(io.BytesIO(pcap(frames, snaplen=64)))
    assert s["truncated_packets"] == 3
    assert s["tcp_packets"] == 3
    assert s["captured_bytes"] == 3 * 64
    assert s["bytes"] == 3 * len(frames[0])


@pytest.mark.parametrize("endian", ["<", ">"])
def test_it_reads_pcapng_sections_with_epb_spb_and_unknown_blocks(endian: str) -> None:
    seg = tcp_segment(5555, 443, payload=b"hello")
    frame = ethernet(ipv4("192.0.2.1", "192.0.2.2", seg))
    data = b"".join(
        [
            pcapng_shb(endian),
            pcapng_idb(1, endian=endian),  # µs (default)
            pcapng_idb(101, endian=endian, tsresol=9),  # ns
            pcapng_block(0x00000BAD, b"custom block the reader must skip" + bytes(3), endian=endian),
            pcapng_epb(0, 1_700_000_000_000_000, frame, endian=endian),
            pcapng_epb(1, 1_700_000_002_500_000_000, ipv4("192.0.2.1", "192.0.2.3", seg), endian=endian),
            pcapng_spb(frame, endian=endian),
            pcapng_block(5, bytes(16), endian=endian),  # interface statistics
        ]
    )
    s = summarize(io.BytesIO(data))
    assert s["format"] == "pcapng"
    assert s["packets"] == 3
    assert s["tcp_packets"] == 3
    assert s["tcp_connections"] == 2
    assert s["link_types"] == ["ethernet", "raw"]
    assert s["first_ts"] == pytest.approx(1_700_000_000.0)
    assert s["duration"] == pytest.approx(2.5)


def test_it_resets_interfaces_at_a_new_pcapng_section() -> None:
    frame = ethernet(ipv4("192.0.2.1", "192.0.2.2", tcp_segment(1, 2)))
    data = pcapng_shb("<") + pcapng_idb(1) + pcapng_epb(0, 10**15, frame)
    data += pcapng_shb(">") + pcapng_idb(1, endian=">") + pcapng_epb(0, 10**15, frame, endian=">")
    s = summarize(io.BytesIO(data))
    assert s["packets"] == 2


def test_the_garbage_collector_is_off_while_a_capture_is_analysed_and_on_again_after(tmp_path: Path) -> None:
    # Off: its collections cost 0.3-0.4 s of a 1 M-connection analysis. On again after, however the analysis
    # ends: a worker analyses file after file, and what cycles they made must still be collected.
    import gc

    from whodunnet.capture.analyzer import analyze_capture
    from whodunnet.limits import DEFAULT_LIMITS

    cut = tmp_path / "cut.pcap"
    cut.write_bytes((CAPTURES / "ipv6.pcap").read_bytes()[:5000])
    for path in (CAPTURES / "ipv6.pcap", cut, tmp_path / "missing.pcap"):
        during: list[bool] = []
        try:
            analyze_capture(0, path, limits=DEFAULT_LIMITS, progress=lambda _, seen=during: seen.append(gc.isenabled()))
        except FileNotFoundError:
            assert path.name == "missing.pcap"
        else:
            assert during and not any(during), path
        assert gc.isenabled(), path


@pytest.mark.parametrize("form", ["gzip", "gzip from a pipe", "plain from a pipe"])
def test_an_analysis_frees_what_it_read_without_the_garbage_collector(form: str, tmp_path: Path) -> None:
    # A worker and the fuzz target analyse capture after capture: the scanner and the stream it read (the read-ahead
    # thread's blocks of 1 MiB) must go when the analysis does, by reference counting. Held in a reference cycle,
    # they waited for the cyclic collector, which a process of many objects runs seldom: the fuzz target grew by
    # 800 MB in 10 s, past its 1 GB limit.
    import gc
    import gzip
    import weakref

    from whodunnet.capture import source
    from whodunnet.kinds.capture.fuzz import Unseekable

    data = (CAPTURES / "ipv6.pcap").read_bytes()
    if form.startswith("gzip"):
        data = gzip.compress(data)
    path = tmp_path / "capture"
    path.write_bytes(data)
    made: weakref.WeakSet[source.ReadAhead] = weakref.WeakSet()
    count = []
    real_init = source.ReadAhead.__init__

    def spied(self: source.ReadAhead, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        made.add(self)
        count.append(1)

    was_on = gc.isenabled()
    gc.disable()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(source.ReadAhead, "__init__", spied)
            with path.open("rb") as f:
                summary = CaptureAnalysis().run(Unseekable(f) if form.endswith("pipe") else f)
        assert summary["packets"] > 0 and len(count) == 1  # it was read through a read-ahead
        assert len(made) == 0, "the read-ahead outlived its analysis"
    finally:
        if was_on:
            gc.enable()
