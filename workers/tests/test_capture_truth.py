"""What real captures must not be taken for: capture duplicates, FIN re-sends and IP lengths past
the frame are not retransmissions; an ordinary close is not a discarded transfer; an unknown window
scale is not a window limit; an old segment re-sent after an idle is not RTO waiting. Each case is
a capture from the corpus (``data/captures/README.md``) with tshark's view beside it.
"""

from __future__ import annotations

import re

import pytest
from capture_testdata import CAPTURES, tshark_view

from whodunnet.engine import analyze
from whodunnet.model import AnalysisResult


def run(name: str) -> AnalysisResult:
    return analyze([CAPTURES / name])


def kinds(result: AnalysisResult) -> dict[str, str]:
    return {f.kind: f.severity for f in result.findings}


def test_the_same_packets_on_three_vlans_are_capture_duplicates_not_retransmissions() -> None:
    result = run("vlan-collisions.pcap")
    (conn,) = result.evidence[0].connections
    # tshark: one connection, 21 packets each way (every handshake packet three times).
    assert tshark_view("vlan-collisions.pcap").tcp_packets == conn.c2s.packets + conn.s2c.packets == 42
    assert conn.c2s.retransmissions == conn.s2c.retransmissions == 0
    assert conn.c2s.capture_duplicates + conn.s2c.capture_duplicates == 28
    (note,) = [f for f in result.findings if f.kind == "capture.duplicates"]
    assert note.severity == "info" and note.data["duplicate_packets"] == 28
    assert "tcp.retransmissions" not in kinds(result)


def test_a_fin_sent_again_is_not_counted_against_data_packets() -> None:
    result = run("mysql-auth.pcap")
    conns = result.evidence[0].connections
    assert len(conns) == tshark_view("mysql-auth.pcap").streams == 13
    # The client's FIN is sent twice on every connection: a retransmission, but of no data.
    assert sum(c.c2s.retransmissions for c in conns) >= 12
    assert sum(c.c2s.data_retransmissions for c in conns) == 0
    assert "tcp.retransmissions" not in kinds(result)


def test_payload_is_counted_from_the_frame_when_the_ip_length_runs_past_it() -> None:
    result = run("telnet-ip-length.pcap")
    assert result.evidence[0].summary["ip_length_beyond_frame"] == 5
    (conn,) = result.evidence[0].connections
    # tshark's payload bytes (289 from the client) and its one retransmission (after 369 ms).
    assert (conn.c2s.payload_bytes, conn.s2c.payload_bytes) == (289, 1371)
    assert conn.c2s.retransmissions == 1
    assert "IP length larger than their frame" in result.findings[0].explanation
    assert "tcp.retransmissions" not in kinds(result)


def test_a_rst_answering_the_chatter_of_a_close_is_an_ordinary_close() -> None:
    result = run("curl-jsonip-rst-after-fin.pcap")
    (f,) = [f for f in result.findings if f.kind == "tcp.rst_after_fin"]
    # The server's 348 bytes after the client's FIN (TLS records of the close) met a closed socket.
    assert f.severity == "info" and f.data["discarded_connections"] == 0
    assert f.data["max_bytes_after_fin"] == 348
    assert "348 bytes" in f.title


def test_an_unknown_window_scale_is_said_not_taken_for_a_window_limit() -> None:
    result = run("ldap-no-handshake.pcapng")
    (f,) = [f for f in result.findings if f.kind == "tcp.receive_window_limited"]
    # 8,212 is a raw window: without the handshake it may mean 8 KB or 128 MB.
    assert f.severity == "info" and f.data["window_scaled"] is False and f.data["window"] == 8212
    assert "scale is unknown" in f.title
    assert all(not c.window_scale_known for c in result.evidence[0].connections)


def test_a_rate_near_window_over_rtt_is_no_window_limit_when_the_window_was_never_filled() -> None:
    result = run("nvt-line-limit.pcap.gz")
    (conn,) = result.evidence[0].connections
    assert conn.window_scale_known and conn.c2s.max_in_flight < 0.85 * (conn.s2c.window_median or 0)
    assert "tcp.receive_window_limited" not in kinds(result)


def test_an_acknowledged_segment_sent_again_after_an_idle_is_not_rto_waiting() -> None:
    result = run("retransmit-timeout.pcapng")
    (conn,) = result.evidence[0].connections
    # The GET, acknowledged at once, is sent again 300 s later: its ACK was lost past the
    # capture point; nothing waited 300 s on a loss.
    assert conn.c2s.retransmissions == conn.c2s.resent_acknowledged == 1
    assert conn.c2s.rto_retransmissions == conn.c2s.tail_loss_probes == 0
    assert "tcp.rto_retransmit" not in kinds(result)


_CONV = re.compile(
    r"^(?P<a>\S+)\s+<->\s+(?P<b>\S+)\s+(?P<to_a>\d+)\s+\S+\s+\w+\s+(?P<to_b>\d+)\s+\S+\s+\w+\s+\d+\s+\S+\s+\w+\s+(?P<start>[\d.]+)"
)


def tshark_conversations(name: str) -> list[tuple[str, str, int, int, float]]:
    """tshark's ``conv,tcp`` rows: (A, B, frames B → A, frames A → B, start relative to the first packet)."""
    out = []
    for line in (CAPTURES / "tshark" / f"{name}.conv_tcp.txt").read_text().splitlines():
        if (m := _CONV.match(line.strip())) is not None:
            out.append((m["a"], m["b"], int(m["to_a"]), int(m["to_b"]), float(m["start"])))
    return out


def _plain(endpoint: str) -> str:
    return endpoint.replace("[", "").replace("]", "")


@pytest.mark.parametrize(
    ("name", "connections"),
    [
        ("gre-sample.pcap", 1),  # TCP in IPv4 in GRE
        ("gre-erspan-vxlan.pcap", 1),  # ... in VXLAN in ERSPAN type II in GRE
        ("gre-aruba.pcap", 23),  # in 802.11 frames in Aruba's GRE
        ("geneve.pcap", 1),
        ("vxlan.pcap", 4),
        ("vxlan-reserved.pcap", 1),
        ("gtp-iphone.pcap", 4),  # IPv6 in GTP-U, one 4-tuple used four times
        ("80211http.pcap", 1),  # radiotap + 802.11
        ("nflog.pcap", 1),
    ],
)
def test_tcp_inside_tunnels_gives_tshark_s_inner_conversations(name: str, connections: int) -> None:
    result = run(name)
    ours = result.evidence[0].connections
    start = result.evidence[0].summary["first_ts"]
    theirs = tshark_conversations(name)
    assert len(ours) == len(theirs) == connections
    for a, b, to_a, to_b, at in theirs:
        (c,) = [
            c for c in ours if {_plain(c.client), _plain(c.server)} == {a, b} and abs(c.first_time - start - at) < 1e-5
        ]
        from_a = c.c2s if _plain(c.client) == a else c.s2c
        from_b = c.s2c if from_a is c.c2s else c.c2s
        assert (from_a.packets, from_b.packets) == (to_b, to_a), (name, a, b)
