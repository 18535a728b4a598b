"""`make dev`'s runner supervises the console: a killed worker or broker comes back, SIGTERM stops it warmly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped]
import pytest
import redis

from tests.outage import free_port

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.worker


class Runner:
    def __init__(self, data: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
        env.update(
            WHODUNNET_DATA_DIR=str(data),
            WHODUNNET_PORT=str(free_port()),
            WHODUNNET_ANALYSIS_CONCURRENCY="1",
            WHODUNNET_STOP_GRACE_SECONDS="20",
        )
        self.process = subprocess.Popen(
            [sys.executable, str(REPO / "scripts" / "dev.py")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    def wait_for_line(self, text: str, *, after: int = 0, timeout: float = 240) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, line in enumerate(self.lines[after:], start=after):
                if text in line:
                    return i
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"no line with {text!r}:\n" + "\n".join(self.lines[-60:]))

    def child(self, *words: str) -> psutil.Process:
        for proc in psutil.Process(self.process.pid).children(recursive=True):
            cmdline = " ".join(proc.cmdline())
            if all(word in cmdline for word in words) and proc.ppid() == self.process.pid:
                return proc
        raise AssertionError(f"no child of the runner with {words}")


def test_it_restarts_a_killed_worker_and_broker_and_stops_warmly_on_sigterm(tmp_path: Path) -> None:
    runner = Runner(tmp_path / "data")
    try:
        runner.wait_for_line("Whodunnet is running")
        worker = runner.child("worker", "analysis@")
        runner.wait_for_line("ready.", timeout=120)

        os.kill(worker.pid, signal.SIGKILL)  # what the OOM killer does
        seen = runner.wait_for_line("restarting worker-analysis in 1 s", timeout=30)
        runner.wait_for_line("worker-analysis is running again", after=seen, timeout=30)
        assert runner.child("worker", "analysis@").pid != worker.pid
        assert runner.process.poll() is None  # the rest of the console never stopped

        broker = runner.child("valkey")
        url = next(line.split()[-1] for line in runner.lines if "embedded Valkey broker:" in line)
        os.kill(broker.pid, signal.SIGKILL)
        seen = runner.wait_for_line("restarting broker in 1 s", timeout=30)
        runner.wait_for_line("broker is running again", after=seen, timeout=60)
        assert redis.Redis.from_url(url, socket_timeout=5).ping()  # same address: the workers reconnect

        mark = len(runner.lines)
        children = psutil.Process(runner.process.pid).children(recursive=True)
        runner.process.send_signal(signal.SIGTERM)  # to the runner's own pid, not its process group
        assert runner.process.wait(timeout=90) == 0
        runner.wait_for_line("stopped", after=mark, timeout=5)
        output = "\n".join(runner.lines[mark:])
        assert "Warm shutdown" in output
        assert "cold shutdown" not in output
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, [p.cmdline() for p in alive]
    finally:
        if runner.process.poll() is None:
            for proc in psutil.Process(runner.process.pid).children(recursive=True):
                proc.kill()
            runner.process.kill()
