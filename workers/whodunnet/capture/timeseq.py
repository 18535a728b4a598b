"""The time-sequence (Stevens) graph of one connection, by re-scanning its capture.

``time_sequence`` streams the file again through the kernel, tracing only the chosen
connection's segments (as the connection table classified them), so memory stays bounded by
``max_points`` whatever the connection's size: past it, every other point is dropped and the
stride doubles; retransmissions and window changes are kept whatever the stride, unless they
alone fill more than half of ``max_points``. The traced packets arrive as numpy columns and are filtered and
thinned as columns (no Python per packet). Columns are parallel tuples, ready for uPlot.

Given the connection's ``Span`` (the analysis's packet index, its endpoints and its first and last packet), it
reads only that stretch of the file: from the checkpoint before the connection's first packet to its last packet,
so a short connection late in a large capture costs milliseconds, not a scan of the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np
import numpy.typing as npt

from whodunnet.capture.connections import client_sides
from whodunnet.capture.constants import NO_ACK, SEG_RESET, SEG_RETRANSMISSION, SEG_SYN_RETRY
from whodunnet.capture.packets import Checkpoint, Endpoints, Enough, directions, scan_rows, trace_all
from whodunnet.limits import DEFAULT_LIMITS, Limits

Sender = Literal["auto", "client", "server"]
#: The traced packets' columns a graph reads.
COLUMNS = ("side", "ts", "rel_seq", "seglen", "kind", "rel_ack", "win")


@dataclass(frozen=True)
class Span:
    """Where a connection lies in its capture, from the analysis: the packet index, the connection's endpoints
    and its first and last packet numbers."""

    index: list[Checkpoint]
    endpoints: Endpoints
    first_packet: int
    last_packet: int


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


class _Series:
    """One series as columns: every ``stride``-th point, and flagged points (retransmissions,
    window changes) whatever the stride, bounded by ``cap``.

    Points arrive in batches (numpy columns). Past ``cap`` the stride doubles and every other
    unflagged point goes; flagged points are thinned too only when they fill more than half of ``cap``.
    """

    def __init__(self, cap: int) -> None:
        self.cap = max(2, cap)
        self.stride = 1
        self.seen = 0
        self.time: npt.NDArray[np.float64] = np.empty(0)
        self.a: npt.NDArray[np.int64] = np.empty(0, np.int64)
        self.b: npt.NDArray[np.int64] = np.empty(0, np.int64)
        self.flag: npt.NDArray[np.bool_] = np.empty(0, np.bool_)

    def add(self, time: npt.NDArray[Any], a: npt.NDArray[Any], b: npt.NDArray[Any], flag: npt.NDArray[Any]) -> None:
        position = np.arange(self.seen, self.seen + len(time))
        self.seen += len(time)
        self._keep(np.asarray(flag, np.bool_) | (position % self.stride == 0), time, a, b, flag, append=True)
        while len(self.time) > self.cap:
            self.stride *= 2
            even = np.arange(len(self.time)) % 2 == 0
            # Flagged points stay while they fill at most half the series; past that they crowd
            # out everything else, and are thinned like the rest.
            crowded = np.count_nonzero(self.flag) > self.cap // 2
            self._keep(even if crowded else self.flag | even, self.time, self.a, self.b, self.flag)

    def _keep(self, keep: npt.NDArray[np.bool_], *columns: npt.NDArray[Any], append: bool = False) -> None:
        time, a, b, flag = (c[keep] for c in columns)
        if append:
            time, a, b, flag = (
                np.concatenate((old, new)) for old, new in zip(self.columns, (time, a, b, flag), strict=True)
            )
        self.time, self.a, self.b, self.flag = time, a.astype(np.int64), b.astype(np.int64), flag.astype(np.bool_)

    @property
    def columns(self) -> tuple[npt.NDArray[Any], ...]:
        return self.time, self.a, self.b, self.flag


def time_sequence(
    path: str | Path | BinaryIO,
    connection_id: int,
    *,
    max_points: int = 20_000,
    sender: Sender = "auto",
    limits: Limits = DEFAULT_LIMITS,
    span: Span | None = None,
) -> TimeSequence:
    """The Stevens graph of connection ``connection_id`` (its ``Connection.id``).

    ``sender`` picks the data direction; ``auto`` is the one that sent more payload.
    ``max_points`` bounds each of the segment and the ACK series. With ``span`` only the connection's stretch
    of the file is read (the same graph).
    """
    from whodunnet.capture.scanner import trace

    segs = [_Series(max_points), _Series(max_points)]
    acks = [_Series(max_points), _Series(max_points)]
    t0: list[float] = []
    last_window = [-1, -1]

    def on_rows(rows: Any) -> None:
        if not len(rows):
            return
        if not t0:
            t0.append(float(rows["ts"][0]))
        side, ts, seq, seglen, kind, ack, win = (np.asarray(rows[n]) for n in COLUMNS)
        time = ts - t0[0]
        for d in (0, 1):
            data = (side == d) & (seglen > 0) & (kind != SEG_RESET)
            resent = (kind[data] == SEG_RETRANSMISSION) | (kind[data] == SEG_SYN_RETRY)
            segs[d].add(time[data], seq[data], seglen[data], resent)
            acked = (side == d) & (ack != NO_ACK)
            if acked.any():
                window = np.maximum(win[acked].astype(np.int64), 0)
                changed = window != np.concatenate(([last_window[d]], window[:-1]))
                last_window[d] = int(window[-1])
                acks[d].add(time[acked], ack[acked], window, changed)

    if span is not None:
        state, error, row = _read_span(path, span, on_rows, limits)
    else:
        state, error = trace(path, {connection_id}, on_rows, limits=limits)
        row = connection_id
    d = 0
    client = 0
    scale: int | None = None
    base = 0
    if 0 <= row < state.n:
        conn = state.conns[row : row + 1]
        sides = state.sides[2 * row : 2 * row + 2]
        client = int(client_sides(conn, sides)[0][0])
        by_role = client if sender == "client" else 1 - client
        # Without payload either way (a failed handshake), the side that sent more: its SYN retries.
        more = (int(sides.payload[0]), int(sides.pkts[0])) >= (int(sides.payload[1]), int(sides.pkts[1]))
        d = (0 if more else 1) if sender == "auto" else by_role
        # Windows are scaled only when both SYN and SYN-ACK offered a scale (RFC 7323).
        scale = int(conn.scale[0][1 - d]) if conn.scale_known[0] else None
        base = max(int(sides.seq_base[d]), 0)
    seg, ack = segs[d], acks[1 - d]
    return TimeSequence(
        connection=connection_id,
        sender="client" if d == client else "server",
        t0=t0[0] if t0 else 0.0,
        base_seq=base,
        window_scale=scale,
        seg_time=tuple(seg.time.tolist()),
        seg_seq=tuple(seg.a.tolist()),
        seg_len=tuple(seg.b.tolist()),
        seg_retransmission=tuple(seg.flag.tolist()),
        ack_time=tuple(ack.time.tolist()),
        ack_seq=tuple(ack.a.tolist()),
        ack_window_edge=tuple((ack.a + (ack.b << (scale or 0))).tolist()),
        segments_total=seg.seen,
        acks_total=ack.seen,
        stride=max(seg.stride, ack.stride),
        error=error,
    )


def _read_span(capture: str | Path | BinaryIO, span: Span, on_rows: Any, limits: Limits) -> tuple[Any, str | None, int]:
    """Scan from the checkpoint before ``span.first_packet`` to ``span.last_packet``, handing ``on_rows`` the
    connection's packets. The scan numbers connections afresh: the connection is the one its endpoints' first
    packet from ``first_packet`` on belongs to (an earlier connection on the same ports is another one); from
    then on only it is traced. Its packets go to ``on_rows`` in batches of ``TRACE_ROWS``, as a scan of the
    whole file hands them, so the graph is thinned the same way. Returns the scan's state, the error that
    stopped it, and the connection's row in that state (-1: not found)."""
    from whodunnet.capture.fields import Packet
    from whodunnet.capture.scanner import TRACE_ROWS

    state = trace_all()
    found = [-1]
    # TRACE_ROWS rows being filled, and how many: only the columns the graph reads (a packet row is 280 bytes).
    batch = np.empty(TRACE_ROWS, [(n, Packet.dtype[n]) for n in COLUMNS])
    filled = [0]

    def deliver(rows: Any, at: npt.NDArray[np.intp]) -> None:
        """Copy rows ``at`` into the batch; hand each full batch on (``on_rows`` keeps copies of what it reads)."""
        while len(at):
            n = min(len(at), TRACE_ROWS - filled[0])
            for name in COLUMNS:
                batch[name][filled[0] : filled[0] + n] = rows[name][at[:n]]
            filled[0] += n
            at = at[n:]
            if filled[0] == TRACE_ROWS:
                on_rows(batch)
                filled[0] = 0

    def on_span_rows(rows: Any, frame0: int) -> None:
        if not len(rows):
            return
        frame = np.asarray(rows["frame"]) + frame0
        if found[0] < 0:
            c2s, s2c = directions(rows, span.endpoints)
            hits = np.flatnonzero((c2s | s2c) & (frame >= span.first_packet) & (frame <= span.last_packet))
            if len(hits):
                found[0] = int(rows["conn"][hits[0]])
                state.only(found[0])
        if found[0] >= 0:
            mine = (np.asarray(rows["conn"]) == found[0]) & (frame <= span.last_packet)
            deliver(rows, np.flatnonzero(mine))
        if int(frame[-1]) >= span.last_packet:
            raise Enough

    _, error, _ = scan_rows(capture, span.index, span.first_packet, on_span_rows, limits, state, span.last_packet)
    if filled[0]:
        on_rows(batch[: filled[0]])
    return state, error, found[0]
