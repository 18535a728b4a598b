"""Peak memory of the web process while curl uploads a large file (default 2 GiB).

    make bench            # or: .venv/bin/python bench/upload_memory.py --size-gib 2

Starts embedded services (or uses DATABASE_URL / CELERY_BROKER_URL), the same gunicorn
the console runs, a user with an API token and an incident; then `curl -T` streams the
file while this script samples the RSS of every web process. Prints a table; the peak
must stay far below the file size because uploads stream to disk.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gib", type=float, default=2.0)
    args = parser.parse_args()
    size = int(args.size_gib * 1024) * 1024 * 1024  # whole MiB: the file is written in 1 MiB blocks
    work = Path(tempfile.mkdtemp(prefix="whodunnet-bench-"))
    try:
        with services(work / "services", quiet=True) as service_env:
            env = {
                **os.environ,
                **service_env,
                "DJANGO_SECRET_KEY": "bench-only",
                "WHODUNNET_EVIDENCE_DIR": str(work / "evidence"),
            }
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
                source = work / "upload.bin"
                make_file(source, size)
                tree = psutil.Process(web.pid)
                peak = {"rss": 0}
                done = threading.Event()

                def sample() -> None:
                    while not done.is_set():
                        try:
                            procs = [tree, *tree.children(recursive=True)]
                            biggest = max(p.memory_info().rss for p in procs)
                            peak["rss"] = max(peak["rss"], biggest)
                        except psutil.Error:
                            pass
                        time.sleep(0.05)

                sampler = threading.Thread(target=sample, daemon=True)
                sampler.start()
                baseline = max(p.memory_info().rss for p in [tree, *tree.children(recursive=True)])
                started = time.monotonic()
                result = subprocess.run(
                    [
                        "curl",
                        "--fail",
                        "--silent",
                        "--show-error",
                        "-H",
                        f"Authorization: Token {ids['token']}",
                        "-H",
                        "Content-Type: application/octet-stream",
                        "-T",
                        str(source),
                        f"http://127.0.0.1:{port}/api/incidents/{ids['incident']}/evidence/upload/",
                    ],
                    capture_output=True,
                    text=True,
                )
                elapsed = time.monotonic() - started
                done.set()
                sampler.join()
                if result.returncode != 0:
                    print(result.stderr, file=sys.stderr)
                    return 1
                evidence = json.loads(result.stdout)
                assert evidence["size"] == size, evidence
                mib = 1024 * 1024
                print(f"{'file size':<34}{size / mib:>12,.0f} MiB")
                print(f"{'upload time (curl -T)':<34}{elapsed:>12.1f} s")
                print(f"{'throughput':<34}{size / mib / elapsed:>12,.0f} MiB/s")
                print(f"{'web process RSS before':<34}{baseline / mib:>12,.0f} MiB")
                print(f"{'web process RSS peak (largest)':<34}{peak['rss'] / mib:>12,.0f} MiB")
                print(f"{'peak / file size':<34}{peak['rss'] / size:>12.3f}")
            finally:
                os.killpg(web.pid, signal.SIGTERM)
                web.wait(timeout=20)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
