"""Tool output recorded on the development VM (``data/lab/``, made by ``hostlab.py``): what each parser reads.

The truth is known by construction: the client opened and closed 150 connections to each of four
server ports, so 600 of its sockets are in TIME-WAIT and conntrack tracks 600 connections.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from host_testdata import HOST_DATA

from whodunnet.detect import sniff
from whodunnet.engine import analyze
from whodunnet.model import Finding

LAB = HOST_DATA / "lab"
CONNECTIONS = 600


def one(findings: tuple[Finding, ...] | list[Finding], kind: str) -> Finding:
    (f,) = [f for f in findings if f.kind == kind]
    return f


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("proc-net-stat-nf_conntrack.txt", "counters"),
        ("conntrack-S.txt", "counters"),
        ("netstat-i.txt", "counters"),
        ("nf_conntrack_count", "sysctl"),
        ("nf_conntrack_max", "sysctl"),
        ("sysctl-nf_conntrack.txt", "counters"),
    ],
)
def test_it_detects_the_recorded_outputs(name: str, kind: str) -> None:
    assert sniff((LAB / name).read_bytes()) == kind


def test_it_reads_the_nf_conntrack_stat_of_current_kernels_under_conntrack_s_names() -> None:
    (ev,) = analyze([LAB / "proc-net-stat-nf_conntrack.txt"]).evidence
    ct = ev.summary["conntrack"]
    assert ev.summary["formats"] == ["/proc/net/stat/nf_conntrack"] and ev.summary["bad_line_count"] == 0
    assert ct["entries"] == CONNECTIONS  # the same in every CPU's row: not summed
    assert "clash_resolve" in ct and "chaintoolong" in ct and "clashres" not in ct and "chainlength" not in ct
    (s,) = analyze([LAB / "conntrack-S.txt"]).evidence
    # conntrack -S reads the same per-CPU counters over netlink: every one of its names is a column here
    assert s.summary["formats"] == ["conntrack -S"] and set(s.summary["conntrack"]) <= set(ct)


def test_it_reads_bare_nf_conntrack_count_and_max_files_by_their_names(tmp_path: Path) -> None:
    result = analyze([LAB / "nf_conntrack_count", LAB / "nf_conntrack_max"])
    assert [e.summary["bare_value"] for e in result.evidence] == [str(CONNECTIONS), "262144"]
    f = one(result.findings, "host.conntrack_pressure")
    assert (f.data["count"], f.data["max"]) == (CONNECTIONS, 262144)
    assert [(r.evidence, r.label) for r in f.refs] == [
        (1, "net.netfilter.nf_conntrack_max"),
        (0, "net.netfilter.nf_conntrack_count"),
    ]
    # Under a name that does not say which setting it is, the value is kept but not guessed at.
    anonymous = tmp_path / "value.txt"
    anonymous.write_bytes((LAB / "nf_conntrack_max").read_bytes())
    (ev,) = analyze([anonymous]).evidence
    assert ev.kind == "sysctl" and ev.summary["bare_value"] == "262144"
    assert not [f for f in analyze([anonymous]).findings if f.kind == "host.conntrack_pressure"]


def test_the_sysctl_view_of_the_same_table_agrees() -> None:
    f = one(analyze([LAB / "sysctl-nf_conntrack.txt"]).findings, "host.conntrack_pressure")
    assert (f.data["count"], f.data["max"]) == (CONNECTIONS, 262144)


def test_it_reads_netstat_i_of_net_tools_2_10() -> None:
    (ev,) = analyze([LAB / "netstat-i.txt"]).evidence
    ifaces = ev.summary["interfaces"]
    assert ev.summary["bad_line_count"] == 0 and set(ifaces) == {"lo", "vd3c58a"}
    assert ifaces["vd3c58a"]["rx_packets"] == 2401 and ifaces["vd3c58a"]["tx_packets"] == 3603
    assert ifaces["vd3c58a"]["rx_dropped"] == 0


@pytest.mark.parametrize("name", ["netstat-tan.txt", "ss-tan.txt"])
def test_it_counts_time_wait_sockets_per_remote_port(name: str) -> None:
    result = analyze([LAB / name])
    (ev,) = result.evidence
    assert ev.kind == "sockets" and ev.summary["bad_line_count"] == 0
    f = one(result.findings, "sockets.states")
    assert f.data["states"] == {"TIME-WAIT": CONNECTIONS} and f.data["time_wait"] == CONNECTIONS
    assert f.data["time_wait_by_remote_port"] == {str(p): 150 for p in (12865, 12866, 12867, 12868)}
    assert f.data["time_wait_by_remote"] == {f"10.78.0.2:{p}": 150 for p in (12865, 12866, 12867, 12868)}
    assert f.severity == "info" and "TIME-WAIT to 4 remote ports" in f.title
    assert not [f for f in result.findings if f.kind in ("sockets.summary", "sockets.bbr_candidates")]


def test_ss_with_one_state_filter_prints_no_state_column_and_the_command_says_which(tmp_path: Path) -> None:
    bare = LAB / "ss-tan-state-time-wait.txt"
    f = one(analyze([bare]).findings, "sockets.states")
    assert f.data["states"] == {"unknown": CONNECTIONS} and "not in the file" in f.explanation
    with_command = tmp_path / "ss.txt"
    with_command.write_text("$ ss -tan state time-wait\n" + bare.read_text())
    (ev,) = analyze([with_command]).evidence
    assert ev.summary["bad_line_count"] == 0 and ev.summary["sockets"] == CONNECTIONS
    f = one(analyze([with_command]).findings, "sockets.states")
    assert f.data["states"] == {"TIME-WAIT": CONNECTIONS} and f.data["time_wait_by_remote_port"]["12867"] == 150


#: The client tried TCP port 9 six times with a 1.5 s timeout: a SYN and its retry 1 s later each time.
SYNS_TO_PORT_9 = 12
FIREWALL_FORMATS = {
    "iptables-L-vxn": ("iptables -L", "-p tcp tcp dpt:9 -j DROP"),
    "iptables-L-vn": ("iptables -L", "-p tcp tcp dpt:9 -j DROP"),
    "iptables-save-c": ("iptables-save", "-p tcp -m tcp --dport 9 -j DROP"),
    "nft-list-ruleset": ("nft list ruleset", "tcp dport 9 counter drop"),
}


@pytest.mark.parametrize("name", list(FIREWALL_FORMATS))
def test_it_names_the_firewall_rule_that_dropped_the_syns_between_two_snapshots(name: str) -> None:
    fmt, rule = FIREWALL_FORMATS[name]
    before, after = LAB / f"{name}-before.txt", LAB / f"{name}-after.txt"
    assert sniff(before.read_bytes()) == sniff(after.read_bytes()) == "firewall"
    result = analyze([after, before])  # given out of order: the snapshots' times order them
    assert [e.summary["formats"] for e in result.evidence] == [[fmt], [fmt]]
    assert all(e.summary["bad_line_count"] == 0 for e in result.evidence)
    f = one(result.findings, "firewall.drops")
    (top,) = f.data["rules"]
    assert (top["chain"], top["rule"], top["verdict"]) == ("FORWARD", rule, "drop")
    assert (top["packets"], top["bytes"]) == (SYNS_TO_PORT_9, SYNS_TO_PORT_9 * 60)
    assert f.data["evidence"] == [1, 0] and 9 < f.data["interval_s"] < 10
    # 12 of the 40 packets the FORWARD rules decided on (the fetch's 28 were accepted)
    (table,) = [t for t in f.data["tables"] if t["dropped_packets"]]
    assert (table["dropped_packets"], table["decided_packets"]) == (12, 40)
    assert f.severity == "medium" and f.title.startswith(f"FORWARD: '{rule}' dropped 12 packets (720 bytes)")
    assert {r.evidence for r in f.refs} == {0, 1}


def test_one_firewall_snapshot_gives_totals_since_the_rules_were_loaded() -> None:
    f = one(analyze([LAB / "nft-list-ruleset-after.txt"]).findings, "firewall.drops")
    assert f.severity == "low" and "since the rules were loaded" in f.title and f.data["dropped_packets"] == 12
    (ev,) = analyze([LAB / "nft-list-ruleset-after.txt"]).evidence
    rules = {r["key"]: r for r in ev.summary["rules"]}
    # the native table's named counter and its rules, beside iptables-nft's table
    assert rules["inet mbox/(named counters): counter syn_to_discard"]["packets"] == SYNS_TO_PORT_9
    assert rules["inet mbox/screen: ip saddr @blocked counter drop"]["packets"] == 0
    assert ev.summary["policies"] == {"ip filter/FORWARD": "drop", "inet mbox/screen": "accept"}


def test_rounded_iptables_counters_are_read_and_said_to_be_rounded() -> None:
    (ev,) = analyze([LAB / "iptables-L-vn-after.txt"]).evidence
    accepted = next(r for r in ev.summary["rules"] if "RELATED,ESTABLISHED" in r["rule"])
    exact = next(
        r
        for r in analyze([LAB / "iptables-L-vxn-after.txt"]).evidence[0].summary["rules"]
        if r["key"] == accepted["key"]
    )
    assert accepted["rounded"] and accepted["bytes"] == round(exact["bytes"], -3)


def per_snapshot_medians(path: Path) -> list[dict[str, float]]:
    """Each snapshot's median delivery rate per /24, read with the engine's own ss reader."""
    from whodunnet.kinds.sockets.bbr import prefix_of
    from whodunnet.kinds.sockets.parser import SsParser
    from whodunnet.kinds.text import LineLog, read_text
    from whodunnet.stats import percentile

    parser = SsParser(LineLog())
    read_text(path, parser)
    rates: dict[int, dict[str, list[float]]] = {}
    for s in parser.samples:
        rates.setdefault(s.snapshot, {}).setdefault(prefix_of(s.peer), []).append(s.fields["delivery_rate_bps"])
    return [{p: percentile(v, 50) or 0.0 for p, v in snap.items()} for _, snap in sorted(rates.items())]


def test_a_prefix_always_slowest_but_tied_now_and_then_is_the_bbr_candidate() -> None:
    path = LAB / "ss-tin-state-established-5-prefixes.txt"
    snapshots = per_snapshot_medians(path)
    # What the snapshots hold: 10.81.1.0/24 is the slowest prefix in half of them and within 10 % of the
    # slowest in the others, where 10.81.2.0/24 (otherwise the fastest) dips just below it.
    slowest = [min(m, key=m.__getitem__) for m in snapshots]
    assert len(snapshots) == 12 and slowest.count("10.81.1.0/24") == 6 and slowest.count("10.81.2.0/24") == 6
    assert all(m["10.81.1.0/24"] <= 1.1 * min(m.values()) for m in snapshots)
    result = analyze([path])
    (ev,) = result.evidence
    assert ev.summary["bad_line_count"] == 0 and ev.summary["snapshots"] == 12
    f = one(result.findings, "sockets.bbr_candidates")
    assert f.data["candidates"] == ["10.81.1.0/24"] and f.severity == "low"
    rows = {r["prefix"]: r for r in f.data["prefixes"]}
    always = rows["10.81.1.0/24"]
    assert (always["duty_cycle"], always["flaps"], always["p_value"]) == (1.0, 0, 0.0002)
    tying = rows["10.81.2.0/24"]
    assert (tying["duty_cycle"], tying["flap_rate"], tying["candidate"]) == (0.5, 1.0, False)
    assert f.data["flows"] == 10 and f.data["flows_seen_once"] == 0 and 0.9 < f.data["interval_s"] < 1.2
    said = " ".join(f.data["limits"])
    assert "With 5 prefixes the bottom 20% is the slowest prefix (or those tied with it)." in said
    assert "12 snapshots taken every 1" in said and "10 flows of at least 100,000 bytes seen" in said
    # Ranking each snapshot and cutting one prefix, as before, rejects it for flapping: 11 changes in 12.
    in_bottom = [s == "10.81.1.0/24" for s in slowest]
    assert sum(a != b for a, b in itertools.pairwise(in_bottom)) == 11


def latency(name: str) -> Finding:
    return one(analyze([LAB / name]).findings, "latency.timer_signature")


def test_a_healthy_service_at_240_ms_has_no_200_ms_rto_signature() -> None:
    f = latency("latency-healthy-240ms.csv")
    assert 235 <= f.data["percentiles_ms"]["p50"] <= 255 and f.data["samples"] == 400
    assert f.data["matches"] == [] and f.severity == "info" and f.data["failed"] == 0
    assert f.title == "no TCP timer signature in the latency samples"
    rto = next(s for s in f.data["signatures"] if s["name"] == "rto_min_200ms")
    assert rto["window_ms"][0] > 390 and rto["count"] == 0  # 200 ms above the service's own latency


def test_lost_packets_show_as_200_ms_and_1_s_modes_and_failed_requests_are_counted_apart() -> None:
    f = latency("latency-new-connections-1.5pct-loss.csv")
    assert f.data["matches"] == ["rto_min_200ms", "syn_timeout_1s"] and f.severity == "medium"
    assert (f.data["failed"], f.data["samples"]) == (12, 588)  # every 50th request went to the dropped port
    assert f.data["failures"] == [{"reason": "timed out", "count": 12}]
    assert 2990 <= f.data["failed_at_ms"] <= 3100  # the client's 3 s timeout
    sigs = {s["name"]: s for s in f.data["signatures"]}
    assert sigs["syn_timeout_3s"]["count"] <= 2  # the timeouts are failures, not a 3 s SYN mode
    assert "12 failed (2%)" in f.title and "12 requests failed (2% of 600): timed out ×12" in f.explanation


def test_a_share_under_one_percent_is_not_rounded_to_zero_and_a_huge_tail_is_not_low() -> None:
    f = latency("latency-lan-0.5pct-loss.csv")
    rto = next(s for s in f.data["signatures"] if s["name"] == "rto_min_200ms")
    assert 0 < rto["share"] < 0.01 and f.title.startswith(f"{rto['share'] * 100:.2g}% of requests about 200 ms")
    assert "0%" not in f.title.replace("100%", "")
    assert f.data["percentiles_ms"]["p50"] < 2 and f.data["tail_ratio"] >= 100 and f.severity == "medium"


def test_curl_answers_of_000_are_failed_requests_and_time_total_is_in_seconds() -> None:
    f = latency("curl-http-code-time-total.csv")
    assert (f.data["samples"], f.data["failed"]) == (20, 2) and f.data["failures"] == [
        {"reason": "status 000", "count": 2}
    ]
    assert 1 < f.data["percentiles_ms"]["p50"] < 20 and f.data["column"] == "time_total_s"
    assert f.severity == "medium" and f.title.endswith("2 failed (9.1%)")
