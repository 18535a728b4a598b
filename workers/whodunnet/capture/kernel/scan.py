"""The loop: every packet of the buffer through records → decode → table, until Python is needed."""

from __future__ import annotations

from whodunnet.capture.constants import (
    R_FLUSH_TRACE,
    R_GROW_CONNS,
    R_GROW_EVENTS,
    R_GROW_KEYS,
    R_GROW_SKETCHES,
    R_GROW_TABLE,
    R_PACKET,
    R_REVIVE,
    R_SKIP,
)
from whodunnet.capture.fields import Packet, Scan
from whodunnet.capture.kernel import jit
from whodunnet.capture.kernel.decode import decode_packet
from whodunnet.capture.kernel.records import next_packet
from whodunnet.capture.kernel.table import find_connection, track_segment
from whodunnet.capture.kernel.types import Buffer, Rows


@jit
def scan(
    buf: Buffer,
    pos: int,
    end: int,
    eof: bool,
    max_caplen: int,
    state: Rows,
    ifaces: Rows,
    packet: Rows,
    conns: Rows,
    sides: Rows,
    conn0: Rows,
    side0: Rows,
    ht: Rows,
    keys: Rows,
    free: Rows,
    entries: Rows,
    events: Rows,
    want: Rows,
    trace: Rows,
) -> tuple[int, int]:
    """Read packets from ``buf[pos:end]`` into the connection table; returns (R_* code, position).

    ``conn0`` and ``side0`` hold one row each at the initial values (what a new connection's
    rows start from); ``keys`` the 4-tuple of every connection by id, ``free`` the rows of
    retired connections to reuse (``table.retire_rows``); ``events`` is the pool of kept SYNs, SYN-ACKs and RTO-style
    retransmissions (``fields.Event``). ``want[c]`` marks connections whose packets are copied
    to ``trace`` (``want`` is empty when nothing is traced). Returns before a packet could
    overflow an array, so Python can grow it, and before a packet of a retired connection
    (R_REVIVE: the packet stays in hand, ``Scan.pending``, and is tracked on the next call).
    """
    g: Scan = state[0]
    pk: Packet = packet[0]
    tracing = want.shape[0] > 0
    while True:
        # A packet waiting after R_REVIVE has its connection's row already (and sweeping now
        # could retire that connection again).
        if not g.pending and g.n_free == 0 and g.slots + 1 >= conns.shape[0]:
            return R_GROW_CONNS, pos
        if g.conns + 1 >= keys.shape[0]:
            return R_GROW_KEYS, pos
        if (g.ht_used + 1) * 4 > ht.shape[0]:
            return R_GROW_TABLE, pos
        if (g.sketch_used + 2) * 2 > entries.shape[0]:
            return R_GROW_SKETCHES, pos
        if g.n_events + 1 >= events.shape[0]:  # a packet keeps at most one event
            return R_GROW_EVENTS, pos
        if tracing and g.n_trace == trace.shape[0]:
            return R_FLUSH_TRACE, pos
        if not g.pending:
            code, pos = next_packet(buf, pos, end, eof, max_caplen, g, ifaces, pk)
            if code != R_PACKET:
                return code, pos
            g.pending = decode_packet(buf, pk, g)
        if g.pending:
            if not find_connection(pk, conns, sides, conn0, side0, ht, keys, free, g):
                return R_REVIVE, pos
            g.pending = False
            track_segment(buf, pk, conns, sides, entries, events, g)
            if tracing and want[pk.conn]:
                trace[g.n_trace] = pk
                g.n_trace += 1
        if g.skip:
            return R_SKIP, pos
