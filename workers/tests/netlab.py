"""A four-namespace network lab for capture tests: client — router — NAT — server.

    client 10.91.1.2 ─ 10.91.1.1 router 10.91.2.1 ─ 10.91.2.2 nat 10.91.3.1 ─ 10.91.3.2 server

The router can drop packets with nftables rules and delay every packet it forwards with a
userspace TUN delay line (``delayline.py``; netem is not available here). The NAT namespace
masquerades the client as 10.91.3.1, so the server sees other addresses and ports than the
client. ``tcpdump`` captures on the client's and the server's interfaces. Nothing leaves the
namespaces; everything is removed on exit, also after a failure.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType

DELAYLINE = Path(__file__).with_name("delayline.py")
SERVER_IP = "10.91.3.2"
CLIENT_IP = "10.91.1.2"
NAT_IP = "10.91.3.1"


def lab_unavailable() -> str | None:
    """Why the lab cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, nftables, tcpdump)"
    for tool in ("ip", "nft", "tcpdump"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = f"wdn-probe-{uuid.uuid4().hex[:6]}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return f"ip netns is unavailable: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun is missing (needed for the delay line)"
    return None


def _run(*args: str, stdin: str | None = None) -> str:
    r = subprocess.run(list(args), capture_output=True, text=True, check=False, input=stdin)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


class NetLab:
    """The namespaces and links; use as a context manager."""

    def __init__(self, workdir: Path) -> None:
        tag = uuid.uuid4().hex[:5]
        self.ns = {n: f"wdn-{tag}-{n}" for n in ("c", "r", "n", "s")}
        self.dev = {k: f"w{tag}{k}" for k in ("c", "rc", "rn", "nr", "ns", "s")}
        self.workdir = workdir
        self._stack = ExitStack()
        self._procs: list[subprocess.Popen[bytes]] = []

    # -- set-up and tear-down ------------------------------------------------------------

    def __enter__(self) -> NetLab:
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for p in self._procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
        for name in self.ns.values():
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)

    def ex(self, ns: str, *args: str) -> str:
        return _run("ip", "netns", "exec", self.ns[ns], *args)

    def nft(self, ns: str, ruleset: str) -> None:
        _run("ip", "netns", "exec", self.ns[ns], "nft", "-f", "-", stdin=ruleset + "\n")

    def _build(self) -> None:
        ns, dev = self.ns, self.dev
        for name in ns.values():
            _run("ip", "netns", "add", name)
        links = [("c", "c", "rc", "r"), ("rn", "r", "nr", "n"), ("ns", "n", "s", "s")]
        for a, na, b, nb in links:
            _run("ip", "link", "add", dev[a], "netns", ns[na], "type", "veth", "peer", "name", dev[b], "netns", ns[nb])
        addrs = [
            ("c", "c", "10.91.1.2/24"),
            ("r", "rc", "10.91.1.1/24"),
            ("r", "rn", "10.91.2.1/24"),
            ("n", "nr", "10.91.2.2/24"),
            ("n", "ns", "10.91.3.1/24"),
            ("s", "s", "10.91.3.2/24"),
        ]
        for n, d, a in addrs:
            self.ex(n, "ip", "addr", "add", a, "dev", dev[d])
            # No offloads on the wire: each capture then shows real MSS-sized segments, as
            # the other capture point does (GSO super-packets would not match one to one).
            self.ex(n, "ip", "link", "set", dev[d], "gso_max_segs", "1", "up")
        for n in ns:
            self.ex(n, "ip", "link", "set", "lo", "up")
        self.ex("c", "ip", "route", "add", "default", "via", "10.91.1.1")
        self.ex("r", "ip", "route", "add", "10.91.3.0/24", "via", "10.91.2.2")
        self.ex("n", "ip", "route", "add", "default", "via", "10.91.2.1")
        for n in ("r", "n"):
            self.ex(n, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        nat = (
            "table ip nat { chain post { type nat hook postrouting priority 100; "
            f'oifname "{dev["ns"]}" masquerade; }}\n}}'
        )
        self.nft("n", nat)

    # -- what tests use ------------------------------------------------------------------

    def sysctl(self, ns: str, setting: str) -> None:
        self.ex(ns, "sysctl", "-qw", setting)

    def nft_output(self, ns: str, command: str) -> str:
        """What ``nft`` prints in a namespace (counters, for a test's own diagnosis)."""
        return _run("ip", "netns", "exec", self.ns[ns], "nft", *command.split())

    def router_rules(self, *rules: str) -> None:
        """Add nftables rules to the router's forward chain (``drop`` rules, typically)."""
        body = " ".join(f"{r};" for r in rules)
        self.nft("r", f"table inet lab {{ chain drops {{ type filter hook forward priority 0; {body} }}\n}}")

    def delay(self, one_way_ms: float) -> None:
        """Delay every packet the router forwards by ``one_way_ms`` (each way)."""
        tun = f"{self.dev['rc']}t"
        p = self.spawn("r", sys.executable, str(DELAYLINE), tun, str(one_way_ms / 1000), stdout=subprocess.PIPE)
        assert p.stdout is not None
        if p.stdout.readline().strip() != b"ready":
            raise RuntimeError("the delay line did not start")
        self.ex("r", "ip", "link", "set", tun, "up")
        self.ex("r", "sysctl", "-qw", f"net.ipv4.conf.{tun}.rp_filter=0")
        self.ex("r", "sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0")
        self.ex("r", "ip", "route", "add", "default", "dev", tun, "table", "100")
        for d in ("rc", "rn"):
            self.ex("r", "ip", "rule", "add", "iif", self.dev[d], "lookup", "100")

    def spawn(self, ns: str, *args: str, stdout: int | None = None) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns[ns], *args],
            stdout=stdout if stdout is not None else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._procs.append(p)
        return p

    def capture(self, ns: str, name: str, interface: str | None = None, expression: str = "tcp") -> Capture:
        """Start tcpdump on the client's (``c``) or server's (``s``) interface, or on ``interface``
        of namespace ``ns`` (``any``: every interface, as Linux cooked packets)."""
        path = self.workdir / name
        args = ("-i", interface or self.dev[ns], "-w", str(path), "-U", "--immediate-mode", "-s", "200", "-n",
                *expression.split())  # fmt: skip
        p = self.spawn(ns, "tcpdump", *args)
        assert p.stderr is not None
        line = p.stderr.readline()  # "tcpdump: listening on ..." once it is capturing
        if b"data link type" in line:  # -i any first says which cooked header it writes
            line = p.stderr.readline()
        if b"listening" not in line:
            raise RuntimeError(f"tcpdump did not start: {line!r}")
        return Capture(p, path)

    def python(self, ns: str, code: str, *args: str, timeout: float = 30) -> str:
        """Run a Python snippet inside a namespace and return its output."""
        return _run("timeout", str(timeout), "ip", "netns", "exec", self.ns[ns], sys.executable, "-c", code, *args)


class Capture:
    """A running tcpdump; ``stop()`` flushes it and returns the file."""

    def __init__(self, proc: subprocess.Popen[bytes], path: Path) -> None:
        self.proc = proc
        self.path = path

    def stop(self) -> Path:
        time.sleep(0.3)  # let the last packets through the delay line and into the file
        os.killpg(self.proc.pid, signal.SIGINT)
        self.proc.wait(timeout=10)
        return self.path


# -- what the capture lab tests share ------------------------------------------------------

TRAFFIC = str(Path(__file__).with_name("lab_traffic.py"))


def serve(lab: NetLab, *args: str) -> None:
    """Start one of ``lab_traffic.py``'s servers in the server namespace."""
    lab.spawn("s", sys.executable, TRAFFIC, "server", *args)
    time.sleep(0.3)


def client(lab: NetLab, *args: str, timeout: float = 60) -> str:
    """Run one of ``lab_traffic.py``'s clients in the client namespace; its output."""
    return lab.ex("c", "timeout", str(timeout), sys.executable, TRAFFIC, "client", *args)
