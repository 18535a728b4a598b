"""Record the demo incidents' evidence once, with the real kernel TCP stack in network namespaces.

    sudo .venv/bin/python demo/record.py          # rewrites demo/<incident>/ (needs root, ip netns, tcpdump,
                                                  # nft, conntrack, strace); about 20 s

The lab is the tests' (``workers/tests/netlab.py``: client — router — NAT — server) and so is the traffic
(``workers/tests/lab_traffic.py``). ``make demo`` loads what this wrote; it never needs root itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "workers" / "tests"))

from netlab import SERVER_IP, NetLab, lab_unavailable  # noqa: E402
from test_incident_lab import make_bundle, stamped  # noqa: E402

TRAFFIC = str(REPO / "workers" / "tests" / "lab_traffic.py")
DEMO = Path(__file__).resolve().parent


def fresh(name: str) -> Path:
    folder = DEMO / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def receive_window(work: Path) -> None:
    """A client with SO_RCVBUF 64 KiB reads through a NAT over a 150 ms path and gives up at a 10 s deadline."""
    bundle = fresh("receive-window")
    with NetLab(work) as lab:
        make_bundle(lab, bundle)
    # The one file not from the lab: the fleet's upgrade the incident is about, as a person writes it down
    # (the lab itself runs whatever kernel this machine has).
    (bundle / "kernel-versions.txt").write_text("before: 6.5.13\nafter: 6.6.10\n")


def ecn_black_hole(work: Path) -> None:
    """The router drops SYNs that carry ECN setup flags; the client has ECN on and retries without them."""
    bundle = fresh("ecn-black-hole")
    with NetLab(work) as lab:
        lab.sysctl("c", "net.ipv4.tcp_ecn=1")
        lab.router_rules("tcp flags & (syn | ack | ecn | cwr) == syn | ecn | cwr drop")
        lab.spawn("s", sys.executable, TRAFFIC, "server", "rr", "7001", "1000")
        time.sleep(0.3)
        cap = lab.capture("c", "client.pcap")
        lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "connect", SERVER_IP, "7001", "5")
        cap.stop().rename(bundle / "client.pcap")
        (bundle / "client-sysctl.txt").write_text(lab.ex("c", "sysctl", "net.ipv4.tcp_ecn"))


def receiver_drops(work: Path) -> None:
    """The server's interface drops one packet in 100 on the way in (an ingress rule on its device) while the
    client does one-byte request/responses, netperf TCP_RR's shape."""
    bundle = fresh("receiver-drops")
    with NetLab(work) as lab:
        dev = lab.dev["s"]
        rule = f"ip daddr {SERVER_IP} tcp flags & syn == 0 numgen inc mod 100 == 50 counter drop"
        lab.nft("s", f'table netdev lab {{ chain ingress {{ type filter hook ingress device "{dev}" priority 0; '
                     f"{rule}; }}\n}}")  # fmt: skip
        lab.spawn("s", sys.executable, TRAFFIC, "server", "rr1", "7020")
        time.sleep(0.3)

        def snap(when: str) -> None:
            (bundle / f"client-nstat-{when}.txt").write_text(stamped(lab.ex("c", "nstat", "-asz")))
            (bundle / f"server-nstat-{when}.txt").write_text(stamped(lab.ex("s", "nstat", "-asz")))
            (bundle / f"server-nft-{when}.txt").write_text(stamped(lab.nft_output("s", "list ruleset")))

        snap("before")
        latency = bundle / "client-latency.csv"
        lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "rr1", SERVER_IP, "7020", "1500", str(latency))
        snap("after")


def conntrack_full(work: Path) -> None:
    """Short connections through a NAT whose conntrack table (256 entries) is smaller than the ports in use."""
    bundle = fresh("conntrack-full")
    path = Path("/proc/sys/net/netfilter/nf_conntrack_max")
    before = path.read_text().strip()
    path.write_text("256\n")
    try:
        with NetLab(work) as lab:
            lab.sysctl("c", "net.ipv4.ip_local_port_range=40000 40199")
            for port in ("7031", "7032"):
                lab.spawn("s", sys.executable, TRAFFIC, "server", "rr1", port)
            time.sleep(0.3)

            def snap(when: str) -> None:
                (bundle / f"client-nstat-{when}.txt").write_text(stamped(lab.ex("c", "nstat", "-asz")))
                (bundle / f"nat-conntrack-S-{when}.txt").write_text(stamped(lab.ex("n", "conntrack", "-S")))

            snap("before")
            # As in the lab test: closed connections' entries leave the table as TIME-WAIT would let them.
            lab.spawn("n", "sh", "-c", "while :; do sleep 0.8; conntrack -D -p tcp --state TIME_WAIT; done")
            cap = lab.capture("c", "client.pcap")
            latency = bundle / "client-connect-times.csv"
            lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "crr", SERVER_IP, "7031,7032", "320",
                   "32", str(latency))  # fmt: skip
            cap.stop().rename(bundle / "client.pcap")
            snap("after")
            (bundle / "nat-sysctl.txt").write_text(
                lab.ex("n", "sysctl", "net.netfilter.nf_conntrack_max", "net.netfilter.nf_conntrack_count")
            )
            (bundle / "client-sysctl.txt").write_text(lab.ex("c", "sysctl", "net.ipv4.ip_local_port_range"))
    finally:
        path.write_text(before + "\n")


RECORDERS = {
    "receive-window": receive_window,
    "ecn-black-hole": ecn_black_hole,
    "receiver-drops": receiver_drops,
    "conntrack-full": conntrack_full,
}


def main() -> int:
    if (why := lab_unavailable()) is not None:
        sys.exit(f"cannot record: {why}")
    wanted = sys.argv[1:] or list(RECORDERS)
    work = Path(subprocess.run(["mktemp", "-d"], capture_output=True, text=True, check=True).stdout.strip())
    try:
        for name in wanted:
            started = time.monotonic()
            (work / name).mkdir()
            RECORDERS[name](work / name)
            files = sorted(p.name for p in (DEMO / name).iterdir())
            print(f"{name}: {len(files)} files in {time.monotonic() - started:.0f} s: {', '.join(files)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
