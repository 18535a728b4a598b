"""Real captures made in network namespaces, each producing its finding.

Traffic runs between namespaces this test creates (client — router — NAT — server; see
``netlab.py``) and is captured by tcpdump on the client's and the server's interfaces.
Skipped (with the reason) only where the lab cannot run: not root, or no ``ip netns``.
"""

from __future__ import annotations

import re
import struct
import subprocess
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from capture_builders import pcap_records
from netlab import SERVER_IP, NetLab, client, lab_unavailable, serve

from whodunnet import capture_pairs
from whodunnet.engine import analyze
from whodunnet.model import Finding

pytestmark = pytest.mark.skipif(lab_unavailable() is not None, reason=str(lab_unavailable()))


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[NetLab]:
    with NetLab(tmp_path) as lab:
        yield lab


def kinds(findings: tuple[Finding, ...], evidence: int = 0) -> dict[str, Finding]:
    return {f.kind: f for f in findings if f.refs and f.refs[0].evidence == evidence}


def test_an_ecn_syn_black_hole_is_found(lab: NetLab) -> None:
    lab.sysctl("c", "net.ipv4.tcp_ecn=1")
    lab.router_rules("tcp flags & (syn | ack | ecn | cwr) == syn | ecn | cwr drop")
    serve(lab, "rr", "7001", "1000")
    cap = lab.capture("c", "client.pcap")
    client(lab, "connect", SERVER_IP, "7001", "3")
    found = kinds(analyze([cap.stop()]).findings)
    ecn = found["tcp.ecn_syn_blackhole"]
    assert ecn.data["fallback_connections"] == 3 and ecn.severity == "high"
    syn = found["tcp.syn_retransmit"]
    assert syn.data["stack"] == "1s-initial" and syn.data["connections"] == 3  # one retry: no schedule told
    assert 0.9 <= syn.data["max_delay"] <= 1.6


def test_dropped_syn_acks_are_found_on_both_sides(lab: NetLab) -> None:
    # Drop the first SYN-ACK of every connection (the connection mark remembers it).
    lab.router_rules("tcp flags & (syn | ack) == syn | ack ct mark != 1 ct mark set 1 drop")
    serve(lab, "rr", "7002", "200")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "connect", SERVER_IP, "7002", "4")
    at_client_pcap = client_cap.stop()
    result = analyze([at_client_pcap, server_cap.stop()])
    at_client, at_server = kinds(result.findings, 0), kinds(result.findings, 1)
    assert at_server["tcp.synack_retransmit"].data["connections"] == 4
    # The client sends its SYN again only where its 1 s timer beats the server's re-sent SYN-ACK (both wait
    # about 1 s): tshark's count of connections with more than one SYN in the client's capture is the truth.
    syns = [row[0] for row in tshark_fields(at_client_pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "tcp.stream")]
    resent = sum(1 for stream in set(syns) if syns.count(stream) > 1)
    found = at_client["tcp.syn_retransmit"].data["connections"] if "tcp.syn_retransmit" in at_client else 0
    assert found == resent


def test_a_small_receive_buffer_over_a_long_path_caps_throughput_and_a_deadline_closes(lab: NetLab) -> None:
    lab.delay(75)  # 150 ms round trip
    serve(lab, "bulk", "7003")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "deadline", SERVER_IP, "7003", "3", "65536", "2.5")
    time.sleep(0.4)  # the server's in-flight data meets the closed sockets (RSTs)
    result = analyze([client_cap.stop(), server_cap.stop()])
    for evidence in (0, 1):  # from the receiver's end and from the sender's end
        found = kinds(result.findings, evidence)
        win = found["tcp.receive_window_limited"]
        assert win.data["transfers"] == 3, win.explanation
        assert win.data["window"] <= 131_072  # SO_RCVBUF 64 KiB: 32-64 KiB, a little more on some kernels
        assert 0.14 <= win.data["rtt"] <= 0.25
        assert win.data["receiver"] == "client"
        timeout = found["tcp.app_timeout_close"]
        assert timeout.data["closer"] == "client" and timeout.data["connections"] == 3
        # The client's 2.5 s deadline starts when connect() returns, one handshake after the SYN the
        # age is counted from; a loaded machine may wake the client a little late.
        assert 2.5 <= timeout.data["age"] <= 2.5 + win.data["rtt"] + 0.3, timeout.explanation
    assert kinds(result.findings, 0)["tcp.rst_after_fin"].severity == "medium"  # a transfer cut off
    # Nothing is lost between the two capture points: the network is cleared.
    (cleared,) = [f for f in result.findings if f.kind == "path.no_loss_between_captures"]
    assert cleared.data["clears_layer"] is True and cleared.layer == "network"


def test_request_response_with_one_percent_loss_shows_retransmissions(lab: NetLab) -> None:
    lab.delay(5)  # a 10 ms round trip: the server streams a window while the losses are repaired
    # 1 % of the server's data packets (numgen counts only the packets that reach it).
    lab.router_rules(f"ip saddr {SERVER_IP} meta l4proto tcp meta length > 500 numgen inc mod 100 == 50 counter drop")
    serve(lab, "rr", "7004", "30000")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "rr", SERVER_IP, "7004", "4", "60", "30000")
    result = analyze([client_cap.stop(), server_cap.stop()])
    # At the sender every resent segment re-sends bytes its own capture already saw, so each is
    # a retransmission, fast ones in the middle of a burst included. At the receiver a resent
    # segment filling a hole soon after the highest one may be reordering (Wireshark's rule), so
    # only the sender's capture is held to the rate.
    server_side = kinds(result.findings, 1)
    dropped = lab.nft_output("r", "list table inet lab")
    assert "tcp.retransmissions" in server_side, (sorted(server_side), dropped)
    rx = server_side["tcp.retransmissions"]
    assert rx.data["by_sender"]["server"]["rate"] >= 0.005, rx.explanation
    # Every segment the router dropped was resent at least once, and seen resent at the server.
    counter = re.search(r"counter packets (\d+)", dropped)
    assert counter is not None, dropped
    assert rx.data["by_sender"]["server"]["retransmissions"] >= int(counter.group(1)), (rx.explanation, dropped)
    (loss,) = [f for f in result.findings if f.kind == "path.loss_between_captures"]
    assert loss.data["lost_segments"] >= 10
    assert loss.data["nat"], loss.data


def tshark_fields(pcap: Path, where: str, *names: str) -> list[list[str]]:
    """``names`` of each packet of the capture that ``where`` (a display filter) takes, as tshark reads them."""
    fields = [arg for name in names for arg in ("-e", name)]
    out = subprocess.run(["tshark", "-r", str(pcap), "-Y", where, "-T", "fields", *fields],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return [line.split("\t") for line in out.splitlines()]


def rewritten(pcap: Path, keep: Callable[[int, float], bool], to: Path) -> Path:
    """A copy of the capture with the records ``keep(record number from 0, time)`` accepts."""
    data = pcap.read_bytes()
    out = [data[:24]]
    for n, (at, caplen) in enumerate(pcap_records(data)):
        sec, usec = struct.unpack_from("<II", data, at)
        if keep(n, sec + usec / 1e6):
            out.append(data[at : at + 16 + caplen])
    to.write_bytes(b"".join(out))
    return to


def request_response(lab: NetLab, rule: str, port: str, connections: str, requests: str) -> tuple[Path, Path]:
    """200 kB answers over a 10 ms round trip, ``rule`` on the router: the client's and the server's captures."""
    lab.delay(5)
    lab.router_rules(rule)
    serve(lab, "rr", port, "200000")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "rr", SERVER_IP, port, connections, requests, "200000")
    return client_cap.stop(), server_cap.stop()


def test_a_repeated_ack_one_capture_lacks_does_not_hide_a_copy_the_other_lost(lab: NetLab) -> None:
    # The server's data is lost now and then, so the client repeats its ACKs (the same seq and ack).
    rule = f"ip saddr {SERVER_IP} meta length > 500 numgen inc mod 50 == 25 counter drop"
    at_client, at_server = request_response(lab, rule, "7007", "2", "5")
    pure_acks = "tcp.dstport == 7007 && tcp.len == 0 && tcp.flags == 0x010"
    fields = ("frame.number", "tcp.seq_raw", "tcp.ack_raw", "ip.id")
    sent, arrived = tshark_fields(at_client, pure_acks, *fields), tshark_fields(at_server, pure_acks, *fields)
    where = {(seq, ack, ip_id): int(frame) - 1 for frame, seq, ack, ip_id in arrived}
    copies: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for frame, seq, ack, ip_id in sent:
        if (seq, ack, ip_id) in where:
            copies.setdefault((seq, ack), []).append((int(frame) - 1, where[(seq, ack, ip_id)]))
    # One ACK sent twice: its first copy never reached the server's capture, its second copy is
    # missing from the client's (as when the client's capture stops first). Counting copies of
    # (seq, ack) alone, the two cancel and nothing looks lost.
    first, second = next(pair for pair in copies.values() if len(pair) >= 2)[:2]
    lost = rewritten(at_server, lambda n, _: n != first[1], lab.workdir / "server-lost-one.pcap")
    gap = rewritten(at_client, lambda n, _: n != second[0], lab.workdir / "client-gap.pcap")
    result = analyze([gap, lost])
    (loss,) = [f for f in result.findings if f.kind == "path.loss_between_captures"]
    seen_only_at_client = {(r["sender"], r["type"]): r["count"] for r in loss.data["missing_in_b"]}
    seen_only_at_server = {(r["sender"], r["type"]): r["count"] for r in loss.data["missing_in_a"]}
    assert seen_only_at_client.get(("client", "pure ACK")) == 1, loss.data
    assert seen_only_at_server.get(("client", "pure ACK")) == 1, loss.data


def test_captures_compared_a_few_connections_at_a_time_give_the_same_finding(
    lab: NetLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Segments of every type lost both ways on 4 connections. A pair of captures too large for one reading is
    # compared a few connections per reading: here one per reading, and the finding must not change.
    at_client, at_server = request_response(
        lab, "meta l4proto tcp numgen inc mod 40 == 7 counter drop", "7011", "4", "3"
    )
    (whole,) = [f for f in analyze([at_client, at_server]).findings if f.kind == "path.loss_between_captures"]
    readings: list[int] = []
    compare_pass = capture_pairs._compare_pass

    def counted(pairs: list[tuple[int, int, str]], *rest: Any) -> bool:
        readings.append(len(pairs))
        return compare_pass(pairs, *rest)

    monkeypatch.setattr(capture_pairs, "_CACHE", OrderedDict())  # compared afresh, not the result above
    monkeypatch.setattr(capture_pairs, "PASS_SEGMENTS", 1)
    monkeypatch.setattr(capture_pairs, "_compare_pass", counted)
    (apart,) = [f for f in analyze([at_client, at_server]).findings if f.kind == "path.loss_between_captures"]
    assert readings == [1, 1, 1, 1]
    assert whole.data["lost_segments"] > 0 and whole.data["matched_connections"] == 4
    assert (apart.title, apart.explanation, apart.data) == (whole.title, whole.explanation, whole.data)
    assert not whole.data["partial"] and "incomplete" not in whole.explanation
    # A connection with more segments than a comparison holds is compared over its first ones, and the finding says so.
    monkeypatch.setattr(capture_pairs, "_CACHE", OrderedDict())
    monkeypatch.setattr(capture_pairs, "MAX_SEGMENT_KEYS", 50)
    (cut,) = [
        f for f in analyze([at_client, at_server]).findings if f.kind.startswith("path.") and "captures" in f.kind
    ]
    assert cut.data["partial"] and "The comparison is incomplete" in cut.explanation and "(50, " in cut.explanation


def test_a_resend_after_one_capture_stopped_is_not_counted_lost(lab: NetLab) -> None:
    # One data packet of the server's is dropped, once: the server resends it (fast retransmission).
    rule = f"ip saddr {SERVER_IP} meta length > 500 numgen inc mod 1000000 == 100 counter drop"
    at_client, at_server = request_response(lab, rule, "7009", "1", "3")
    (dropped,) = [int(n) for n in re.findall(r"counter packets (\d+)", lab.nft_output("r", "list table inet lab"))]
    sent = tshark_fields(at_server, f"ip.src == {SERVER_IP} && tcp.len > 0", "tcp.seq_raw", "frame.time_epoch")
    resent, seen = [], set()
    for seq, when in sent:  # the same sequence number sent again
        if seq in seen:
            resent.append(when)
        seen.add(seq)
    assert dropped == 1 and len(resent) == 1, (dropped, resent)
    # The client's capture stops 1 ms after the server resent the packet, 4 ms before the resend arrives (or
    # 20 ms after, when it has arrived): either way one copy was lost between the captures, the original.
    for after in (0.001, 0.020):
        until = float(resent[0]) + after  # the capture as if it had stopped then
        cut = rewritten(at_client, lambda _, t, until=until: t <= until, lab.workdir / f"client-{after}.pcap")
        (loss,) = [f for f in analyze([cut, at_server]).findings if f.kind == "path.loss_between_captures"]
        seen_only_at_server = {(r["sender"], r["type"]): r["count"] for r in loss.data["missing_in_a"]}
        assert seen_only_at_server == {("server", "data"): dropped}, (after, loss.data)


def test_the_lab_is_gone_afterwards(tmp_path: Path) -> None:
    with NetLab(tmp_path) as lab:
        names = list(lab.ns.values())
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert not any(n in out for n in names)


def test_offloads_on_one_side_are_no_loss_and_the_nat_is_named(lab: NetLab) -> None:
    # The server's end as most hosts have it: TSO/GSO on, so its capture holds super-segments
    # far larger than the MTU, while the client's capture (behind the router) holds MTU-sized ones.
    for ns, dev in (("s", lab.dev["s"]), ("n", lab.dev["ns"])):
        lab.ex(ns, "ip", "link", "set", dev, "gso_max_segs", "65535")  # veth: TSO on by default
    serve(lab, "rr", "7005", "400000")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "rr", SERVER_IP, "7005", "2", "5", "400000")
    result = analyze([client_cap.stop(), server_cap.stop()])
    assert not [f for f in result.findings if f.kind == "path.loss_between_captures"]
    (cleared,) = [f for f in result.findings if f.kind == "path.no_loss_between_captures"]
    client_largest, server_largest = cleared.data["largest_segment"]
    assert server_largest > 1500 >= client_largest  # super-segments on the server's side only
    assert cleared.data["bytes_compared"] >= 2 * 5 * 400_000
    assert cleared.data["matched_connections"] == 2 and cleared.data["clears_layer"] is True
    nat = cleared.data["nat"][0]
    assert nat["a_client"].startswith("10.91.1.2:") and nat["b_client"].startswith("10.91.3.1:")
    assert "TSO/GSO/GRO" in cleared.explanation and "10.91.3.1" in cleared.explanation


@pytest.mark.parametrize("ids", ["kept", "rewritten"])
def test_dropped_pure_acks_and_data_are_named_by_type(lab: NetLab, ids: str) -> None:
    lab.delay(5)
    # The router drops every 20th pure ACK the client sends and every 50th data packet of the server;
    # a middlebox that renumbers the IPv4 identification of what it forwards leaves the ACKs
    # matched as copies of (seq, ack).
    # (Packets pass the forward chain twice, before and after the delay line: renumbered on the second pass.)
    renumber = f'iifname "{lab.dev["rc"]}t" ip daddr {SERVER_IP} ip id set ip id ^ 0x5a5a'
    rewrite = [renumber] if ids == "rewritten" else []
    lab.router_rules(
        f"ip daddr {SERVER_IP} tcp flags & (syn | fin | rst) == 0 meta length < 60 numgen inc mod 20 == 7 counter drop",
        f"ip saddr {SERVER_IP} meta length > 500 numgen inc mod 50 == 25 counter drop",
        *rewrite,
    )
    serve(lab, "rr", "7006", "200000")
    client_cap, server_cap = lab.capture("c", "client.pcap"), lab.capture("s", "server.pcap")
    client(lab, "rr", SERVER_IP, "7006", "2", "5", "200000")
    result = analyze([client_cap.stop(), server_cap.stop()])
    (loss,) = [f for f in result.findings if f.kind == "path.loss_between_captures"]
    seen_only_at_client = {(r["sender"], r["type"]): r["count"] for r in loss.data["missing_in_b"]}
    seen_only_at_server = {(r["sender"], r["type"]): r["count"] for r in loss.data["missing_in_a"]}
    counters = [int(n) for n in re.findall(r"counter packets (\d+)", lab.nft_output("r", "list table inet lab"))]
    acks_dropped, data_dropped = counters
    assert seen_only_at_client.get(("client", "pure ACK"), 0) == acks_dropped > 0
    assert seen_only_at_server.get(("server", "data"), 0) == data_dropped > 0
    assert "pure ACKs from the client" in loss.explanation or "pure ACK from the client" in loss.explanation
