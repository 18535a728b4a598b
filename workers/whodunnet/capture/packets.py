"""The packet list behind a finding: one connection's packets, a page at a time, read from the capture.

Analysis records a **packet index** (``Checkpoint`` rows): at every buffer refill of the
scan (every ``scanner.CHUNK`` bytes), the stream offset of the next unread packet, its packet
number and the time of the packet before it. A page is then a seek + a short scan: the
kernel reads the file from the checkpoint at or before the wanted packet (one chunk earlier
to warm up the connection's sequence tracking) behind the file's own header, traces every
connection, and the rows of the wanted connection are kept — numbers, times, flags and the
connection table's classification (retransmission, keep-alive, SYN retry, duplicate …).
Sequence and acknowledgement numbers are made relative to the connection's bases from the
full analysis, so they match the connection view whatever the scan started from.

A compressed capture cannot be sought: it has no index and a page scans from the start.

``write_pcap`` streams the same packets as a classic pcap file (for a pcap input: the
records as captured; for pcapng: rebuilt from the packet blocks).
"""

from __future__ import annotations

import contextlib
import ipaddress
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

import numpy as np

from whodunnet.capture.constants import (
    SEG_DUPLICATE,
    SEG_KEEPALIVE,
    SEG_OUT_OF_ORDER,
    SEG_RESET,
    SEG_RETRANSMISSION,
    SEG_SYN_RETRY,
)
from whodunnet.capture.source import open_capture
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits

if TYPE_CHECKING:
    from whodunnet.capture.scanner import Scanner

#: Most packets in one page of the API (the pcap export asks for up to ``MAX_EXPORT`` at once).
MAX_PAGE = 1000
MAX_EXPORT = 200_000
#: TCP flag bits, lowest first, as Wireshark names them.
FLAG_NAMES = ("FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR", "AE")
ANNOTATIONS = {
    SEG_SYN_RETRY: "SYN retry",
    SEG_KEEPALIVE: "keep-alive",
    SEG_OUT_OF_ORDER: "out of order",
    SEG_RETRANSMISSION: "retransmission",
    SEG_DUPLICATE: "duplicate",
}
PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"


@dataclass(frozen=True)
class Checkpoint:
    """Where packet ``frame + 1`` starts: byte ``offset`` of the file; ``time`` of packet ``frame``."""

    offset: int
    frame: int
    time: float


@dataclass(frozen=True)
class Endpoints:
    """The connection whose packets are listed, and its sequence bases (raw, -1 unknown)."""

    client_ip: str
    client_port: int
    server_ip: str
    server_port: int
    client_base: int = -1
    server_base: int = -1


@dataclass(frozen=True)
class PacketRow:
    number: int
    time: float
    src: str
    dst: str
    flags: tuple[str, ...]
    seq: int
    ack: int | None
    length: int
    window: int | None
    annotations: tuple[str, ...]
    from_client: bool


@dataclass(frozen=True)
class PacketPage:
    packets: tuple[PacketRow, ...]
    #: The packet number to ask for next (None: the connection or time range has no more).
    next_from: int | None
    #: Packets the scan read for this page (the cost of the page).
    scanned: int
    error: str | None = None


class IndexRecorder:
    """Collects checkpoints while ``scanner`` runs (pass ``record`` as its ``on_chunk``)."""

    def __init__(self) -> None:
        self.scanner: Scanner | None = None
        self.checkpoints: list[Checkpoint] = []

    def record(self) -> None:
        sc = self.scanner
        if sc is None:
            return
        frame = int(sc.state.g.frames)
        if self.checkpoints and self.checkpoints[-1].frame == frame:
            return
        self.checkpoints.append(Checkpoint(int(sc._base), frame, float(sc.state.packet[0].ts)))


def index_to_json(checkpoints: list[Checkpoint]) -> list[list[float]]:
    return [[c.offset, c.frame, c.time] for c in checkpoints]


def index_from_json(rows: Any) -> list[Checkpoint]:
    return [Checkpoint(int(r[0]), int(r[1]), float(r[2])) for r in rows or ()]


def _header(f: BinaryIO) -> bytes:
    """The bytes a scan started mid-file needs first: pcap's file header, or pcapng's
    section header and the interface blocks before the first packet block."""
    f.seek(0)
    head = f.read(24)
    if head[:4] in PCAP_MAGICS:
        return head
    if head[:4] != PCAPNG_MAGIC:
        raise ValueError("not a pcap or pcapng file")
    order = "<" if head[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    f.seek(0)
    out = b""
    while True:
        top = f.read(8)
        if len(top) < 8:
            return out
        kind, length = struct.unpack(order + "II", top)
        if kind in (2, 3, 6) or length < 12:
            return out
        out += top + f.read(length - 8)


class _Spliced:
    """``header`` then the file from ``offset``: what the kernel reads for a mid-file scan."""

    def __init__(self, header: bytes, f: BinaryIO, offset: int) -> None:
        self._head = header
        self._f = f
        f.seek(offset)

    def read(self, n: int, /) -> bytes:
        if self._head:
            out, self._head = self._head[:n], self._head[n:]
            return out
        return self._f.read(n)

    def readinto(self, view: memoryview, /) -> int:
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._f.readinto(view)  # type: ignore[attr-defined, no-any-return]


def trace_all() -> Any:
    """A scan's state that traces every connection (the partial scan numbers them afresh) until ``only(row)``
    narrows it to one."""
    from whodunnet.capture.scanner import CaptureState

    class TraceAll(CaptureState):
        everything = True

        def grow_conns(self) -> None:
            super().grow_conns()
            if self.everything:
                self.want[:] = True

        def only(self, row: int) -> None:
            """Trace connection ``row`` alone from now on."""
            self.everything = False
            self.traced = {row}
            self.want[:] = False
            self.want[row] = True

    state = TraceAll(trace=True)
    state.want[:] = True
    return state


class Enough(Exception):
    """Raised by a partial scan's row handler: what it wanted has been read."""


def _split(ip: str) -> tuple[int, int]:
    value = int(ipaddress.ip_address(ip))
    return value >> 64, value & ((1 << 64) - 1)


def _ip(hi: int, lo: int, v6: bool) -> str:
    return str(ipaddress.IPv6Address((hi << 64) | lo) if v6 else ipaddress.IPv4Address(lo & 0xFFFFFFFF))


def directions(rows: Any, conn: Endpoints) -> tuple[Any, Any]:
    """Which traced packets ``rows`` go from ``conn``'s client to its server, and which the other way."""
    c_hi, c_lo = _split(conn.client_ip)
    s_hi, s_lo = _split(conn.server_ip)
    sport, dport = np.asarray(rows["sport"]), np.asarray(rows["dport"])
    shi, slo = np.asarray(rows["src_hi"]), np.asarray(rows["src_lo"])
    dhi, dlo = np.asarray(rows["dst_hi"]), np.asarray(rows["dst_lo"])
    c2s = (shi == c_hi) & (slo == c_lo) & (sport == conn.client_port)
    c2s &= (dhi == s_hi) & (dlo == s_lo) & (dport == conn.server_port)
    s2c = (shi == s_hi) & (slo == s_lo) & (sport == conn.server_port)
    s2c &= (dhi == c_hi) & (dlo == c_lo) & (dport == conn.client_port)
    return c2s, s2c


def _start(index: list[Checkpoint], frame: int) -> Checkpoint:
    """The last checkpoint before packet ``frame`` (the file's start without one)."""
    best = Checkpoint(0, 0, 0.0)
    for c in index:
        if c.frame < frame:
            best = c
        else:
            break
    return best


def _opened(stack: contextlib.ExitStack, capture: str | Path | BinaryIO) -> BinaryIO:
    """The capture as a seekable binary file: a path is opened (and closed with ``stack``); a file object, such
    as an object store's ranged reader, is used as it is (its owner closes it)."""
    if isinstance(capture, (str, Path)):
        return stack.enter_context(open(capture, "rb"))
    return capture


def scan_rows(
    capture: str | Path | BinaryIO,
    index: list[Checkpoint],
    first: int,
    on_rows: Any,
    limits: Limits,
    state: Any = None,
    until: int | None = None,
) -> tuple[int, str | None, Any]:
    """Trace every packet (or what ``state``, a ``trace_all()``, asks for) from the checkpoint before ``first``
    (file numbering); ``on_rows(rows, frame0)`` may raise ``Enough`` to stop, and the scan stops by itself once
    it has read past packet ``until`` (the rows traced by then are handed on first). Returns the first packet's
    number, the error that stopped the scan, and the scan's state (its connections numbered afresh from that
    checkpoint)."""
    from whodunnet.capture.scanner import Scanner
    from whodunnet.errors import MalformedInput

    start = _start(index, first)
    with contextlib.ExitStack() as stack:
        if start.offset:
            f = _opened(stack, capture)
            stream: Any = _Spliced(_header(f), f, start.offset)
        else:  # from the start: also a compressed capture
            if not isinstance(capture, (str, Path)):
                capture.seek(0)
            opened = open_capture(capture, max_input_bytes=limits.max_input_bytes, guard=InflateGuard(limits))
            stack.callback(opened.close)
            stream = opened.stream

        def past_until() -> None:
            if until is not None and start.frame + int(scanner.state.g.frames) >= until:
                raise Enough

        scanner = Scanner(stream, max_caplen=limits.max_caplen, on_chunk=past_until)
        scanner.state = state if state is not None else trace_all()
        scanner._on_trace = lambda rows: on_rows(rows, start.frame)
        try:
            scanner.run()
        except Enough:
            pass
        except MalformedInput as exc:
            return start.frame, exc.message, scanner.state
    return start.frame, None, scanner.state


def read_page(
    capture: str | Path | BinaryIO,
    index: list[Checkpoint],
    conn: Endpoints,
    *,
    first_packet: int,
    last_packet: int,
    start: int = 1,
    time_from: float | None = None,
    time_to: float | None = None,
    limit: int = 100,
    warm_packets: int = 50_000,
    limits: Limits = DEFAULT_LIMITS,
) -> PacketPage:
    """Up to ``limit`` packets of ``conn`` from packet number ``start`` (within the connection's
    ``first_packet``..``last_packet`` and the time range, both ends included)."""
    limit = max(1, limit)
    start = max(start, first_packet)
    if start > last_packet:
        return PacketPage((), None, 0)
    v6 = ":" in conn.client_ip
    kept: list[PacketRow] = []
    state = {"scanned": 0, "done": False, "next": None}

    def rel(raw: int, base: int) -> int:
        return (raw - base) % (1 << 32) if base >= 0 else raw

    def on_rows(rows: Any, frame0: int) -> None:
        if state["done"] or not len(rows):
            return
        frame = np.asarray(rows["frame"]) + frame0
        state["scanned"] = int(frame[-1]) - frame0
        ts = np.asarray(rows["ts"])
        sport, dport = np.asarray(rows["sport"]), np.asarray(rows["dport"])
        shi, slo = np.asarray(rows["src_hi"]), np.asarray(rows["src_lo"])
        dhi, dlo = np.asarray(rows["dst_hi"]), np.asarray(rows["dst_lo"])
        c2s, s2c = directions(rows, conn)
        keep = (c2s | s2c) & (frame >= start) & (frame <= last_packet)
        if time_from is not None:
            keep &= ts >= time_from
        if time_to is not None:
            keep &= ts <= time_to
        for i in np.flatnonzero(keep):
            if len(kept) == limit:
                state["next"] = int(frame[i])
                break
            r = rows[i]
            from_client = bool(c2s[i])
            flags = int(r["tcp_flags"])
            names = tuple(n for bit, n in enumerate(FLAG_NAMES) if flags >> bit & 1)
            kind = int(r["kind"])
            notes = [ANNOTATIONS[kind]] if kind in ANNOTATIONS else []
            if kind == SEG_SYN_RETRY and flags & 0x12 == 0x12:
                notes = ["SYN-ACK retry"]
            win = int(r["win"])
            if win == 0 and kind != SEG_RESET and not flags & 0x04:
                notes.append("zero window")
            mine, peer = (conn.client_base, conn.server_base) if from_client else (conn.server_base, conn.client_base)
            has_ack = bool(flags & 0x10)
            kept.append(
                PacketRow(
                    number=int(frame[i]),
                    time=float(ts[i]),
                    src=f"{_ip(int(shi[i]), int(slo[i]), v6)}:{int(sport[i])}",
                    dst=f"{_ip(int(dhi[i]), int(dlo[i]), v6)}:{int(dport[i])}",
                    flags=names,
                    seq=rel(int(r["seq"]), mine),
                    ack=rel(int(r["ack"]), peer) if has_ack else None,
                    length=int(r["payload"]),
                    window=win if win >= 0 else None,
                    annotations=tuple(notes),
                    from_client=from_client,
                )
            )
        past_time = time_to is not None and float(ts[-1]) > time_to
        if len(kept) == limit and state["next"] is None:
            # the page is full: the next one starts after its last packet
            state["next"] = kept[-1].number + 1
        if state["next"] is not None or int(frame[-1]) >= last_packet or past_time:
            state["done"] = True
            raise Enough

    _, error, _ = scan_rows(capture, index, max(first_packet, start - warm_packets), on_rows, limits)
    nxt = state["next"]
    if isinstance(nxt, int) and nxt > last_packet:
        nxt = None
    return PacketPage(tuple(kept), nxt if isinstance(nxt, int) else None, int(state["scanned"] or 0), error)


def _records(f: BinaryIO, header: bytes, start: Checkpoint) -> Iterator[tuple[int, bytes, bytes]]:
    """(packet number, pcap record header, data) of a classic pcap file from ``start``."""
    order = PCAP_MAGICS[header[:4]]
    f.seek(start.offset or 24)
    frame = start.frame
    while True:
        rec = f.read(16)
        if len(rec) < 16:
            return
        caplen = struct.unpack(order + "I", rec[8:12])[0]
        data = f.read(caplen)
        frame += 1
        yield frame, rec, data


def write_pcap(capture: str | Path | BinaryIO, index: list[Checkpoint], numbers: list[int], out: IO[bytes]) -> int:
    """Write the packets numbered ``numbers`` (sorted) as a pcap file to ``out``; returns how many.

    A pcap input keeps its own header and records; a pcapng input's packet blocks are
    rebuilt as pcap records (times from the traced rows, link type of the first interface).
    """
    if not numbers:
        return 0
    wanted = set(numbers)
    last = numbers[-1]
    written = 0
    with contextlib.ExitStack() as stack:
        f = _opened(stack, capture)
        header = _header(f)
        if header[:4] in PCAP_MAGICS:
            out.write(header)
            for frame, rec, data in _records(f, header, _start(index, numbers[0])):
                if frame in wanted:
                    out.write(rec + data)
                    written += 1
                if frame >= last:
                    break
            return written
        return _write_from_pcapng(f, header, index, numbers, out)


def _write_from_pcapng(f: BinaryIO, header: bytes, index: list[Checkpoint], numbers: list[int], out: IO[bytes]) -> int:
    order = "<" if header[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    link, snap = 1, 262144
    pos = 0
    while pos + 8 <= len(header):
        kind, length = struct.unpack(order + "II", header[pos : pos + 8])
        if kind == 1:
            link = struct.unpack(order + "H", header[pos + 8 : pos + 10])[0]
            break
        pos += length
    out.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, snap, link))
    wanted = set(numbers)
    start = _start(index, numbers[0])
    f.seek(start.offset or len(header))
    frame = start.frame
    written = 0
    while frame < numbers[-1]:
        top = f.read(8)
        if len(top) < 8:
            break
        kind, length = struct.unpack(order + "II", top)
        body = f.read(length - 8)
        if kind not in (2, 3, 6):
            continue
        frame += 1
        if frame not in wanted:
            continue
        if kind == 3:
            wire = struct.unpack(order + "I", body[:4])[0]
            data, ts_hi, ts_lo = body[4 : 4 + min(wire, len(body) - 8)], 0, 0
        else:
            ts_hi, ts_lo, cap, wire = struct.unpack(order + "IIII", body[4:20])
            data = body[20 : 20 + cap]
        # if_tsresol is taken as microseconds: nanosecond output keeps them exact
        micros = (ts_hi << 32) | ts_lo
        out.write(struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000 * 1000, len(data), wire) + data)
        written += 1
    return written
