"""A whole incident (a receive-window cap across a NAT with a kernel upgrade), made with the real kernel TCP
stack, read as one bundle.

A client with SO_RCVBUF 64 KiB reads a bulk transfer through a NAT over a 150 ms delay line and
gives up at a 10 s deadline (a poll loop counting the time left). The bundle is what a person
would collect: captures at both ends, an strace of the client, nstat and ``ip -s link`` before
and after on both hosts, a kernel-versions file and the client's sysctl values. Analysed in
shell-glob order and reversed, it must name every host and pair and say the same things.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from netlab import SERVER_IP, NetLab, lab_unavailable

from whodunnet.engine import analyze, snapshot_pairing
from whodunnet.model import AnalysisResult, Finding

TRAFFIC = str(Path(__file__).with_name("lab_traffic.py"))
pytestmark = pytest.mark.skipif(lab_unavailable() is not None, reason=str(lab_unavailable()))
#: The client's deadline, its receive buffer, the delay line's one-way delay.
DEADLINE_S = 10
RCVBUF = 65536
ONE_WAY_MS = 75


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[NetLab]:
    with NetLab(tmp_path) as lab:
        yield lab


def snapshot(lab: NetLab, ns: str, bundle: Path, host: str, when: str) -> None:
    (bundle / f"{host}-nstat-{when}.txt").write_text(lab.ex(ns, "nstat", "-asz"))
    (bundle / f"{host}-ip-s-link-{when}.txt").write_text(lab.ex(ns, "ip", "-s", "link", "show", "dev", lab.dev[ns]))


def make_bundle(lab: NetLab, bundle: Path) -> None:
    lab.delay(ONE_WAY_MS)
    lab.spawn("s", sys.executable, TRAFFIC, "server", "bulk", "7010")
    time.sleep(0.3)
    for ns, host in (("c", "client"), ("s", "server")):
        snapshot(lab, ns, bundle, host, "before")
    client_cap = lab.capture("c", "client.pcap")
    server_cap = lab.capture("s", "server.pcap")
    strace = bundle / "client.strace"
    client = (sys.executable, TRAFFIC, "client", "deadline", SERVER_IP, "7010", "1", str(RCVBUF), str(DEADLINE_S))
    lab.ex("c", "strace", "-f", "-tt", "-e", "trace=network,poll,close,shutdown", "-o", str(strace), *client)
    time.sleep(0.4)  # the server's data in flight meets the closed socket
    for cap in (client_cap.stop(), server_cap.stop()):
        cap.rename(bundle / cap.name)
    for ns, host in (("c", "client"), ("s", "server")):
        snapshot(lab, ns, bundle, host, "after")
    running = subprocess.run(["uname", "-r"], capture_output=True, text=True, check=True).stdout.strip()
    (bundle / "kernel-versions.txt").write_text(f"before: 6.5.13\nafter: {running}\n")
    (bundle / "client-sysctl.txt").write_text(
        lab.ex("c", "sysctl", "net.ipv4.tcp_rmem", "net.core.rmem_max", "net.ipv4.tcp_adv_win_scale")
    )


def one(result: AnalysisResult, kind: str, **where: object) -> Finding:
    found = [f for f in result.findings if f.kind == kind and all(f.data.get(k) == v for k, v in where.items())]
    assert len(found) == 1, (kind, where, [f.title for f in result.findings])
    return found[0]


def said(result: AnalysisResult) -> list[tuple[str, str]]:
    """What a person reads, whatever position each file had."""
    return sorted((f.kind, f.title, f.explanation) for f in result.findings)


def test_the_receive_window_incident_named_per_host_and_pair_in_any_order(lab: NetLab, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    started = time.monotonic()
    make_bundle(lab, bundle)
    files = sorted(bundle.iterdir())  # a shell's glob: *-after* before *-before*
    result = analyze(files)
    reversed_result = analyze(list(reversed(files)))
    assert said(result) == said(reversed_result) == said(analyze(files[::2] + files[1::2]))  # and mixed
    model_reversed = one(reversed_result, "kernel.receive_window_model")

    names = {e.name: e for e in result.evidence}
    assert names["client.pcap"].provenance.host == "client" and names["server.pcap"].provenance.role == "server"
    for host in ("client", "server"):
        retrans = one(result, "host.retransmits", host=host)
        assert retrans.data["pair"] == [f"{host}-nstat-before.txt", f"{host}-nstat-after.txt"]
        assert retrans.data["delta"] is True and retrans.data["resets"] == []
        assert f"on {host} " in retrans.title
    pairing = {result.evidence[p["evidence"]].name: p for p in snapshot_pairing(result.evidence)}
    assert pairing["server-ip-s-link-after.txt"]["other"] == names_index(result, "server-ip-s-link-before.txt")

    # Both ends of the NAT saw every segment: the network is cleared, the NAT mapping named.
    cleared = one(result, "path.no_loss_between_captures")
    assert cleared.data["clears_layer"] is True and cleared.data["hosts"] == ["client", "server"]
    assert cleared.data["nat"][0]["b_client"].startswith("10.91.3.1:")

    # The client closed its one connection at the deadline while the server still sent.
    for capture in ("client.pcap", "server.pcap"):  # seen from both ends
        (closed,) = [f for f in result.findings if f.kind == "tcp.app_timeout_close"
                     and f.refs[0].evidence == names_index(result, capture)]  # fmt: skip
        assert closed.data["closer"] == "client" and closed.data["connections"] == 1
        assert closed.data["round_age"] == DEADLINE_S
    deadline = one(result, "app.timeout", syscall="poll")
    assert deadline.data["deadline_s"] == pytest.approx(DEADLINE_S, rel=0.02)
    assert "counting down a 10.0 s deadline" in deadline.title
    joined = [f for f in result.findings if f.kind == "app.deadline_close"]
    assert {tuple(f.data["hosts"]) for f in joined} == {("client",), ("client", "server")}  # both captures
    assert all(f.data["closer"] == "client" and f.data["deadline_s"] == deadline.data["deadline_s"] for f in joined)

    # The window model uses the measured RTT and the strace deadline, nothing invented.
    model = one(result, "kernel.receive_window_model")
    assert model.data["rtt_source"].startswith("capture client.pcap, handshake")
    assert model.explanation == model_reversed.explanation
    assert 2 * ONE_WAY_MS <= model.data["rtt_ms"] <= 2 * ONE_WAY_MS + 40
    assert model.data["timeout_source"].startswith("strace client.strace: a poll loop counting down 10.0 s")
    assert model.data["so_rcvbuf"] == RCVBUF and model.data["missing"] == []
    assert model.data["measured_window"] is not None
    before = model.data["kernels"][0]
    assert (before["kernel"], before["window"]) == ("6.5.13", RCVBUF)
    print(f"made and read in {time.monotonic() - started:.1f} s")  # a figure, not a test


def names_index(result: AnalysisResult, name: str) -> int:
    return next(i for i, e in enumerate(result.evidence) if e.name == name)


def stamped(text: str) -> str:
    """A snapshot as a person takes it: ``date +%s.%N`` then the tool's output."""
    return f"=== {time.time():.6f}\n{text}"


def test_drops_on_the_middlebox_explain_the_retransmits_and_the_200_ms_tails(lab: NetLab, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    started = time.monotonic()
    # One packet in 100 towards the server is dropped by the host in the middle (never a SYN).
    lab.router_rules(f"ip daddr {SERVER_IP} tcp flags & syn == 0 numgen inc mod 100 == 50 counter drop")
    lab.spawn("s", sys.executable, TRAFFIC, "server", "rr1", "7020")
    time.sleep(0.3)

    def snap(when: str) -> None:
        for ns, host in (("c", "client"), ("s", "server")):
            (bundle / f"{host}-nstat-{when}.txt").write_text(stamped(lab.ex(ns, "nstat", "-asz")))
        (bundle / f"router-nft-{when}.txt").write_text(stamped(lab.nft_output("r", "list ruleset")))

    snap("before")
    latency = bundle / "client-latency.csv"
    lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "rr1", SERVER_IP, "7020", "1500", str(latency))
    snap("after")
    dropped = int(re.findall(r"counter packets (\d+)", lab.nft_output("r", "list table inet lab"))[0])
    assert dropped >= 5, "the lab dropped too little to test anything"

    files = sorted(bundle.iterdir())
    result = analyze(files)
    assert said(result) == said(analyze(list(reversed(files))))
    assert {e.provenance.role for e in result.evidence} == {"client", "server", "middlebox"}
    link = one(result, "host.drops_match_retransmits", retransmit_host="client")
    assert link.data["interface_host"] == "router" and link.data["drops"] == dropped
    assert link.data["explains_all"] is True and link.severity == "high"
    assert link.data["retransmits"] <= dropped
    r = link.data["retransmits"]
    assert (
        link.title
        == f"{dropped:,} drops by the firewall rules of router explain the {r:,} TCP retransmissions of client"
    )
    tails = one(result, "latency.timer_signature")
    assert "rto_min_200ms" in tails.data["matches"], tails.explanation
    print(f"made and read in {time.monotonic() - started:.1f} s")  # a figure, not a test


@pytest.fixture
def tiny_conntrack_table() -> Iterator[int]:
    """net.netfilter.nf_conntrack_max is global (read-only inside a namespace): set it small for the
    test and put it back. Each namespace counts its own entries against it, and only the lab's NAT
    namespace tracks connections here, so others are not starved unless they hold as many."""
    path = Path("/proc/sys/net/netfilter/nf_conntrack_max")
    before = path.read_text().strip()
    path.write_text("256\n")
    try:
        yield 256
    finally:
        path.write_text(before + "\n")


def test_conntrack_table_full_on_the_middlebox(lab: NetLab, tmp_path: Path, tiny_conntrack_table: int) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    started = time.monotonic()
    lab.sysctl("c", "net.ipv4.ip_local_port_range=40000 40199")  # 200 ports × 2 server ports > 256 entries
    for port in ("7031", "7032"):
        lab.spawn("s", sys.executable, TRAFFIC, "server", "rr1", port)
    time.sleep(0.3)

    def snap(when: str) -> None:
        (bundle / f"client-nstat-{when}.txt").write_text(stamped(lab.ex("c", "nstat", "-asz")))
        (bundle / f"nat-conntrack-S-{when}.txt").write_text(stamped(lab.ex("n", "conntrack", "-S")))

    snap("before")
    # Entries in TIME-WAIT leave the table as their timeout passes; the kernel's garbage collector
    # is too lazy to show that within a test, so closed connections' entries are removed as they
    # would expire: new connections get in only after their SYN has been dropped and resent.
    lab.spawn("n", "sh", "-c", "while :; do sleep 0.8; conntrack -D -p tcp --state TIME_WAIT; done")
    cap = lab.capture("c", "client.pcap")
    latency = bundle / "client-connect-times.csv"
    lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "crr", SERVER_IP, "7031,7032", "320", "32",
           str(latency))  # fmt: skip
    cap.stop().rename(bundle / "client.pcap")
    traffic_s = time.monotonic() - started
    snap("after")
    (bundle / "nat-sysctl.txt").write_text(
        lab.ex("n", "sysctl", "net.netfilter.nf_conntrack_max", "net.netfilter.nf_conntrack_count")
    )
    (bundle / "client-sysctl.txt").write_text(lab.ex("c", "sysctl", "net.ipv4.ip_local_port_range"))

    files = sorted(bundle.iterdir())
    result = analyze(files)
    assert said(result) == said(analyze(list(reversed(files))))
    table = one(result, "host.conntrack_pressure", host="nat")
    assert table.data["max"] == tiny_conntrack_table and table.data["failures"]["drop"] > 0
    assert table.data["port_range_size"] == 200 and table.data["server_ports"] == 2
    assert table.data["tuples_exceed_table"] is True and table.severity == "high"
    assert "capture client.pcap" in table.data["server_ports_source"]
    syn = one(result, "tcp.syn_retransmit")
    assert syn.data["connections"] >= 1 and syn.data["max_delay"] >= 0.9
    retrans = one(result, "host.retransmits", host="client")
    assert retrans.data["counters"]["TcpExtTCPSynRetrans"] >= syn.data["connections"]
    tails = one(result, "latency.timer_signature")
    assert "syn_timeout_1s" in tails.data["matches"], tails.explanation
    print(f"made and read in {time.monotonic() - started:.1f} s ({traffic_s:.1f} s of traffic)")  # a figure, not a test
