"""Load figure: 50 concurrent readers of the timeline and evidence list while two captures are analysed and a
bisect runs. Prints p50/p99 latency and errors per endpoint, and when the background work ran.

Against a running console (`make dev` in another terminal), as its demo owner:

    .venv/bin/python bench/load.py            # http://127.0.0.1:$WHODUNNET_PORT, password from .data/demo_password
    make bench-load

The readers sign in first; then the window opens: each reader asks for the timeline (the live cursor, again at once
while the server says there is more) and the evidence list once a second, as the console does, while this script
uploads two synthetic captures (20,000 bulk TCP connections, 1.3 million packets each) and starts a bisect whose
reproducer sleeps 2 s a step. The window closes when both analyses and the bisect are finished (at least
``--seconds``, at most ``--max-seconds``), so every request counted was made while that work was running or queued.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any, BinaryIO

REPO = Path(__file__).resolve().parent.parent
MSS = 1460


class Session:
    """A signed-in browser-like client: session cookie, CSRF header on writes."""

    def __init__(self, url: str, username: str, password: str) -> None:
        self.url = url.rstrip("/")
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.request("GET", "/api/auth/csrf/")
        status, body = self.request("POST", "/api/auth/login/", {"username": username, "password": password})
        if status != 200:
            raise SystemExit(f"sign-in as {username} failed: {status} {body[:200]!r}")

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken" and c.value), "")

    def request(
        self, method: str, path: str, body: object = None, raw: bytes | BinaryIO | None = None, timeout: float = 60
    ) -> tuple[int, bytes]:
        """``raw``: the body as it is (bytes, or an open file streamed with its size as Content-Length)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = {"X-CSRFToken": self.csrf(), "Accept": "application/json"}
        headers["Content-Type"] = "application/octet-stream" if raw is not None else "application/json"
        if raw is not None and not isinstance(raw, bytes):
            headers["Content-Length"] = str(os.fstat(raw.fileno()).st_size)
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()


def synthetic_capture(path: Path, *, connections: int, segments: int, first_port: int) -> None:
    """A pcap of ``connections`` bulk transfers (handshake, ``segments`` full segments acked every second one,
    FINs), headers only (snaplen 96): big enough that its analysis takes a worker tens of seconds."""
    eth = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00"
    moment = 1_700_000_000.0
    with path.open("wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 96, 1))
        for c in range(connections):
            client, server = bytes([10, 1, (c >> 8) & 255, c & 255]), bytes([10, 2, 0, 1])
            cport, sport, cseq, sseq = first_port + c % 20000, 443, 1000, 5000
            up = (client, server, cport, sport)
            down = (server, client, sport, cport)
            packets = [(*up, cseq, 0, 0x02, 0), (*down, sseq, cseq + 1, 0x12, 0), (*up, cseq + 1, sseq + 1, 0x10, 0)]
            seq = sseq + 1
            for n in range(segments):
                packets.append((*down, seq, cseq + 1, 0x18, MSS))
                seq += MSS
                if n % 2:
                    packets.append((*up, cseq + 1, seq, 0x10, 0))
            packets += [(*down, seq, cseq + 1, 0x11, 0), (*up, cseq + 1, seq + 1, 0x11, 0)]
            packets.append((*down, seq + 1, cseq + 2, 0x10, 0))
            records = []
            for src, dst, a, b, s, ack, flags, size in packets:
                tcp = struct.pack("!HHIIBBHHH", a, b, s, ack, 5 << 4, flags, 65535, 0, 0)
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + size, 1, 0x4000, 64, 6, 0, src, dst)
                frame = eth + ip + tcp
                moment += 0.0002
                sec = int(moment)
                usec = int((moment - sec) * 1e6)
                records.append(struct.pack("<IIII", sec, usec, len(frame), len(frame) + size) + frame)
            out.write(b"".join(records))


def make_repo(folder: Path) -> Path:
    """A 64-commit repository whose reproducer turns bad at commit 40, each step sleeping 2 s."""
    repo = folder / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "bench")
    for n in range(64):
        (repo / "value").write_text(f"{n}\n")
        git("add", "value")
        git("commit", "-q", "-m", f"commit {n}")
        if n == 0:
            git("tag", "good")
    git("tag", "bad")
    # The reproducer runs as an unprivileged user in the sandbox: it must be able to read the repository.
    for path in (folder, repo):
        path.chmod(0o755)
    return repo


def percentile(values: list[float], share: float) -> float:
    """Nearest rank."""
    return values[min(len(values) - 1, max(0, round(len(values) * share) - 1))]


def console_arguments(parser: argparse.ArgumentParser) -> None:
    """The console to talk to and who signs in (the benchmarks against a running console share them)."""
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('WHODUNNET_PORT', '8000')}")
    parser.add_argument("--username", default="demo")
    parser.add_argument("--password", help="default: .data/demo_password, written by make dev")


def signed_in(args: argparse.Namespace) -> Session:
    """A session of ``console_arguments``' user."""
    password = args.password or (REPO / ".data" / "demo_password").read_text().strip()
    return Session(args.url, args.username, password)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    console_arguments(parser)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--connections", type=int, default=20000, help="TCP connections in each capture")
    parser.add_argument("--seconds", type=float, default=30.0, help="the shortest window")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="the window closes by then in any case")
    parser.add_argument("--readers-only", action="store_true", help="no analyses, no bisect: the baseline")
    args = parser.parse_args()
    owner = signed_in(args)
    teams = json.loads(owner.request("GET", "/api/teams/")[1])
    status, body = owner.request(
        "POST",
        "/api/incidents/",
        {"team": teams[0]["id"], "title": "load figure", "started_at": "2026-01-01T00:00:00Z"},
    )
    assert status == 201, body
    incident = json.loads(body)["id"]
    base = f"/api/incidents/{incident}/"

    folder = Path(tempfile.mkdtemp(prefix="wdn-load-"))
    captures = [folder / f"load-{n}.pcap" for n in range(2)]
    for n, capture in enumerate([] if args.readers_only else captures):
        synthetic_capture(capture, connections=args.connections, segments=40, first_port=1024 + n * 30000)
    repo = make_repo(folder)
    print(f"{args.readers} readers signing in ...", file=sys.stderr)
    sessions = [signed_in(args) for _ in range(args.readers)]

    timings: dict[str, list[float]] = {"timeline": [], "evidence": []}
    errors: dict[str, Counter[str]] = {"timeline": Counter(), "evidence": Counter()}
    lock = threading.Lock()
    stop = threading.Event()

    def get(session: Session, name: str, path: str) -> bytes | None:
        started = time.monotonic()
        try:
            status, body = session.request("GET", path)
        except OSError as exc:
            status, body = 0, type(exc).__name__.encode()
        took = time.monotonic() - started
        with lock:
            timings[name].append(took)
            if status != 200:
                errors[name][str(status) if status else body.decode()] += 1
        return body if status == 200 else None

    def reader(session: Session) -> None:
        cursor = ""
        while not stop.is_set():
            tick = time.monotonic()
            while True:  # the console asks again at once while the server says there is more
                body = get(session, "timeline", base + "timeline/" + (f"?after={cursor}" if cursor else ""))
                page = json.loads(body) if body is not None else None
                if page is not None:
                    cursor = urllib.parse.quote(page["next"])
                if page is None or not page["more"] or stop.is_set():
                    break
            get(session, "evidence", base + "evidence/")
            stop.wait(max(0.0, 1.0 - (time.monotonic() - tick)))  # the console polls once a second

    threads = [threading.Thread(target=reader, args=(session,)) for session in sessions]
    window = time.monotonic()
    for thread in threads:
        thread.start()

    evidence_ids: list[int] = []
    bisect = None
    if not args.readers_only:
        for capture in captures:
            status, body = owner.request(
                "POST", base + f"evidence/upload/?filename={capture.name}", raw=capture.read_bytes()
            )
            assert status == 201, body
            evidence_ids.append(json.loads(body)["id"])
        status, body = owner.request(
            "POST",
            base + "bisects/",
            {"repo": str(repo), "good": "good", "bad": "bad", "command": 'sleep 2; test "$(cat value)" -lt 40'},
        )
        assert status == 201, body
        bisect = json.loads(body)["id"]

    cards: list[dict[str, Any]] = []
    job: dict[str, Any] = {}
    while True:
        time.sleep(1)
        cards = json.loads(owner.request("GET", base + "evidence/")[1])
        done = all(card["analysis"]["status"] in ("done", "failed") for card in cards)
        if bisect is not None:
            job = json.loads(owner.request("GET", base + f"bisects/{bisect}/")[1])
            done = done and job["finished"]
        elapsed = time.monotonic() - window
        if (done and elapsed >= args.seconds) or elapsed >= args.max_seconds:
            break
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - window

    work = "alone (the baseline)" if args.readers_only else "while 2 captures were analysed and a bisect ran"
    print(f"{args.readers} readers for {elapsed:.0f} s, {work} ({args.url})")
    print(f"{'endpoint':<10} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}")
    for name, values in timings.items():
        values.sort()
        p50, p99 = statistics.median(values) * 1000, percentile(values, 0.99) * 1000
        print(
            f"{name:<10} {len(values):>9} {p50:>8.1f} {p99:>8.1f} {values[-1] * 1000:>8.1f} "
            f"{sum(errors[name].values()):>7}" + (f"  {dict(errors[name])}" if errors[name] else "")
        )
    zero = time.time() - elapsed

    def at(stamp: str | None) -> str:
        return f"{dt.datetime.fromisoformat(stamp).timestamp() - zero:.1f}" if stamp else "-"

    if bisect is not None:
        print("background work (seconds after the readers started: queued / started / finished):")
        for card in cards:
            run, packets = card["analysis"], (card["summary"] or {}).get("packets", 0)
            print(
                f"  analysis of evidence {card['id']} ({packets:,} packets): {run['status']}, "
                f"{at(run['queued_at'])} / {at(run['started_at'])} / {at(run['finished_at'])}"
            )
        steps = len(job.get("steps") or [])
        print(
            f"  bisect {bisect}: {job['status']}, {steps} steps, - / {at(job['started_at'])} / {at(job['finished_at'])}"
        )
    shutil.rmtree(folder, ignore_errors=True)  # the captures and the repository: the bisect is over
    failed = sum(sum(counter.values()) for counter in errors.values())
    return 1 if failed or not done else 0


if __name__ == "__main__":
    sys.exit(main())
