"""`make dev`: the whole console — embedded services if needed, web, one Celery worker per queue, and beat.

Ctrl-C stops everything; data stays under .data/ for the next run.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from services import services

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "backend"
DATA = Path(os.environ.get("WHODUNNET_DATA_DIR", REPO / ".data"))
# Analyses are CPU-bound and short: one process per core. A bisect step runs a build or a benchmark that
# wants the machine to itself: one at a time unless the operator says otherwise.
DEFAULT_CONCURRENCY = {"analysis": 2, "bisect": 1}


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
    with services(DATA) as service_env:
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
        celery = [sys.executable, "-m", "celery", "-A", "config"]
        commands = {
            "web": [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"{host}:{port}",
                "--worker-class",
                "gthread",
                "--workers",
                "2",
                "--threads",
                "8",
                "--timeout",
                "120",
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
        processes = {
            name: subprocess.Popen(cmd, cwd=BACKEND, env=env, start_new_session=True) for name, cmd in commands.items()
        }
        print(
            f"\n  Whodunnet is running: http://{host}:{port}/\n  Sign in as demo / {password}\n"
            "  Ctrl-C stops everything; data is kept in .data/\n",
            flush=True,
        )
        stopping = False

        def stop(*_: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        while not stopping:
            for name, process in processes.items():
                if process.poll() is not None:
                    print(f"{name} exited with {process.returncode}; stopping the console", file=sys.stderr)
                    exit_code = 1
                    stopping = True
            time.sleep(0.3)
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for process in processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        print("stopped", flush=True)
        return exit_code


if __name__ == "__main__":
    sys.exit(main())
