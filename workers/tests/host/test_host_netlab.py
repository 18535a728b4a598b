"""Real tool output made here: a client and a server in two network namespaces, the client
under strace, with ss, nstat, ip -s link and sysctl read around the transfer. The engine must
read each of them and say what a person would check by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from whodunnet.engine import analyze

TOOLS = ("ip", "strace", "ss", "nstat", "sysctl")
SERVER = """
import socket, sys
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("10.77.0.2", 7070)); srv.listen(4); print("ready", flush=True)
conn, _ = srv.accept()
conn.recv(16)
conn.sendall(b"x" * 2_000_000)
conn.recv(16)  # hold the connection until the client gives up
"""
CLIENT = """
import select, socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.connect(("10.77.0.2", 7070))
s.sendall(b"get")
got = 0
while got < 2_000_000:
    got += len(s.recv(65536))
    if got > 1_000_000:
        time.sleep(0.001)  # a slow reader: ss sees a full receive queue
poller = select.poll(); poller.register(s, select.POLLIN)
print(poller.poll(700))  # the reply never comes: a 700 ms timeout, then close
s.close()
"""


def unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    return f"missing {', '.join(missing)}" if missing else None


pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))


def sh(*args: str, ns: str | None = None, timeout: float = 30) -> str:
    cmd = ["ip", "netns", "exec", ns, *args] if ns else list(args)
    return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=timeout).stdout


@pytest.fixture
def pair() -> Iterator[tuple[str, str]]:
    tag = uuid.uuid4().hex[:6]
    client, server = f"wdn-c-{tag}", f"wdn-s-{tag}"
    try:
        for ns in (client, server):
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "set", "lo", "up", ns=ns)
        sh("ip", "link", "add", f"vc{tag}", "netns", client, "type", "veth", "peer", f"vs{tag}", "netns", server)
        sh("ip", "addr", "add", "10.77.0.1/24", "dev", f"vc{tag}", ns=client)
        sh("ip", "addr", "add", "10.77.0.2/24", "dev", f"vs{tag}", ns=server)
        sh("ip", "link", "set", f"vc{tag}", "up", ns=client)
        sh("ip", "link", "set", f"vs{tag}", "up", ns=server)
        yield client, server
    finally:
        for ns in (client, server):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def test_it_reads_real_strace_ss_nstat_ip_and_sysctl_output(pair: tuple[str, str], tmp_path: Path) -> None:
    client, server = pair
    sh("sysctl", "-qw", "net.ipv4.tcp_rmem=4096 131072 6291456", ns=client)
    (tmp_path / "sysctl.txt").write_text(sh("sysctl", "-a", "--pattern", "^net\\.ipv4\\.tcp_", ns=client))
    (tmp_path / "nstat-before.txt").write_text(sh("nstat", "-az", ns=client))
    (tmp_path / "ip-before.txt").write_text(sh("ip", "-s", "link", ns=client))
    srv = subprocess.Popen(
        ["ip", "netns", "exec", server, sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True
    )
    try:
        assert srv.stdout is not None and srv.stdout.readline().strip() == "ready"
        strace_out = tmp_path / "client.strace"
        cli = subprocess.Popen(
            ["ip", "netns", "exec", client, "strace", "-f", "-tt", "-T", "-y", "-o", str(strace_out),
             "-e", "trace=socket,connect,setsockopt,poll,close,sendto,recvfrom", sys.executable, "-c", CLIENT],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        snapshots = []
        deadline = time.monotonic() + 20
        while cli.poll() is None and time.monotonic() < deadline:
            snapshots.append(f"=== {time.time():.3f}\n" + sh("ss", "-tinmoe", "dst", "10.77.0.2", ns=client))
            time.sleep(0.1)
        assert cli.wait(timeout=20) == 0
    finally:
        srv.kill()
        srv.wait()
    (tmp_path / "ss.txt").write_text("".join(snapshots))
    (tmp_path / "nstat-after.txt").write_text(sh("nstat", "-az", ns=client))
    (tmp_path / "ip-after.txt").write_text(sh("ip", "-s", "link", ns=client))

    names = ["client.strace", "ss.txt", "nstat-before.txt", "nstat-after.txt", "ip-before.txt", "ip-after.txt",
             "sysctl.txt"]  # fmt: skip
    result = analyze([tmp_path / n for n in names])
    kinds = [e.kind for e in result.evidence]
    assert kinds == ["strace", "sockets", "counters", "counters", "counters", "counters", "sysctl"], [
        (e.kind, e.error) for e in result.evidence
    ]
    found = {f.kind: f for f in result.findings}

    pinned = found["app.rcvbuf_pinned"]
    assert pinned.data["so_rcvbuf"] == 65536
    options = [f for f in result.findings if f.kind == "app.socket_options"]
    assert any("10.77.0.2:7070" in f.title for f in options), [f.title for f in options]
    timeout = found["app.timeout"]
    assert timeout.data["timeout_ms"] == 700

    sockets = result.evidence[1].summary
    assert sockets["sockets"] >= 1 and sockets["snapshots"] >= 2
    assert "sockets.summary" in found

    sysctl = result.evidence[6].summary
    assert sysctl["values"]["net.ipv4.tcp_rmem"].split() == ["4096", "131072", "6291456"]

    # The kernel counted our connection: nstat's TcpActiveOpens went up by at least one.
    before, after = result.evidence[2].summary, result.evidence[3].summary
    table = next(t for t in ("values", "counters") if t in after)
    assert int(after[table]["TcpActiveOpens"]) - int(before[table].get("TcpActiveOpens", 0)) >= 1

    # ip -s link: the client's veth received the 2 MB the server sent.
    veth = next(name for name in result.evidence[5].summary["interfaces"] if name.startswith("vc"))
    rx = [result.evidence[i].summary["interfaces"][veth]["rx_bytes"] for i in (4, 5)]
    assert rx[1] - rx[0] >= 2_000_000
    assert "neighbours.link_usage" in found and "host.retransmits" in found
