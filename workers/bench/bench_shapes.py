"""Capture analysis on the shapes users capture, against tshark, tcptrace and argus on the same files.

    .venv/bin/python workers/bench/bench_shapes.py [--dir .data/bench] [--shapes bulk,mixed,many]
    .venv/bin/python workers/bench/bench_shapes.py --smoke      # a 200 k-packet mixed capture (CI)

Needs root: each shape is real kernel traffic made in network namespaces (the four-namespace
lab of the capture tests: client, router with a userspace delay line and an nftables loss rule,
NAT, server), captured by tcpdump on the server's interface with a 128-byte snap length:

- **bulk**: a few long flows (2 parallel downloads of about 1.5 M packets each), 20 ms round trip, 0.1 % dropped
  at random;
- **mixed**: 6 parallel downloads plus 20,000 short request/response connections, 20 ms round
  trip, 0.5 % dropped at random;
- **many**: 1,000,000 short connections (a connection-per-request client, 512 at a time), 2 ms
  round trip, 0.5 % dropped at random.

Each shape's loss is a random drop set at the router; the userspace delay line loses more under load, so the
report says under each shape's name what the traffic came out as (our analysis's retransmission findings for that
capture).

Captures are made once and kept in ``--dir`` (``--remake`` makes them again). Each is timed as
pcap, as pcapng (``editcap``) and gzipped. Every step runs as its own process, timed from its
start to its exit with ``wait4`` (wall time, that process's peak RSS, and its CPU time: user + system of all its
threads, so that "per CPU s" is the rate per core used, whatever the wall clock shows):

- ``whodunnet analyze FILE --json > out.json``: what a user runs, process start-up included;
- the same analysis inside a process that has already loaded the kernel (a worker's view), and again with that
  process and every thread of it kept to one core;
- ``tshark -n -q -z conv,tcp -r FILE``, ``tcptrace -l -r -W -n FILE``, ``argus -r FILE -w OUT``;
- on the pcap form, the machine's ceiling: ``ceiling.c``, a plain C loop that maps the file and keeps packets, bytes
  and first and last time per connection in a hash table, built with the system's C compiler (its count of
  connections must be ours, else the row says so);
- on the gzip form, the inflating alone (``gzip -dc`` and isal's ``igzip -dc``, which our reader uses, into
  ``/dev/null``): the floor of any analysis of that file; and under the table, the gzip form against its parts
  timed apart (the pcap's analysis, isal's inflating): 1.0x where it costs what they cost and nothing more;
- the Stevens graph of the capture's largest connection (``time_sequence`` over the connection's stretch of the file,
  as the console's graph asks for it; and once over the whole file, which must draw the same graph).

Our steps run on all three forms first, then the other tools on each: a tool that takes gigabytes leaves, on a
virtual machine that hands freed memory back to its host, pages that cost the next process a host fault each.

The last column says how many times faster the end-to-end ``whodunnet analyze`` is than each
row (below 1.0: slower). Nothing here is a pass or fail: the figures are printed, not judged.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the capture tests' namespace lab

import bench_capture  # noqa: E402
from netlab import SERVER_IP, NetLab, lab_unavailable  # noqa: E402

TRAFFIC = HERE / "traffic.py"
#: The machine's ceiling on a capture: a plain C loop's per-connection summary of a pcap file (decision 0028).
CEILING = HERE / "ceiling.c"
CEILING_ROW = "plain C loop, per-connection counts"
#: Rows of each form's table that other lines read (``gzip_against_its_parts``).
WORKER_ROW = "whodunnet, in a started worker"
ONE_CORE_ROW = "whodunnet, in a started worker, 1 core"
ISAL_ROW = "isal's igzip -dc > /dev/null"
ISAL_ARGV = (sys.executable, "-m", "isal.igzip", "-d", "-c")
RR_PORT, BULK_PORT, ANSWER = "9000", "9001", "1000"


@dataclasses.dataclass(frozen=True)
class Shape:
    name: str
    words: str
    one_way_ms: float
    loss_per_mille: int
    flows: int = 0
    short: int = 0
    concurrency: int = 64
    procs: int = 1
    packets: int = 0  # stop after this many packets (the downloads run until then)


SHAPES = {
    # Two downloads share the 3 M packets: each is a connection of about 1.5 M packets, for the Stevens graph.
    "bulk": Shape(
        "bulk", "2 parallel downloads, 20 ms RTT, 0.1 % dropped at random", 10, 1, flows=2, packets=3_000_000
    ),
    "mixed": Shape(
        "mixed",
        "6 downloads + 20,000 short connections, 20 ms RTT, 0.5 % dropped at random",
        10,
        5,
        flows=6,
        short=20_000,
        concurrency=256,  # at 64 the downloads filled the 2.9 M packets before a third of the short ones ran
        procs=2,
        packets=2_900_000,
    ),
    "many": Shape(
        "many",
        "1,000,000 short connections, 2 ms RTT, 0.5 % dropped at random",
        1,
        5,
        short=1_000_000,
        concurrency=256,
        procs=2,
    ),
}
SMOKE = Shape(
    "smoke", "2 downloads + 2,000 short connections, 10 ms RTT, 0.5 % dropped at random", 5, 5, flows=2, short=2_000
)


def make_capture(shape: Shape, out: Path, client_side: Path | None = None) -> str:
    """Capture ``shape`` into ``out`` (on the server's interface) and, with ``client_side``, into that file too on the
    client's interface (the router and its NAT between the two); returns what tcpdump said about drops."""
    with tempfile.TemporaryDirectory(prefix="bench-lab-") as tmp, NetLab(Path(tmp)) as lab:
        lab.delay(shape.one_way_ms)
        if shape.loss_per_mille:
            lab.router_rules(f"meta l4proto tcp numgen random mod 1000 < {shape.loss_per_mille} drop")
        lab.sysctl("c", "net.ipv4.tcp_tw_reuse=1")
        lab.sysctl("c", "net.ipv4.ip_local_port_range=1024 65535")
        lab.sysctl("n", "net.netfilter.nf_conntrack_tcp_timeout_time_wait=1")
        server = lab.spawn(
            "s", sys.executable, str(TRAFFIC), "serve", RR_PORT, BULK_PORT, ANSWER, stdout=subprocess.PIPE
        )
        assert server.stdout is not None
        if server.stdout.readline().strip() != b"ready":
            raise RuntimeError("the benchmark's server did not start")
        count = ["-c", str(shape.packets)] if shape.packets else []
        dump = lab.spawn(
            "s", "tcpdump", "-i", lab.dev["s"], "-s", "128", "-B", "65536", "-n", "-w", str(out), *count, "tcp"
        )
        dumps = [dump]
        if client_side is not None:
            at_client = ("-i", lab.dev["c"], "-s", "128", "-B", "65536", "-n", "-w", str(client_side), "tcp")
            dumps.append(lab.spawn("c", "tcpdump", *at_client))
        for d in dumps:
            assert d.stderr is not None
            if b"listening" not in d.stderr.readline():
                raise RuntimeError("tcpdump did not start")
        if shape.flows:  # downloads for as long as the capture runs (the lab stops them at the end)
            lab.spawn("c", sys.executable, str(TRAFFIC), "bulk", SERVER_IP, BULK_PORT, str(shape.flows), "86400")
        if shape.short:
            args = (str(shape.short), str(shape.concurrency), str(shape.procs), ANSWER)
            short = lab.spawn(
                "c", sys.executable, str(TRAFFIC), "short", SERVER_IP, RR_PORT, *args, stdout=subprocess.PIPE
            )
            assert short.stdout is not None
            ok, failed = short.stdout.readline().decode().split()
            short.wait()
            print(f"  {int(ok):,} short connections completed, {int(failed):,} failed", flush=True)
        if shape.packets:  # the downloads go on until tcpdump has its count
            dump.wait()
        time.sleep(0.5)
        said = []
        for d in reversed(dumps):  # the client's capture stops first: it ends no later than the server's
            d.send_signal(2)
            _, err = d.communicate(timeout=30)
            said.append(next((line for line in err.decode().splitlines() if "dropped by kernel" in line), ""))
        return "; ".join(line for line in reversed(said) if line)


@dataclasses.dataclass(frozen=True)
class Timing:
    what: str
    seconds: float
    rss_mb: float
    note: str = ""
    #: CPU seconds (user + system) of every thread of the process: above ``seconds`` when it used more than one core.
    cpu: float = 0.0
    #: Every run's wall seconds, fastest first, where the row is the median of several (``analyze_timed``).
    runs: tuple[float, ...] = ()


def timed(argv: Sequence[str], stdout: Path | None = None) -> tuple[float, float, int, str, float]:
    """(wall seconds, peak RSS MB, exit status, first error line, CPU seconds) of one process, start to exit."""
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115
    t = time.perf_counter()
    p = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.PIPE)
    assert p.stderr is not None
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdout:
        out.close()  # type: ignore[union-attr]
    first = next((line for line in err.decode(errors="replace").splitlines() if line.strip()), "")
    return took, usage.ru_maxrss / 1024, p.returncode, first, usage.ru_utime + usage.ru_stime


#: Runs of ``whodunnet analyze`` on each file, of which the median is shown, and the fastest and slowest beside it: a
#: run of a few seconds moves by 10-15 % from one to the next on a shared machine (the 1 M-connection capture: 2.4-3.0
#: s), where the other tools' tens of seconds move by a few percent and are timed once. On a virtual machine that gives
#: freed memory back to its host, the first process to touch fresh memory after another has freed a lot pays for
#: each page again: 1 GB touched took 0.06 s right after an 8 GB process ended and 0.93-2.38 s once the host had
#: taken the pages back, and the 1 M-connection pcapng took 3.06 s after tcptrace's 8 GB run, then 2.57 and 2.60 s
#: (2026-12-05, AMD EPYC). Five runs, so that one or two such runs move the median little. A run that failed is
#: shown instead.
OURS_RUNS = 5


def analyze_timed(what: str, *files: Path, out: Path) -> Timing:
    """``whodunnet analyze FILES --json > out``, ``OURS_RUNS`` times: the median run, or the first that failed."""
    argv = [str(Path(sys.executable).with_name("whodunnet")), "analyze", *map(str, files), "--json"]
    runs = [timed(argv, stdout=out) for _ in range(OURS_RUNS)]
    failed = [run for run in runs if run[2] != 0]
    secs, rss, code, err, cpu = failed[0] if failed else sorted(runs)[len(runs) // 2]
    return Timing(what, secs, rss, "" if code == 0 else f"exit {code}: {err}", cpu, tuple(sorted(r[0] for r in runs)))


#: Runs of the analysis in a started worker (each a fresh process), of which the median is shown: one run of a second
#: or less moved by half from one form to the next on a shared machine (the bulk pcap on one core 0.36 s, its pcapng
#: 0.20 s, the same analysis; 2026-12-06, Intel Xeon). The peak RSS shown is the largest of the runs.
WORKER_RUNS = 3


def worker_timed(what: str, path: Path, *, one_core: bool = False) -> tuple[int, Timing]:
    """The analysis of ``path`` in a started worker, ``WORKER_RUNS`` times: (packets, the median run)."""
    runs = sorted(bench_capture.run_step("engine", path, one_core=one_core) for _ in range(WORKER_RUNS))
    secs, packets, _, cpu = runs[len(runs) // 2]
    rss = max(run[2] for run in runs)
    return packets, Timing(what, secs, rss / 1024, cpu=cpu, runs=tuple(run[0] for run in runs))


def time_ours(path: Path, tmp: Path) -> tuple[int, list[Timing]]:
    """Our steps on one file; returns (packets, rows)."""
    rows = [analyze_timed("whodunnet analyze --json > out.json", path, out=tmp / "out.json")]
    packets, row = worker_timed(WORKER_ROW, path)
    rows.append(row)
    # The same on one core, every thread of it: the measure of the analysis's own speed.
    rows.append(worker_timed(ONE_CORE_ROW, path, one_core=True)[1])
    return packets, rows


def time_others(path: Path, tmp: Path) -> list[Timing]:
    """The other tools on one file (``tmp/out.json``: our output of the same capture, which the ceiling checks its
    count against); returns their rows."""
    rows: list[Timing] = []
    tools = [
        ("tshark -q -z conv,tcp", ["tshark", "-n", "-q", "-z", "conv,tcp", "-r", str(path)]),
        ("tcptrace -l -r -W -n", ["tcptrace", "-l", "-r", "-W", "-n", str(path)]),
        ("argus -r", ["argus", "-r", str(path), "-w", str(tmp / "out.argus")]),
    ]
    if path.suffix == ".gz":  # the floor of any analysis of a gzip: inflating it alone, the output thrown away
        tools += [
            ("gzip -dc > /dev/null", ["gzip", "-dc", str(path)]),
            (ISAL_ROW, [*ISAL_ARGV, str(path)]),
        ]
    for name, argv in tools:
        if shutil.which(argv[0]) is None:
            rows.append(Timing(name, 0, 0, "not installed"))
            continue
        (tmp / "out.argus").unlink(missing_ok=True)
        secs, rss, code, err, cpu = timed(argv)
        if code == 0 and "unknown packet file format" in err:  # argus reads no gzip, and still exits 0
            rows.append(Timing(name, 0, 0, "cannot read this form (unknown packet file format)"))
            continue
        rows.append(Timing(name, secs, rss, "" if code == 0 else f"exit {code}: {err}", cpu))
    if path.suffix == ".pcap":  # (it reads classic pcap only)
        rows.append(ceiling(path, tmp))
    return rows


def c_compiler() -> str | None:
    """The system's C compiler that builds the ceiling, if there is one."""
    return shutil.which("cc") or shutil.which("gcc")


def ceiling(path: Path, tmp: Path) -> Timing:
    """The machine's ceiling on ``path``: ``ceiling.c``, built with the system's C compiler (once per ``tmp``), timed
    as a process like the others; its count of connections is checked against ours in ``tmp/out.json`` (the same
    4-tuples, and a SYN with another initial sequence number a new connection), said in the row's note if not."""
    binary = tmp / "ceiling"
    if not binary.exists():
        cc = c_compiler()
        if cc is None:
            return Timing(CEILING_ROW, 0, 0, "no C compiler (cc) to build it")
        built = subprocess.run([cc, "-O2", "-o", str(binary), str(CEILING)], capture_output=True, text=True)
        if built.returncode != 0:
            first = (built.stderr.strip().splitlines() or [""])[0][:200]
            return Timing(CEILING_ROW, 0, 0, f"not built ({cc} exit {built.returncode}: {first})")
    secs, rss, code, err, cpu = timed([str(binary), str(path)], stdout=tmp / "ceiling.txt")
    if code != 0:
        return Timing(CEILING_ROW, secs, rss, f"exit {code}: {err}", cpu)
    counted = int((tmp / "ceiling.txt").read_text().split()[-1])
    try:
        ours = json.loads((tmp / "out.json").read_bytes())["evidence"][0]["summary"]["tcp_connections"]
    except (OSError, ValueError, KeyError, IndexError) as exc:
        return Timing(CEILING_ROW, secs, rss, f"our count not read ({exc})", cpu)
    return Timing(CEILING_ROW, secs, rss, "" if counted == ours else f"{counted:,} connections, ours {ours:,}", cpu)


STEVENS = r"""
import sys, time
from pathlib import Path
from whodunnet.capture.analyzer import analyze_capture
from whodunnet.capture.packets import Endpoints, index_from_json
from whodunnet.capture.timeseq import Span, time_sequence
from whodunnet.limits import DEFAULT_LIMITS
path = Path(sys.argv[1])
result, _ = analyze_capture(0, path, limits=DEFAULT_LIMITS)
top = max(result.connections, key=lambda c: c.c2s.packets + c.s2c.packets)
ends = Endpoints(top.client_ip, top.client_port, top.server_ip, top.server_port, top.c2s.base_seq, top.s2c.base_seq)
span = Span(index_from_json(result.packet_index), ends, top.first_packet, top.last_packet)  # as the console asks
times = []
for _ in range(3):
    t = time.perf_counter()
    graph = time_sequence(path, top.id, span=span)
    times.append(time.perf_counter() - t)
t = time.perf_counter()
assert time_sequence(path, top.id) == graph  # the whole file read: the same graph
whole = time.perf_counter() - t
print(top.c2s.packets + top.s2c.packets, min(times), max(times), len(graph.seg_time) + len(graph.ack_time), whole)
"""


def stevens(path: Path) -> str:
    """The Stevens graph of the connection with the most packets, in a started worker (3 tries)."""
    out = subprocess.run([sys.executable, "-c", STEVENS, str(path)], capture_output=True, text=True, check=True)
    packets, fastest, slowest, points, whole = out.stdout.split()
    return (
        f"Stevens graph of its largest connection ({int(packets):,} packets): {float(fastest):.2f}–"
        f"{float(slowest):.2f} s in a started worker, {int(points):,} points drawn (reading the connection's "
        f"stretch of the file, as the console does; the whole file: {float(whole):.2f} s)"
    )


def forms(path: Path, tmp: Path) -> list[tuple[str, Path]]:
    out = [("pcap", path)]
    if shutil.which("editcap"):
        ng = tmp / (path.stem + ".pcapng")
        subprocess.run(["editcap", "-F", "pcapng", str(path), str(ng)], check=True)
        out.append(("pcapng", ng))
    gz = tmp / (path.name + ".gz")
    with open(path, "rb") as f, gzip.open(gz, "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g, 1 << 20)
    out.append(("gzip", gz))
    return out


#: The findings that say how lossy a shape's traffic came out.
LOSS_FINDINGS = ("tcp.retransmissions", "tcp.syn_retransmit")


def capture_shows(out: Path) -> str:
    """How lossy the traffic came out, from ``whodunnet analyze --json``'s output ``out``: the titles of its
    retransmission findings. The shape sets a random drop at the router, but the userspace delay line loses more
    under load (on the mixed shape, 12 % of the downloads' segments were sent again against the 0.5 % set; decision
    0027): the shape's words say what was set, this what came of it."""
    try:
        findings = json.loads(out.read_bytes())["findings"]
    except (OSError, ValueError, KeyError) as exc:
        return f"not read ({exc})"
    titles = [f["title"] for kind in LOSS_FINDINGS for f in findings if f["kind"] == kind]
    return "; ".join(titles) or "no retransmissions"


def report(shape: Shape, path: Path, drops: str) -> dict[str, tuple[int, list[Timing]]]:
    """Time every form of one capture and print its table; returns {form: (packets, rows)}."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-shapes-") as tmpdir:
        tmp = Path(tmpdir)
        made = forms(path, tmp)
        # The forms just written (a few GB) go on being written back to disk on the same cores for seconds, and
        # the first tool timed paid for it: whodunnet on the 1 M-connection pcap took 3.99 s there, 2.5-3.0 s after.
        os.sync()
        # Ours on every form first, then the other tools: tshark and tcptrace take 6-8 GB of the many capture, and on
        # a virtual machine that hands freed memory back to its host, what ran next paid for the host's page faults
        # (ours on the pcapng and gzip forms, timed after the pcap form's tools: the many pcapng on one core 4.91 s
        # against the pcap's 3.77 s for the same analysis; decision 0005, thirteenth session).
        ours = {form: time_ours(file, tmp) for form, file in made}
        for form, file in made:
            packets, rows = ours[form]
            results[form] = (packets, rows + time_others(file, tmp), file.stat().st_size)
        shows = capture_shows(tmp / "out.json")
    packets = results["pcap"][0]
    print(f"\n{shape.name}: {shape.words}; {packets:,} packets, {path.stat().st_size / 1e6:,.0f} MB as pcap {drops}")
    print(f"the traffic as captured (whodunnet's findings): {shows}")
    head = (
        f"{'form':7} {'what':38} {'seconds':>8} {'CPU s':>6} {'M pkt/s':>8} {'per CPU s':>9} {'MB/s':>8} "
        f"{'peak RSS MB':>12} {'ours x faster':>14}"
    )
    print(head)
    print(
        f"(whodunnet analyze: the median of {OURS_RUNS} runs, the in-worker steps of {WORKER_RUNS}, the fastest and "
        "slowest after each; the other tools: one run each)"
    )
    out: dict[str, tuple[int, list[Timing]]] = {}
    for form, (n, rows, size) in results.items():
        ours = rows[0].seconds
        for r in rows:
            if r.note and not r.seconds:
                print(f"{form:7} {r.what:38} {r.note}")
                continue
            rate, mbs = n / r.seconds / 1e6, size / r.seconds / 1e6
            per_cpu = f"{n / r.cpu / 1e6:9.2f}" if r.cpu else f"{'-':>9}"
            ratio = r.seconds / ours if ours else 0
            note = f"  ({r.note})" if r.note else _spread(r)
            print(
                f"{form:7} {r.what:38} {r.seconds:8.2f} {r.cpu:6.2f} {rate:8.2f} {per_cpu} {mbs:8.1f} {r.rss_mb:12.0f} "
                f"{ratio:13.1f}x{note}"
            )
        out[form] = (n, rows)
    if line := gzip_against_its_parts(out):
        print(line)
    return out


def gzip_against_its_parts(
    out: dict[str, tuple[int, list[Timing]]], start: float | None = None, cores: int | None = None
) -> str:
    """The gzip form in a started worker against its two parts timed apart in the same run: the pcap form's
    analysis and isal's inflating alone (``start``, its process start, taken off: ``isal_start``). On one core the
    two follow each other: the gzip cannot take less than their sum. On ``cores`` (the cores this process may use)
    it cannot take less than the slower of the two, nor less than their CPU time over the cores. 1.0x: the gzip
    costs what its parts cost and nothing more; the issue's "gzip at the decompressor's own speed" is that, where
    the analysis is faster than the inflating. "" when a part is missing."""

    def row(form: str, what: str) -> Timing | None:
        return next((r for r in out.get(form, (0, []))[1] if r.what == what and r.seconds > 0), None)

    one, two = row("gzip", ONE_CORE_ROW), row("gzip", WORKER_ROW)
    pcap_one, pcap_two, isal = row("pcap", ONE_CORE_ROW), row("pcap", WORKER_ROW), row("gzip", ISAL_ROW)
    if not (one and two and pcap_one and pcap_two and isal):
        return ""
    start = isal_start() if start is None else start
    cores = len(os.sched_getaffinity(0)) if cores is None else cores
    inflate, inflate_cpu = max(0.0, isal.seconds - start), max(0.0, isal.cpu - start)
    parts_one = pcap_one.seconds + inflate
    spread = (pcap_two.cpu + inflate_cpu) / cores
    parts_two = max(pcap_two.seconds, inflate, spread)
    return (
        f"gzip against its parts timed apart (the pcap's analysis; isal's inflating alone, {start:.2f} s of process "
        f"start taken off): on one core {one.seconds:.2f} s, {one.seconds / parts_one:.2f}x their sum "
        f"({pcap_one.seconds:.2f} + {inflate:.2f} s); on {cores} cores {two.seconds:.2f} s, "
        f"{two.seconds / parts_two:.2f}x the least they allow ({parts_two:.2f} s: the slowest of "
        f"{pcap_two.seconds:.2f} s, {inflate:.2f} s and their CPU over {cores} cores, {spread:.2f} s)"
    )


@functools.cache
def isal_start() -> float:
    """Seconds ``python -m isal.igzip -d -c`` takes to start and end with nothing to inflate: the least of three, once
    per run."""
    with tempfile.TemporaryDirectory(prefix="bench-isal-") as tmpdir:
        empty = Path(tmpdir) / "empty.gz"
        empty.write_bytes(gzip.compress(b""))
        return min(timed([*ISAL_ARGV, str(empty)])[0] for _ in range(3))


def _spread(row: Timing) -> str:
    """``  (runs 2.57-3.06 s)``: the fastest and slowest of a row timed several times; nothing for one run."""
    if len(row.runs) < 2:
        return ""
    return f"  (runs {row.runs[0]:.2f}-{row.runs[-1]:.2f} s)"


#: What a user would run instead to compare two captures: each exported packet by packet, to be matched by hand.
TSHARK_FIELDS = ("frame.number", "tcp.stream", "tcp.seq_raw", "tcp.len", "tcp.ack_raw", "tcp.flags", "ip.id")


def report_pair(shape: Shape, client_side: Path, server_side: Path, drops: str) -> list[Timing]:
    """Time the comparison of the two captures of one shape and print its table; returns its rows."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-pairs-") as tmpdir:
        tmp = Path(tmpdir)
        both = (client_side, server_side)
        rows.append(analyze_timed("whodunnet analyze CLIENT SERVER --json", *both, out=tmp / "out.json"))
        for side, path in (("CLIENT", client_side), ("SERVER", server_side)):
            rows.append(analyze_timed(f"whodunnet analyze {side} alone", path, out=tmp / "one.json"))
        if shutil.which("tshark") is None:
            rows.append(Timing("tshark -T fields, both captures", 0, 0, "not installed"))
        else:
            fields = [arg for name in TSHARK_FIELDS for arg in ("-e", name)]
            export = ["tshark", "-n", "-Y", "tcp", "-T", "fields", *fields, "-r"]
            exported = [timed([*export, str(p)], stdout=tmp / "f.txt") for p in both]
            bad = next((f"exit {c}: {e}" for _, _, c, e, _ in exported if c != 0), "")
            secs, rss, cpu = sum(t[0] for t in exported), max(t[1] for t in exported), sum(t[4] for t in exported)
            rows.append(Timing("tshark -T fields, both captures", secs, rss, bad, cpu))
    sizes = client_side.stat().st_size + server_side.stat().st_size
    print(
        f"\n{shape.name}, captured at both ends (client side, server side, NAT between): {sizes / 1e6:,.0f} MB {drops}"
    )
    print(f"{'what':42} {'seconds':>8} {'CPU s':>6} {'peak RSS MB':>12} {'ours x faster':>14}")
    ours = rows[0].seconds
    for r in rows:
        if r.note and not r.seconds:
            print(f"{r.what:42} {r.note}")
            continue
        note = f"  ({r.note})" if r.note else _spread(r)
        print(
            f"{r.what:42} {r.seconds:8.2f} {r.cpu:6.2f} {r.rss_mb:12.0f} {r.seconds / ours if ours else 0:13.1f}x{note}"
        )
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, dict[str, tuple[int, list[Timing]]]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=Path(".data/bench"))
    ap.add_argument("--shapes", default="bulk,mixed,many")
    ap.add_argument("--remake", action="store_true", help="capture the shapes again")
    ap.add_argument("--smoke", action="store_true", help="one small mixed capture (about 200 k packets)")
    ap.add_argument("--no-cold", action="store_true", help="skip the kernel's cold/warm start timing")
    ap.add_argument("--pairs", default="mixed", help="shapes also captured at both ends and compared ('': none)")
    args = ap.parse_args(argv)
    if why := lab_unavailable():
        raise SystemExit(f"the benchmark makes its captures in network namespaces: {why}")
    args.dir.mkdir(parents=True, exist_ok=True)
    shapes = [SMOKE] if args.smoke else [SHAPES[s] for s in args.shapes.split(",")]
    bench_capture.run_step("engine", bench_capture.TINY)  # fill numba's cache before anything is timed
    everything = {}
    for shape in shapes:
        path = args.dir.resolve() / f"{shape.name}.pcap"
        drops = ""
        if args.remake or args.smoke or not path.exists():
            print(f"making the {shape.name} capture ({shape.words}) ...", flush=True)
            t = time.perf_counter()
            drops = make_capture(shape, path)
            print(f"  made in {time.perf_counter() - t:.0f} s", flush=True)
        everything[shape.name] = report(shape, path, f"(tcpdump: {drops})" if drops else "")
        print(stevens(path), flush=True)
        if shape.name in args.pairs.split(",") or (args.smoke and args.pairs):
            client_side, server_side = (args.dir.resolve() / f"{shape.name}-{end}.pcap" for end in ("client", "server"))
            if args.remake or args.smoke or not server_side.exists() or not client_side.exists():
                print(f"making the {shape.name} captures at both ends ...", flush=True)
                drops = make_capture(shape, server_side, client_side)
            rows = report_pair(shape, client_side, server_side, f"(tcpdump: {drops})" if drops else "")
            everything[f"{shape.name} pair"] = {"pcap": (0, rows)}
    if not args.no_cold:
        empty, warm = bench_capture.cold_start(bench_capture.TINY)
        print(f"\nkernel start: {empty:.2f} s with an empty numba cache (compile), {warm:.2f} s with the cache")
    return everything


if __name__ == "__main__":
    main()
