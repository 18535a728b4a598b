"""Feeding a capture stream through the compiled kernel (``kernel.scan.scan``).

``Scanner`` owns a fixed buffer the kernel reads in place and the conversation with it:
refill the buffer when it asks, skip bytes it does not want buffered, grow the state arrays
(``CaptureState``, declared in ``fields``) when they are full, hand traced segments on, and
turn an error code into ``MalformedInput`` with the byte offset. Memory is the buffer plus the
per-connection rows: it grows with connections, never with packets.

Offsets are positions in the (decompressed) capture stream.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from whodunnet.capture.constants import (
    ERRORS,
    FMT_PCAPNG,
    MAX_META_BLOCK,
    OPTIONS_SLACK,
    PCAPNG_PACKET_HEADER,
    R_END,
    R_ERROR,
    R_FLUSH_TRACE,
    R_GROW_CONNS,
    R_GROW_EVENTS,
    R_GROW_IFACES,
    R_GROW_SKETCHES,
    R_NEED_DATA,
    R_SKIP,
    linktype_name,
)
from whodunnet.capture.fields import Conn, Event, Iface, Packet, Scan, Side, SketchEntry, blank, grown, template, zeroed
from whodunnet.capture.kernel import jit_disabled
from whodunnet.capture.kernel.scan import scan
from whodunnet.capture.kernel.sketch import close_runs, quantiles, rehome
from whodunnet.capture.kernel.table import rehash
from whodunnet.capture.source import BufferSource, open_capture
from whodunnet.errors import MalformedInput
from whodunnet.limits import InflateGuard, Limits

#: Bytes of capture the kernel reads per call (smaller when the file is).
CHUNK = 8 << 20
#: Traced segments handed to Python at a time.
TRACE_ROWS = 1 << 14
#: Without the JIT the kernel reads rows by attribute, which only record arrays allow.
_ROWS_BY_ATTRIBUTE = jit_disabled()
#: The quantiles the connection table shows: window median, RTT median and p99.
QUANTILES = (0.5, 0.99)


def buffer_size(max_caplen: int, size_hint: int) -> int:
    """The buffer: CHUNK, less for a small file, never less than the largest unit it must hold."""
    need = max(MAX_META_BLOCK, PCAPNG_PACKET_HEADER + max_caplen + 4 + OPTIONS_SLACK)
    if 0 < size_hint < CHUNK:
        return max(need, size_hint)
    return max(need, CHUNK)


class CaptureState:
    """Every array the kernel reads and writes, grown (doubling) between kernel calls.

    The connection arrays are ``fields.zeroed``: a row's memory is touched when the kernel
    starts a connection in it, so resident memory follows the connections, not the capacity."""

    def __init__(self, *, conns: int = 1024, trace: bool = False) -> None:
        self.scan = blank(Scan, 1)
        self.ifaces = blank(Iface, 4)
        self.packet = blank(Packet, 1)
        self.conns = zeroed(Conn, conns)
        self.sides = zeroed(Side, 2 * conns)
        self.conn0 = template(Conn)
        self.side0 = template(Side)
        self.ht = np.zeros(4 * conns, np.int64)
        self.sketches = blank(SketchEntry, 4096)
        #: Kept SYNs, SYN-ACKs and RTO-style retransmissions, rows in use: ``Scan.n_events``.
        self.events = zeroed(Event, 1024)
        #: Connections whose segments are traced (empty: none), and the trace buffer.
        self.want = np.zeros(conns if trace else 0, np.bool_)
        self.trace = blank(Packet, TRACE_ROWS if trace else 0)
        self.traced: set[int] = set()

    @property
    def g(self) -> Any:
        """The one ``Scan`` row: reading state and totals."""
        return self.scan[0]

    @property
    def n(self) -> int:
        """Connections in the table."""
        return int(self.g.conns)

    def args(self) -> tuple[Any, ...]:
        """The arrays in ``scan``'s order. Compiled, they go as plain arrays: numba types a
        record array (a Python subclass) several times slower on every call."""
        arrays = [self.scan, self.ifaces, self.packet, self.conns, self.sides, self.conn0, self.side0, self.ht]
        arrays += [self.sketches, self.events]
        arrays += [self.want, self.trace]
        return tuple(arrays if _ROWS_BY_ATTRIBUTE else (a.view(np.ndarray) for a in arrays))

    def grow_conns(self) -> None:
        size = 2 * len(self.conns)
        n = self.n
        self.conns = zeroed(Conn, size, self.conns[:n])
        self.sides = zeroed(Side, 2 * size, self.sides[: 2 * n])
        self.ht = np.zeros(4 * size, np.int64)
        with np.errstate(over="ignore"):  # hashes wrap by design (only numpy warns)
            rehash(self.ht, self.conns, self.n)
        if len(self.want):
            self.want = np.zeros(size, np.bool_)
            self.want[[i for i in self.traced if i < size]] = True

    def grow_events(self) -> None:
        self.events = zeroed(Event, 2 * len(self.events), self.events[: int(self.g.n_events)])

    def grow_sketches(self) -> None:
        bigger = blank(SketchEntry, 2 * len(self.sketches))
        with np.errstate(over="ignore"):
            rehome(bigger, self.sketches)
        self.sketches = bigger

    def grow_ifaces(self) -> None:
        self.ifaces = grown(self.ifaces, Iface, 2 * len(self.ifaces))

    @property
    def is_pcapng(self) -> bool:
        return bool(self.g.fmt == FMT_PCAPNG)

    def link_types(self) -> list[str]:
        """The link types of the file, as names, in order of first appearance."""
        g = self.g
        if g.fmt == FMT_PCAPNG:
            links = list(dict.fromkeys(self.ifaces.link[: int(g.n_ifaces)].tolist()))
        else:
            links = [int(g.link)] if g.fmt else []
        return [linktype_name(x) for x in links]

    def sketch_quantiles(self) -> Any:
        """``[row * 2 + which, i]``: quantile ``QUANTILES[i]`` of each side's sketches (-1: empty)."""
        rows = 2 * self.n
        with np.errstate(over="ignore"):
            while not close_runs(self.sketches, self.g, self.sides, rows):
                self.grow_sketches()
        e = self.sketches
        used = e.sketch >= 0
        sketch, value, count = e.sketch[used], e.value[used], e.count[used]
        order = np.lexsort((value, sketch))
        out = np.full((2 * rows, len(QUANTILES)), -1, np.int64)
        folded = self.sides.folded[:rows].reshape(-1)
        quantiles(sketch[order], value[order], count[order], folded, np.array(QUANTILES), out)
        return out


class Scanner:
    """Reads one capture stream through the kernel into ``state``.

    ``run`` raises ``MalformedInput`` where the input breaks (the state then holds what was
    read before). ``on_chunk`` is called after each read from the stream; ``on_trace(rows)``
    gets the traced connections' packets (``fields.Packet`` rows, with what the connection
    table made of each), in order.
    """

    def __init__(
        self,
        stream: BufferSource,
        *,
        max_caplen: int,
        size_hint: int = 0,
        on_chunk: Callable[[], None] | None = None,
        trace: set[int] | None = None,
        on_trace: Callable[[Any], None] | None = None,
    ) -> None:
        self._read = stream.read
        self._readinto = stream.readinto
        self._max_caplen = max_caplen
        self._on_chunk = on_chunk
        self._on_trace = on_trace
        self.state = CaptureState(trace=trace is not None)
        if trace is not None:
            self.state.traced = set(trace)
            want = self.state.want
            want[[i for i in trace if i < len(want)]] = True
        self._buf = np.empty(buffer_size(max_caplen, size_hint), np.uint8)
        #: Stream offset of ``_buf[0]``.
        self._base = 0

    def run(self) -> None:
        """Read the whole stream; raises ``MalformedInput`` where it breaks."""
        st = self.state
        buf = self._buf
        pos = end = 0
        eof = False
        try:
            while True:
                with np.errstate(over="ignore"):  # hashes wrap by design (only numpy warns)
                    code, pos = scan(buf, pos, end, eof, self._max_caplen, *st.args())
                if code == R_NEED_DATA:
                    pos, end, eof = self._refill(pos, end)
                elif code == R_END:
                    return
                elif code == R_SKIP:
                    pos, end = self._skip(pos, end)
                elif code == R_GROW_CONNS:
                    st.grow_conns()
                elif code == R_GROW_EVENTS:
                    st.grow_events()
                elif code == R_GROW_SKETCHES:
                    st.grow_sketches()
                elif code == R_GROW_IFACES:
                    st.grow_ifaces()
                elif code == R_FLUSH_TRACE:
                    self._flush_trace()
                elif code == R_ERROR:
                    g = st.g
                    message = ERRORS[int(g.err)].format(a=int(g.err_a), b=int(g.err_b))
                    raise MalformedInput(message, offset=self._base + int(g.err_at))
                else:  # pragma: no cover - the kernel returns only the codes above
                    raise AssertionError(f"unexpected kernel code {code}")
        finally:
            self._flush_trace()

    def _refill(self, pos: int, end: int) -> tuple[int, int, bool]:
        """Keep the bytes from ``pos`` (moved to the front) and read more behind them."""
        buf = self._buf
        left = end - pos
        if pos:
            buf[:left] = buf[pos:end]
            self._base += pos
        n = self._readinto(buf.data[left:])
        if self._on_chunk is not None:
            self._on_chunk()
        return 0, left + n, n == 0

    def _skip(self, pos: int, end: int) -> tuple[int, int]:
        """Move ``Scan.skip`` bytes past ``pos`` without buffering them."""
        g = self.state.g
        n = int(g.skip)
        g.skip = 0
        if n <= end - pos:
            return pos + n, end
        at = self._base + int(g.err_at)
        n -= end - pos
        self._base += end
        while n > 0:
            data = self._read(min(CHUNK, n))
            if not data:
                raise MalformedInput(ERRORS[int(g.skip_err)], offset=at)
            n -= len(data)
            self._base += len(data)
        if self._on_chunk is not None:
            self._on_chunk()
        return 0, 0

    def _flush_trace(self) -> None:
        st = self.state
        n = int(st.g.n_trace)
        if n and self._on_trace is not None:
            self._on_trace(st.trace[:n].copy())
        st.g.n_trace = 0


def trace(
    path: str | Path, wanted: set[int], on_rows: Callable[[Any], None], *, limits: Limits
) -> tuple[CaptureState, str | None]:
    """Re-read a capture and hand the packets of connections ``wanted`` (ids) to ``on_rows``
    (``fields.Packet`` rows, as the connection table classified them). Returns the table's state and the error that
    stopped reading, if any (the segments before it were handed on)."""
    opened = open_capture(path, max_input_bytes=limits.max_input_bytes, guard=InflateGuard(limits))
    scanner = Scanner(
        opened.stream,
        max_caplen=limits.max_caplen,
        size_hint=0 if opened.compressed else opened.size,
        trace=wanted,
        on_trace=on_rows,
    )
    error = None
    try:
        scanner.run()
    except MalformedInput as exc:
        error = exc.message
    finally:
        opened.close()
    return scanner.state, error
