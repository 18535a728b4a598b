"""Several pieces of evidence together: the receive-window arithmetic of a pinned SO_RCVBUF across a kernel
upgrade, counter diffs, kernel ranges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from host_testdata import LOOPBACK, RCVBUF_DEADLINE_STRACE

from whodunnet.engine import analyze
from whodunnet.kernel.kb import changes
from whodunnet.model import Finding
from whodunnet.tuning import Tuning


def one(findings: tuple[Finding, ...], kind: str) -> Finding:
    (f,) = [f for f in findings if f.kind == kind]
    return f


def receive_window_bundle(tmp_path: Path) -> list[Path]:
    strace = tmp_path / "client.strace"
    strace.write_text(RCVBUF_DEADLINE_STRACE.replace("\\\n", ""))
    before = tmp_path / "uname-before.txt"
    before.write_text("6.5.13\n")
    after = tmp_path / "uname-after.txt"
    after.write_text("Linux client-1 6.6.10-1-aws #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n")
    sysctl = tmp_path / "sysctl.txt"
    sysctl.write_text("net.ipv4.tcp_adv_win_scale = 1\nnet.ipv4.tcp_rmem = 4096\t131072\t6291456\n")
    return [strace, before, after, sysctl]


def test_it_reproduces_the_receive_window_arithmetic_of_a_pinned_so_rcvbuf(tmp_path: Path) -> None:
    files = receive_window_bundle(tmp_path)
    # Without a capture, a transfer size or a deadline in the evidence, nothing is computed from constants.
    bare = one(analyze(files).findings, "kernel.receive_window_model")
    before, after = bare.data["kernels"]
    assert (before["kernel"], before["window"], before["regime"]) == ("6.5.13", 65536, "tcp_adv_win_scale")
    assert (after["kernel"], after["window"], after["regime"]) == ("6.6.10-1-aws", 32768, "scaling_ratio_25")
    assert bare.data["rtt_ms"] is None and bare.data["timeout_ms"] is None and bare.data["transfer_bytes"] is None
    assert before["transfer_s"] is None and before["fits_timeout"] is None and bare.severity == "info"
    assert [m.split(":")[0] for m in bare.data["missing"]] == ["no RTT", "no transfer size", "no application deadline"]
    assert "upload a capture" in bare.explanation
    # The files' names say which kernel came first, whatever order they are given in.
    again = one(analyze([files[0], files[2], files[1], files[3]]).findings, "kernel.receive_window_model")
    assert [k["kernel"] for k in again.data["kernels"]] == ["6.5.13", "6.6.10-1-aws"]
    # With what a person knows set as values (RTT, size, deadline), the write-up's arithmetic follows.
    given = tmp_path / "settings.txt"
    given.write_text("whodunnet.rtt_ms = 136.6\nwhodunnet.transfer_bytes = 10485760\nwhodunnet.timeout_ms = 30000\n")
    model = one(analyze([*files, given]).findings, "kernel.receive_window_model")
    before, after = model.data["kernels"]
    assert model.data["so_rcvbuf"] == 65536 and model.data["timeout_ms"] == 30000
    assert model.data["rtt_source"].startswith("given: whodunnet.rtt_ms")
    assert 21.5 <= before["transfer_s"] <= 22.5 and before["fits_timeout"]
    assert 38 <= after["transfer_s"] <= 45 and not after["fits_timeout"]
    assert model.severity == "high" and model.data["regressed"] and model.data["missing"] == []


def test_it_lists_dfa2f0483360_between_6_5_13_and_6_6_10_but_not_its_6_6_33_fix(tmp_path: Path) -> None:
    result = analyze(receive_window_bundle(tmp_path))
    rng = one(result.findings, "kernel.known_change_in_range")
    (row,) = rng.data["changes"]
    assert row["id"] == "dfa2f0483360" and row["direction"] == "gained" and row["unfixed_in_after"]
    assert [f["after_has"] for f in row["fixed_by"]] == [False, False]
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("before: 6.6.10\nafter: 6.6.33\n")
    rng2 = one(analyze([fixed]).findings, "kernel.known_change_in_range")
    assert [r["id"] for r in rng2.data["changes"]] == ["697a6c8cec03"]


def test_it_finds_the_tap_fix_between_4_15_and_4_16(tmp_path: Path) -> None:
    versions = tmp_path / "hv-7.txt"
    versions.write_text("hv-7 before: 4.15.0-20-generic\nhv-7 after: 4.16.3\n")
    rng = one(analyze([versions]).findings, "kernel.known_change_in_range")
    (row,) = rng.data["changes"]
    assert (row["id"], row["title"], row["direction"]) == ("88fae87327a2", "tap: fix use-after-free", "gained")
    older = tmp_path / "older.txt"
    older.write_text("before: 4.4.0\nafter: 4.15.0\n")
    rows = {r["id"]: r for r in one(analyze([older]).findings, "kernel.known_change_in_range").data["changes"]}
    assert sorted(rows) == ["362899b8725b"] and rows["362899b8725b"]["unfixed_in_after"]
    assert rows["362899b8725b"]["fixed_by"] == [{"id": "88fae87327a2", "after_has": False, "before_has": False}]


def test_it_places_the_ecn_fallback_in_4_2_not_4_1(tmp_path: Path) -> None:
    versions = tmp_path / "ecn.txt"
    versions.write_text("before: 4.1.52\nafter: 4.2.0\n")
    rng = one(analyze([versions]).findings, "kernel.known_change_in_range")
    assert [r["id"] for r in rng.data["changes"]] == ["492135557dc0"]


def test_it_has_a_source_for_every_knowledge_base_entry() -> None:
    ids = {c["id"] for c in changes()}
    assert {
        "dfa2f0483360", "697a6c8cec03", "05f76b2d634e", "ccce324dabfe", "492135557dc0", "362899b8725b", "88fae87327a2",
    } <= ids  # fmt: skip
    for c in changes():
        assert c["sources"] and all(s.startswith("https://") for s in c["sources"])
        assert len(c["commit"]) == 40 and c["commit"].startswith(c["id"])


def test_it_diffs_the_loopback_bundle_counters_in_the_order_given() -> None:
    result = analyze([LOOPBACK / "nstat-before.txt", LOOPBACK / "nstat-after.txt"])
    r = one(result.findings, "host.retransmits")
    # README of loopback-scenarios-1: the expected nstat deltas
    assert r.data["counters"]["TcpRetransSegs"] == 3 and r.data["counters"]["TcpExtTCPSynRetrans"] == 3
    assert r.data["counters"]["TcpExtTCPTimeouts"] == 3 and r.data["counters"]["TcpOutSegs"] == 314
    assert "between nstat-before.txt and nstat-after.txt (interval unknown)" in r.title
    lo = one(result.findings, "host.listen_overflows")
    assert lo.data["listen_overflows"] == 4 and lo.data["listen_drops"] == 4
    assert all(ref.lines is not None for ref in r.refs)


def macvtap_snapshots(tmp_path: Path) -> list[Path]:
    files = []
    for i, (retrans, drops, rx) in enumerate([(100, 10, 1000), (252, 162, 1152)]):
        nstat = tmp_path / f"nstat-{i}.txt"
        nstat.write_text(f"#kernel\nTcpRetransSegs {retrans} 0.0\nTcpOutSegs {1000 + retrans} 0.0\n")
        ifc = tmp_path / f"ifconfig-{i}.txt"
        ifc.write_text(
            f"# {1700000000 + 60 * i}\n# limit macvtap2 10Gbit\n"
            "macvtap2: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500\n"
            f"        RX packets {rx * 1000}  bytes {rx * 100000} (0.2 GB)\n"
            f"        RX errors {drops}  dropped {drops}  overruns 0  frame 0\n"
            "        TX packets 4139941  bytes 227729333 (0.2 GB)\n"
            "        TX errors 0  dropped 0 overruns 0  carrier 0  collisions 0\n"
        )
        files += [nstat, ifc]
    return files


def test_it_matches_macvtap_drops_to_retransmits(tmp_path: Path) -> None:
    result = analyze(macvtap_snapshots(tmp_path))
    m = one(result.findings, "host.drops_match_retransmits")
    assert m.data["drops"] == 152 and m.data["retransmits"] == 152 and m.data["interface"] == "macvtap2"
    drops = one(result.findings, "host.interface_drops")
    assert drops.layer == "neighbours" and drops.data["drops"]["rx_dropped"] == 152
    usage = one(result.findings, "neighbours.link_usage")
    assert usage.data["interval_s"] == 60 and usage.data["clears_layer"] is True


def test_a_limit_a_person_gives_wins_over_the_files_own(tmp_path: Path) -> None:
    files = macvtap_snapshots(tmp_path)
    # 152 × 100,000 bytes in 60 s is 2.03 Mbit/s: 92 % of a 2.2 Mbit/s limit.
    result = analyze(files, tuning=Tuning({"link_limits_bps": {"macvtap2": 2.2e6}}))
    usage = one(result.findings, "neighbours.link_usage")
    (row,) = usage.data["interfaces"]
    assert (row["limit_bps"], row["limit_source"]) == (2.2e6, "given limit")
    assert round(row["utilisation"], 2) == 0.92
    assert usage.data["near_limit"] == ["macvtap2"] and usage.data["clears_layer"] is False
    cli = [sys.executable, "-m", "whodunnet.cli", "analyze", "--json", *map(str, files)]
    out = subprocess.run([*cli, "--link-limit", "macvtap2=2.2M"], capture_output=True, text=True, check=True)
    (usage_json,) = [f for f in json.loads(out.stdout)["findings"] if f["kind"] == "neighbours.link_usage"]
    assert usage_json["data"]["near_limit"] == ["macvtap2"]
    bad = subprocess.run([*cli, "--link-limit", "macvtap2=fast"], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a rate: 'fast'" in bad.stderr


def test_it_does_the_conntrack_table_arithmetic(tmp_path: Path) -> None:
    sysctl = tmp_path / "sysctl.txt"
    sysctl.write_text(
        "net.ipv4.ip_local_port_range = 32768\t60999\nnet.netfilter.nf_conntrack_max = 131072\n"
        "net.netfilter.nf_conntrack_count = 1000\nwhodunnet.server_ports = 4\n"
    )
    f = one(analyze([sysctl]).findings, "host.conntrack_pressure")
    assert f.data["port_range_size"] == 28232 and f.data["possible_tuples"] == 112928
    assert f.severity == "medium" and round(f.data["tuples_share_of_max"], 2) == 0.86


def test_it_reports_kafka_settings_and_feeds_the_model_from_them(tmp_path: Path) -> None:
    props = tmp_path / "consumer.properties"
    props.write_text("bootstrap.servers=k1:9092\nreceive.buffer.bytes=65536\nrequest.timeout.ms=30000\n")
    kernels = tmp_path / "k.txt"
    kernels.write_text("before: 6.5.13\nafter: 6.6.10\n")
    result = analyze([props, kernels])
    k = one(result.findings, "app.kafka_settings")
    assert (
        k.data["pins_rcvbuf"] and k.data["receive_buffer_bytes"] == 65536 and k.data["lines"]["request.timeout.ms"] == 3
    )
    model = one(result.findings, "kernel.receive_window_model")
    assert [r["window"] for r in model.data["kernels"]] == [65536, 32768]
