"""The numba path: the same per-packet work as ``reader`` + ``tcp.TcpTable``, compiled.

``fast_kernel.kernel`` (one ``@njit(cache=True)`` function) walks pcap records straight out
of a large numpy buffer, decodes link / IP / TCP headers exactly as ``TcpDecoder.packet``
does and updates ``TcpTable.segment``'s per-connection state, held in numpy matrices (one row
per connection or per connection side) found through an open-addressing hash table keyed by
the 4-tuple. Memory grows with connections, never with packets: the buffer is one chunk.

The pure-Python path stays the reference: ``test_capture_fast.py`` requires identical
summaries, connection tables, findings and errors on every test capture. After the pass the
matrices are turned back into ``ConnState`` objects in a ``TcpTable``, so everything
downstream (rows, findings, capture pairs) is shared.

The quantile sketches live in one (sketch, value) -> count map with a run-length front (most
packets repeat their side's last window). A sketch's final state does not depend on the order
of its values (exact counts until more than ``EXACT_KEYS`` distinct values, all quantized
after), so the map rebuilds exactly the ``Sketch`` the pure path builds.

pcap (plain or gzip) is walked by the kernel alone. For pcapng the pure reader walks the
blocks and reports every error, and hands runs of ordinary enhanced packet blocks to the kernel
(``CaptureReader(bulk=...)``), which stops at any block it would not read exactly as the reader
does; packets of other blocks reach the kernel in batches. The compiled
kernel is cached on disk (``cache=True``: ``__pycache__`` beside this file, numba's user-wide
cache when that is read-only, or ``NUMBA_CACHE_DIR``). Importing this module imports numba.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from whodunnet.capture import fast_kernel as k
from whodunnet.capture.sketch import Sketch, quantize
from whodunnet.capture.source import ByteSource
from whodunnet.capture.tcp import MAX_EXAMPLES, MAX_HOLES, ConnState, TcpTable
from whodunnet.errors import MalformedInput

#: Bytes of capture handed to the kernel per call.
CHUNK = 8 << 20
#: Initial slots of the sketch map ((sketch, value) -> count).
MAP_SLOTS = 1 << 12
_NO_RECORDS = (np.empty(0, np.int64),) * 4 + (np.empty(0, np.float64),)
_NO_IFACES = (np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int64))


class State:
    """Every array the kernel reads and writes; grows (by doubling) between kernel calls."""

    def __init__(self, conns: int = 1024) -> None:
        self.g = np.zeros(k.NG, np.int64)
        self.tminmax = np.array([math.inf, -math.inf])
        self.ci = np.zeros((conns, k.NCI), np.int64)
        self.cf = np.zeros((conns, k.NCF), np.float64)
        self.si = np.zeros((2 * conns, k.NSI), np.int64)
        self.sf = np.zeros((2 * conns, k.NSF), np.float64)
        # [row, event, (time, ecn, frame)] for SYNs and SYN-ACKs; [row, i, (frame, time, idle)] for RTOs
        self.synev = np.zeros((2 * conns, MAX_EXAMPLES, 3), np.float64)
        self.synackev = np.zeros((2 * conns, MAX_EXAMPLES, 3), np.float64)
        self.rtoex = np.zeros((2 * conns, MAX_EXAMPLES, 3), np.float64)
        self.holes = np.zeros((2 * conns, MAX_HOLES + 1, 2), np.int64)
        self.keys = np.zeros((conns, k.NK), np.uint64)
        self.ht = np.full(4 * conns, -1, np.int64)
        self.mk = np.full((MAP_SLOTS, 2), -1, np.int64)
        self.mc = np.zeros(MAP_SLOTS, np.int64)

    def grow_map(self) -> None:
        mk = np.full((self.mk.shape[0] * 2, 2), -1, np.int64)
        mc = np.zeros(mk.shape[0], np.int64)
        k.remap(mk, mc, self.mk, self.mc)
        self.mk, self.mc = mk, mc

    def grow(self) -> None:
        n = self.ci.shape[0] * 2

        def bigger(a: Any, rows: int) -> Any:
            out = np.zeros((rows, *a.shape[1:]), a.dtype)
            out[: a.shape[0]] = a
            return out

        self.ci = bigger(self.ci, n)
        self.cf = bigger(self.cf, n)
        self.si = bigger(self.si, 2 * n)
        self.sf = bigger(self.sf, 2 * n)
        self.synev = bigger(self.synev, 2 * n)
        self.synackev = bigger(self.synackev, 2 * n)
        self.rtoex = bigger(self.rtoex, 2 * n)
        self.holes = bigger(self.holes, 2 * n)
        self.keys = bigger(self.keys, n)
        self.ht = np.full(4 * n, -1, np.int64)
        k.rehash(self.ht, self.keys, self.ci, int(self.g[k.G_NCONN]))

    def args(self) -> tuple[Any, ...]:
        return (
            self.g,
            self.tminmax,
            self.ci,
            self.cf,
            self.si,
            self.sf,
            self.synev,
            self.synackev,
            self.rtoex,
            self.holes,
            self.keys,
            self.ht,
            self.mk,
            self.mc,
        )


# ---- the Python side: feeding the kernel, and the table afterwards ------------------------

_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": (False, 1e-6),
    b"\xa1\xb2\xc3\xd4": (True, 1e-6),
    b"\x4d\x3c\xb2\xa1": (False, 1e-9),
    b"\xa1\xb2\x3c\x4d": (True, 1e-9),
}


class _Prefixed:
    def __init__(self, prefix: bytes, raw: ByteSource) -> None:
        self._prefix = prefix
        self._raw = raw

    def read(self, n: int, /) -> bytes:
        if self._prefix:
            head, self._prefix = self._prefix[:n], self._prefix[n:]
            return head
        return self._raw.read(n)


class FastReader:
    """``CaptureReader`` + ``TcpTable`` in one compiled pass, for pcap input.

    Same attributes as ``CaptureReader`` afterwards, and ``table`` filled as the pure path
    fills it (also when reading breaks: the partial table is there when the error propagates).
    pcapng, and input too short to tell, is handed to the pure ``CaptureReader``.
    """

    def __init__(
        self,
        stream: ByteSource,
        table: TcpTable,
        *,
        max_caplen: int,
        on_chunk: Callable[[], None] | None = None,
    ) -> None:
        self._stream = stream
        self.table = table
        self._max_caplen = max_caplen
        self._on_chunk = on_chunk
        self.format = ""
        self.link_types: list[int] = []
        self.packets = 0
        self.bytes = 0
        self.captured_bytes = 0
        self.truncated_packets = 0
        self.first_ts: float | None = None
        self.last_ts: float | None = None
        #: Whether the compiled kernel did the work (False: handed to the pure reader).
        self.compiled = False

    def read(self) -> None:
        head = b""
        while len(head) < 24:
            data = self._stream.read(24 - len(head))
            if not data:
                break
            head += data
        magic = _PCAP_MAGIC.get(head[:4])
        if magic is None or len(head) < 24:
            self._pure(head)
            return
        self.compiled = True
        self.format = "pcap"
        big, scale = magic
        link = int.from_bytes(head[20:24], "big" if big else "little") & 0xFFFF
        self.link_types = [link]
        state = State()
        try:
            self._scan(state, big, scale, link)
        finally:
            self._finish(state)

    def _pure(self, head: bytes) -> None:
        # pcapng (or too short to tell): the pure reader walks the blocks and reports the errors;
        # runs of ordinary enhanced packet blocks are read by the kernel itself (``_Bulk``), and
        # the packets of any other block reach it in batches (``_Batch``).
        from whodunnet.capture.reader import CaptureReader

        state = State()
        sink = _Batch(state)
        bulk = _Bulk(state, sink, self._max_caplen)
        user_chunk = self._on_chunk

        def on_chunk() -> None:
            sink.flush()
            if user_chunk is not None:
                user_chunk()

        reader = CaptureReader(
            _Prefixed(head, self._stream), sink, max_caplen=self._max_caplen, on_chunk=on_chunk, bulk=bulk
        )
        try:
            reader.read()
        finally:
            sink.flush()
            self.compiled = True
            self.format = reader.format
            self.link_types = reader.link_types
            self.packets = reader.packets
            self.bytes = reader.bytes
            self.captured_bytes = reader.captured_bytes
            self.truncated_packets = reader.truncated_packets
            self.first_ts = reader.first_ts
            self.last_ts = reader.last_ts
            self._tables(state)

    def _scan(self, state: State, big: bool, scale: float, link: int) -> None:
        max_caplen = self._max_caplen
        size = max(CHUNK, 4 * (16 + max_caplen))
        buf = np.empty(size, np.uint8)
        base = 24  # stream offset of buf[0]
        pos = end = 0
        eof = False
        read = self._stream.read
        while True:
            code, pos = k.kernel(buf, pos, end, big, scale, link, max_caplen, *_NO_RECORDS, *_NO_IFACES, *state.args())
            if code == k.R_GROW:
                state.grow()
                continue
            if code == k.R_GROW_MAP:
                state.grow_map()
                continue
            if code == k.R_CAPLEN:
                raise MalformedInput(
                    f"record caplen {int(state.g[k.G_BAD]):,} is larger than the {max_caplen:,}-byte limit",
                    offset=base + pos,
                )
            left = end - pos
            if eof:
                if not left:
                    return
                if left < 16:
                    raise MalformedInput(
                        f"the file ends inside a record header ({left} of 16 bytes present)", offset=base + pos
                    )
                caplen = int.from_bytes(buf[pos + 8 : pos + 12].tobytes(), "big" if big else "little")
                raise MalformedInput(
                    f"the file ends in the middle of a packet: this record needs {16 + caplen:,} bytes, "
                    f"{left:,} are left",
                    offset=base + pos,
                )
            if pos:
                buf[:left] = buf[pos:end]
                base += pos
                pos, end = 0, left
            data = read(size - end)
            if not data:
                eof = True
            else:
                buf[end : end + len(data)] = np.frombuffer(data, np.uint8)
                end += len(data)
            if self._on_chunk is not None:
                self._on_chunk()

    def _finish(self, state: State) -> None:
        g = state.g
        self.packets = int(g[k.G_FRAMES])
        self.bytes = int(g[k.G_BYTES])
        self.captured_bytes = int(g[k.G_CAPTURED])
        self.truncated_packets = int(g[k.G_TRUNC])
        tmin, tmax = float(state.tminmax[0]), float(state.tminmax[1])
        if tmin <= tmax:
            self.first_ts, self.last_ts = tmin, tmax
        self._tables(state)

    def _tables(self, state: State) -> None:
        n = int(state.g[k.G_NCONN])
        while not k.close_runs(state.si, state.mk, state.mc, state.g, 2 * n):
            state.grow_map()
        materialize(state, self.table)


class _Bulk:
    """The reader's ``bulk``: runs of enhanced packet blocks read by the kernel in place."""

    def __init__(self, state: State, sink: _Batch, max_caplen: int) -> None:
        self.state = state
        self.sink = sink
        self.max_caplen = max_caplen
        self.buf: bytes | None = None
        self.data = np.empty(0, np.uint8)
        self.iface_key: tuple[int, int] = (0, 0)
        self.ifaces = _NO_IFACES
        self.times = np.zeros(3)

    def __call__(
        self, buf: bytes, pos: int, end: int, ifaces: list[tuple[int, float, int, int]], big: bool
    ) -> tuple[int, int, int, int, int, float, float, float]:
        self.sink.flush()  # packets the reader already handed over come first
        if buf is not self.buf:
            self.buf, self.data = buf, np.frombuffer(buf, np.uint8)
        if (id(ifaces), len(ifaces)) != self.iface_key:
            self.iface_key = (id(ifaces), len(ifaces))
            self.ifaces = (
                np.array([i[0] for i in ifaces], np.int64),
                np.array([i[1] for i in ifaces], np.float64),
                np.array([i[2] for i in ifaces], np.int64),
            )
        st = self.state
        g = st.g
        before = (int(g[k.G_FRAMES]), int(g[k.G_BYTES]), int(g[k.G_CAPTURED]), int(g[k.G_TRUNC]))
        times = self.times
        times[0], times[1], times[2] = math.inf, -math.inf, 0.0
        nxt = pos
        while True:
            code, nxt = k.kernel(
                self.data, nxt, end, big, 0.0, 0, self.max_caplen, *_NO_RECORDS, *self.ifaces, g, times, *st.args()[2:]
            )
            if code == k.R_GROW:
                st.grow()
            elif code == k.R_GROW_MAP:
                st.grow_map()
            else:
                break
        return (
            int(nxt),
            int(g[k.G_FRAMES]) - before[0],
            int(g[k.G_BYTES]) - before[1],
            int(g[k.G_CAPTURED]) - before[2],
            int(g[k.G_TRUNC]) - before[3],
            float(times[0]),
            float(times[1]),
            float(times[2]),
        )


class _Batch:
    """A ``PacketSink`` that keeps the records of the reader's current chunk and hands them
    to the kernel together when the chunk is replaced (``flush``, from ``on_chunk``)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.buf: bytes = b""
        self.rows: list[tuple[int, int, int, int, float]] = []

    def packet(self, buf: bytes, off: int, caplen: int, wirelen: int, link: int, ts: float) -> None:
        if buf is not self.buf:
            self.flush()
            self.buf = buf
        self.rows.append((off, caplen, wirelen, link, ts))

    def flush(self) -> None:
        rows = self.rows
        if not rows:
            return
        st = self.state
        n = len(rows)
        while int(st.g[k.G_NCONN]) + n + 1 >= st.ci.shape[0]:
            st.grow()
        while (int(st.g[k.G_MAPN]) + 2 * n + 2) * 2 > st.mk.shape[0]:
            st.grow_map()
        offs, caps, wires, links, tss = zip(*rows, strict=True)
        data = np.frombuffer(self.buf, np.uint8)
        given = (
            np.array(offs, np.int64),
            np.array(caps, np.int64),
            np.array(wires, np.int64),
            np.array(links, np.int64),
            np.array(tss, np.float64),
        )
        k.kernel(data, 0, len(data), False, 0.0, 0, 0, *given, *_NO_IFACES, *st.args())
        self.rows = []


def _sketches(state: State) -> dict[int, Sketch]:
    """The map's entries as one ``Sketch`` per (side row, window or RTT)."""
    used = state.mk[:, 0] >= 0
    counts: dict[int, dict[int, int]] = {}
    for sid, v, n in zip(state.mk[used, 0].tolist(), state.mk[used, 1].tolist(), state.mc[used].tolist(), strict=True):
        d = counts.get(sid)
        if d is None:
            d = counts[sid] = {}
        d[v] = n
    out: dict[int, Sketch] = {}
    si = state.si
    for sid, d in counts.items():
        sk = out[sid] = Sketch()
        sk.n = sum(d.values())
        row, which = divmod(sid, 2)
        if si[row, k.S_WIN_FOLDED if which == 0 else k.S_RTT_FOLDED]:
            sk.folded = True
            folded: dict[int, int] = {}
            for v, c in d.items():
                q = quantize(v)
                folded[q] = folded.get(q, 0) + c
            d = folded
        sk.counts = d
    return out


def _addr(hi: int, lo: int, v6: bool) -> object:
    return hi.to_bytes(8, "big") + lo.to_bytes(8, "big") if v6 else lo


def materialize(state: State, table: TcpTable) -> None:
    """Fill ``table`` with ``ConnState`` objects equal to what the pure path builds."""
    sketches = _sketches(state)
    g = state.g
    table.frames = int(g[k.G_FRAMES])
    table.tcp_packets = int(g[k.G_TCP])
    table.ip_fragments = int(g[k.G_FRAGS])
    table.ip_packets = int(g[k.G_IP])
    n = int(g[k.G_NCONN])
    table.next_index = n
    keys = state.keys[:n].tolist()
    ci = state.ci[:n].tolist()
    cf = state.cf[:n].tolist()
    si = state.si[: 2 * n].tolist()
    sf = state.sf[: 2 * n].tolist()
    for i in range(n):
        k0, k1, k2, k3, k4 = keys[i]
        v6 = bool(k4 & 1)
        key = (_addr(k0, k1, v6), k4 >> 17, _addr(k2, k3, v6), (k4 >> 1) & 0xFFFF)
        ic, fc = ci[i], cf[i]
        c = ConnState(i, key, fc[k.C_FIRST_TS], ic[k.C_FIRST_PKT])
        c.last_ts = fc[k.C_LAST_TS]
        c.last_pkt = ic[k.C_LAST_PKT]
        c.client = ic[k.C_CLIENT]
        c.scale = (ic[k.C_SCALE0], ic[k.C_SCALE1])
        c.scale_known = bool(ic[k.C_SCALE_KNOWN])
        c.hs_ack_ts = fc[k.C_HS_ACK_TS]
        c.hs_ack_pkt = ic[k.C_HS_ACK_PKT]
        c.ooo_thresh = fc[k.C_OOO_THRESH]
        for d in (0, 1):
            row = 2 * i + d
            x, f, s = si[row], sf[row], c.sides[d]
            s.pkts = x[k.S_PKTS]
            s.payload = x[k.S_PAYLOAD]
            s.flags = x[k.S_FLAGS]
            s.base = x[k.S_BASE]
            s.isn = x[k.S_ISN]
            s.max_end = x[k.S_MAX_END]
            s.acked = x[k.S_ACKED]
            s.ack_valid = bool(x[k.S_ACK_VALID])
            s.data_pkts = x[k.S_DATA_PKTS]
            s.retrans = x[k.S_RETRANS]
            s.ooo = x[k.S_OOO]
            s.retrans_bytes = x[k.S_RETRANS_BYTES]
            s.rto = x[k.S_RTO]
            s.timed_end = x[k.S_TIMED_END]
            s.win_min = x[k.S_WIN_MIN]
            s.win_max = x[k.S_WIN_MAX]
            s.win_last = x[k.S_WIN_LAST]
            s.zero_count = x[k.S_ZERO_COUNT]
            s.zero_first_pkt = x[k.S_ZERO_FIRST_PKT]
            s.max_inflight = x[k.S_MAX_INFLIGHT]
            s.pinned = x[k.S_PINNED]
            s.pinned_checked = x[k.S_PINNED_CHECKED]
            s.syn_count = x[k.S_SYN_COUNT]
            s.synack_count = x[k.S_SYNACK_COUNT]
            s.syn_win = x[k.S_SYN_WIN]
            s.mss = x[k.S_MSS]
            s.wscale = x[k.S_WSCALE]
            s.sack = bool(x[k.S_SACK])
            s.tsopt = bool(x[k.S_TSOPT])
            s.fin_pkt = x[k.S_FIN_PKT]
            s.rst_pkt = x[k.S_RST_PKT]
            s.peer_unacked_at_fin = x[k.S_PEER_UNACKED_AT_FIN]
            s.data_after_peer_fin_pkts = x[k.S_DAPF_PKTS]
            s.data_after_peer_fin_bytes = x[k.S_DAPF_BYTES]
            s.rst_after_fin_pkt = x[k.S_RST_AFTER_FIN_PKT]
            s.first_ts = f[k.S_FIRST_TS]
            s.first_data_ts = f[k.S_FIRST_DATA_TS]
            s.last_data_ts = f[k.S_LAST_DATA_TS]
            s.adv_ts = f[k.S_ADV_TS]
            s.rto_wait = f[k.S_RTO_WAIT]
            s.timed_ts = f[k.S_TIMED_TS]
            s.rtt_min = f[k.S_RTT_MIN]
            s.rtt_max = f[k.S_RTT_MAX]
            s.zero_start = f[k.S_ZERO_START]
            s.zero_total = f[k.S_ZERO_TOTAL]
            s.fin_ts = f[k.S_FIN_TS]
            s.rst_ts = f[k.S_RST_TS]
            s.rst_after_fin_ts = f[k.S_RST_AFTER_FIN_TS]
            s.syn_events = [(t, bool(e), int(p)) for t, e, p in state.synev[row, : x[k.S_N_SYN_EV]].tolist()]
            s.synack_events = [(t, bool(e), int(p)) for t, e, p in state.synackev[row, : x[k.S_N_SYNACK_EV]].tolist()]
            s.rto_examples = [(int(p), t, w) for p, t, w in state.rtoex[row, : x[k.S_N_RTO_EX]].tolist()]
            s.holes = [[a, b] for a, b in state.holes[row, : x[k.S_NHOLES]].tolist()]
            win = sketches.get(row * 2)
            if win is not None:
                s.windows = win
            rtt = sketches.get(row * 2 + 1)
            if rtt is not None:
                s.rtt = rtt
        old = table.conns.get(key)
        if old is not None:
            table.finished.append(old)
        table.conns[key] = c
