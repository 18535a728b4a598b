"""A real gunicorn web process for tests that send real HTTP bodies (curl, raw sockets), on the test database.

It runs with ``config/gunicorn.py``, the settings ``make dev`` and the containers use, so a test sees what a
client of the console sees: chunked bodies, cut-off connections, the idle timeout, the web workers' memory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.worker import BACKEND, test_database_url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WebProcess:
    """``gunicorn -c config/gunicorn.py`` on a spare port, in its own process group."""

    def __init__(self, *, evidence_dir: Path, log_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "WHODUNNET_EVIDENCE_DIR": str(evidence_dir),
            **(extra_env or {}),
        }
        self.log = log_dir / f"web-{time.monotonic_ns()}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WebProcess:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi",
                    "--config",
                    "config/gunicorn.py",
                    "--bind",
                    f"127.0.0.1:{self.port}",
                ],
                cwd=BACKEND,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.logs()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"gunicorn did not come up\n{self.logs()}")

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in children]

    def peak_rss(self) -> int:
        """The largest peak resident set (VmHWM) of the web workers so far, in bytes."""
        peaks = []
        for pid in self.worker_pids():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) * 1024)
        return max(peaks)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def logs(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""
