"""A network namespace standing for another machine: one veth link to this host, over which the host forwards
only the ports it is given (PostgreSQL's socket is a file and needs no port). Needs root and ``ip``."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass


def missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    return None if shutil.which("ip") else "needs the ip command (iproute2)"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


class Forwarder:
    """Accepts on ``listen`` and copies bytes both ways to ``target`` (one thread per direction)."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.create_server(listen)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(1 << 16):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.server.close()


@dataclass
class Namespace:
    name: str
    host_ip: str  # this host, as the namespace reaches it

    @property
    def prefix(self) -> tuple[str, ...]:
        return ("ip", "netns", "exec", self.name)


@contextlib.contextmanager
def isolated(ports: list[int]) -> Iterator[Namespace]:
    """A namespace whose only way out is a veth link to this host, where only ``ports`` lead anywhere (to the
    services on 127.0.0.1). Removed on exit, also after a failure."""
    tag = uuid.uuid4().hex[:6]
    name, host_if, ns_if = f"wdn-s3-{tag}", f"wdh{tag}", f"wdn{tag}"
    net = f"10.{random.randint(64, 250)}.{random.randint(0, 250)}"
    host_ip, ns_ip = f"{net}.1", f"{net}.2"
    forwarders: list[Forwarder] = []
    _ip("netns", "add", name)
    try:
        _ip("link", "add", host_if, "type", "veth", "peer", "name", ns_if)
        _ip("link", "set", ns_if, "netns", name)
        _ip("addr", "add", f"{host_ip}/30", "dev", host_if)
        _ip("link", "set", host_if, "up")
        _ip("-n", name, "addr", "add", f"{ns_ip}/30", "dev", ns_if)
        _ip("-n", name, "link", "set", ns_if, "up")
        _ip("-n", name, "link", "set", "lo", "up")
        forwarders = [Forwarder((host_ip, port), ("127.0.0.1", port)) for port in ports]
        yield Namespace(name=name, host_ip=host_ip)
    finally:
        for forwarder in forwarders:
            forwarder.close()
        subprocess.run(["ip", "link", "del", host_if], check=False, capture_output=True)
        subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
