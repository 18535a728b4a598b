"""Host-evidence parsers against others' test data (jc, node_exporter, insights-core, telegraf, netperf)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_testdata import HOST_DATA, LOOPBACK, SEED_000_STRACE

from whodunnet.counters.parser import CounterParser
from whodunnet.detect import sniff
from whodunnet.engine import analyze
from whodunnet.kernel.versions import parse_line
from whodunnet.strace.parser import StraceTrace
from whodunnet.textkinds import LineLog, iter_lines


def counters_of(path: Path) -> CounterParser:
    parser = CounterParser(LineLog())
    for n, t in iter_lines(path):
        parser.feed(n, t)
    return parser


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("nf_conntrack", "counters"),
        ("node_exporter_netstat", "counters"),
        ("insights_netstat_s.txt", "counters"),
        ("insights_ip_s_link.txt", "counters"),
        ("jc_net_dev", "counters"),
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


def test_it_reads_netstat_s_and_ip_s_link_from_insights_core() -> None:
    c = counters_of(HOST_DATA / "insights_netstat_s.txt").snap.counters
    assert c["TcpRetransSegs"] == 428 and c["TcpActiveOpens"] == 1648 and c["TcpOutRsts"] == 212
    assert c["IpInReceives"] == 3405107
    ifs = counters_of(HOST_DATA / "insights_ip_s_link.txt").snap.interfaces
    assert ifs["enp0s3"]["rx_bytes"] == 1113685 and ifs["enp0s3"]["tx_packets"] == 1407
    assert ifs["tm0"]["rx_mcast"] == 1 and ifs["lo"]["rx_packets"] == 98


def test_it_reads_proc_net_dev_like_jc() -> None:
    ifs = counters_of(HOST_DATA / "jc_net_dev").snap.interfaces
    for row in json.loads((HOST_DATA / "jc_net_dev.json").read_text()):
        got = ifs[row["interface"]]
        assert (got["rx_bytes"], got["rx_packets"], got["tx_bytes"], got["tx_packets"]) == (
            row["r_bytes"], row["r_packets"], row["t_bytes"], row["t_packets"],
        )  # fmt: skip


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


def test_it_finds_the_3_plus_6_s_signature_in_the_seed_002_table(tmp_path: Path) -> None:
    rows = [10085, 10114, 9924, 9991, 9953, 9964, 9911, 10140, 10151, 9937]
    path = tmp_path / "latency.txt"
    path.write_text(
        "message time | elapsed time (ms) |\n" + "".join(f"12/18/2015 10:15:31.938 +1100 | {v} |\n" for v in rows)
    )
    (f,) = analyze([path]).findings
    assert f.kind == "latency.timer_signature" and f.data["matches"] == ["syn_3_plus_6s"]
    assert f.data["signatures"][4]["share"] == 1.0


def test_it_parses_strace_with_unfinished_resumed_signals_and_exits() -> None:
    trace = StraceTrace(keep_calls=True)
    for n, line in enumerate(SEED_000_STRACE.replace("\\\n", "").splitlines(), start=1):
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
    ],
)
def test_it_parses_kernel_version_strings(line: str, upstream: str, distro: str) -> None:
    v = parse_line(line)
    assert v is not None and v.label == upstream and v.distro == distro
