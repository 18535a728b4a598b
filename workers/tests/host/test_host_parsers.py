"""Host-evidence parsers against others' test data (jc, node_exporter, insights-core, telegraf, netperf)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_testdata import HOST_DATA, LOOPBACK, RCVBUF_DEADLINE_STRACE

from whodunnet.detect import sniff
from whodunnet.engine import analyze
from whodunnet.kernel.versions import parse_line
from whodunnet.kinds.counters.parser import CounterParser
from whodunnet.kinds.strace.parser import StraceTrace
from whodunnet.kinds.sysctl.parser import Sysctl
from whodunnet.kinds.text import LineLog, iter_lines


def counters_of(source: Path | bytes) -> CounterParser:
    parser = CounterParser(LineLog())
    for n, t in iter_lines(source):
        parser.feed(n, t)
    return parser


def bad_lines(parser: CounterParser) -> list[int]:
    return [b.line for b in parser.log.listed]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("nf_conntrack", "counters"),
        ("node_exporter_netstat", "counters"),
        ("insights_netstat_s.txt", "counters"),
        ("insights_ip_s_link.txt", "counters"),
        ("insights_ip_s_link_all_4.txt", "counters"),
        ("insights_proc_netstat.txt", "counters"),
        ("insights_proc_snmp.txt", "counters"),
        ("insights_proc_snmp6.txt", "counters"),
        ("insights_ethtool_s.txt", "counters"),
        ("jc_net_netstat", "counters"),
        ("jc_ifconfig_centos77.out", "counters"),
        ("jc_ifconfig_ubuntu1604.out", "counters"),
        ("jc_sysctl_a_centos77.out", "sysctl"),
        ("jc_net_dev", "counters"),
        ("jc_netstat_i_centos77.out", "counters"),
        ("insights_netstat_i.txt", "counters"),
        ("telegraf_tcp_traffic.txt", "sockets"),
        ("netperf_tcp_rr_histogram.txt", "latency"),
        ("loopback/client-slowreader.strace", "strace"),
        ("loopback/nstat-before.txt", "counters"),
        ("loopback/ss-tinmoe-timeseries.txt", "sockets"),
    ],
)
def test_it_detects_the_kind_from_content(name: str, kind: str) -> None:
    assert sniff((HOST_DATA / name).read_bytes()[:65536]) == kind


def test_it_detects_sysctl_kernel_versions_and_kafka_properties() -> None:
    assert sniff(b"net.ipv4.tcp_rmem = 4096\t131072\t6291456\nnet.ipv4.tcp_adv_win_scale = 1\n") == "sysctl"
    assert sniff(b"web-1 before: 6.5.13\nweb-1 after: 6.6.10-1-aws\n") == "kernel_versions"
    assert sniff(b"Linux web-1 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64 GNU/Linux\n") == (
        "kernel_versions"
    )
    assert sniff(b"bootstrap.servers=k1:9092\nreceive.buffer.bytes=65536\n") == "app_config"
    assert sniff(b"message time | elapsed time (ms) |\n12/18/2015 10:15:31.938 +1100 | 10085 |\n") == "latency"


def test_it_sums_nf_conntrack_over_cpus_like_node_exporter() -> None:
    ct = counters_of(HOST_DATA / "nf_conntrack").snap.conntrack
    # node_exporter e2e-output.txt: node_nf_conntrack_stat_{ignore,invalid,search_restart,insert_failed}
    assert (ct["ignore"], ct["invalid"], ct["search_restart"], ct["insert_failed"], ct["entries"]) == (
        89738,
        53,
        7,
        0,
        33,
    )


def test_it_reads_proc_net_netstat_and_snmp_like_node_exporter() -> None:
    c = counters_of(HOST_DATA / "node_exporter_netstat").snap.counters
    c.update(counters_of(HOST_DATA / "node_exporter_snmp").snap.counters)
    # node_exporter e2e-output.txt values
    assert c["TcpRetransSegs"] == 227 and c["TcpExtTCPTimeouts"] == 115 and c["TcpExtListenOverflows"] == 0
    assert c["TcpInSegs"] == 57252008 and c["TcpOutSegs"] == 54915039 and c["IpForwarding"] == 1


def test_it_reads_netstat_s_like_insights_core() -> None:
    c = counters_of(HOST_DATA / "insights_netstat_s.txt").snap.counters
    # insights-core tests/parsers/test_netstat.py::TestNetstats.test_netstat_s asserts every line of NETSTAT_S;
    # these are the lines that have an nstat name in our parser (info['ip'], ['icmpmsg'], ['tcp'], ['udp'],
    # ['tcpext'], ['ipext']).
    expected = {
        "IpInReceives": 3405107, "IpInDiscards": 0, "IpInDelivers": 2900146, "IpOutRequests": 2886201,
        "IpOutDiscards": 456,
        "IcmpMsgInType0": 3, "IcmpMsgInType3": 107, "IcmpMsgInType8": 4, "IcmpMsgOutType0": 4,
        "IcmpMsgOutType3": 254, "IcmpMsgOutType8": 3,
        "TcpActiveOpens": 1648, "TcpPassiveOpens": 1525, "TcpAttemptFails": 105, "TcpEstabResets": 69,
        "TcpCurrEstab": 139, "TcpInSegs": 2886370, "TcpOutSegs": 2890303, "TcpRetransSegs": 428, "TcpInErrs": 0,
        "TcpOutRsts": 212,
        "UdpInDatagrams": 4901, "UdpNoPorts": 107, "UdpInErrors": 0, "UdpOutDatagrams": 1793,
        "UdpRcvbufErrors": 0, "UdpSndbufErrors": 0,
        "TcpExtDelayedACKs": 295934, "TcpExtTCPFastRetrans": 3, "TcpExtTCPTimeouts": 54, "TcpExtTCPLossProbes": 12,
        "TcpExtTCPLossProbeRecovery": 12, "TcpExtTCPDSACKOldSent": 9, "TcpExtTCPDSACKRecv": 13,
        "TcpExtTCPAbortOnData": 72, "TcpExtTCPAbortOnClose": 4, "TcpExtTCPAbortOnTimeout": 53,
        "TcpExtTCPDSACKIgnoredNoUndo": 13, "TcpExtTCPSpuriousRTOs": 1, "TcpExtTCPSackShiftFallback": 6,
        "TcpExtTCPDeferAcceptDrop": 537, "TcpExtIPReversePathFilter": 1, "TcpExtTCPRcvCoalesce": 2610,
        "TcpExtTCPOFOQueue": 595, "TcpExtTCPChallengeACK": 3, "TcpExtTCPSpuriousRtxHostQueues": 3,
        "IpExtInNoRoutes": 9, "IpExtInMcastPkts": 406, "IpExtInBcastPkts": 517437, "IpExtInOctets": 865450302,
        "IpExtOutOctets": 812810111, "IpExtInMcastOctets": 12992, "IpExtInBcastOctets": 46402081,
    }  # fmt: skip
    assert {k: c.get(k) for k in expected} == expected


def test_it_reads_proc_net_netstat_like_insights_core() -> None:
    # insights-core tests/parsers/test_netstat.py::test_proc_netstat: PROC_NETSTAT_2 has 131 values, TCPWqueueTooBig 10
    p = counters_of(HOST_DATA / "insights_proc_netstat_2.txt")
    assert len(p.snap.counters) == 131 and p.snap.counters["TcpExtTCPWqueueTooBig"] == 10 and p.log.count == 0
    # test_netstat.py::test_netstat_doc_examples runs the ProcNsat doctest on PROC_NETSTAT:
    # len(pnstat.data) == 132, get_stats('ReasmOverlaps') == 100, get_stats('EmbryonicRsts') == 40
    c = counters_of(HOST_DATA / "insights_proc_netstat.txt").snap.counters
    assert len(c) == 132 and c["IpExtReasmOverlaps"] == 100 and c["TcpExtEmbryonicRsts"] == 40
    # test_proc_netstat: PROC_NETSTAT_4 (one name missing from each header) raises ParseException('Invalid
    # Contents'); we report both value lines as bad lines and keep reading
    p = counters_of(HOST_DATA / "insights_proc_netstat_4.txt")
    assert bad_lines(p) == [2, 4] and p.log.listed[0].message == "113 values under 112 TcpExt names"


def test_it_reads_ip_s_link_like_insights_core() -> None:
    # insights-core tests/parsers/test_ip.py::test_ip_data_Link
    ifs = counters_of(HOST_DATA / "insights_ip_s_link.txt").snap.interfaces
    assert sorted(ifs) == sorted(["lo", "enp0s3", "enp0s8", "enp0s9", "tm0"])
    assert (ifs["lo"]["rx_packets"], ifs["lo"]["tx_packets"]) == (98, 10)
    assert (ifs["enp0s3"]["rx_packets"], ifs["enp0s3"]["tx_packets"]) == (2244, 1407)
    assert ifs["tm0"]["rx_packets"] == 11784
    ifs = counters_of(HOST_DATA / "insights_ip_s_link_all.txt").snap.interfaces
    assert {"ppp0", "lo", "tun0", "enp0s25", "vnet0", "virbr0"} <= set(ifs)
    assert (ifs["enp0s25"]["rx_packets"], ifs["enp0s25"]["tx_packets"]) == (1492476, 969514)
    ifs = counters_of(HOST_DATA / "insights_ip_s_link_all_2.txt").snap.interfaces
    assert {"lo", "eno1", "eno2", "ovs-system", "br-ex", "vxlan_sys_4789"} <= set(ifs)
    ifs = counters_of(HOST_DATA / "insights_ip_s_link_all_3.txt").snap.interfaces
    assert {"lo", "eth0_1", "eth0_2", "vxlan_sys_4789", "gre1", "geneve0", "geneve1"} <= set(ifs)
    assert (ifs["eth0_1"]["rx_packets"], ifs["eth0_1"]["rx_bytes"]) == (15139642734, 16809815066893)


def test_it_keeps_sr_iov_vf_counters_out_of_their_interface() -> None:
    p = counters_of(HOST_DATA / "insights_ip_s_link_all_4.txt")
    # test_ip.py::test_ip_data_Link asserts only ens1f1["vf_enabled"] for IP_S_LINK_ALL_4; these values are read
    # from ens1f1's own RX/TX rows, above its four "vf N" blocks (whose "dropped" is 192865 each)
    got = p.snap.interfaces["ens1f1"]
    assert (got["rx_bytes"], got["rx_packets"], got["rx_dropped"], got["rx_mcast"]) == (17496609, 257835, 67, 792)
    assert (got["tx_bytes"], got["tx_packets"], got["tx_dropped"]) == (33991, 231, 0) and "rx_bcast" not in got
    # the upstream constant has one attribute line wrapped mid-word ("... numtxqueues 112 n" / "umrxqueues 112 ...")
    assert bad_lines(p) == [16]


def test_it_reads_proc_net_snmp_and_snmp6_like_insights_core() -> None:
    # insights-core tests/parsers/test_snmp.py::test_snmp (PROC_SNMP)
    c = counters_of(HOST_DATA / "insights_proc_snmp.txt").snap.counters
    expected = {
        "IpDefaultTTL": 64, "IpInReceives": 2628, "IpInHdrErrors": 0, "IpInAddrErrors": 2, "IpInDiscards": 0,
        "IpInDelivers": 2624, "IpReasmFails": 10, "IpOutRequests": 1618,
        "TcpRtoMax": 120000, "TcpMaxConn": -1, "TcpOutSegs": 1520, "TcpActiveOpens": 25,
        "IcmpMsgOutType3": 44, "UdpOutDatagrams": 95, "UdpRcvbufErrors": 1, "UdpNoPorts": 0,
    }  # fmt: skip
    assert {k: c.get(k) for k in expected} == expected
    # test_snmp.py::test_snmp6 (PROC_SNMP6)
    c = counters_of(HOST_DATA / "insights_proc_snmp6.txt").snap.counters
    assert c["Ip6InReceives"] == 757 and c["Icmp6OutMLDv2Reports"] == 34


# insights-core tests/parsers/test_ethtool.py: ETHTOOL_S_eth0_1 (queue counters named "rxq0: rx_pkts")
ETHTOOL_S_SUBINTERFACE = b"""NIC statistics:
    rxq0: rx_pkts: 5000000
    rxq0: rx_drops_no_frags: 5000
    rxq1: rx_pkts: 5000000
    rxq1: rx_drops_no_frags: 5000
"""


def test_it_reads_ethtool_s_like_insights_core() -> None:
    # insights-core tests/parsers/test_ethtool.py::test_ethtool_S: the data equals every "key: value" line as ints
    path = HOST_DATA / "insights_ethtool_s.txt"
    expected = {k.strip(): int(v) for k, v in (ln.split(":") for ln in path.read_text().splitlines()[1:])}
    assert counters_of(path).snap.ethtool["nic"] == expected and len(expected) == 82
    # test_ethtool.py::test_ethtool_S_subinterface: the four keys, data['rxq0: rx_pkts'] == 5000000
    p = counters_of(ETHTOOL_S_SUBINTERFACE)
    assert sorted(p.snap.ethtool["nic"]) == sorted(
        ["rxq0: rx_pkts", "rxq0: rx_drops_no_frags", "rxq1: rx_pkts", "rxq1: rx_drops_no_frags"]
    )
    assert p.snap.ethtool["nic"]["rxq0: rx_pkts"] == 5000000 and p.log.count == 0


def test_it_reads_netstat_i_like_insights_core() -> None:
    # insights-core tests/parsers/test_netstat.py::test_get_netstat_i (NETSTAT_I, with the old "Met" column)
    p = counters_of(HOST_DATA / "insights_netstat_i.txt")
    assert len(p.snap.interfaces) == 7 and p.log.count == 0 and p.snap.formats == ["netstat -i"]
    zero = {"rx_errors": 0, "rx_dropped": 0, "rx_fifo_errors": 0, "tx_errors": 0, "tx_dropped": 0, "tx_fifo_errors": 0}
    assert p.snap.interfaces["bond0"] == {"rx_packets": 845265, "tx_packets": 1753, **zero}
    assert p.snap.interfaces["eth0"] == {"rx_packets": 422518, "tx_packets": 1703, **zero}


def test_it_reads_proc_net_dev_like_jc() -> None:
    ifs = counters_of(HOST_DATA / "jc_net_dev").snap.interfaces
    for row in json.loads((HOST_DATA / "jc_net_dev.json").read_text()):
        got = ifs[row["interface"]]
        assert (got["rx_bytes"], got["rx_packets"], got["tx_bytes"], got["tx_packets"]) == (
            row["r_bytes"], row["r_packets"], row["t_bytes"], row["t_packets"],
        )  # fmt: skip


def test_it_reads_proc_net_netstat_like_jc() -> None:
    p = counters_of(HOST_DATA / "jc_net_netstat")
    # jc tests/fixtures/linux-proc/net_netstat.json: one object per prefix (TcpExt, IpExt, MPTcpExt)
    rows = json.loads((HOST_DATA / "jc_net_netstat.json").read_text())
    expected = {row["type"] + k: v for row in rows for k, v in row.items() if k != "type"}
    assert len(expected) > 150 and {k: p.snap.counters.get(k) for k in expected} == expected and p.log.count == 0


#: jc's ifconfig field → ours (net-tools "overruns" is the kernel's fifo_errors)
JC_IFCONFIG = {
    "rx_packets": "rx_packets", "rx_bytes": "rx_bytes", "rx_errors": "rx_errors", "rx_dropped": "rx_dropped",
    "rx_overruns": "rx_fifo_errors", "rx_frame": "rx_frame_errors", "tx_packets": "tx_packets",
    "tx_bytes": "tx_bytes", "tx_errors": "tx_errors", "tx_dropped": "tx_dropped", "tx_overruns": "tx_fifo_errors",
    "tx_carrier": "tx_carrier", "tx_collisions": "tx_collisions",
}  # fmt: skip


@pytest.mark.parametrize("name", ["jc_ifconfig_centos77", "jc_ifconfig_ubuntu1804", "jc_ifconfig_ubuntu1604"])
def test_it_reads_ifconfig_like_jc(name: str) -> None:
    # jc tests/fixtures/{centos-7.7,ubuntu-18.04,ubuntu-16.04}/ifconfig.json (ubuntu-16.04 is net-tools 1.x)
    p = counters_of(HOST_DATA / f"{name}.out")
    rows = json.loads((HOST_DATA / f"{name}.json").read_text())
    assert sorted(p.snap.interfaces) == sorted(r["name"] for r in rows) and p.log.count == 0
    for row in rows:
        got = p.snap.interfaces[row["name"]]
        assert {ours: got.get(ours) for ours in JC_IFCONFIG.values()} == {
            ours: row[theirs] for theirs, ours in JC_IFCONFIG.items()
        }


JC_NETSTAT_I = {
    "rx_ok": "rx_packets", "rx_err": "rx_errors", "rx_drp": "rx_dropped", "rx_ovr": "rx_fifo_errors",
    "tx_ok": "tx_packets", "tx_err": "tx_errors", "tx_drp": "tx_dropped", "tx_ovr": "tx_fifo_errors",
}  # fmt: skip


@pytest.mark.parametrize("name", ["jc_netstat_i_centos77", "jc_netstat_i_ubuntu1804"])
def test_it_reads_netstat_i_like_jc(name: str) -> None:
    # jc tests/fixtures/{centos-7.7,ubuntu-18.04}/netstat-i.json
    p = counters_of(HOST_DATA / f"{name}.out")
    rows = json.loads((HOST_DATA / f"{name}.json").read_text())
    assert sorted(p.snap.interfaces) == sorted(r["iface"] for r in rows) and p.log.count == 0
    for row in rows:
        assert p.snap.interfaces[row["iface"]] == {ours: row[theirs] for theirs, ours in JC_NETSTAT_I.items()}


def test_it_finds_interface_drops_between_two_netstat_i_snapshots(tmp_path: Path) -> None:
    before = tmp_path / "before.txt"
    after = tmp_path / "after.txt"
    text = (HOST_DATA / "jc_netstat_i_ubuntu1804.out").read_text()
    before.write_text(text)
    # ens33 245 → 1245 packets received, 0 → 40 dropped (RX-DRP) and 0 → 3 fifo (RX-OVR)
    after.write_text(text.replace("ens33     1500      245      0      0 0", "ens33     1500     1245      0     40 3"))
    result = analyze([before, after], kinds=["counters", "counters"])
    (f,) = [f for f in result.findings if f.kind == "host.interface_drops"]
    assert f.data["interface"] == "ens33" and f.data["drops"] == {"rx_dropped": 40, "rx_fifo_errors": 3}


def test_it_reads_sysctl_a_like_jc() -> None:
    log = LineLog()
    sysctl = Sysctl(log)
    for n, t in iter_lines(HOST_DATA / "jc_sysctl_a_centos77.out"):
        sysctl.feed(n, t)
    expected = json.loads((HOST_DATA / "jc_sysctl_a_centos77.json").read_text())
    # sysctl -a prints multi-line dev.cdrom.info as one "dev.cdrom.info = ..." line per line; jc joins them,
    # we keep the last one (only net.* and a few kernel.* settings are read)
    del expected["dev.cdrom.info"]
    # jc keeps tabs in multi-value settings ("4096\t87380\t6291456") and ints as ints; we keep single spaces
    assert {k: sysctl.values.get(k) for k in expected} == {k: " ".join(str(v).split()) for k, v in expected.items()}
    assert log.count == 0 and len(expected) == 894


def test_it_reads_ss_tcp_info_like_telegraf() -> None:
    result = analyze([HOST_DATA / "telegraf_tcp_traffic.txt"])
    (ev,) = result.evidence
    first = ev.summary["socket_list"][0]
    # telegraf socketstat_test.go: first tcp socket
    assert (first["bytes_acked"], first["bytes_received"], first["segs_out"], first["segs_in"]) == (
        1126, 532644751, 211249, 211254,
    )  # fmt: skip
    assert first["rtt_ms"] == 0.057 and first["cc"] == "cubic" and first["send_bps"] == 32247.0e6
    assert ev.summary["socket_list"][2]["retrans_total"] == 1


def test_it_reads_a_netperf_tcp_rr_histogram() -> None:
    result = analyze([HOST_DATA / "netperf_tcp_rr_histogram.txt"])
    (f,) = [f for f in result.findings if f.kind == "latency.timer_signature"]
    assert f.data["netperf"]["rate"] == 3538.82 and f.data["netperf"]["test"] == "TCP_RR"
    assert sum(b["count"] for b in f.data["histogram"]) == 35391  # HIST_TOTAL in the block


def test_it_finds_the_3_plus_6_s_signature_in_a_latency_table_of_retried_requests(tmp_path: Path) -> None:
    rows = [10085, 10114, 9924, 9991, 9953, 9964, 9911, 10140, 10151, 9937]
    path = tmp_path / "latency.txt"
    path.write_text(
        "message time | elapsed time (ms) |\n" + "".join(f"12/18/2015 10:15:31.938 +1100 | {v} |\n" for v in rows)
    )
    (f,) = analyze([path]).findings
    assert f.kind == "latency.timer_signature" and f.data["matches"] == ["syn_3_plus_6s"]
    assert next(s for s in f.data["signatures"] if s["name"] == "syn_3_plus_6s")["share"] == 1.0
    # Every request is slow: there is no faster sample to measure the delay from, and the words say so.
    assert f.severity == "medium" and "no faster samples here to compare with" in f.explanation
    assert f.title == "100% of requests at 9.98 s: two Windows SYN retransmissions (3 s + 6 s)?"


def test_it_parses_strace_with_unfinished_resumed_signals_and_exits() -> None:
    trace = StraceTrace(keep_calls=True)
    for n, line in enumerate(RCVBUF_DEADLINE_STRACE.replace("\\\n", "").splitlines(), start=1):
        trace.feed(n, line)
    (sock,) = trace.sockets
    assert sock.fd == 917 and sock.peer == "[2001:db8::5]:9092" and sock.options["SO_RCVBUF"] == 65536
    assert sock.closed_line == 12 and abs((sock.age() or 0) - 30.0) < 0.01
    assert [t.timeout_ms for t in trace.timeouts] == [100.0, 30000.0] and trace.timeouts[1].line == 9
    assert trace.signals[0]["signal"] == "SIGPIPE" and trace.exits[0]["code"] == 1
    assert trace.log.count == 0


def test_it_reports_a_bad_strace_line_and_keeps_reading(tmp_path: Path) -> None:
    path = tmp_path / "t.strace"
    good = (LOOPBACK / "client-synretrans.strace").read_text().splitlines()
    path.write_text("\n".join([good[0], "this is not strace", *good[1:]]) + "\n")
    (ev,) = analyze([path]).evidence
    assert ev.kind == "strace" and ev.summary["bad_line_count"] == 1 and ev.summary["bad_lines"][0]["line"] == 2
    assert ev.error is not None and ev.error.line == 2 and len(ev.summary["sockets"]) == 2


def test_it_tracks_dup_and_fd_reuse() -> None:
    lines = [
        "10:00:00.000000 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 3",
        "10:00:00.100000 dup2(3, 7) = 7",
        "10:00:00.200000 close(3) = 0",
        "10:00:00.300000 setsockopt(7, SOL_SOCKET, SO_RCVBUF, [4096], 4) = 0",
        "10:00:00.400000 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 3",
        "10:00:01.000000 close(7) = 0",
    ]
    trace = StraceTrace()
    for n, line in enumerate(lines, start=1):
        trace.feed(n, line)
    first, second = trace.sockets
    assert first.options == {"SO_RCVBUF": 4096} and first.closed_line == 6 and second.closed_line is None


@pytest.mark.parametrize(
    ("line", "upstream", "distro"),
    [
        ("6.6.10-1-aws", "6.6.10", "AWS"),
        ("Linux web-1 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux", "5.15.0", "Ubuntu"),
        ("Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) #1 SMP Debian 6.1.55-1", "6.1.55", "Debian"),
        ("4.18.0-513.5.1.el8_9.x86_64", "4.18.0", "RHEL"),
        ("6.1.61-85.141.amzn2023.x86_64", "6.1.61", "Amazon Linux"),
        ("5.15.0-1052-azure", "5.15.0", "Ubuntu"),
        ("6.1.58+", "6.1.58", "GKE (Container-Optimized OS)"),
        ("web-1 after: 6.6.10-1-aws", "6.6.10", "AWS"),
        ("before: Linux web-1 6.5.13-1-aws", "6.5.13", "AWS"),  # uname -snr after a role
        ("Linux vm 6.18.44-fc-v595 x86_64 GNU/Linux", "6.18.44", "unknown"),  # uname -snrmo on the development VM
    ],
)
def test_it_parses_kernel_version_strings(line: str, upstream: str, distro: str) -> None:
    v = parse_line(line)
    assert v is not None and v.label == upstream and v.distro == distro


def test_it_reads_uname_snr_lines_with_their_host_and_role() -> None:
    seed = Path(__file__).parents[2] / "whodunnet/kinds/kernel_versions/fuzz_seeds/uname-snr-roles.txt"
    assert sniff(seed.read_bytes()) == "kernel_versions"
    (ev,) = analyze([seed]).evidence
    assert [(v["host"], v["role"], v["upstream"]) for v in ev.summary["versions"]] == [
        ("vm", "before", "6.18.44"),
        ("vm", "after", "6.18.44"),
    ]
    assert ev.summary["bad_line_count"] == 0
    line = parse_line("before: Linux host 6.5.13-1-aws")
    assert line is not None and (line.host, line.role, line.label) == ("host", "before", "6.5.13")
    assert parse_line("Linux version 6.1.0") is None  # a cut /proc/version line, not a host called "version"


JC_STATES = {"ESTABLISHED": "ESTAB", "SYN_RECV": "SYN-RECV", "TIME_WAIT": "TIME-WAIT", "LISTEN": "LISTEN"}


@pytest.mark.parametrize(
    "name",
    [
        "jc_centos_7_7_netstat_sudo_aeep",
        "jc_ubuntu_18_04_netstat",
        "jc_freebsd12_netstat_an",
        "jc_freebsd12_netstat_Aa",
        "jc_generic_netstat_old",
    ],
)
def test_it_reads_netstat_socket_tables_like_jc(name: str) -> None:
    path = HOST_DATA / f"{name}.out"
    assert sniff(path.read_bytes()) == "sockets"
    (ev,) = analyze([path]).evidence
    assert ev.summary["format"] == "netstat" and ev.summary["bad_line_count"] == 0
    rows = [r for r in json.loads((HOST_DATA / f"{name}.json").read_text()) if r.get("proto", "").startswith("tcp")]
    expected: dict[str, int] = {}
    for r in rows:
        expected[JC_STATES[r["state"]]] = expected.get(JC_STATES[r["state"]], 0) + 1
    assert ev.summary["states"]["last"]["states"] == expected
    peers = sorted(f"{r['foreign_address']}:{r['foreign_port']}" for r in rows if r["state"] == "ESTABLISHED")
    listed = sorted(s["peer"] for s in ev.summary["socket_list"] if s["state"] == "ESTAB")
    assert [p.replace("[", "").replace("]", "") for p in listed] == peers


def test_it_reads_node_exporters_bare_conntrack_files_like_node_exporter() -> None:
    folder = HOST_DATA / "node_exporter_proc_sys_net_netfilter"
    result = analyze([folder / "nf_conntrack_count", folder / "nf_conntrack_max"])
    assert [e.kind for e in result.evidence] == ["sysctl", "sysctl"]
    (f,) = [f for f in result.findings if f.kind == "host.conntrack_pressure"]
    # e2e-output.txt: node_nf_conntrack_entries 123, node_nf_conntrack_entries_limit 65536
    assert (f.data["count"], f.data["max"]) == (123, 65536) and f.severity == "info"
