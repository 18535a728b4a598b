"""Real Celery worker processes for tests that cross the broker, pointed at the test database.

Each serves the queues of one entry of ``config.queues.WORKERS`` ("analysis" or "bisect"), as in production.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from django.db import connection

from config.queues import WORKERS

BACKEND = Path(__file__).resolve().parent.parent


def test_database_url() -> str:
    db: dict[str, Any] = connection.settings_dict
    host = quote(db.get("HOST") or "", safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{host}{port}/{db['NAME']}"


class WorkerProcess:
    """``celery worker`` for the queues of ``WORKERS[kind]``, in its own process group (a test can SIGKILL it)."""

    def __init__(
        self,
        *,
        kind: str,
        evidence_dir: Path,
        log_dir: Path,
        extra_env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.prefix = prefix  # e.g. ("ip", "netns", "exec", NAME): the worker runs inside that namespace
        self.env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "WHODUNNET_EVIDENCE_DIR": str(evidence_dir),
            "WHODUNNET_RUN_STALE_SECONDS": "3",
            **(extra_env or {}),
        }
        self.log_dir = log_dir
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        name = f"{self.kind}-test-{uuid.uuid4().hex[:8]}@%h"
        with open(self.log_dir / f"worker-{time.monotonic_ns()}.log", "wb") as log:
            self.process = subprocess.Popen(
                [
                    *self.prefix,
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--queues",
                    ",".join(WORKERS[self.kind]),
                    "--concurrency",
                    "1",
                    "--pool",
                    "prefork",
                    "--without-mingle",
                    "--without-gossip",
                    "--loglevel",
                    "INFO",
                    "--hostname",
                    name,
                ],
                cwd=BACKEND,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.log_dir.glob("worker-*.log")))

    def count(self, pattern: str) -> int:
        """How many lines of this worker's whole log match ``pattern`` (a regular expression)."""
        found = re.compile(pattern)
        return sum(
            1
            for p in self.log_dir.glob("worker-*.log")
            for line in p.read_text(errors="replace").splitlines()
            if found.search(line)
        )

    def wait_ready(self, timeout: float = 120) -> WorkerProcess:
        """Wait until Celery says the worker consumes (its ``worker_ready`` handlers have run by then)."""
        wait_for(
            lambda: self.count(r"@\S+ ready\.$"), timeout=timeout, what=f"the {self.kind} worker to start", worker=self
        )
        return self


class HasLogs(Protocol):
    """A process a test started whose logs explain a timeout (a worker, a web server)."""

    def logs(self) -> str: ...


def wait_for(predicate: Any, *, timeout: float, what: str, worker: HasLogs | None = None, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    logs = worker.logs() if worker else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{logs}")
