"""`make dev`: the whole console — embedded services if needed, web, one Celery worker per queue, and beat.

It supervises them: a component that dies (a worker killed by the OOM killer, the embedded broker) is started
again after a backoff (1 s, 2 s, 4 s … 30 s; back to 1 s once it has run for a minute), and the console says
so. Ctrl-C, or SIGINT/SIGTERM to this process's pid, stops everything: the Celery workers get a warm shutdown
(SIGTERM to their main process only: running tasks finish, none is taken) for up to
WHODUNNET_STOP_GRACE_SECONDS, then a cold one (their unacknowledged tasks go back to the broker, and the
reconciler re-queues any run left behind); a second Ctrl-C goes cold at once. Data stays under .data/.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from services import EmbeddedValkey, services

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "backend"
DATA = Path(os.environ.get("WHODUNNET_DATA_DIR", REPO / ".data"))
# Analyses are CPU-bound and short: one process per core. A bisect step runs a build or a benchmark that
# wants the machine to itself: one at a time unless the operator says otherwise.
DEFAULT_CONCURRENCY = {"analysis": 2, "bisect": 1}
BACKOFF_FIRST, BACKOFF_MAX, STABLE_AFTER = 1.0, 30.0, 60.0


def say(message: str) -> None:
    print(f"[dev] {message}", file=sys.stderr, flush=True)


class Component:
    """One supervised process: started again with a growing delay each time it dies while we are not stopping."""

    def __init__(self, name: str, start: Callable[[], subprocess.Popen[bytes]]) -> None:
        self.name = name
        self._start = start
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self.failures = 0
        self.restart_at: float | None = None

    def start(self) -> None:
        self.process = self._start()
        self.started_at = time.monotonic()
        self.restart_at = None

    def check(self, now: float) -> None:
        """Notice a death and schedule the restart; start it when its time has come."""
        if self.restart_at is not None:
            if now >= self.restart_at:
                say(f"starting {self.name} again")
                try:
                    self.start()
                except Exception as exc:  # e.g. the broker's port is still held; try again later
                    say(f"{self.name} did not start: {exc}")
                    self._schedule(now)
                    return
                # Only now: the broker's start() returns once it answers, so this line means it is reachable.
                assert self.process is not None
                say(f"{self.name} is running again (pid {self.process.pid})")
            return
        if self.process is None or self.process.poll() is None:
            return
        if now - self.started_at > STABLE_AFTER:
            self.failures = 0
        say(f"{self.name} (pid {self.process.pid}) exited with {self.process.returncode}")
        self._schedule(now)

    def _schedule(self, now: float) -> None:
        delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2**self.failures)
        self.failures += 1
        self.restart_at = now + delay
        say(f"restarting {self.name} in {delay:.0f} s (restart {self.failures})")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, signum: int) -> None:
        """To the main process only: a worker's pool children must not be signalled behind its back."""
        if self.alive and self.process is not None:
            os.kill(self.process.pid, signum)

    def kill_group(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def stop_grace() -> float:
    raw = os.environ.get("WHODUNNET_STOP_GRACE_SECONDS") or "60"
    try:
        return float(raw)
    except ValueError:
        sys.exit(f"WHODUNNET_STOP_GRACE_SECONDS must be a number of seconds, not {raw!r}")


def persistent_secret(path: Path, nbytes: int) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(nbytes))
        path.chmod(0o600)
    return path.read_text().strip()


def worker_queues() -> dict[str, tuple[str, ...]]:
    """Which queues each worker serves: backend/config/queues.py's WORKERS (read without starting Django)."""
    spec = importlib.util.spec_from_file_location("whodunnet_queues", BACKEND / "config" / "queues.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.WORKERS)


def concurrency(name: str) -> str:
    """A worker's process count from WHODUNNET_<NAME>_CONCURRENCY; a bad value stops here, naming it."""
    variable = f"WHODUNNET_{name.upper()}_CONCURRENCY"
    raw = os.environ.get(variable) or str(DEFAULT_CONCURRENCY.get(name, 1))
    if not raw.isdigit() or int(raw) < 1:
        sys.exit(f"{variable} must be a whole number of processes, at least 1, not {raw!r}")
    return raw


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=BACKEND, env=env, check=True)


def main() -> int:
    host = os.environ.get("WHODUNNET_HOST", "127.0.0.1")
    port = os.environ.get("WHODUNNET_PORT", "8000")
    password = persistent_secret(DATA / "demo_password", 9)
    workers = {name: (",".join(queues), concurrency(name)) for name, queues in worker_queues().items()}
    grace = stop_grace()
    stopping = 0

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping += 1
        if stopping == 1:
            say(f"{signal.Signals(signum).name}: stopping; running tasks may finish (again to stop at once)")

    # From the start, so a signal during migrations also stops cleanly (the services' context exits).
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    brokers: list[EmbeddedValkey] = []
    with services(DATA, broker=brokers) as service_env:
        env = {
            **os.environ,
            **service_env,
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or persistent_secret(DATA / "secret_key", 48),
            "WHODUNNET_EVIDENCE_DIR": os.environ.get("WHODUNNET_EVIDENCE_DIR", str(DATA / "evidence")),
            "PYTHONUNBUFFERED": "1",
        }
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "collectstatic", "--noinput", "-v", "0")
        manage(env, "ensure_member", "--username", "demo", "--password", password, "--team", "Demo", "--role", "owner")
        if os.environ.get("WHODUNNET_DEMO") == "1":  # `make demo`: the recorded incidents, analysed once workers run
            manage(env, "load_demo", "--folder", str(REPO / "demo"), "--username", "demo", "--team", "Demo")
        celery = [sys.executable, "-m", "celery", "-A", "config"]
        commands = {
            "web": [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--config",
                "config/gunicorn.py",
                "--bind",
                f"{host}:{port}",
                "--access-logfile",
                "-",
            ],
            **{
                f"worker-{name}": [
                    *celery,
                    "worker",
                    "--hostname",
                    f"{name}@%h",
                    "--queues",
                    queues,
                    "--concurrency",
                    slots,
                    "--loglevel",
                    "INFO",
                ]
                for name, (queues, slots) in workers.items()
            },
            "beat": [*celery, "beat", "--loglevel", "INFO", "--pidfile="],
        }

        def launcher(cmd: list[str]) -> Callable[[], subprocess.Popen[bytes]]:
            return lambda: subprocess.Popen(cmd, cwd=BACKEND, env=env, start_new_session=True)

        components = [Component(name, launcher(cmd)) for name, cmd in commands.items()]
        broker = [Component("broker", brokers[0].start)] if brokers else []
        if broker:
            broker[0].process = brokers[0].process
            broker[0].started_at = time.monotonic()
        for component in components:
            component.start()
        print(
            f"\n  Whodunnet is running: http://{host}:{port}/\n  Sign in as demo / {password}\n"
            f"  Ctrl-C (or kill -INT {os.getpid()}) stops everything; data is kept in {DATA}\n",
            flush=True,
        )
        while not stopping:
            now = time.monotonic()
            for component in [*broker, *components]:
                component.check(now)
            time.sleep(0.3)

        # Warm: SIGTERM to each main process. Gunicorn and beat stop at once; a Celery worker stops taking
        # tasks and waits for the running ones (acks_late: an unfinished one is redelivered, never lost).
        for component in components:
            component.signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        cold = False
        while any(c.alive for c in components):
            if not cold and (stopping > 1 or time.monotonic() > deadline):
                say("cold shutdown: workers stop their tasks now; the reconciler re-queues what they held")
                for component in components:
                    component.signal(signal.SIGQUIT)
                cold, deadline = True, time.monotonic() + 10
            elif cold and time.monotonic() > deadline:
                break
            time.sleep(0.2)
        for component in components:
            component.kill_group()  # whatever a component left behind in its session
        say("stopped")
        return 0


if __name__ == "__main__":
    sys.exit(main())
