"""Each checklist rule on its own, on findings shaped as the analyzers write them, then how the rules combine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from whodunnet import verdicts
from whodunnet.model import EvidenceResult, Finding, Provenance, Ref
from whodunnet.verdicts import Facts, Suggestion


def ev(name: str, kind: str, host: str | None = None, role: str | None = None) -> EvidenceResult:
    return EvidenceResult(path=f"/tmp/{name}", kind=kind, summary={}, provenance=Provenance(host=host, role=role))


def finding(
    kind: str, layer: str = "network", severity: str = "info", refs: tuple[int, ...] = (), **data: Any
) -> Finding:
    return Finding(
        kind=kind,
        layer=layer,  # type: ignore[arg-type]
        severity=severity,  # type: ignore[arg-type]
        title=f"a {kind} finding",
        explanation="",
        refs=tuple(Ref(evidence=i) for i in refs),
        data=data,
    )


def facts(evidence: list[EvidenceResult], *findings: Finding) -> Facts:
    return Facts(evidence=evidence, findings=list(findings))


# --- neighbours -------------------------------------------------------------------------------------------------

LINK = [ev("hv-ip-s-link-before.txt", "counters", "hv1", "hypervisor"), ev("hv-ip-s-link-after.txt", "counters", "hv1")]


def usage(near: list[str], utilisation: float, source: str = "NIC speed from ethtool") -> Finding:
    row = {"interface": "eth0", "rx_bps": utilisation * 1e9, "tx_bps": 1e6, "limit_bps": 1e9,
           "limit_source": source, "utilisation": utilisation}  # fmt: skip
    return finding("neighbours.link_usage", "neighbours", refs=(0, 1), interval_s=30.0, interfaces=[row],
                   near_limit=near, clears_layer=not near, threshold=0.8)  # fmt: skip


def test_a_neighbour_near_its_link_limit_is_suspect_with_the_rate_the_speed_and_its_source() -> None:
    s = verdicts.a_neighbour_near_its_link_limit_is_suspect(facts(LINK, usage(["eth0"], 0.95)))
    assert s is not None and s.verdict == "suspect" and s.findings == (0,)
    assert "eth0 ran at 950.00 Mbit/s over the 30 s between the snapshots, 95% of its 1.00 Gbit/s link" in s.reason
    assert "(NIC speed from ethtool) on hv1" in s.reason and s.needs


def test_a_neighbour_near_its_link_limit_is_suspect_says_nothing_when_no_link_is_near() -> None:
    assert verdicts.a_neighbour_near_its_link_limit_is_suspect(facts(LINK, usage([], 0.1))) is None


def test_every_interface_under_its_link_speed_clears_the_neighbours_naming_the_busiest() -> None:
    s = verdicts.every_interface_under_its_link_speed_clears_the_neighbours(
        facts(LINK, usage([], 0.12, "speed given on the card"))
    )
    assert s is not None and s.verdict == "cleared"
    assert (
        "eth0 ran at 120.00 Mbit/s" in s.reason and "12% of its 1.00 Gbit/s link (speed given on the card)" in s.reason
    )


def test_every_interface_under_its_link_speed_clears_the_neighbours_needs_a_link_speed() -> None:
    unknown = finding("neighbours.link_usage", "neighbours", interfaces=[{"interface": "eth0", "limit_bps": None}])
    assert verdicts.every_interface_under_its_link_speed_clears_the_neighbours(facts(LINK, unknown)) is None
    needs = verdicts.settle(LINK, [unknown])["neighbours"]
    assert any("ethtool" in n and "link speed on the counters card" in n for n in needs)


# --- network ----------------------------------------------------------------------------------------------------

GUEST_AND_HOST = [
    ev("guest-nstat-before.txt", "counters", "vm1", "client"),
    ev("guest-nstat-after.txt", "counters", "vm1", "client"),
    ev("hv-ip-s-link-before.txt", "counters", "hv1", "hypervisor"),
    ev("hv-ip-s-link-after.txt", "counters", "hv1", "hypervisor"),
    ev("rr-latency.csv", "latency", "vm1", "client"),
]


def drops(**data: Any) -> Finding:
    base = {"interface": "macvtap0", "interface_host": "hv1", "retransmit_host": "vm1", "hosts": ["vm1", "hv1"],
            "drops": 122, "retransmits": 87, "explains_all": True,
            "arithmetic": "122 drops ≥ 87 retransmissions: the other 35 were pure ACKs a later ACK repaired",
            }  # fmt: skip
    return finding("host.drops_match_retransmits", severity="high", refs=(0, 1, 2, 3), **{**base, **data})


def test_drops_on_a_hosts_interface_explain_the_guests_retransmissions_is_the_culprit() -> None:
    tails = finding("latency.timer_signature", refs=(4,), matches=["rto_min_200ms"], signatures=[
        {"name": "rto_min_200ms", "meaning": "a retransmission after the 200 ms minimum RTO", "count": 84, "mode": True}
    ])  # fmt: skip
    s = verdicts.drops_on_a_hosts_interface_explain_the_guests_retransmissions(facts(GUEST_AND_HOST, drops(), tails))
    assert s is not None and s.verdict == "culprit" and s.findings == (0, 1) and not s.needs
    assert "macvtap0 on hv1 dropped 122 packets while TCP on vm1 retransmitted 87 segments" in s.reason
    assert "the other 35 were pure ACKs a later ACK repaired. The retransmissions are these drops" in s.reason
    assert "84 samples in rr-latency.csv (vm1) at a retransmission after the 200 ms minimum RTO" in s.reason


def test_drops_on_a_hosts_interface_explain_the_guests_retransmissions_only_suspect_when_they_explain_part() -> None:
    part = drops(drops=40, explains_all=False, arithmetic="40 drops explain 40 of the 87 retransmissions")
    s = verdicts.drops_on_a_hosts_interface_explain_the_guests_retransmissions(facts(GUEST_AND_HOST, part))
    assert s is not None and s.verdict == "suspect" and "explain part of the retransmissions" in s.reason
    assert "40 drops explain 40 of the 87 retransmissions" in s.reason and "ip -s link" in s.needs[0]
    even = drops(drops=87, arithmetic="87 drops ≥ 87 retransmissions: the other 0 drops needed no retransmission")
    s = verdicts.drops_on_a_hosts_interface_explain_the_guests_retransmissions(facts(GUEST_AND_HOST, even))
    assert s is not None and "retransmitted 87 segments over the same interval" in s.reason
    assert "one retransmission for every drop" in s.reason and "the other 0" not in s.reason


def test_drops_on_a_hosts_interface_explain_the_guests_retransmissions_needs_the_joining_finding() -> None:
    assert verdicts.drops_on_a_hosts_interface_explain_the_guests_retransmissions(facts(GUEST_AND_HOST)) is None


def test_settle_asks_for_the_hypervisors_counters_when_a_guest_retransmits() -> None:
    guest = [ev("nstat-before.txt", "counters", "10.0.0.5"), ev("nstat-after.txt", "counters", "10.0.0.5")]
    retrans = finding("host.retransmits", refs=(0, 1), counters={"TcpRetransSegs": 87})
    needs = verdicts.settle(guest, [retrans])["network"]
    assert "upload `ip -s link` before and after from the hypervisor of 10.0.0.5" in " ".join(needs)


MIDDLEBOX = [
    ev("fw-conntrack-S.txt", "counters", "fw", "middlebox"),
    ev("fw-sysctl.txt", "sysctl", "fw", "middlebox"),
    ev("client-nstat-after.txt", "counters", "client", "client"),
]


def conntrack(**data: Any) -> Finding:
    base = {"count": 512, "max": 512, "failures": {"drop": 18, "insert_failed": 0}, "port_range_size": 28232,
            "server_ports": 4, "server_ports_source": "distinct server ports in the captures",
            "possible_tuples": 112928, "tuples_share_of_max": 220.5}  # fmt: skip
    return finding("host.conntrack_pressure", severity="high", refs=(0, 1), **{**base, **data})


def test_conntrack_table_full_is_the_culprit_with_its_drops_and_the_syn_retransmits() -> None:
    syn = finding("host.retransmits", refs=(2,), counters={"TcpExtTCPSynRetrans": 31, "TcpRetransSegs": 31})
    s = verdicts.conntrack_table_full_is_the_culprit(facts(MIDDLEBOX, conntrack(), syn))
    assert s is not None and s.verdict == "culprit" and s.findings == (0, 1) and not s.needs
    assert "the conntrack table on fw held 512 of 512 entries and counted 18 dropped" in s.reason
    assert "28,232 ephemeral ports × 4 server ports" in s.reason and "112,928 possible connections" in s.reason
    assert "31 SYN retransmissions on client" in s.reason


def test_conntrack_table_full_is_the_culprit_not_when_the_table_has_room() -> None:
    roomy = conntrack(count=100, failures={"drop": 0}, tuples_exceed_table=False)
    assert verdicts.conntrack_table_full_is_the_culprit(facts(MIDDLEBOX, roomy)) is None


def test_loss_between_the_captures_is_suspect_with_the_counts_each_way() -> None:
    caps = [ev("client.pcap", "capture", "client", "client"), ev("server.pcap", "capture", "server", "server")]
    lost = finding("path.loss_between_captures", severity="high", refs=(0, 1), lost_segments=40,
                   segments_compared=3565, matched_connections=1, only_in_a=40, only_in_b=0,
                   missing_in_b=[{"sender": "server", "type": "pure ACK", "count": 40}])  # fmt: skip
    s = verdicts.loss_between_the_captures_is_suspect(facts(caps, lost))
    assert s is not None and s.verdict == "suspect"
    assert "40 of 3,565 segments on 1 matched connection between client.pcap, server.pcap" in s.reason
    assert "the second capture never saw 40 pure ACK from the server" in s.reason
    assert "between client and server" in s.needs[0]


def test_both_sides_of_the_nat_saw_every_segment_clears_the_network() -> None:
    caps = [ev("client.pcap", "capture", "client", "client"), ev("server.pcap", "capture", "server", "server")]
    nat = {"a_client": "10.0.1.2:40000", "a_server": "192.0.2.9:9092", "b_client": "192.0.2.1:61000",
           "b_server": "192.0.2.9:9092"}  # fmt: skip
    seen = finding("path.no_loss_between_captures", refs=(0, 1), bytes_compared=10485760, segments=[180, 7240],
                   matched_connections=1, nat=[nat], clears_layer=True)  # fmt: skip
    s = verdicts.both_sides_of_the_nat_saw_every_segment_clears_the_network(facts(caps, seen))
    assert s is not None and s.verdict == "cleared"
    assert "client.pcap, server.pcap saw the same 10,485,760 bytes of sequence space" in s.reason
    assert "on 1 connection, 180 and 7,240 segments" in s.reason
    assert "through a NAT (10.0.1.2:40000 → 192.0.2.9:9092 on one side is 192.0.2.1:61000 → 192.0.2.9:9092" in s.reason


def test_both_sides_of_the_nat_saw_every_segment_clears_the_network_not_over_drops_elsewhere() -> None:
    caps = [ev("client.pcap", "capture"), ev("server.pcap", "capture")]
    seen = finding("path.no_loss_between_captures", refs=(0, 1), clears_layer=True)
    drops = finding("host.drops_match_retransmits", drops=10, retransmits=10)
    assert verdicts.both_sides_of_the_nat_saw_every_segment_clears_the_network(facts(caps, seen, drops)) is None


# --- application --------------------------------------------------------------------------------------------

SEED000 = [
    ev("client.strace", "strace", "client", "client"),
    ev("client.pcap", "capture", "client", "client"),
    ev("before.txt", "kernel_versions", "client"),
    ev("after.txt", "kernel_versions", "client"),
]
RCVBUF = finding("app.rcvbuf_pinned", "application", "medium", refs=(0,), so_rcvbuf=65536, lines=[2])
WINDOW = finding("tcp.receive_window_limited", "application", "high", refs=(1,), window=32768, rtt=0.151)
DEADLINE = finding("app.timeout", "application", "medium", refs=(0,), timeout_ms=10000,
                   closes_after=[{"fd": 7}])  # fmt: skip


def test_so_rcvbuf_pins_the_window_is_suspect_with_the_measured_window_and_the_deadline() -> None:
    s = verdicts.so_rcvbuf_pins_the_window_is_suspect(facts(SEED000, RCVBUF, WINDOW, DEADLINE))
    assert s is not None and s.verdict == "suspect" and s.findings == (0, 1, 2) and not s.needs
    assert "client.strace sets SO_RCVBUF 65,536 at line 2" in s.reason
    assert "the capture measured a 32,768-byte window at a 151.0 ms RTT" in s.reason
    assert "the application gives up after 10.0 s (client.strace)" in s.reason


def test_so_rcvbuf_pins_the_window_is_suspect_takes_the_deadline_the_strace_and_a_capture_agree_on() -> None:
    close = finding("tcp.app_timeout_close", "application", "medium", refs=(1,), round_age=10.0)
    joined = finding("app.deadline_close", "application", "high", refs=(0, 1), deadline_s=10.0,
                     deadline_source="strace client.strace: a poll loop counting down 10.0 s")  # fmt: skip
    s = verdicts.so_rcvbuf_pins_the_window_is_suspect(facts(SEED000, RCVBUF, close, joined))
    assert (
        s is not None and "gives up after 10.0 s (strace client.strace: a poll loop counting down 10.0 s)" in s.reason
    )


def test_so_rcvbuf_pins_the_window_is_suspect_asks_for_a_capture_without_one() -> None:
    s = verdicts.so_rcvbuf_pins_the_window_is_suspect(facts(SEED000, RCVBUF))
    assert s is not None and "capture of a slow transfer" in s.needs[0]
    assert verdicts.so_rcvbuf_pins_the_window_is_suspect(facts(SEED000, DEADLINE)) is None


# --- kernel -------------------------------------------------------------------------------------------------

CHANGE = finding("kernel.known_change_in_range", "kernel", "high", refs=(2, 3), changes=[
    {"id": "dfa2f0483360", "title": "tcp: get rid of sysctl_tcp_adv_win_scale", "first_release": "6.6",
     "regression": True, "direction": "gained"}
])  # fmt: skip


def model(**data: Any) -> Finding:
    base = {
        "so_rcvbuf": 65536, "so_rcvbuf_source": "strace (client.strace, line 2)",
        "rtt_ms": 151.0, "rtt_source": "capture client.pcap, handshake",
        "transfer_bytes": 10485760, "transfer_source": "capture client.pcap, connection 0",
        "timeout_ms": 10000, "timeout_source": "strace (client.strace): the poll loop's deadline",
        "kernels": [
            {"kernel": "6.5.13", "window": 65536, "transfer_s": 3.5, "fits_timeout": True},
            {"kernel": "6.6.10", "window": 32768, "transfer_s": 12.1, "fits_timeout": False},
        ],
    }  # fmt: skip
    return finding("kernel.receive_window_model", "kernel", "high", refs=(0, 2, 3), **{**base, **data})


def test_a_kernel_change_that_predicts_the_measured_window_is_the_culprit_with_the_whole_chain() -> None:
    s = verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(
        facts(SEED000, model(), CHANGE, WINDOW)
    )
    assert s is not None and s.verdict == "culprit" and not s.needs and s.findings == (0, 1, 2)
    assert (
        'dfa2f0483360 ("tcp: get rid of sysctl_tcp_adv_win_scale", first in 6.6) lies between 6.5.13 and 6.6.10'
        in s.reason
    )
    assert "predicts a 32,768-byte window where 6.5.13 gave 65,536; the capture measured 32,768 bytes" in s.reason
    assert "at the 151.0 ms RTT (capture client.pcap, handshake) 10,485,760 bytes" in s.reason
    assert "needs 12.1 s against a 10.0 s deadline" in s.reason and "where 6.5.13 needed 3.5 s" in s.reason


def test_a_kernel_change_that_predicts_the_measured_window_is_the_culprit_only_with_a_measurement() -> None:
    s = verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(facts(SEED000, model(), CHANGE))
    assert s is not None and s.verdict == "suspect" and "capture of a slow transfer" in s.needs[0]
    other = finding("tcp.receive_window_limited", refs=(1,), window=8192)
    s = verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(
        facts(SEED000, model(), CHANGE, other)
    )
    assert s is not None and s.verdict == "suspect" and "which the change does not explain" in s.reason


def test_a_kernel_change_that_predicts_the_measured_window_is_the_culprit_not_when_the_new_kernel_has_the_fix() -> None:
    fixed = finding("kernel.known_change_in_range", "kernel", "medium", refs=(2, 3), changes=[
        {"id": "dfa2f0483360", "regression": True, "direction": "gained", "unfixed_in_after": False}
    ])  # fmt: skip
    assert (
        verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(
            facts(SEED000, model(), fixed, WINDOW)
        )
        is None
    )


def test_a_kernel_change_that_predicts_the_measured_window_is_the_culprit_never_on_assumed_inputs() -> None:
    assumed = model(rtt_ms=136.6, rtt_source="a default RTT (none in the evidence)", timeout_ms=None, timeout_source="")
    s = verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(
        facts(SEED000, assumed, CHANGE, WINDOW)
    )
    assert s is not None and s.verdict == "suspect" and "136.6" not in s.reason
    assert any("RTT" in n for n in s.needs) and any("strace" in n for n in s.needs)
    said = model(rtt_ms=None, rtt_source="", missing=["no RTT: upload a capture of the connection's handshake"])
    s = verdicts.a_kernel_change_that_predicts_the_measured_window_is_the_culprit(facts(SEED000, said, CHANGE, WINDOW))
    assert s is not None and s.verdict == "suspect"
    assert s.needs == ("no RTT: upload a capture of the connection's handshake",)


def test_a_new_kernel_that_gives_no_smaller_window_clears_the_kernel_when_its_regressions_are_fixed() -> None:
    fixed = finding("kernel.known_change_in_range", "kernel", "medium", refs=(2, 3), changes=[
        {"id": "dfa2f0483360", "regression": True, "direction": "gained", "unfixed_in_after": False,
         "fixed_by": [{"id": "697a6c8cec03"}, {"id": "05f76b2d634e"}]}
    ])  # fmt: skip
    newer = model(kernels=[{"kernel": "6.5.13", "window": 65536}, {"kernel": "6.18.44", "window": 80480}],
                  measured_window=80480, measured_window_source="capture client.pcap")  # fmt: skip
    s = verdicts.a_new_kernel_that_gives_no_smaller_window_clears_the_kernel(facts(SEED000, newer, fixed))
    assert s is not None and s.verdict == "cleared" and s.findings == (0, 1)
    assert "6.18.44 advertises up to 80,480 bytes where 6.5.13 gave 65,536" in s.reason
    assert "the regression between them (dfa2f0483360) is fixed in 6.18.44 (05f76b2d634e, 697a6c8cec03)" in s.reason
    # An unfixed regression, or a smaller window, is not cleared.
    assert verdicts.a_new_kernel_that_gives_no_smaller_window_clears_the_kernel(facts(SEED000, newer, CHANGE)) is None
    assert verdicts.a_new_kernel_that_gives_no_smaller_window_clears_the_kernel(facts(SEED000, model(), fixed)) is None


# --- every step ---------------------------------------------------------------------------------------------


def test_notable_findings_make_the_step_suspect_and_name_at_most_three() -> None:
    found = [finding("tcp.syn_retransmit", severity="high") for _ in range(4)] + [finding("x", "kernel", "high")]
    s = verdicts.notable_findings_make_the_step_suspect(facts([], *found), "network")
    assert s is not None and s.verdict == "suspect" and s.reason.startswith("4 notable findings: ")
    assert s.findings == (0, 1, 2, 3)
    assert verdicts.notable_findings_make_the_step_suspect(facts([], finding("y", severity="low")), "network") is None


def test_a_clearing_finding_clears_the_step() -> None:
    s = verdicts.a_clearing_finding_clears_the_step(facts([], finding("z", clears_layer=True)), "network")
    assert s == Suggestion(verdict="cleared", reason="a z finding.", findings=(0,))
    assert verdicts.a_clearing_finding_clears_the_step(facts([], finding("z")), "network") is None


def test_the_checklist_takes_each_steps_most_conclusive_rule() -> None:
    result = verdicts.checklist(SEED000, [RCVBUF, WINDOW, DEADLINE, model(), CHANGE])
    assert set(result) == set(verdicts.STEPS)
    assert result["neighbours"] is None and result["network"] is None
    assert result["application"] is not None and result["application"].verdict == "suspect"
    assert result["kernel"] is not None and result["kernel"].verdict == "culprit"
    printed = verdicts.render(SEED000, [RCVBUF, WINDOW, DEADLINE, model(), CHANGE])
    assert "kernel: culprit — dfa2f0483360" in printed and "neighbours: no suggestion" in printed


def test_every_rule_has_a_docstring_and_a_test_named_after_it() -> None:
    tests = Path(__file__).read_text()
    rules = {rule.__name__: rule for step_rules in verdicts.RULES.values() for rule in step_rules}
    for name, rule in rules.items():
        assert (rule.__doc__ or "").strip(), f"{name} needs a docstring saying the case it covers"
        assert f"def test_{name}" in tests, f"{name} needs a test here named after it"
