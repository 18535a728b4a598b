"""Analysis time of one capture read from the local disk against the same capture read from an S3 store.

    .venv/bin/python bench/store_analysis.py CAPTURE [--rounds 3]

Starts a SeaweedFS S3 server (the tests' ``weed server -s3``) on this host, puts the capture in it, then
alternates: the engine on the local file, and what an analysis worker does under ``WHODUNNET_STORAGE=s3`` — the
engine reads the object as a stream of ranged GETs with read-ahead (``blobs.S3Source``); and, for comparison, a
copy into a scratch folder first (what kinds that read by path get; ``--no-copy`` skips it). Prints each round and
the medians: wall time, the CPU time of this process (the engine and the fetching thread) and of the store's
process (SeaweedFS serving the GETs, on the same cores). ``--read-only`` times only reading the file (local against
streamed), ``--block N`` sets the size of the ranged GETs, ``--pin`` puts the engine and the store on separate
CPUs. No database or broker is needed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "backend"))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _store_cpu(process: Any) -> float:
    if process is None:
        return 0.0
    times = process.cpu_times()
    return float(times.user + times.system + times.children_user + times.children_system)


def _row(row: tuple[float, float, float]) -> str:
    return f"{row[0]:.2f} s (CPU {row[1]:.2f} s here, {row[2]:.2f} s store)"


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _read_all(stream: Any) -> int:
    """Read a stream to its end as the capture scanner does: ``readinto`` an 8 MiB buffer."""
    view, total = memoryview(bytearray(8 << 20)), 0
    with stream:
        while n := stream.readinto(view):
            total += n
    return total


def _copied(store: Any, name: str, limits: Any) -> Any:
    from whodunnet.engine import analyze

    with store.local_copy(name) as path:
        return analyze([path], limits=limits, combine_evidence=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-copy", action="store_true", help="skip the copied-first runs")
    parser.add_argument("--read-only", action="store_true", help="time only reading the file, no analysis")
    parser.add_argument("--block", type=int, default=0, help="ranged GET size in bytes (WHODUNNET_S3_READ_AHEAD_BYTES)")
    parser.add_argument(
        "--pin", action="store_true", help="the engine on CPU 0, the store on CPU 1: is the difference CPU contention?"
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")
    os.environ.setdefault("DATABASE_URL", "postgres://unused/x")
    os.environ.setdefault("CELERY_BROKER_URL", "redis://unused")
    import django

    django.setup()
    from django.conf import settings

    from evidence import blobs
    from tests.s3server import BUCKET, SeaweedServer
    from whodunnet.engine import analyze
    from whodunnet.limits import Limits

    limits = Limits(max_input_bytes=settings.MAX_UPLOAD_BYTES)
    server = SeaweedServer().start()
    scratch = Path(tempfile.mkdtemp(prefix="wdn-bench-scratch-"))
    try:
        store = blobs.S3Store(
            endpoint_url=server.endpoint,
            bucket=BUCKET,
            access_key=server.env["WHODUNNET_S3_ACCESS_KEY_ID"],
            secret_key=server.env["WHODUNNET_S3_SECRET_ACCESS_KEY"],
            region="us-east-1",
            scratch_dir=scratch,
            read_ahead=args.block or settings.S3_READ_AHEAD_BYTES,
        )
        name = "be" * 16
        settings.UPLOAD_PART_BYTES = 8 * 1024 * 1024
        store.put_file(name, args.capture)
        size = args.capture.stat().st_size
        analyze([args.capture], limits=limits, combine_evidence=False)  # warm the page cache and the kernel
        weed = psutil.Process(server.process.pid) if server.process is not None else None
        if args.pin and weed is not None:
            os.sched_setaffinity(0, {0})  # this thread; the read-ahead threads it starts inherit it
            for task in Path(f"/proc/{weed.pid}/task").iterdir():
                os.sched_setaffinity(int(task.name), {1})
        times: dict[str, list[tuple[float, float, float]]] = {"local": [], "streamed": [], "copied": []}

        def timed(what: str, run: Any) -> Any:
            """Run once: wall time, this process's CPU time (every thread), the store's CPU time."""
            cpu, store_cpu, started = _cpu(), _store_cpu(weed), time.perf_counter()
            out = run()
            times[what].append((time.perf_counter() - started, _cpu() - cpu, _store_cpu(weed) - store_cpu))
            return out

        for round_ in range(args.rounds) if args.read_only else ():
            timed("local", lambda: _read_all(open(args.capture, "rb")))  # noqa: SIM115 - _read_all closes it
            timed("streamed", lambda: _read_all(store.source(name).open()))
            print(
                f"round {round_ + 1}: " + "; ".join(f"{what} {_row(rows[-1])}" for what, rows in times.items() if rows)
            )
        for round_ in range(args.rounds) if not args.read_only else ():
            result = timed("local", lambda: analyze([args.capture], limits=limits, combine_evidence=False))
            from_store = timed("streamed", lambda: analyze([store.source(name)], limits=limits, combine_evidence=False))
            assert from_store.evidence[0].summary == result.evidence[0].summary
            if not args.no_copy:
                timed("copied", lambda: _copied(store, name, limits))
            print(
                f"round {round_ + 1}: " + "; ".join(f"{what} {_row(rows[-1])}" for what, rows in times.items() if rows),
                flush=True,
            )
        packets = "" if args.read_only else f", {result.evidence[0].summary.get('packets', '?'):,} packets"
        print(f"capture: {size:,} bytes{packets}; load {_load()}")
        base = statistics.median(t[0] for t in times["local"])
        for what, rows in times.items():
            if rows:
                wall = statistics.median(t[0] for t in rows)
                print(
                    f"median {what}: {wall:.2f} s wall ({(wall / base - 1) * 100:+.0f} % against local), "
                    f"{statistics.median(t[1] for t in rows):.2f} s CPU here, "
                    f"{statistics.median(t[2] for t in rows):.2f} s CPU in the store"
                )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
