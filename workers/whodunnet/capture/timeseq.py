"""The time-sequence (Stevens) graph of one connection, by re-scanning its capture.

``time_sequence`` streams the file again through the kernel, tracing only the chosen
connection's segments (as the connection table classified them), so memory stays bounded by
``max_points`` whatever the connection's size: past it, every other point is dropped and the
stride doubles (retransmissions are always kept, up to ``max_points`` of them). Columns are
parallel tuples, ready for uPlot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from whodunnet.capture.connections import client_sides
from whodunnet.capture.constants import NO_ACK, SEG_RESET, SEG_RETRANSMISSION
from whodunnet.limits import DEFAULT_LIMITS, Limits

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
    from whodunnet.capture.scanner import trace

    segs = [_Decimator(max_points), _Decimator(max_points)]
    acks = [_Decimator(max_points), _Decimator(max_points)]
    t0: list[float] = []
    names = ("side", "ts", "rel_seq", "seglen", "kind", "rel_ack", "win")

    def on_rows(rows: Any) -> None:
        if not t0 and len(rows):
            t0.append(float(rows.ts[0]))
        for d, ts, rel, seglen, kind, ack, win in zip(*(rows[n].tolist() for n in names), strict=True):
            t = ts - t0[0]
            if seglen and kind != SEG_RESET:
                retrans = kind == SEG_RETRANSMISSION
                segs[d].add((t, rel, seglen, retrans), keep=retrans)
            if ack != NO_ACK:
                acks[d].add((t, ack, max(win, 0), False))

    state, error = trace(path, {connection_id}, on_rows, limits=limits)
    d = 0
    client = 0
    scale: int | None = None
    base = 0
    if 0 <= connection_id < state.n:
        conn = state.conns[connection_id : connection_id + 1]
        sides = state.sides[2 * connection_id : 2 * connection_id + 2]
        client = int(client_sides(conn, sides)[0][0])
        by_role = client if sender == "client" else 1 - client
        d = (0 if sides.payload[0] >= sides.payload[1] else 1) if sender == "auto" else by_role
        # Windows are scaled only when both SYN and SYN-ACK offered a scale (RFC 7323).
        scale = int(conn.scale[0][1 - d]) if conn.scale_known[0] else None
        base = max(int(sides.seq_base[d]), 0)
    seg_rows = segs[d].rows
    ack_rows = acks[1 - d].rows
    return TimeSequence(
        connection=connection_id,
        sender="client" if d == client else "server",
        t0=t0[0] if t0 else 0.0,
        base_seq=base,
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
