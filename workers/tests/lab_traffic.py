"""Traffic for the network-lab tests, run inside a namespace: ``python lab_traffic.py ROLE ...``.

Servers (run in the background until killed)::

    server bulk PORT           send zeros as fast as the peer reads, until it goes away
    server rr PORT SIZE        answer every 100-byte request with SIZE bytes
    server echo1 PORT          answer every byte with one byte (netperf TCP_RR's 1-byte default; also: rr1)
Clients (print one line and exit)::

    client deadline HOST PORT N RCVBUF SECONDS   N connections with SO_RCVBUF, each reading
                                                 until SECONDS after its connect, then FIN
    client connect HOST PORT N                   N short connections: connect, 1 request, close
    client rr HOST PORT N ROUNDS SIZE            N connections x ROUNDS request/responses
    client crr HOST PORTS N THREADS CSV          N short connections (PORTS comma-separated, in turn),
                                                 each connect + one-byte request/response + close, from
                                                 THREADS threads; each one's time written to CSV
    client rr1 HOST PORT ROUNDS [CSV]            one connection, ROUNDS one-byte request/responses; with CSV,
                                                 each one's latency written there (time,latency_ms)
    client keepalive HOST PORT SECONDS           one idle connection with SO_KEEPALIVE, probes every 1 s
"""

from __future__ import annotations

import socket
import sys
import threading
import time

REQUEST = b"q" * 100


def server_bulk(port: int) -> None:
    ls = socket.create_server(("0.0.0.0", port), backlog=64)
    chunk = bytes(65536)

    def feed(conn: socket.socket) -> None:
        try:
            while True:
                conn.sendall(chunk)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = ls.accept()
        threading.Thread(target=feed, args=(conn,), daemon=True).start()


def server_rr(port: int, size: int) -> None:
    ls = socket.create_server(("0.0.0.0", port), backlog=64)
    answer = b"r" * size

    def serve(conn: socket.socket) -> None:
        try:
            while True:
                got = b""
                while len(got) < len(REQUEST):
                    data = conn.recv(len(REQUEST) - len(got))
                    if not data:
                        return
                    got += data
                conn.sendall(answer)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def server_echo1(port: int) -> None:
    ls = socket.create_server(("0.0.0.0", port), backlog=64)

    def serve(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while data := conn.recv(1):
                conn.sendall(data)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def client_deadline(host: str, port: int, n: int, rcvbuf: int, seconds: float) -> None:
    got = [0] * n

    def one(i: int) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.connect((host, port))
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            s.settimeout(left)
            try:
                data = s.recv(65536)
            except TimeoutError:
                break
            if not data:
                break
            got[i] += len(data)
        # The application gives up: FIN first (as a close with an empty queue would), then
        # close with whatever arrived since, so later data is answered with RST.
        s.shutdown(socket.SHUT_WR)
        s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(" ".join(map(str, got)))


def client_connect(host: str, port: int, n: int) -> None:
    def one() -> None:
        with socket.create_connection((host, port), timeout=10) as s:
            s.sendall(REQUEST)
            s.recv(65536)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("ok")


def client_rr(host: str, port: int, n: int, rounds: int, size: int) -> None:
    def one() -> None:
        with socket.create_connection((host, port), timeout=10) as s:
            for _ in range(rounds):
                s.sendall(REQUEST)
                left = size
                while left:
                    data = s.recv(min(left, 65536))
                    if not data:
                        raise ConnectionError("server closed")
                    left -= len(data)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("ok")


def client_rr1(host: str, port: int, rounds: int, out: str | None = None) -> None:
    """netperf TCP_RR with its defaults: one byte each way, the next request after each answer."""
    rows = ["time,latency_ms"]
    with socket.create_connection((host, port), timeout=30) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(rounds):
            started = time.time()
            s.sendall(b"x")
            if not s.recv(1):
                raise ConnectionError("server closed")
            rows.append(f"{started:.6f},{(time.time() - started) * 1000:.3f}")
    if out:
        with open(out, "w") as f:
            f.write("\n".join(rows) + "\n")
    print("ok")


def client_keepalive(host: str, port: int, seconds: float) -> None:
    """An idle connection whose kernel sends keep-alive probes after 1 s of silence, every 1 s."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
        s.sendall(b"x")
        s.recv(1)
        time.sleep(seconds)
    print("ok")


def client_crr(host: str, ports: list[int], n: int, threads: int, out: str) -> None:
    rows: list[str] = []
    lock = threading.Lock()
    todo = iter(range(n))

    def work() -> None:
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            started = time.time()
            error = ""
            try:
                with socket.create_connection((host, ports[i % len(ports)]), timeout=10) as s:
                    s.sendall(b"q")
                    s.recv(1)
            except OSError as exc:
                error = type(exc).__name__
            with lock:
                rows.append(f"{started:.6f},{(time.time() - started) * 1000:.3f},{error}")

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    with open(out, "w") as f:
        f.write("time,latency_ms,error\n" + "\n".join(sorted(rows)) + "\n")
    print("ok")


def main() -> None:
    role, kind, *rest = sys.argv[1:]
    if role == "server" and kind == "bulk":
        server_bulk(int(rest[0]))
    elif role == "server" and kind == "rr":
        server_rr(int(rest[0]), int(rest[1]))
    elif role == "server" and kind in ("echo1", "rr1"):
        server_echo1(int(rest[0]))
    elif role == "client" and kind == "crr":
        client_crr(rest[0], [int(p) for p in rest[1].split(",")], int(rest[2]), int(rest[3]), rest[4])
    elif role == "client" and kind == "rr1":
        client_rr1(rest[0], int(rest[1]), int(rest[2]), rest[3] if len(rest) > 3 else None)
    elif role == "client" and kind == "keepalive":
        client_keepalive(rest[0], int(rest[1]), float(rest[2]))
    elif role == "client" and kind == "deadline":
        client_deadline(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), float(rest[4]))
    elif role == "client" and kind == "connect":
        client_connect(rest[0], int(rest[1]), int(rest[2]))
    elif role == "client" and kind == "rr":
        client_rr(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), int(rest[4]))
    else:
        raise SystemExit(f"unknown: {role} {kind}")


if __name__ == "__main__":
    main()
