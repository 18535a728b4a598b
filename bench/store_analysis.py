"""Analysis time of one capture read from the local disk against the same capture read from an S3 store.

    .venv/bin/python bench/store_analysis.py CAPTURE [--rounds 3]

Starts a SeaweedFS S3 server (the tests' ``weed server -s3``) on this host, puts the capture in it, then
alternates: the engine on the local file, and what an analysis worker does under ``WHODUNNET_STORAGE=s3`` — the
engine reads the object as a stream of ranged GETs with read-ahead (``blobs.S3Source``); and, for comparison, a
copy into a scratch folder first (what kinds that read by path get). Prints each round and the medians. No
database or broker is needed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "backend"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
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
            read_ahead=settings.S3_READ_AHEAD_BYTES,
        )
        name = "be" * 16
        settings.UPLOAD_PART_BYTES = 8 * 1024 * 1024
        store.put_file(name, args.capture)
        size = args.capture.stat().st_size
        analyze([args.capture], limits=limits, combine_evidence=False)  # warm the page cache and the kernel
        local, streamed, copied, copies = [], [], [], []
        for round_ in range(args.rounds):
            started = time.perf_counter()
            result = analyze([args.capture], limits=limits, combine_evidence=False)
            local.append(time.perf_counter() - started)
            started = time.perf_counter()
            from_store = analyze([store.source(name)], limits=limits, combine_evidence=False)
            streamed.append(time.perf_counter() - started)
            assert from_store.evidence[0].summary == result.evidence[0].summary
            started = time.perf_counter()
            with store.local_copy(name) as path:
                copies.append(time.perf_counter() - started)
                analyze([path], limits=limits, combine_evidence=False)
            copied.append(time.perf_counter() - started)
            print(
                f"round {round_ + 1}: local {local[-1]:.2f} s; streamed from the store {streamed[-1]:.2f} s; "
                f"copied then read {copied[-1]:.2f} s (copy {copies[-1]:.2f} s, {size / copies[-1] / 1e6:,.0f} MB/s)"
            )
        lm, sm, cm = statistics.median(local), statistics.median(streamed), statistics.median(copied)
        print(f"capture: {size:,} bytes, {result.evidence[0].summary.get('packets', '?'):,} packets")
        print(
            f"median: local disk {lm:.2f} s; streamed from the store {sm:.2f} s ({(sm / lm - 1) * 100:+.0f} %); "
            f"copied first {cm:.2f} s ({(cm / lm - 1) * 100:+.0f} %)"
        )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
