"""Load figure: 50 concurrent readers of the timeline and evidence list while two captures are analysed and a
bisect runs. Prints p50/p99 latency and errors per endpoint.

Against a running console (`make dev` in another terminal), as its demo owner:

    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --password "$(cat .data/demo_password)"
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CAPTURES = [REPO / "backend/tests/data/retransmit-fast009.pcap", REPO / "backend/tests/data/retransmit-fast009.pcap"]


class Session:
    """A signed-in browser-like client: session cookie, CSRF header on writes."""

    def __init__(self, url: str, username: str, password: str) -> None:
        self.url = url.rstrip("/")
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.request("GET", "/api/auth/csrf/")
        self.request("POST", "/api/auth/login/", {"username": username, "password": password})

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def request(self, method: str, path: str, body: object = None, raw: bytes | None = None) -> tuple[int, bytes]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = {"X-CSRFToken": self.csrf(), "Accept": "application/json"}
        headers["Content-Type"] = "application/octet-stream" if raw is not None else "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()


def make_repo(folder: Path) -> Path:
    """A 64-commit repository whose reproducer turns bad at commit 40, each step sleeping 2 s."""
    repo = folder / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("config", "user.email", "bench@example.com")
    run("config", "user.name", "bench")
    for n in range(64):
        (repo / "value").write_text(f"{n}\n")
        run("add", "value")
        run("commit", "-q", "-m", f"commit {n}")
        if n == 0:
            run("tag", "good")
    run("tag", "bad")
    repo.chmod(0o755)
    folder.chmod(0o755)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", default="demo")
    parser.add_argument("--password", required=True)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()

    owner = Session(args.url, args.username, args.password)
    teams = json.loads(owner.request("GET", "/api/teams/")[1])
    status, body = owner.request(
        "POST",
        "/api/incidents/",
        {"team": teams[0]["id"], "title": "load figure", "started_at": "2026-01-01T00:00:00Z"},
    )
    incident = json.loads(body)["id"]
    base = f"/api/incidents/{incident}/"
    for n, capture in enumerate(CAPTURES):
        status, body = owner.request(
            "POST", base + f"evidence/upload/?filename=load-{n}.pcap", raw=capture.read_bytes()
        )
        assert status == 201, body
    folder = Path(tempfile.mkdtemp(prefix="wdn-load-"))
    repo = make_repo(folder)
    status, body = owner.request(
        "POST",
        base + "bisects/",
        {"repo": str(repo), "good": "good", "bad": "bad", "command": 'sleep 2; test "$(cat value)" -lt 40'},
    )
    print(f"bisect: {status} {body[:120]!r}", file=sys.stderr)

    timings: dict[str, list[float]] = {"timeline": [], "evidence": []}
    errors: dict[str, int] = {"timeline": 0, "evidence": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds

    def reader() -> None:
        session = Session(args.url, args.username, args.password)
        cursor = ""
        while time.monotonic() < deadline:
            for name, path in (
                ("timeline", base + "timeline/" + (f"?after={cursor}" if cursor else "")),
                ("evidence", base + "evidence/"),
            ):
                started = time.monotonic()
                try:
                    status, body = session.request("GET", path)
                except OSError:
                    status, body = 0, b""
                took = time.monotonic() - started
                with lock:
                    timings[name].append(took)
                    if status != 200:
                        errors[name] += 1
                if name == "timeline" and status == 200:
                    cursor = urllib.parse.quote(json.loads(body)["next"])
            time.sleep(1.0)  # the browser polls once a second

    threads = [threading.Thread(target=reader) for _ in range(args.readers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    print(f"{args.readers} readers for {args.seconds:.0f} s, while 2 captures are analysed and a bisect runs")
    print(f"{'endpoint':<10} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for name, values in timings.items():
        values.sort()
        p50 = statistics.median(values) * 1000
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))] * 1000
        print(f"{name:<10} {len(values):>9} {p50:>8.1f} {p99:>8.1f} {errors[name]:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
