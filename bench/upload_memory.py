"""Peak memory of the web process while curl uploads a large file (default 2 GiB), one-shot and resumable.

    make bench            # or: .venv/bin/python bench/upload_memory.py --size-gib 4 --drop-at 0.9
    .venv/bin/python bench/upload_memory.py --size-gib 4 --store s3   # into a SeaweedFS S3 store it starts
    .venv/bin/python bench/upload_memory.py --file CAPTURE --store s3  # a real capture, not random bytes

Starts embedded services (or uses DATABASE_URL / CELERY_BROKER_URL), the same gunicorn
the console runs, a user with an API token and an incident; then `curl -T` streams the
file while this script samples the RSS of every web process. Then the same file as a
resumable (tus) upload whose connection is cut at --drop-at of the file, resumed from the
offset the server kept (`curl -C`), and checked by sha256. Prints a table; the peak must
stay far below the file size because uploads stream to disk.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "backend"
sys.path.insert(0, str(REPO / "scripts"))
from services import services  # noqa: E402


def make_file(path: Path, size: int) -> None:
    block = os.urandom(1024 * 1024)
    with open(path, "wb") as out:
        for _ in range(size // len(block)):
            out.write(block)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(4 * 1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


def curl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["curl", "--silent", "--show-error", *args], capture_output=True, text=True)


def header(response: str, name: str) -> str:
    """A header's value from ``curl -i``/``-I`` output ("" when absent)."""
    for line in response.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == name:
            return value.strip()
    return ""


class PeakRss:
    """Samples the largest RSS of a process tree every 50 ms while the ``with`` block runs."""

    def __init__(self, tree: psutil.Process) -> None:
        self.tree = tree
        self.rss = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            with contextlib.suppress(psutil.Error):
                self.rss = max(self.rss, *(p.memory_info().rss for p in [self.tree, *self.tree.children(True)]))
            time.sleep(0.05)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def django(env: dict[str, str], code: str) -> str:
    return (
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=BACKEND,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )


def bytes_kept(work: Path, s3: Any, location: str) -> Callable[[], int]:
    """How many bytes of the resumable upload at ``location`` are in: its part file, or its multipart parts."""
    upload_id = location.rsplit("/", 1)[1].replace("-", "")
    if s3 is None:
        part = work / "evidence" / "incoming" / f"{upload_id}.part"
        return lambda: part.stat().st_size if part.exists() else 0
    client, key = s3.client(), f"{upload_id[:2]}/{upload_id}"

    def in_parts() -> int:
        for upload in client.list_multipart_uploads(Bucket="whodunnet-evidence").get("Uploads", []):
            if upload["Key"] == key:
                parts = client.list_parts(Bucket="whodunnet-evidence", Key=key, UploadId=upload["UploadId"])
                return sum(p["Size"] for p in parts.get("Parts", []))
        return 0

    return in_parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gib", type=float, default=2.0)
    parser.add_argument("--drop-at", type=float, default=0.9, help="cut the resumable upload at this fraction")
    parser.add_argument("--store", choices=["local", "s3"], default="local", help="s3: a SeaweedFS it starts")
    parser.add_argument(
        "--file", type=Path, help="upload this file instead of random bytes (a store may treat compressible data apart)"
    )
    args = parser.parse_args()
    # Whole MiB of random bytes (written in 1 MiB blocks), or the file given.
    size = args.file.stat().st_size if args.file else int(args.size_gib * 1024) * 1024 * 1024
    work = Path(tempfile.mkdtemp(prefix="whodunnet-bench-"))
    s3 = None
    try:
        with services(work / "services", quiet=True) as service_env:
            env = {
                **os.environ,
                **service_env,
                "DJANGO_SECRET_KEY": "bench-only",
                "WHODUNNET_EVIDENCE_DIR": str(work / "evidence"),
            }
            if args.store == "s3":
                sys.path.insert(0, str(BACKEND))
                from tests.s3server import SeaweedServer

                s3 = SeaweedServer().start()
                env.update(s3.env)
            subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=BACKEND, env=env, check=True)
            subprocess.run(
                [
                    sys.executable,
                    "manage.py",
                    "ensure_member",
                    "--username",
                    "bench",
                    "--password",
                    "bench",
                    "--team",
                    "Bench",
                ],
                cwd=BACKEND,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            ids = json.loads(
                django(
                    env,
                    (
                        "import json; from django.utils import timezone; from django.contrib.auth.models import User;"
                        "from rest_framework.authtoken.models import Token; from accounts.models import Team;"
                        "from incidents.services import open_incident; u=User.objects.get(username='bench');"
                        "i=open_incident(user=u, team=Team.objects.get(slug='bench'), title='bench', symptom='',"
                        " severity='sev4', started_at=timezone.now());"
                        "print(json.dumps({'incident': i.pk, 'token': Token.objects.get_or_create(user=u)[0].key}))"
                    ),
                )
            )
            port = free_port()
            web = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi",
                    "--config",
                    "config/gunicorn.py",
                    "--bind",
                    f"127.0.0.1:{port}",
                ],
                cwd=BACKEND,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                time.sleep(3)
                source = args.file or work / "upload.bin"
                if not args.file:
                    make_file(source, size)
                sha256 = file_sha256(source)
                tree = psutil.Process(web.pid)
                base = f"http://127.0.0.1:{port}/api/incidents/{ids['incident']}/evidence/"
                auth = ["-H", f"Authorization: Token {ids['token']}"]
                mib = 1024 * 1024
                rows: list[tuple[str, str]] = [("store", args.store), ("file size", f"{size / mib:,.0f} MiB")]

                baseline = max(p.memory_info().rss for p in [tree, *tree.children(recursive=True)])
                with PeakRss(tree) as peak:
                    started = time.monotonic()
                    result = curl(
                        *auth, "-H", "Content-Type: application/octet-stream", "-T", str(source), base + "upload/"
                    )
                    elapsed = time.monotonic() - started
                if result.returncode != 0:
                    print(result.stderr, file=sys.stderr)
                    return 1
                evidence = json.loads(result.stdout)
                assert evidence["size"] == size and evidence["sha256"] == sha256, evidence
                rows += [
                    ("one-shot: upload time (curl -T)", f"{elapsed:.1f} s"),
                    ("one-shot: throughput", f"{size / mib / elapsed:,.0f} MiB/s"),
                    ("web process RSS before", f"{baseline / mib:,.0f} MiB"),
                    ("one-shot: web RSS peak (largest)", f"{peak.rss / mib:,.0f} MiB"),
                    ("one-shot: peak / file size", f"{peak.rss / size:.3f}"),
                ]

                tus = [*auth, "-H", "Tus-Resumable: 1.0.0"]
                patch = ["-X", "PATCH", *tus, "-H", "Content-Type: application/offset+octet-stream"]
                with PeakRss(tree) as peak:
                    created = curl("-i", "-X", "POST", *tus, "-H", f"Upload-Length: {size}",
                                   "-H", "Upload-Metadata: filename dXBsb2FkLmJpbg==", base + "uploads/")  # fmt: skip
                    location = header(created.stdout, "location")
                    started = time.monotonic()
                    first = subprocess.Popen(
                        ["curl", "--silent", *patch, "-H", "Upload-Offset: 0", "-T", str(source), location]
                    )
                    kept = bytes_kept(work, s3, location)
                    while kept() < args.drop_at * size:
                        time.sleep(0.01)
                    first.send_signal(signal.SIGKILL)  # the connection drops
                    first.wait()
                    dropped = time.monotonic() - started
                    offset = 0
                    while not offset:  # 423 until the server has seen the drop
                        offset = int(header(curl("-I", *tus, location).stdout, "upload-offset") or 0)
                        time.sleep(0.05)
                    resumed_at = time.monotonic()
                    rest = curl(
                        *patch, "-H", f"Upload-Offset: {offset}", "-C", str(offset), "-T", str(source), location
                    )
                    assert rest.returncode == 0, rest.stderr
                    resume_time = time.monotonic() - resumed_at
                    total = time.monotonic() - started
                status = json.loads(curl(*tus, location).stdout)
                final = json.loads(curl(*auth, base + f"{status['evidence']}/").stdout)
                rows += [
                    (f"resumable: connection cut at {args.drop_at:.0%}", f"after {dropped:.1f} s"),
                    ("resumable: bytes kept (whole parts)", f"{offset:,} ({offset / size:.1%})"),
                    ("resumable: rest sent after the cut", f"{(size - offset) / mib:,.1f} MiB in {resume_time:.1f} s"),
                    ("resumable: total time", f"{total:.1f} s"),
                    ("resumable: sha256 matches the file", str(final["sha256"] == sha256 and final["size"] == size)),
                    ("resumable: web RSS peak (largest)", f"{peak.rss / mib:,.0f} MiB"),
                ]
                for name, value in rows:
                    print(f"{name:<42}{value:>24}")
            finally:
                os.killpg(web.pid, signal.SIGTERM)
                web.wait(timeout=20)
    finally:
        if s3 is not None:
            s3.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
