"""Traffic for the benchmark's capture shapes, run inside a lab namespace: ``python traffic.py ROLE ...``.

    serve RR_PORT BULK_PORT SIZE           answer each 100-byte request on RR_PORT with SIZE bytes;
                                           send zeros on BULK_PORT until the peer goes away
    bulk HOST PORT FLOWS SECONDS           FLOWS parallel connections reading for SECONDS
    short HOST PORT N CONCURRENCY PROCS SIZE
                                           N short connections (connect, one request and its
                                           SIZE-byte answer, close), CONCURRENCY at a time in each
                                           of PROCS processes; prints how many completed and failed

The short-connection client is what a connection-per-request service sees: a new connection
for every request, closed by the client (so the client's side holds TIME_WAIT; the lab sets
``tcp_tw_reuse`` and a wide port range in the client's namespace).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time

REQUEST = b"q" * 100


async def _serve(rr_port: int, bulk_port: int, size: int) -> None:
    answer = b"r" * size
    chunk = bytes(65536)

    async def rr(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await reader.readexactly(len(REQUEST))
                writer.write(answer)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def bulk(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                writer.write(chunk)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    servers = [
        await asyncio.start_server(rr, "0.0.0.0", rr_port, backlog=4096),
        await asyncio.start_server(bulk, "0.0.0.0", bulk_port, backlog=64),
    ]
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


def bulk(host: str, port: int, flows: int, seconds: float) -> None:
    until = time.monotonic() + seconds

    def one() -> None:
        with socket.create_connection((host, port)) as s:
            s.settimeout(1)
            while time.monotonic() < until:
                try:
                    if not s.recv(1 << 20):
                        return
                except TimeoutError:
                    continue

    threads = [threading.Thread(target=one) for _ in range(flows)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("done", flush=True)


async def _short(host: str, port: int, n: int, concurrency: int, size: int) -> tuple[int, int]:
    done = failed = 0
    left = n

    async def worker() -> None:
        nonlocal done, failed, left
        while left > 0:
            left -= 1
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
                writer.write(REQUEST)
                await asyncio.wait_for(reader.readexactly(size), 10)
                writer.close()
                done += 1
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                failed += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done, failed


def short(host: str, port: int, n: int, concurrency: int, procs: int, size: int) -> None:
    children = []
    for i in range(procs):
        share = n // procs + (1 if i < n % procs else 0)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            ok, bad = asyncio.run(_short(host, port, share, concurrency, size))
            os.write(w, f"{ok} {bad}".encode())
            os._exit(0)
        os.close(w)
        children.append((pid, r))
    ok = bad = 0
    for pid, r in children:
        with os.fdopen(r) as f:
            a, b = f.read().split()
        os.waitpid(pid, 0)
        ok, bad = ok + int(a), bad + int(b)
    print(f"{ok} {bad}", flush=True)


def main() -> None:
    role, *rest = sys.argv[1:]
    if role == "serve":
        asyncio.run(_serve(int(rest[0]), int(rest[1]), int(rest[2])))
    elif role == "bulk":
        bulk(rest[0], int(rest[1]), int(rest[2]), float(rest[3]))
    elif role == "short":
        short(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), int(rest[4]), int(rest[5]))
    else:
        raise SystemExit(f"unknown role {role}")


if __name__ == "__main__":
    main()
