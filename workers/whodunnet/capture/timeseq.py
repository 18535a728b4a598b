"""The time-sequence (Stevens) graph of one connection, by re-scanning its capture.

``time_sequence`` streams the file again and keeps only the chosen connection's segments,
so memory stays bounded by ``max_points`` whatever the connection's size: past it, every
other point is dropped and the stride doubles (retransmissions are always kept, up to
``max_points`` of them). Columns are parallel tuples, ready for uPlot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from whodunnet.capture.reader import CaptureReader
from whodunnet.capture.source import open_capture
from whodunnet.capture.tcp import HALF, M32, TH_ACK, TH_FIN, TH_RST, TH_SYN, WRAP, ConnectionScanner
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits

Sender = Literal["auto", "client", "server"]


@dataclass(frozen=True)
class TimeSequence:
    """One direction's data segments and the peer's ACK and window lines.

    Times are seconds since ``t0`` (the connection's first packet, epoch seconds);
    sequence numbers are relative to ``base_seq`` (the raw number of the sender's SYN, or
    one before its first segment). ``seg_*`` columns: one entry per data segment shown;
    ``ack_*`` columns: one per ACK from the receiver, with ``ack_window_edge`` = ack +
    advertised window (scaled when the handshake was captured).
    """

    connection: int
    sender: Literal["client", "server"]
    t0: float
    base_seq: int
    window_scale: int | None
    seg_time: tuple[float, ...]
    seg_seq: tuple[int, ...]
    seg_len: tuple[int, ...]
    seg_retransmission: tuple[bool, ...]
    ack_time: tuple[float, ...]
    ack_seq: tuple[int, ...]
    ack_window_edge: tuple[int, ...]
    segments_total: int
    acks_total: int
    #: Every ``stride``-th point is kept (1: all of them).
    stride: int
    error: str | None = None


class _Decimator:
    """Keeps every ``stride``-th point; halves the kept points when they pass ``cap``."""

    def __init__(self, cap: int) -> None:
        self.cap = max(2, cap)
        self.stride = 1
        self.seen = 0
        self.rows: list[tuple[float, int, int, bool]] = []

    def add(self, row: tuple[float, int, int, bool], *, keep: bool = False) -> None:
        self.seen += 1
        if keep or (self.seen - 1) % self.stride == 0:
            self.rows.append(row)
            if len(self.rows) > self.cap:
                self.stride *= 2
                self.rows = [r for i, r in enumerate(self.rows) if r[3] or i % 2 == 0]


def time_sequence(
    path: str | Path,
    connection_id: int,
    *,
    max_points: int = 20_000,
    sender: Sender = "auto",
    limits: Limits = DEFAULT_LIMITS,
) -> TimeSequence:
    """The Stevens graph of connection ``connection_id`` (its ``Connection.id``).

    ``sender`` picks the data direction; ``auto`` is the one that sent more payload.
    ``max_points`` bounds each of the segment and the ACK series.
    """
    # Per side: [base, highest end, isn seen, payload], client side, wscale per side
    sides: list[list[int]] = [[-1, 0, 0, 0], [-1, 0, 0, 0]]
    syn_side = [-1]
    wscale = [-1, -1]
    handshake = [False, False]
    segs = [_Decimator(max_points), _Decimator(max_points)]
    acks = [_Decimator(max_points), _Decimator(max_points)]
    t0: list[float] = []

    def on_segment(
        _i: int, d: int, _frame: int, ts: float, seq: int, ack: int, flags: int, win: int, payload: int, ws: int
    ) -> None:
        if not t0:
            t0.append(ts)
        s = sides[d]
        p = sides[1 - d]
        if s[0] == -1:
            s[0] = seq if flags & TH_SYN else (seq - 1) & M32
            s[1] = 0 if flags & TH_SYN else 1
        if flags & TH_SYN:
            wscale[d] = ws
            handshake[d] = True
            if not flags & TH_ACK:
                syn_side[0] = d
        rel = _unwrap((seq - s[0]) & M32, s[1])
        t = ts - t0[0]
        seglen = payload + (1 if flags & (TH_SYN | TH_FIN) else 0)
        if seglen and not flags & TH_RST:
            end = rel + seglen
            retrans = end <= s[1] and not flags & TH_SYN and not (payload <= 1 and rel == s[1] - 1)
            segs[d].add((t, rel, seglen, retrans), keep=retrans)
            if end > s[1]:
                s[1] = end
            s[3] += payload
        if flags & TH_ACK and p[0] != -1 and not flags & TH_RST:
            a = _unwrap((ack - p[0]) & M32, p[1])
            acks[d].add((t, a, max(win, 0), False))

    scanner = ConnectionScanner({connection_id}, on_segment)
    opened = open_capture(path, max_input_bytes=limits.max_input_bytes, guard=InflateGuard(limits))
    error = None
    try:
        CaptureReader(opened.stream, scanner, max_caplen=limits.max_caplen).read()
    except MalformedInput as exc:
        error = exc.message
    finally:
        opened.close()
    client = syn_side[0] if syn_side[0] >= 0 else 0
    by_role = client if sender == "client" else 1 - client
    d = (0 if sides[0][3] >= sides[1][3] else 1) if sender == "auto" else by_role
    # Windows are scaled only when both SYN and SYN-ACK offered a scale (RFC 7323).
    scale: int | None = None
    if handshake[0] and handshake[1]:
        scale = min(wscale[1 - d], 14) if wscale[0] >= 0 and wscale[1] >= 0 else 0
    seg_rows = segs[d].rows
    ack_rows = acks[1 - d].rows
    return TimeSequence(
        connection=connection_id,
        sender="client" if d == client else "server",
        t0=t0[0] if t0 else 0.0,
        base_seq=max(sides[d][0], 0),
        window_scale=scale,
        seg_time=tuple(r[0] for r in seg_rows),
        seg_seq=tuple(r[1] for r in seg_rows),
        seg_len=tuple(r[2] for r in seg_rows),
        seg_retransmission=tuple(r[3] for r in seg_rows),
        ack_time=tuple(r[0] for r in ack_rows),
        ack_seq=tuple(r[1] for r in ack_rows),
        ack_window_edge=tuple(r[1] + (r[2] << (scale or 0)) for r in ack_rows),
        segments_total=segs[d].seen,
        acks_total=acks[1 - d].seen,
        stride=max(segs[d].stride, acks[1 - d].stride),
        error=error,
    )


def _unwrap(rel: int, near: int) -> int:
    diff = (rel - near) & M32
    if diff >= HALF:
        diff -= WRAP
    return near + diff
