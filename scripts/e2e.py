"""`make e2e`: start the whole console on a spare port, add the test users, run the Playwright tests.

Runs inside `scripts/services.py run`, so DATABASE_URL and CELERY_BROKER_URL point at fresh
embedded servers (or at the ones the environment gives).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "backend"
DATA = REPO / ".data" / "e2e"

USERS = [
    ("olive", "olive-e2e-pw", "Edge", "owner"),
    ("tom", "tom-e2e-pw", "Edge", "member"),
    ("oscar", "oscar-e2e-pw", "Payments", "owner"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the console exited with {process.returncode} before it came up")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 500:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the console did not come up at {url} within {timeout} s")


def main() -> int:
    port = free_port()
    env = {
        **os.environ,
        "WHODUNNET_DATA_DIR": str(DATA),
        "WHODUNNET_PORT": str(port),
        "WHODUNNET_EVIDENCE_DIR": str(DATA / "evidence"),
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BACKEND, env=env, check=True)
    for username, password, team, role in USERS:
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "ensure_member",
                "--username",
                username,
                "--password",
                password,
                "--team",
                team,
                "--role",
                role,
            ],
            cwd=BACKEND,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    with open(DATA / "console.log", "wb") as log:
        console = subprocess.Popen(
            [sys.executable, str(REPO / "scripts" / "dev.py")],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base_url + "/api/auth/csrf/", console)
        result = subprocess.run(
            # E2E_TESTS narrows the run to some files under e2e/ (space-separated): "tests/host-evidence.test.mjs".
            [
                "node",
                "--test",
                "--test-concurrency=1",
                "--test-timeout=180000",
                *os.environ.get("E2E_TESTS", "tests/").split(),
            ],
            cwd=REPO / "e2e",
            env={**env, "E2E_BASE_URL": base_url, "E2E_ARTIFACTS": str(REPO / "e2e" / "test-results")},
            check=False,
        )
        return result.returncode
    finally:
        os.killpg(console.pid, signal.SIGINT)
        try:
            console.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(console.pid, signal.SIGKILL)
        if os.environ.get("CI"):
            print((DATA / "console.log").read_text(errors="replace")[-3000:])


if __name__ == "__main__":
    sys.exit(main())
