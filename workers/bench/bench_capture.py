"""Capture engine speed: the full analysis (the compiled kernel) vs tshark, per input form.

    .venv/bin/python workers/bench/bench_capture.py CAPTURE [--gzip] [--pcapng] [--cold]
    .venv/bin/python workers/bench/bench_capture.py --make 3000000 /tmp/bulk.pcap   # needs root

``--make N`` captures about N packets of real kernel traffic: a bulk TCP transfer inside a
fresh network namespace's loopback (MTU 1500, no offloads), written by tcpdump. Each timed
step runs in its own process, so its peak RSS is its own. Prints one table. The analysis
steps run after one warm-up process has filled numba's cache, and exclude the one-off
process start-up (numba import + cached-kernel load, printed below the table); ``--pcapng``
also times the same packets as pcapng (``editcap -F pcapng``), ``--gzip`` as gzip, and
``--cold`` the first analysis of a tiny capture with an empty cache (the compile) and a warm one.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

STEP = r"""
import sys, time, resource
from pathlib import Path
what, path, tiny = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
startup = 0.0
if what == "engine":
    from whodunnet.capture.analyzer import CaptureAnalysis, analyze_capture
    from whodunnet.limits import DEFAULT_LIMITS
    warm = CaptureAnalysis()  # what a worker pays once: numba's import and loading the cached kernel
    warm.run(tiny)
    warm.connections()
    import gc
    gc.freeze()  # as the worker does once it has loaded the kernel (backend/config/celery.py)
    startup = time.perf_counter() - t0
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    ev, findings = analyze_capture(0, Path(path), limits=DEFAULT_LIMITS)
    n = ev.summary["packets"]
elif what == "inflate":
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    from whodunnet.capture.source import open_capture
    o = open_capture(path, max_input_bytes=1 << 40)
    n = 0
    while o.stream.read(1 << 20):
        pass
took = time.perf_counter() - t
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime  # every thread's
print(took, n, r1.ru_maxrss, startup, cpu)
"""


TINY = Path(__file__).parents[1] / "tests" / "data" / "captures" / "ipv6.pcap"
#: Seconds each step spent starting up (imports, loading the compiled kernel), not timed.
STARTUP: dict[str, float] = {}


def run_step(
    what: str, path: Path, env: dict[str, str] | None = None, *, one_core: bool = False
) -> tuple[float, int, int, float]:
    """(seconds, packets, peak RSS KiB, CPU seconds of all its threads) of one step in a fresh process, start-up
    excluded; ``one_core``: the process and all its threads kept to one core (``sched_setaffinity``)."""
    environ = {**os.environ, **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", STEP, what, str(path), str(TINY)],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        preexec_fn=_on_one_core if one_core else None,  # (the benchmark starts no threads: safe in the child)
    )
    secs, n, rss, startup, cpu = out.stdout.split()
    STARTUP[what] = float(startup)
    return float(secs), int(n), int(rss), float(cpu)


def _on_one_core() -> None:
    """This process (and the threads it starts) on one core: the first it may use."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


COLD = r"""
import sys, time
t = time.perf_counter()
from whodunnet.capture import CaptureAnalysis
a = CaptureAnalysis()
a.run(sys.argv[1])
print(time.perf_counter() - t)
"""


def cold_start(path: Path) -> tuple[float, float]:
    """Seconds for import + first analysis of a tiny capture: empty numba cache, then warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = [
            float(
                subprocess.run(
                    [sys.executable, "-c", COLD, str(path)], capture_output=True, text=True, check=True, env=env
                ).stdout
            )
            for _ in range(2)
        ]
    return times[0], times[1]


def run_tshark(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    subprocess.run(["tshark", "-n", "-q", "-z", "conv,tcp", "-r", str(path)], capture_output=True, check=True)
    took = time.perf_counter() - t
    return took, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def make_capture(n: int, out: Path) -> None:
    ns = f"wdn-bench-{uuid.uuid4().hex[:6]}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        ex = ["ip", "netns", "exec", ns]
        subprocess.run([*ex, "ip", "link", "set", "lo", "mtu", "1500", "up"], check=True)
        dump = subprocess.Popen([*ex, "tcpdump", "-i", "lo", "-w", str(out), "-s", "128", "-c", str(n), "tcp"])
        time.sleep(1)
        code = (
            "import socket,threading\n"
            "ls=socket.create_server(('127.0.0.1',9000))\n"
            "def srv():\n c,_=ls.accept()\n while c.recv(1<<20): pass\n"
            "threading.Thread(target=srv,daemon=True).start()\n"
            "s=socket.create_connection(('127.0.0.1',9000)); b=bytes(1<<16)\n"
            "try:\n while True: s.sendall(b)\nexcept OSError: pass\n"
        )
        gen = subprocess.Popen([*ex, sys.executable, "-c", code])
        dump.wait()
        gen.kill()
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("capture", type=Path)
    ap.add_argument("--make", type=int, metavar="N", help="first capture about N packets of real traffic")
    ap.add_argument("--gzip", action="store_true", help="also time a gzip of the capture")
    ap.add_argument("--pcapng", action="store_true", help="also time the capture as pcapng (needs editcap)")
    ap.add_argument("--cold", action="store_true", help="also time the kernel's cold start")
    args = ap.parse_args()
    if args.make:
        make_capture(args.make, args.capture)
    path: Path = args.capture
    size = path.stat().st_size
    rows = []
    run_step("engine", path)  # warm numba's on-disk cache (a first compile takes ~10-30 s)
    eng = run_step("engine", path)
    packets = eng[1]
    rows.append(("full analysis (compiled kernel)", eng[0], eng[2]))
    if shutil.which("tshark"):
        ts = run_tshark(path)
        rows.append(("tshark -q -z conv,tcp", ts[0], ts[1]))
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        if args.pcapng and shutil.which("editcap"):
            ng = Path(tmp) / (path.stem + ".pcapng")
            subprocess.run(["editcap", "-F", "pcapng", str(path), str(ng)], check=True)
            rows.append(("full analysis, pcapng input", *_pick(run_step("engine", ng))))
            ng.unlink()
        if args.gzip:
            gz = Path(tmp) / (path.name + ".gz")
            with open(path, "rb") as f, gzip.open(gz, "wb", compresslevel=6) as g:
                shutil.copyfileobj(f, g, 1 << 20)
            rows.append(("full analysis, gzip input", *_pick(run_step("engine", gz))))
            rows.append(("inflate only (isal)", *_pick(run_step("inflate", gz))))
    print(f"{path}: {packets:,} packets, {size / 1e6:,.0f} MB\n")
    print(f"{'step':40} {'seconds':>8} {'M pkt/s':>8} {'MB/s':>8} {'peak RSS MB':>12} {'x tshark':>9}")
    base = next((r[1] for r in rows if r[0].startswith("tshark")), None)
    for name, secs, rss in rows:
        ratio = f"{base / secs:8.1f}x" if base else "-"
        rate, mbs = packets / secs / 1e6, size / secs / 1e6
        print(f"{name:40} {secs:8.2f} {rate:8.2f} {mbs:8.1f} {rss / 1024:12.0f} {ratio:>9}")
    print(
        f"\nnot timed above: the kernel's start-up in a fresh process (numba import + cached kernel "
        f"load) {STARTUP.get('engine', 0):.2f} s, paid once per worker process"
    )
    if args.cold:
        empty, warm = cold_start(TINY)
        print(f"\nimport + first analysis of a tiny capture: {empty:.2f} s with an empty numba cache,")
        print(f"{warm:.2f} s with the cache warm")


def _pick(r: tuple[float, int, int, float]) -> tuple[float, int]:
    return r[0], r[2]


if __name__ == "__main__":
    main()
