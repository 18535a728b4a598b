"""Real host tool output made in network namespaces: what the parsers' tests read.

Each scenario builds its namespaces, makes traffic, runs the tools an engineer would run and
returns their output by file name, with what is known by construction (the ground truth).
The live tests (``test_host_lab.py``) run them and check the engine against that truth;
``python hostlab.py record DIR`` writes the same files for the committed test data
(``data/lab/README.md`` says how each was made). Nothing leaves the namespaces; they are
removed on exit, also after a failure. Needs root, ``ip``, ``ss``, ``netstat`` (net-tools),
``nft``, ``conntrack`` (conntrack-tools) and ``iptables`` for the scenarios that use them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

LAB_TRAFFIC = Path(__file__).parents[1] / "lab_traffic.py"


def missing(*tools: str) -> str | None:
    """Why a scenario cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    absent = [t for t in tools if shutil.which(t) is None]
    return f"missing {', '.join(absent)} (installed by .ci/run)" if absent else None


def sh(*args: str, ns: str | None = None, timeout: float = 60, stdin: str | None = None) -> str:
    cmd = ["ip", "netns", "exec", ns, *args] if ns else list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=stdin, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


@dataclass
class Lab:
    """Namespaces joined by veth pairs; ``ns[name]`` is the namespace's real name."""

    ns: dict[str, str] = field(default_factory=dict)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def add(self, name: str) -> str:
        real = f"wdn-h{uuid.uuid4().hex[:5]}-{name}"
        sh("ip", "netns", "add", real)
        self.ns[name] = real
        sh("ip", "link", "set", "lo", "up", ns=real)
        return real

    def link(self, a: str, a_addrs: tuple[str, ...], b: str, b_addrs: tuple[str, ...]) -> tuple[str, str]:
        """A veth pair between namespaces ``a`` and ``b`` with these addresses; returns the two device names."""
        tag = uuid.uuid4().hex[:5]
        da, db = f"v{tag}a", f"v{tag}b"
        sh("ip", "link", "add", da, "netns", self.ns[a], "type", "veth", "peer", "name", db, "netns", self.ns[b])
        for ns, dev, addrs in ((a, da, a_addrs), (b, db, b_addrs)):
            for addr in addrs:
                self.ex(ns, "ip", "addr", "add", addr, "dev", dev)
            self.ex(ns, "ip", "link", "set", dev, "up")
        return da, db

    def ex(self, ns: str, *args: str, timeout: float = 60, stdin: str | None = None) -> str:
        return sh(*args, ns=self.ns[ns], timeout=timeout, stdin=stdin)

    def spawn(self, ns: str, *args: str) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns[ns], *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.procs.append(p)
        return p

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
        for real in self.ns.values():
            subprocess.run(["ip", "netns", "del", real], capture_output=True, check=False)


@contextmanager
def lab() -> Iterator[Lab]:
    made = Lab()
    try:
        yield made
    finally:
        made.close()


def stamp() -> str:
    """The snapshot line every snapshot kind reads as the time it was taken."""
    return f"=== {time.time():.3f}\n"


# -- TIME-WAIT sockets and the conntrack table -------------------------------------------------

#: Four server ports, as in the TCP_CRR case: one netperf client per port.
TIMEWAIT_PORTS = (12865, 12866, 12867, 12868)
CONNECT_AND_CLOSE = """
import socket, sys
host, ports, n = sys.argv[1], [int(p) for p in sys.argv[2].split(",")], int(sys.argv[3])
for port in ports:
    for _ in range(n):
        s = socket.create_connection((host, port))
        s.sendall(b"q")
        s.recv(1)
        s.close()  # the client closes first: its side of each connection stays in TIME-WAIT
print("ok", flush=True)
"""
ANSWER_ONE_BYTE = """
import selectors, socket, sys
sel = selectors.DefaultSelector()
for port in sys.argv[1].split(","):
    ls = socket.create_server(("0.0.0.0", int(port)), backlog=512)
    ls.setblocking(False)
    sel.register(ls, selectors.EVENT_READ, "listen")
print("ready", flush=True)
while True:
    for key, _ in sel.select():
        if key.data == "listen":
            conn, _ = key.fileobj.accept()
            conn.setblocking(True)
            sel.register(conn, selectors.EVENT_READ, "conn")
        else:
            data = key.fileobj.recv(16)
            if data:
                key.fileobj.sendall(b"r")
            else:
                sel.unregister(key.fileobj)
                key.fileobj.close()
"""
CONNTRACK_RULES = """table inet track {
  chain out {
    type filter hook output priority 0;
    ct state new counter
  }
}
"""


@dataclass
class TimeWait:
    """What the TIME-WAIT scenario made: the files, and the connections it opened per server port."""

    files: dict[str, str]
    per_port: int
    ports: tuple[int, ...]
    server: str


def timewait_and_conntrack(per_port: int = 150) -> TimeWait:
    """A client opens and closes ``per_port`` connections to each of four server ports, with conntrack on.

    Read in the client namespace afterwards: ``netstat -tan``, ``ss -tan``, ``ss -tan state time-wait``,
    ``/proc/net/stat/nf_conntrack``, ``conntrack -S``, ``nf_conntrack_count``/``_max`` (bare, and by
    ``sysctl``), ``netstat -i``.
    """
    with lab() as lb:
        lb.add("client")
        lb.add("server")
        lb.link("client", ("10.78.0.1/24",), "server", ("10.78.0.2/24",))
        lb.ex("client", "nft", "-f", "-", stdin=CONNTRACK_RULES)
        ports = ",".join(map(str, TIMEWAIT_PORTS))
        server = lb.spawn("server", sys.executable, "-c", ANSWER_ONE_BYTE, ports)
        assert server.stdout is not None and server.stdout.readline().strip() == b"ready"
        lb.ex("client", sys.executable, "-c", CONNECT_AND_CLOSE, "10.78.0.2", ports, str(per_port), timeout=120)
        files = {
            "netstat-tan.txt": lb.ex("client", "netstat", "-tan"),
            "ss-tan.txt": lb.ex("client", "ss", "-tan"),
            "ss-tan-state-time-wait.txt": lb.ex("client", "ss", "-tan", "state", "time-wait"),
            "proc-net-stat-nf_conntrack.txt": lb.ex("client", "cat", "/proc/net/stat/nf_conntrack"),
            "conntrack-S.txt": lb.ex("client", "conntrack", "-S"),
            "nf_conntrack_count": lb.ex("client", "cat", "/proc/sys/net/netfilter/nf_conntrack_count"),
            "nf_conntrack_max": lb.ex("client", "cat", "/proc/sys/net/netfilter/nf_conntrack_max"),
            "sysctl-nf_conntrack.txt": lb.ex(
                "client", "sysctl", "net.netfilter.nf_conntrack_count", "net.netfilter.nf_conntrack_max"
            ),
            "netstat-i.txt": lb.ex("client", "netstat", "-i"),
        }
        return TimeWait(files, per_port, TIMEWAIT_PORTS, "10.78.0.2")


# -- a middlebox's firewall counters -----------------------------------------------------------

ROUTER_IPTABLES = (
    ("-A", "FORWARD", "-p", "tcp", "--dport", "9", "-j", "DROP"),
    ("-A", "FORWARD", "-m", "conntrack", "--ctstate", "INVALID", "-j", "DROP"),
    ("-A", "FORWARD", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"),
    ("-A", "FORWARD", "-p", "tcp", "--dport", "7000", "-j", "ACCEPT"),
    ("-A", "FORWARD", "-p", "icmp", "-j", "ACCEPT"),
    ("-P", "FORWARD", "DROP"),
)
#: A second, native nftables table on the router: a named counter and a set of blocked sources.
ROUTER_NFT = """table inet mbox {
  counter syn_to_discard { }
  set blocked { type ipv4_addr; elements = { 192.0.2.1, 192.0.2.2 } }
  chain screen {
    type filter hook forward priority -10; policy accept;
    ip saddr @blocked counter drop
    tcp dport 9 tcp flags syn counter name syn_to_discard
  }
}
"""
SYN_TO_DISCARD = """
import socket, sys
for _ in range(int(sys.argv[2])):
    s = socket.socket()
    s.settimeout(float(sys.argv[3]))
    try:
        s.connect((sys.argv[1], 9))
    except OSError:
        pass
    s.close()
print("ok", flush=True)
"""
FETCH = """
import socket, sys
with socket.create_connection((sys.argv[1], 7000)) as s:
    s.sendall(b"q" * 100)
    got = 0
    while got < int(sys.argv[2]):
        got += len(s.recv(65536))
print(got, flush=True)
"""
CLIENT_COUNTS_SYNS = """table inet seen {
  chain out {
    type filter hook output priority 0;
    tcp dport 9 tcp flags syn counter
  }
}
"""


@dataclass
class Middlebox:
    """The firewall scenario's files, and the SYNs the client sent to the dropped port (counted by the client)."""

    files: dict[str, str]
    syns_sent: int


def middlebox_firewall(attempts: int = 6, timeout_s: float = 1.5) -> Middlebox:
    """A client fetches from a server through a router whose firewall drops TCP port 9; it also tries port 9.

    The router's ``iptables -L -v -x -n``, ``iptables -L -v -n``, ``iptables-save -c`` and ``nft list ruleset``
    are read before and after (each file a ``=== <epoch>`` line, then the output).
    """
    with lab() as lb:
        for name in ("client", "router", "server"):
            lb.add(name)
        lb.link("client", ("10.79.1.2/24",), "router", ("10.79.1.1/24",))
        lb.link("router", ("10.79.2.1/24",), "server", ("10.79.2.2/24",))
        lb.ex("client", "ip", "route", "add", "default", "via", "10.79.1.1")
        lb.ex("server", "ip", "route", "add", "default", "via", "10.79.2.1")
        lb.ex("router", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        for rule in ROUTER_IPTABLES:
            lb.ex("router", "iptables", *rule)
        lb.ex("router", "nft", "-f", "-", stdin=ROUTER_NFT)
        lb.ex("client", "nft", "-f", "-", stdin=CLIENT_COUNTS_SYNS)
        server = lb.spawn("server", sys.executable, str(LAB_TRAFFIC), "server", "rr", "7000", "300000")
        time.sleep(0.3)
        assert server.poll() is None, "the server did not start"

        def snapshot(when: str) -> dict[str, str]:
            return {
                f"iptables-L-vxn-{when}.txt": stamp() + lb.ex("router", "iptables", "-L", "-v", "-x", "-n"),
                f"iptables-L-vn-{when}.txt": stamp() + lb.ex("router", "iptables", "-L", "-v", "-n"),
                f"iptables-save-c-{when}.txt": stamp() + lb.ex("router", "iptables-save", "-c"),
                f"nft-list-ruleset-{when}.txt": stamp() + lb.ex("router", "nft", "list", "ruleset"),
            }

        files = snapshot("before")
        lb.ex("client", sys.executable, "-c", FETCH, "10.79.2.2", "300000")
        lb.ex("client", sys.executable, "-c", SYN_TO_DISCARD, "10.79.2.2", str(attempts), str(timeout_s), timeout=60)
        files |= snapshot("after")
        seen = lb.ex("client", "nft", "list", "chain", "inet", "seen", "out")
        syns = int(re.search(r"counter packets (\d+)", seen).group(1))  # type: ignore[union-attr]
        return Middlebox(files, syns)


# -- delivery rates towards several prefixes over time (BBR candidates) ---------------------------------

DELAYLINE = Path(__file__).parents[1] / "delayline.py"
#: One-way delay added to each client prefix's ACKs, in ms: the round-trip time each prefix sees.
PREFIX_DELAYS_MS = {"10.81.1": 60.0, "10.81.2": 8.0, "10.81.3": 12.0, "10.81.4": 18.0, "10.81.5": 30.0}
#: The prefix that is always slowest, and the one that ties with it in some intervals: then its ACKs
#: take a delay line 8 % longer than the slowest prefix's: a difference within the noise of delivery-rate samples.
SLOWEST, TYING = "10.81.1", "10.81.2"
TIE_DELAY_MS = 65.0
READER = """
import socket, sys, threading
def one(src):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(sys.argv[3]))
    s.bind((src, 0))
    s.connect((sys.argv[1], int(sys.argv[2])))
    while s.recv(65536):
        pass
for src in sys.argv[4:]:
    threading.Thread(target=one, args=(src,), daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
"""


@dataclass
class PrefixRun:
    """``ss -tin state established`` snapshots on the edge, and which intervals the tying prefix was slow in."""

    text: str
    tie_intervals: list[int]
    flows_per_prefix: int


def prefixes_over_time(
    intervals: int = 12,
    every_s: float = 1.0,
    ties: tuple[int, ...] = (1, 3, 5, 7, 9, 11),
    flows_per_prefix: int = 2,
    tie_delay_ms: float = TIE_DELAY_MS,
) -> PrefixRun:
    """An edge server sends bulk data to clients in five /24 prefixes, each behind its own delay.

    The clients' ACKs cross a router where each prefix has a delay line (``PREFIX_DELAYS_MS``), so
    each prefix sees another round-trip time; the clients read with a 16 KB receive buffer, so a
    flow's delivery rate is its window over its round-trip time. In the intervals ``ties`` the
    second prefix's ACKs are routed through a delay line of ``tie_delay_ms``: it is then as slow
    as the slowest (a little slower by default). The edge runs ``ss -tin state established`` every
    ``every_s`` seconds, each snapshot after a ``=== <epoch>`` line.
    """
    with lab() as lb:
        for name in ("edge", "router", "clients"):
            lb.add(name)
        edge_dev, router_edge = lb.link("edge", ("10.80.0.1/24",), "router", ("10.80.0.2/24",))
        router_clients, _ = lb.link(
            "router", ("10.81.0.1/16",), "clients", tuple(f"{p}.2/16" for p in PREFIX_DELAYS_MS)
        )
        lb.ex("edge", "ip", "route", "add", "10.81.0.0/16", "via", "10.80.0.2")
        lb.ex("clients", "ip", "route", "add", "default", "via", "10.81.0.1")
        lb.ex("router", "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0")
        tuns = {}
        for k, (prefix, delay) in enumerate([*PREFIX_DELAYS_MS.items(), ("tie", tie_delay_ms)], start=1):
            tun = f"wdt{k}{uuid.uuid4().hex[:4]}"
            line = lb.spawn("router", sys.executable, str(DELAYLINE), tun, str(delay / 1000))
            assert line.stdout is not None and line.stdout.readline().strip() == b"ready"
            lb.ex("router", "ip", "link", "set", tun, "up")
            lb.ex("router", "sysctl", "-qw", f"net.ipv4.conf.{tun}.rp_filter=0")
            lb.ex("router", "ip", "route", "add", "default", "dev", tun, "table", str(100 + k))
            if prefix != "tie":
                lb.ex("router", "ip", "rule", "add", "iif", router_clients, "from", f"{prefix}.0/24", "lookup",
                      str(100 + k))  # fmt: skip
            tuns[prefix] = (tun, 100 + k)
        server = lb.spawn("edge", sys.executable, str(LAB_TRAFFIC), "server", "bulk", "7001")
        time.sleep(0.3)
        assert server.poll() is None, "the bulk server did not start"
        sources = [f"{p}.2" for p in PREFIX_DELAYS_MS for _ in range(flows_per_prefix)]
        reader = lb.spawn("clients", sys.executable, "-c", READER, "10.80.0.1", "7001", "16384", *sources)
        assert reader.stdout is not None and reader.stdout.readline().strip() == b"ready"
        slow_tun, tying_table = tuns["tie"][0], tuns[TYING][1]
        fast_tun = tuns[TYING][0]
        snapshots = []
        time.sleep(every_s)  # the flows leave slow start
        for i in range(intervals):
            tun = slow_tun if i in ties else fast_tun
            lb.ex("router", "ip", "route", "replace", "default", "dev", tun, "table", str(tying_table))
            time.sleep(every_s)
            snapshots.append(stamp() + lb.ex("edge", "ss", "-tin", "state", "established"))
        del edge_dev, router_edge
        return PrefixRun("".join(snapshots), sorted(ties), flows_per_prefix)


# -- request latencies with TCP timers in them ---------------------------------------------------

#: Answers each 100-byte request after ``think`` ms (normal, mean and deviation given), then closes.
SLOW_SERVER = """
import random, socket, sys, threading, time
mean, sd = float(sys.argv[2]), float(sys.argv[3])
ls = socket.create_server(("0.0.0.0", int(sys.argv[1])), backlog=128)
print("ready", flush=True)
def serve(conn):
    with conn:
        got = b""
        while len(got) < 100:
            data = conn.recv(100 - len(got))
            if not data:
                return
            got += data
        if sd or mean:
            time.sleep(max(0.0, random.gauss(mean, sd)) / 1000)
        conn.sendall(b"r" * 1000)
while True:
    conn, _ = ls.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""
#: ``N`` requests on ``threads`` threads, each a new connection; every ``dead``-th goes to a port the router
#: drops. One CSV line per request: when it started, its latency and the error it ended with.
REQUESTS = """
import socket, sys, threading, time
host = sys.argv[1]
port, dead_port, n, threads, dead = (int(a) for a in sys.argv[2:7])
rows, lock = [], threading.Lock()
def one(i):
    start, error = time.time(), ""
    t0 = time.monotonic()
    try:
        with socket.create_connection((host, dead_port if dead and i % dead == dead - 1 else port), timeout=3) as s:
            s.sendall(b"q" * 100)
            got = 0
            while got < 1000:
                data = s.recv(4096)
                if not data:
                    raise ConnectionError("closed early")
                got += len(data)
    except OSError as exc:
        error = type(exc).__name__ if not str(exc) else str(exc).replace(",", ";")
    with lock:
        rows.append(f"{start:.6f},{(time.monotonic() - t0) * 1000:.3f},{error}")
def worker(k):
    for i in range(k, n, threads):
        one(i)
ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
for t in ts: t.start()
for t in ts: t.join()
print("time,latency_ms,error")
print("\\n".join(sorted(rows)))
"""


def request_latencies(
    requests: int = 600,
    drop_per_mille: int = 15,
    dead_every: int = 50,
    think_ms: tuple[float, float] = (0, 0),
    one_way_ms: float = 10.0,
    threads: int = 4,
) -> str:
    """A client's request latencies through a router that delays every packet and drops some at random.

    Each request is a new connection to the server (connect, a 100-byte request, 1,000 bytes back, close),
    so a lost SYN or SYN-ACK costs the 1 s SYN timeout and a lost request or response a retransmission
    (after the 200 ms minimum RTO, or a tail-loss probe as late); every ``dead_every``-th request goes to a
    port the router drops and fails after the client's 3 s timeout. The server thinks ``think_ms``
    (mean, deviation) before it answers. Returns the client's CSV (``time,latency_ms,error``).
    """  # fmt: skip
    with lab() as lb:
        for name in ("client", "router", "server"):
            lb.add(name)
        rc, _ = lb.link("router", ("10.82.1.1/24",), "client", ("10.82.1.2/24",))
        rs, _ = lb.link("router", ("10.82.2.1/24",), "server", ("10.82.2.2/24",))
        lb.ex("client", "ip", "route", "add", "default", "via", "10.82.1.1")
        lb.ex("server", "ip", "route", "add", "default", "via", "10.82.2.1")
        lb.ex("router", "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0")
        tun = f"wdl{uuid.uuid4().hex[:5]}"
        line = lb.spawn("router", sys.executable, str(DELAYLINE), tun, str(one_way_ms / 1000))
        assert line.stdout is not None and line.stdout.readline().strip() == b"ready"
        lb.ex("router", "ip", "link", "set", tun, "up")
        lb.ex("router", "sysctl", "-qw", f"net.ipv4.conf.{tun}.rp_filter=0")
        lb.ex("router", "ip", "route", "add", "default", "dev", tun, "table", "100")
        for dev in (rc, rs):
            lb.ex("router", "ip", "rule", "add", "iif", dev, "lookup", "100")
        rules = "tcp dport 7099 drop"
        if drop_per_mille:
            rules += f"\n    numgen random mod 1000 < {drop_per_mille} drop"
        lb.ex("router", "nft", "-f", "-", stdin=f"table inet loss {{\n  chain lossy {{\n    type filter hook forward "
              f"priority 0;\n    {rules}\n  }}\n}}\n")  # fmt: skip
        server = lb.spawn("server", sys.executable, "-c", SLOW_SERVER, "7001", str(think_ms[0]), str(think_ms[1]))
        assert server.stdout is not None and server.stdout.readline().strip() == b"ready"
        return lb.ex("client", sys.executable, "-c", REQUESTS, "10.82.2.2", "7001", "7099", str(requests),
                     str(threads), str(dead_every), timeout=600)  # fmt: skip


def record(directory: Path) -> None:
    """Write every scenario's files into ``directory`` (the committed test data)."""
    directory.mkdir(parents=True, exist_ok=True)
    for files in (timewait_and_conntrack().files, middlebox_firewall().files):
        for name, text in files.items():
            (directory / name).write_text(text)
    run = prefixes_over_time()
    (directory / "ss-tin-state-established-5-prefixes.txt").write_text(run.text)
    latencies = {
        "latency-new-connections-1.5pct-loss.csv": request_latencies(),
        "latency-healthy-240ms.csv": request_latencies(
            requests=400, drop_per_mille=0, dead_every=0, think_ms=(232, 15), one_way_ms=2, threads=8
        ),
        "latency-lan-0.5pct-loss.csv": request_latencies(
            requests=1000, drop_per_mille=5, dead_every=0, one_way_ms=0, threads=4
        ),
    }
    for name, text in latencies.items():
        (directory / name).write_text(text)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        raise SystemExit("usage: python hostlab.py record DIR")
    record(Path(sys.argv[2]))
