"""Provenance: a file's host, role and snapshot time from its content, its name and a person."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from whodunnet.engine import analyze
from whodunnet.model import Provenance
from whodunnet.provenance import from_filename, infer, merge, order_hint, read_manifest

NSTAT = "=== {t}\n#kernel\nTcpRetransSegs {n}\nTcpOutSegs 1000\n"


@pytest.mark.parametrize(
    ("name", "host", "role"),
    [
        ("client-nstat-before.txt", "client", "client"),
        ("server_ss.txt", "server", "server"),
        ("db1-nstat-after.txt", "db1", None),
        ("10.0.0.5-ip-s-link.txt", "10.0.0.5", None),
        ("hypervisor-ip-s-link.txt", "hypervisor", "hypervisor"),
        ("router-conntrack.txt", "router", "middlebox"),
        ("nstat-before.txt", None, None),
        ("edge7-nat-conntrack.txt", "edge7", "middlebox"),
        ("capture.pcap", None, None),
    ],
)
def test_file_names_hint_host_and_role(name: str, host: str | None, role: str | None) -> None:
    assert from_filename(f"/some/dir/{name}") == (host, role)


def test_order_words() -> None:
    assert order_hint("client-nstat-before.txt") == 0
    assert order_hint("client-nstat-after.txt") == 1
    assert order_hint("client-nstat.txt") is None


def test_content_wins_over_the_name_and_the_user_wins_over_both() -> None:
    summary = {"values": {"kernel.hostname": "db-7"}}
    p = infer("client-sysctl.txt", "sysctl", summary)
    assert (p.host, p.role) == ("db-7", "client")
    assert p.source == {"host": "content", "role": "filename"}
    m = merge(p, Provenance(host="db-8", taken_at=12.5))
    assert (m.host, m.role, m.taken_at) == ("db-8", "client", 12.5)
    assert m.source == {"host": "user", "role": "filename", "taken_at": "user"}


def test_uname_host_and_snapshot_time_from_content(tmp_path: Path) -> None:
    (tmp_path / "k.txt").write_text("Linux web-3 6.6.10-1-amd64 #1 SMP x86_64 GNU/Linux\n")
    (tmp_path / "n.txt").write_text(NSTAT.format(t="1795294294.15", n=5))
    result = analyze([tmp_path / "k.txt", tmp_path / "n.txt"])
    k, n = result.evidence
    assert k.kind == "kernel_versions" and k.provenance.host == "web-3"
    assert n.kind == "counters" and n.provenance.taken_at == pytest.approx(1795294294.15)
    assert n.provenance.source["taken_at"] == "content"


def test_analyze_takes_what_a_person_gave(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text(NSTAT.format(t="1795294294", n=5))
    result = analyze([f], provenance={str(f): Provenance(host="db1", role="server", taken_at=100.0)})
    p = result.evidence[0].provenance
    assert (p.host, p.role, p.taken_at) == ("db1", "server", 100.0)
    assert set(p.source.values()) == {"user"}


def test_manifest_json_and_toml(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text(json.dumps([{"file": "a.txt", "host": "h1", "role": "nat", "taken_at": 5}]))
    (tmp_path / "m.toml").write_text('[[evidence]]\nfile = "b.txt"\nhost = "h2"\ntaken_at = "1970-01-01T00:00:10Z"\n')
    assert read_manifest(tmp_path / "m.json") == {str(tmp_path / "a.txt"): Provenance("h1", "middlebox", 5.0)}
    assert read_manifest(tmp_path / "m.toml") == {str(tmp_path / "b.txt"): Provenance("h2", None, 10.0)}


def test_cli_host_role_taken_at_and_manifest(tmp_path: Path) -> None:
    for name in ("c1.txt", "c2.txt", "s1.txt", "m1.txt"):
        (tmp_path / name).write_text(NSTAT.format(t="1795294294", n=5))
    (tmp_path / "man.json").write_text(json.dumps([{"file": "m1.txt", "host": "mid", "role": "router"}]))
    out = subprocess.run(
        [sys.executable, "-m", "whodunnet.cli", "analyze", "--json",
         "--host", "client", str(tmp_path / "c1.txt"), str(tmp_path / "c2.txt"),
         "--host", "server", str(tmp_path / "s1.txt"), "--role", "server", str(tmp_path / "s1.txt"),
         "--taken-at", "2026-11-25T02:00:00Z", str(tmp_path / "c2.txt"),
         "--manifest", str(tmp_path / "man.json")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    ev = {Path(e["path"]).name: e["provenance"] for e in json.loads(out.stdout)["evidence"]}
    assert sorted(ev) == ["c1.txt", "c2.txt", "m1.txt", "s1.txt"]  # each file once
    assert ev["c1.txt"]["host"] == "client" and ev["c1.txt"]["source"]["host"] == "user"
    assert ev["c2.txt"]["taken_at"] == 1795572000.0  # 2026-11-25T02:00:00Z
    assert (ev["s1.txt"]["host"], ev["s1.txt"]["role"]) == ("server", "server")
    assert (ev["m1.txt"]["host"], ev["m1.txt"]["role"]) == ("mid", "middlebox")


def test_fill_a_stored_result_by_the_name_a_person_gave_it() -> None:
    from whodunnet.model import EvidenceResult
    from whodunnet.provenance import fill

    stored = EvidenceResult(path="/srv/evidence/ab12cd.bin", kind="counters", summary={"timestamp": 5.0})
    ev = fill(stored, "server-nstat-before.txt", Provenance(role="hypervisor"))
    assert (ev.provenance.host, ev.provenance.role, ev.provenance.taken_at) == ("server", "hypervisor", 5.0)
    assert ev.provenance.source == {"host": "filename", "role": "user", "taken_at": "content"}


def test_a_capture_takes_the_host_whose_ss_lists_its_connections() -> None:
    from types import SimpleNamespace

    from whodunnet.model import EvidenceResult
    from whodunnet.provenance import across

    def ss(host: str, local: str, peer: str) -> EvidenceResult:
        rows = [{"local": local, "peer": peer, "state": "ESTAB"}]
        return EvidenceResult(path=f"{host}-ss.txt", kind="sockets", summary={"socket_list": rows},
                              provenance=Provenance(host=host))  # fmt: skip

    def capture(name: str, client: str, server: str) -> EvidenceResult:
        conn = SimpleNamespace(client=client, server=server)
        return EvidenceResult(path=name, kind="capture", summary={}, connections=(conn,))

    evidence = [
        ss("db-client", "10.91.1.2:34786", "10.91.3.2:7010"),
        ss("db-server", "[::ffff:10.91.3.2]:7010", "[::ffff:10.91.3.1]:34786"),  # behind a NAT
        capture("a.pcap", "10.91.1.2:34786", "10.91.3.2:7010"),
        capture("b.pcap", "10.91.3.1:34786", "10.91.3.2:7010"),
        capture("c.pcap", "10.9.9.9:1", "10.9.9.8:2"),
    ]
    hosts = [(e.provenance.host, e.provenance.source.get("host")) for e in across(evidence)[2:]]
    assert hosts == [("db-client", "content"), ("db-server", "content"), (None, None)]
