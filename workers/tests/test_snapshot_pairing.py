"""Counter snapshots pair per host and format, in the order they were taken, whatever order they come in."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from whodunnet import registry
from whodunnet.engine import analyze, snapshot_pairing
from whodunnet.model import Finding, Provenance


def nstat(retrans: int, out: int, stamp: float | None = None) -> str:
    head = f"=== {stamp}\n" if stamp is not None else ""
    return f"{head}#kernel\nTcpOutSegs {out}\nTcpRetransSegs {retrans}\nTcpExtTCPTimeouts {retrans // 3}\n"


def ip_s_link(dev: str, rx_pk: int, rx_drop: int, tx_pk: int) -> str:
    return (
        f"7: {dev}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT qlen 1000\n"
        "    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n"
        "    RX:  bytes packets errors dropped  missed   mcast\n"
        f"    {rx_pk * 1000:>10} {rx_pk:>7}      0 {rx_drop:>7}       0       0\n"
        "    TX:  bytes packets errors dropped carrier collsns\n"
        f"    {tx_pk * 1000:>10} {tx_pk:>7}      0       0       0       0\n"
    )


#: Client +84 retransmits, server +71, hypervisor tap +122 RX drops; no timestamps in any file.
BUNDLE = {
    "client-nstat-after.txt": nstat(1084, 50_000),
    "client-nstat-before.txt": nstat(1000, 20_000),
    "server-nstat-after.txt": nstat(571, 90_000),
    "server-nstat-before.txt": nstat(500, 30_000),
    "hypervisor-ip-s-link-after.txt": ip_s_link("tap0", 40_000, 622, 30_000),
    "hypervisor-ip-s-link-before.txt": ip_s_link("tap0", 10_000, 500, 9_000),
}
#: The same without before/after in the names: the counters alone must order them.
UNNAMED = {
    "client-nstat-2.txt": BUNDLE["client-nstat-after.txt"],
    "client-nstat-1.txt": BUNDLE["client-nstat-before.txt"],
    "server-nstat-b.txt": BUNDLE["server-nstat-after.txt"],
    "server-nstat-a.txt": BUNDLE["server-nstat-before.txt"],
}


def write(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    out = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return out


def summary(findings: tuple[Finding, ...], kinds: tuple[str, ...]) -> list[tuple[str, str, str | None, dict]]:
    """What a user reads, independent of the evidence's position in the list."""
    out = []
    for f in findings:
        if f.kind in kinds:
            counters = dict(f.data.get("counters") or f.data.get("drops") or {})
            out.append((f.kind, f.title, f.data.get("host"), counters))
    return sorted(out, key=repr)


def retrans_by_host(findings: tuple[Finding, ...]) -> dict[str | None, int]:
    return {f.data["host"]: f.data["counters"]["TcpRetransSegs"] for f in findings if f.kind == "host.retransmits"}


@pytest.mark.parametrize("files", [BUNDLE, UNNAMED], ids=["before-after-names", "unnamed"])
def test_glob_order_reverse_and_mixed_give_the_same_findings(tmp_path: Path, files: dict[str, str]) -> None:
    paths = write(tmp_path, files)
    glob_order = [paths[n] for n in sorted(paths)]  # what a shell's `*` gives: after before before
    orders = [glob_order, list(reversed(glob_order)), glob_order[::2] + glob_order[1::2]]
    results = [analyze(order).findings for order in orders]
    kinds = ("host.retransmits", "host.interface_drops")
    assert summary(results[0], kinds) == summary(results[1], kinds) == summary(results[2], kinds)
    assert retrans_by_host(results[0]) == {"client": 84, "server": 71}
    for f in results[0]:
        if f.kind == "host.retransmits":
            assert f.data["delta"] is True and f.data["resets"] == []
            assert f"on {f.data['host']} " in f.title  # the finding names the host
            assert f.data["pair"][0].endswith(("before.txt", "1.txt", "a.txt"))


def test_the_hypervisor_link_pair_is_diffed(tmp_path: Path) -> None:
    paths = write(tmp_path, BUNDLE)
    result = analyze(sorted(paths.values()))
    (drops,) = [f for f in result.findings if f.kind == "host.interface_drops"]
    assert drops.data["host"] == "hypervisor" and drops.data["drops"] == {"rx_dropped": 122}
    assert drops.data["ordered_by"] == "file name"
    pairing = {result.evidence[p["evidence"]].name: p for p in snapshot_pairing(result.evidence)}
    assert pairing["hypervisor-ip-s-link-before.txt"]["role"] == "before"
    assert pairing["hypervisor-ip-s-link-before.txt"]["host"] == "hypervisor"


def test_counters_that_went_down_mean_reverse_order_not_a_reset(tmp_path: Path) -> None:
    paths = write(tmp_path, UNNAMED)
    result = analyze([paths["client-nstat-2.txt"], paths["client-nstat-1.txt"]])
    (f,) = [f for f in result.findings if f.kind == "host.retransmits"]
    assert f.data["counters"]["TcpRetransSegs"] == 84 and f.data["resets"] == []
    assert f.data["ordered_by"] == "counters" and f.data["pair"] == ["client-nstat-1.txt", "client-nstat-2.txt"]


def test_times_a_person_gave_win_and_never_pair_across_hosts(tmp_path: Path) -> None:
    paths = write(tmp_path, {"a.txt": nstat(1000, 20_000), "b.txt": nstat(500, 30_000),
                             "c.txt": nstat(1084, 50_000), "d.txt": nstat(571, 90_000)})  # fmt: skip
    given = {
        str(paths["a.txt"]): Provenance(host="db1", taken_at=100.0),
        str(paths["c.txt"]): Provenance(host="db1", taken_at=110.0),
        str(paths["b.txt"]): Provenance(host="db2", taken_at=100.0),
        str(paths["d.txt"]): Provenance(host="db2", taken_at=112.5),
    }
    for order in itertools.permutations(paths.values()):
        result = analyze(list(order), provenance=given)
        assert retrans_by_host(result.findings) == {"db1": 84, "db2": 71}
    intervals = {f.data["host"]: f.data["interval_s"] for f in result.findings if f.kind == "host.retransmits"}
    assert intervals == {"db1": 10.0, "db2": 12.5}


def test_unknown_hosts_are_not_mixed_with_known_ones(tmp_path: Path) -> None:
    paths = write(tmp_path, {"client-nstat.txt": nstat(1000, 20_000, 100.0), "x.txt": nstat(1084, 50_000, 110.0)})
    result = analyze(list(paths.values()))
    found = retrans_by_host(result.findings)
    assert found == {"client": 1000, None: 1084}  # two totals since boot, no invented delta


def test_drops_on_the_hypervisor_explain_each_guests_retransmits_with_the_arithmetic(tmp_path: Path) -> None:
    paths = write(tmp_path, BUNDLE)
    for order in (sorted(paths.values()), sorted(paths.values(), reverse=True)):
        found = [f for f in analyze(order).findings if f.kind == "host.drops_match_retransmits"]
        by_host = {f.data["retransmit_host"]: f for f in found}
        assert sorted(by_host) == ["client", "server"]
        client = by_host["client"]
        assert (client.data["drops"], client.data["retransmits"], client.data["explains_all"]) == (122, 84, True)
        assert client.data["interface_host"] == "hypervisor" and client.data["hosts"] == ["client", "hypervisor"]
        assert "122 RX drops ≥ 84 retransmissions" in client.explanation and "38 drops needed no" in client.explanation
        assert client.title == "122 drops on tap0 on hypervisor explain the 84 TCP retransmissions of client"


def test_fewer_drops_than_retransmits_explain_only_part(tmp_path: Path) -> None:
    paths = write(tmp_path, {
        "guest-nstat-before.txt": nstat(0, 1000), "guest-nstat-after.txt": nstat(200, 9000),
        "hv1-ip-s-link-before.txt": ip_s_link("tap3", 100, 0, 100),
        "hv1-ip-s-link-after.txt": ip_s_link("tap3", 900, 50, 900),
    })  # fmt: skip
    (f,) = [f for f in analyze(list(paths.values())).findings if f.kind == "host.drops_match_retransmits"]
    assert (f.data["explained"], f.data["explains_all"], f.severity) == (50, False, "low")
    assert "explain at most 50 of the 200" in f.title


def conntrack_s(drop: int, insert_failed: int) -> str:
    return "".join(
        f"cpu={cpu}\tfound=0 invalid=0 insert=0 insert_failed={insert_failed // 2} drop={drop // 2} early_drop=0 "
        "error=0 search_restart=0\n"
        for cpu in (0, 1)
    )


def test_conntrack_per_host_from_every_sysctl_file(tmp_path: Path) -> None:
    paths = write(tmp_path, {
        "router-conntrack-S-before.txt": conntrack_s(0, 0),
        "router-conntrack-S-after.txt": conntrack_s(36, 36),
        "router-sysctl.txt": "net.netfilter.nf_conntrack_max = 256\nnet.netfilter.nf_conntrack_count = 256\n",
        "client-sysctl.txt": "net.ipv4.ip_local_port_range = 40000\t40199\nwhodunnet.server_ports = 2\n",
    })  # fmt: skip
    for order in (sorted(paths.values()), sorted(paths.values(), reverse=True)):
        (f,) = [f for f in analyze(order).findings if f.kind == "host.conntrack_pressure"]
        assert f.data["host"] == "router" and f.data["failures"]["drop"] == 36
        assert (f.data["max"], f.data["count"], f.data["port_range_size"], f.data["possible_tuples"]) == (
            256, 256, 200, 400)  # fmt: skip
        assert f.data["tuples_exceed_table"] is True and f.severity == "high"
        assert "drop 36" in f.title


#: ``ethtool eth0`` as node_exporter's fixture recorded it (Speed: 1000Mb/s; see host/data/README.md).
ETHTOOL_ETH0 = Path(__file__).parent / "host" / "data" / "node_exporter_ethtool_eth0_settings.txt"


@pytest.mark.parametrize("with_command_line", [True, False])
def test_link_speed_from_plain_ethtool_output_judges_the_interface_rate(
    tmp_path: Path, with_command_line: bool
) -> None:
    # The checklist asks for `ethtool IFACE`: its real output, alone in a file, gives the link speed, whether or
    # not the file starts with the command (the interface is then named by "Settings for eth0:").
    ethtool = ETHTOOL_ETH0.read_text()
    if not with_command_line:
        ethtool = ethtool.removeprefix("# ethtool eth0\n")
    paths = write(tmp_path, {
        "db1-ip-s-link-before.txt": "=== 1795294000\n" + ip_s_link("eth0", 1_000, 0, 1_000),
        "db1-ip-s-link-after.txt": "=== 1795294010\n" + ip_s_link("eth0", 1_100_000, 0, 1_000),
        "db1-ethtool-eth0.txt": ethtool,
    })  # fmt: skip
    result = analyze(sorted(paths.values()))
    (card,) = [e for e in result.evidence if e.name == "db1-ethtool-eth0.txt"]
    assert card.kind == "counters" and card.error is None  # its other settings lines are not "unreadable"
    counters = registry.kind("counters")
    assert counters is not None and counters.describe(card.summary, None) == "ethtool: eth0 link 1,000 Mbit/s"
    (usage,) = [f for f in result.findings if f.kind == "neighbours.link_usage"]
    (row,) = usage.data["interfaces"]
    assert row["limit_bps"] == 1e9 and row["limit_source"] == "NIC speed (db1-ethtool-eth0.txt)"
    assert usage.data["near_limit"] == ["eth0"]


def test_link_speed_from_sys_class_net_judges_the_interface_rate(tmp_path: Path) -> None:
    paths = write(tmp_path, {
        "db1-ip-s-link-before.txt": "=== 1795294000\n" + ip_s_link("eth0", 1_000, 0, 1_000),
        "db1-ip-s-link-after.txt": "=== 1795294010\n" + ip_s_link("eth0", 1_100_000, 0, 1_000),
        "db1-speed.txt": "/sys/class/net/eth0/speed:1000\n/sys/class/net/lo/speed:-1\n",
    })  # fmt: skip
    result = analyze(sorted(paths.values()))
    assert {e.name: e.kind for e in result.evidence}["db1-speed.txt"] == "counters"
    (usage,) = [f for f in result.findings if f.kind == "neighbours.link_usage"]
    (row,) = usage.data["interfaces"]
    assert row["limit_bps"] == 1e9 and row["limit_source"] == "NIC speed (db1-speed.txt)"
    assert row["rx_bps"] == pytest.approx(1_099_000_000 * 8 / 10)  # 1,099,000 packets × 1000 bytes in 10 s
    assert usage.data["near_limit"] == ["eth0"] and usage.data["host"] == "db1"
