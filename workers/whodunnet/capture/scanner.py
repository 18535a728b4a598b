"""Feeding a capture stream through the compiled kernel (``kernel.scan.scan``).

``Scanner`` holds the conversation with the kernel, which reads a buffer in place (a window of a
mapped file, or for a stream a fixed buffer it refills): move the window or refill the buffer
when the kernel asks, skip bytes it does not want buffered, grow the state arrays (``CaptureState``,
declared in ``fields``) when they are full, hand traced segments on, and turn an error code into
``MalformedInput`` with the byte offset. Memory is the buffer plus the
per-connection rows: it grows with connections, never with packets.

With ageing (``Ageing``, on for the analysis), connections silent long enough are retired
when the connection rows are full, before they would grow: each one's finished row (what the
connection table and the findings read, ``fields.FINISHED_CONN`` / ``FINISHED_SIDE``, its
quantiles worked out, stored narrow) joins the finished store, the working state that row
leaves out (and its sketch entries) goes to a spill file (``Spill``), and its rows are reused.
A later packet of its 4-tuple brings it back from the two exactly as it was (same id), unless
it is a SYN with another initial sequence number (a new connection, the port-reuse rule).
Memory then follows the open connections plus a finished row per connection, not the
kernel's whole state per connection.

Offsets are positions in the (decompressed) capture stream.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

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
    R_GROW_KEYS,
    R_GROW_SKETCHES,
    R_GROW_TABLE,
    R_NEED_DATA,
    R_REVIVE,
    R_SKIP,
    Ageing,
    linktype_name,
)
from whodunnet.capture.fields import (
    FINISHED_CONN,
    FINISHED_SIDE,
    N_QUANTILES,
    WORKING_CONN,
    WORKING_SIDE,
    Conn,
    Event,
    Finished,
    FinishedStore,
    Iface,
    Key,
    MappedRows,
    Packet,
    Scan,
    Side,
    SketchEntry,
    blank,
    grown,
    template,
)
from whodunnet.capture.kernel import jit_disabled
from whodunnet.capture.kernel.scan import scan
from whodunnet.capture.kernel.sketch import batch_quantiles, rehome
from whodunnet.capture.kernel.table import gather_columns, rehash, retire_rows, silent_rows
from whodunnet.capture.kernel.zeros import bitmap_words, drop_zeros, restore_zeros
from whodunnet.capture.source import HEADROOM, BufferSource, MappedFile, open_capture
from whodunnet.errors import MalformedInput
from whodunnet.limits import InflateGuard, Limits

#: Bytes of capture the kernel reads per call (smaller when the file is).
CHUNK = 8 << 20
#: Traced segments handed to Python at a time.
TRACE_ROWS = 1 << 14
#: Entries of the sketch map to start with; a sweep never makes it smaller than it was.
SKETCHES_MIN = 4096
#: The spill file's direct writes: whole blocks of this many bytes, from a boundary, from memory aligned to one.
BLOCK = 4096
#: How much nicer than the scanning thread the threads that keep retired connections run (``_behind_the_scan``).
BEHIND = 10
#: Without the JIT the kernel reads rows by attribute, which only record arrays allow.
_ROWS_BY_ATTRIBUTE = jit_disabled()
#: The quantiles the connection table shows: window median, RTT median and p99.
QUANTILES = (0.5, 0.99)
assert len(QUANTILES) == N_QUANTILES


def _for_kernel(*arrays: Any) -> tuple[Any, ...]:
    """``arrays`` as the compiled kernel takes them: plain arrays (numba types a record array, a Python subclass,
    several times slower on every call), or as they are without the JIT, which reads rows by attribute."""
    return arrays if _ROWS_BY_ATTRIBUTE else tuple(a.view(np.ndarray) for a in arrays)


def _small_pages() -> None:
    """numpy's arrays of 4 MB and more in ordinary 4 KB pages, not the 2 MB pages numpy asks Linux for
    (``madvise(MADV_HUGEPAGE)``), unless ``NUMPY_MADVISE_HUGEPAGE`` says otherwise. A huge page is zeroed whole at
    its first touch: the connection rows are mapped lazily so that untouched rows cost nothing, and the rows a
    sweep copies or a table grows into are fresh memory many times over. On the 1 M-connection capture 2 MB pages
    cost 0.6 s more system time than they saved in user time (`whodunnet analyze` 5.07-5.41 s against 4.75-4.96
    s, four alternating runs, decision 0021)."""
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        # numpy's own switch, which its import sets from that variable
        setter = getattr(getattr(np, "_core").multiarray, "_set_madvise_hugepage", None)  # noqa: B009
        if setter is not None:
            setter(False)


_small_pages()


#: What ``CaptureState.finish`` makes of a connection row, and of a side row (a dtype, and a field of it to leave out
#: for each part): its finished row (a side's but its quantiles, worked out apart), and its working state.
CONN_PARTS = ((FINISHED_CONN, ""), (WORKING_CONN, ""))
SIDE_PARTS = ((FINISHED_SIDE, "q"), (WORKING_SIDE, ""))


def _room(n: int, parts: tuple[tuple[np.dtype[Any], str], ...]) -> int:
    """The bytes of ``Columns.of``'s columns of ``n`` rows for ``parts``."""
    return sum(Columns.nbytes(dtype, n, skip) for dtype, skip in parts)


def both_sides(rows: Any) -> Any:
    """The side rows (or side ids) of connection rows (or ids) ``rows``: ``2 r`` and ``2 r + 1`` for each, in order."""
    return (2 * np.asarray(rows, np.int64)[:, None] + np.arange(2)).reshape(-1)


def _no_turns() -> list[tuple[Scratch, Scratch]]:
    """``CaptureState.finish``'s two sets of memory, before the first sweep (and once the scan is done)."""
    return [(Scratch(), Scratch()), (Scratch(), Scratch())]


@dataclass(frozen=True)
class Retiring:
    """A sweep's retiring connections, as ``CaptureState.finish`` hands them to the spill and the finished stores:
    their finished rows (``conns``: ``FINISHED_CONN``; ``sides``: ``FINISHED_SIDE`` but ``q``, two per connection),
    the working state those leave out (``working_conns``, ``working_sides``), and ``quantiles``, the function that
    works out the sides' ``q``."""

    conns: Columns
    sides: Columns
    working_conns: Columns
    working_sides: Columns
    quantiles: Callable[[], Any]


def _quantiles(working_sides: Columns, entries: Any, starts: Any) -> Callable[[], Any]:
    """The function that gives ``[i * 2 + side, which, k]``: quantile ``QUANTILES[k]`` of sketch ``which`` of side
    ``side`` of the ``i``-th connection of a sweep (-1: empty), on the keeper's thread, from the working state of its
    sides (``working_sides``, two per connection: their pending runs, distinct values and folds) and the map's
    entries of those connections (``entries``, grouped by connection, ``starts`` where each one's begin): nothing
    the kernel changes after.

    A side's pending runs (``Side.run_value``, ``run_count``) count as the kernel would put them in the map
    (``sketch.put``): as values of their own, whose putting may fold the sketch. The scanning core used to put them
    in the map itself (``close_runs``, and a larger map to put them in), 0.2-0.25 s of the 1 M-connection capture's
    sweeps, and to look the connections' entries up a second time.

    One compiled pass, a connection at a time (``kernel.sketch.batch_quantiles``: its entries and runs sorted in
    scratch room). numpy's whole-batch way (the runs appended to the entries, one sort of all, a Python set for the
    runs that fold a sketch) took twice as long: 0.25 s of the 1 M-connection capture against 0.13 s."""

    def work() -> Any:
        n = len(starts) - 1
        room = int(np.diff(starts).max()) + 4 if n else 0
        local, values, counts = np.empty((3, room), np.int64)  # room for one connection's sorting
        out = np.full((4 * n, N_QUANTILES), -1, np.int64)
        # Records (a field's view of 0 or 1 of them is contiguous, of more not: two compiled variants).
        kept = np.ascontiguousarray(entries).view(np.recarray if _ROWS_BY_ATTRIBUTE else np.ndarray)
        run_value, run_count, distinct, folded = (
            working_sides.columns[name] for name in ("run_value", "run_count", "distinct", "folded")
        )
        at, qs = np.asarray(starts, np.int64), np.array(QUANTILES)
        batch_quantiles(kept, at, run_value, run_count, distinct, folded, qs, local, values, counts, out)
        return out.reshape(2 * n, 2, N_QUANTILES)

    return work


def _behind_the_scan() -> None:
    """Run this thread (one of ``InTurn``'s) behind the scanning thread: its nice value ``BEHIND`` above its start's.

    The scanning thread is the analysis's longest path, and the two threads that keep the retired connections
    (the spill's writer, the finished stores' keeper) share the machine's cores with it: on two cores, with all
    three busy, the scheduler gave each the same share, and the scan waited for a core. Behind it, they take what
    it leaves; they have time to spare (the scan waited on them for 0.05-0.2 s of the 1 M-connection capture).
    ``whodunnet analyze many.pcap --json`` 2.46-2.79 s (median 2.55) against 2.53-2.75 s (median 2.67), six
    alternating runs; gzipped 2.94-3.10 s (median 3.02) against 3.03-3.17 s (3.15), four."""
    me = threading.get_native_id()
    with contextlib.suppress(OSError):  # Linux gives each thread a nice value of its own; elsewhere it stays
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + BEHIND))


class InTurn:
    """A thread of its own that does one job at a time while the kernel scans on (the spill's writing, the finished
    stores' filling): ``submit`` first waits for the job before, ``wait`` for the one on its way (a job's error is
    raised by the next wait), ``close`` ends the thread."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._pool: ThreadPoolExecutor | None = None
        self._job: Future[None] | None = None

    def submit(self, job: Callable[..., None], *args: Any) -> None:
        self.wait()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix=self._name, initializer=_behind_the_scan)
        self._job = self._pool.submit(job, *args)

    def wait(self) -> None:
        if self._job is not None:
            job, self._job = self._job, None
            job.result()

    def close(self, then: Callable[[], None] | None = None) -> None:
        """End the thread once the job on its way is done. With ``then``: the thread does that last, and ends
        after it without being waited for (an error of ``then`` is lost)."""
        try:
            self.wait()
        finally:
            pool, self._pool = self._pool, None
            if then is not None:
                if pool is None:
                    then()
                else:
                    pool.submit(then)
            if pool is not None:
                pool.shutdown(wait=then is None)


class Spill:
    """What a retired connection's finished row leaves out: its working state (``fields.WORKING_CONN``,
    ``WORKING_SIDE``) and its sketch entries, in batches appended to an unnamed temporary file, read back when a
    connection revives. No memory: about 490 bytes of disk per retired connection.

    A batch is packed (``kernel.zeros``: its 64-bit words without the zero ones, and a bitmap of where they were)
    and written by a thread of its own while the kernel scans on; at most one batch is on its way, and a read waits
    for it. Packed, because the working state of a finished connection is mostly zeros and small numbers, and every
    byte written costs the page cache's copy and a fresh page: written plain, the 1 M-connection capture's 920 MB of
    batches took 2.9-3.7 s of system time. Packed, they are about half of that (474 MB); deflated (isal, level 1,
    until 2026-12-05) they were 187 MB, for five times the packing's time (decision 0021).

    Written past the page cache (``O_DIRECT``) where the file system allows it: each page of the cache would be a
    fresh one, for a file that is deleted before the system would have written it out. A direct write waits for
    the disk instead, on the writing thread; a revival reads the batch back through the page cache (the kernel
    keeps the two coherent). Where the file system refuses (tmpfs), the page cache's way, as before.

    In ``TMPDIR`` when it is set; else in the system's temporary folder, unless that folder is memory (a tmpfs, as
    ``/tmp`` is on Debian 13 and Fedora), then in ``/var/tmp``, the folder the file system hierarchy keeps on disk
    for large temporary files (``_spill_dir``): a spill in memory would be memory the ageing was meant to save."""

    def __init__(self) -> None:
        # Open as long as the state is (``CaptureState.close``), not one block's worth.
        self._file = tempfile.TemporaryFile(prefix="whodunnet-spill-", dir=_spill_dir())  # noqa: SIM115
        self._fd = self._file.fileno()
        #: The same file opened for direct writes (-1: the file system takes none; ``_direct``).
        self._direct = _direct(self._fd)
        #: The writing thread's memory for a batch's packed words, aligned for a direct write.
        self._out = Scratch()
        #: (where, bytes) of each batch; set by the writing thread, read after it is done.
        self._at: list[tuple[int, int]] = []
        self._end = 0
        self._last: tuple[int, Any] = (-1, None)
        self._writer = InTurn("whodunnet-spill")

    def put(self, conns: Columns, sides: Columns, entries: Any, starts: Any) -> int:
        """Write one batch (the working state of ``n`` connections and of their ``2 n`` sides, as columns, which
        nothing changes until the batch is written; ``starts``: where each connection's entries begin, and the end);
        its number."""
        self._writer.wait()  # the batch before is written: it set ``_end``
        self._at.append((self._end, 0))
        self._writer.submit(self._write, conns, sides, entries, np.asarray(starts, np.int64), len(self._at) - 1)
        return len(self._at) - 1

    def _write(self, conns: Columns, sides: Columns, entries: Any, starts: Any, batch: int) -> None:
        parts = _spill_words(starts, conns, sides, entries)
        # The header (connections, entries), then each part packed: its bitmap, then its words that are not zero.
        room = 2 + sum(len(part) + bitmap_words(len(part)) for part in parts)
        # Whole blocks from a block boundary, from memory aligned to one: what a direct write takes.
        out = self._out.take(-(-8 * room // BLOCK) * BLOCK, align=BLOCK)
        words = out.view(np.uint64)
        words[:2] = len(starts) - 1, len(entries)
        at = 2
        for part in parts:
            bits = bitmap_words(len(part))
            at += bits + drop_zeros(part, words[at : at + bits], words[at + bits :])
        start, size = self._end, -(-8 * at // BLOCK) * BLOCK
        words[at : size // 8] = 0
        if self._direct >= 0:
            try:
                self._pwrite(self._direct, out[:size], start)
            except OSError:  # the file system refused a direct write after all: the page cache's way from here on
                os.close(self._direct)
                self._direct = -1
        if self._direct < 0:
            self._pwrite(self._fd, out[:size], start)
        self._at[batch] = (start, 8 * at)
        self._end = start + size

    @staticmethod
    def _pwrite(fd: int, data: Any, at: int) -> None:
        view = memoryview(data)
        while view:
            n = os.pwrite(fd, view, at)
            view, at = view[n:], at + n

    def _read(self, batch: int) -> Any:
        """Batch ``batch``'s words, as written (writable: numba compiles a read-only array apart)."""
        at, n = self._at[batch]
        words = np.empty(n // 8, np.uint64)
        got = os.preadv(self._fd, [words.data], at)
        if got != n:
            raise OSError(f"the spill file ends {n - got:,} bytes short of a batch")
        return words

    def get(self, batch: int, i: int) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
        """Connection ``i`` of batch ``batch``: (its working state, its two sides', its sketch entries)."""
        if self._last[0] != batch:
            self._writer.wait()  # the batch on its way may be this one (its error, a full disk, raised here)
            words = self._read(batch)
            n, m = words[:2].tolist()
            sizes = (8 * (n + 1), Columns.nbytes(WORKING_CONN, n), Columns.nbytes(WORKING_SIDE, 2 * n))
            # Writable, as the arrays a sweep hands the kernel are (numba compiles a read-only array apart).
            block = np.empty(sum(sizes) + m * SketchEntry.dtype.itemsize, np.uint8)
            starts = block[: sizes[0]].view(np.int64)
            conns = Columns(WORKING_CONN, n, data=block[sizes[0] : sizes[0] + sizes[1]])
            sides = Columns(WORKING_SIDE, 2 * n, data=block[sizes[0] + sizes[1] : sum(sizes)])
            entries = block[sum(sizes) :].view(SketchEntry.dtype)
            at = 2
            for part in _spill_words(starts, conns, sides, entries):
                bits = bitmap_words(len(part))
                if (
                    at + bits > len(words)
                    or (took := restore_zeros(words[at : at + bits], words[at + bits :], part)) < 0
                ):
                    raise OSError("a spilled batch ends before its words do")
                at += bits + took
            if at != len(words):
                raise OSError(f"a spilled batch is {8 * len(words):,} bytes, not the {8 * at:,} its bitmaps give")
            self._last = (batch, (starts, conns, sides, entries))
        starts, conns, sides, entries = self._last[1]
        return conns.row(i), [sides.row(2 * i), sides.row(2 * i + 1)], entries[starts[i] : starts[i + 1]]

    def close(self) -> None:
        """Close the file, on the writing thread, which then ends: the system frees the file's blocks as it closes
        (0.1 s for the 1 M-connection capture's 474 MB), while the analysis goes on to its findings."""
        try:
            self._writer.wait()
        finally:
            if self._direct >= 0:
                os.close(self._direct)
                self._direct = -1
            self._writer.close(then=self._file.close)


def _spill_words(starts: Any, conns: Columns, sides: Columns, entries: Any) -> list[Any]:
    """A spilled batch's parts as 64-bit words (views, in the order they are written: the columns start on 8-byte
    boundaries, a sketch entry is three words)."""
    return [np.ascontiguousarray(part).view(np.uint64) for part in (starts, conns.data, sides.data, entries)]


#: File systems that hold their files in memory.
MEMORY_FILE_SYSTEMS = frozenset({"tmpfs", "ramfs"})
#: The temporary folder on disk (the file system hierarchy's ``/var/tmp``), for the spill file when the system's
#: temporary folder is in memory.
DISK_TMP = "/var/tmp"


def _spill_dir() -> str | None:
    """The folder for the spill file: None (``tempfile``'s choice: ``TMPDIR``, else ``/tmp``) when ``TMPDIR`` is set
    or the temporary folder is on disk; ``DISK_TMP`` when the temporary folder is in memory and it is not."""
    if os.environ.get("TMPDIR"):
        return None
    if _file_system(tempfile.gettempdir()) not in MEMORY_FILE_SYSTEMS:
        return None
    if not os.access(DISK_TMP, os.W_OK | os.X_OK) or _file_system(DISK_TMP) in MEMORY_FILE_SYSTEMS:
        return None
    return DISK_TMP


def _file_system(path: str) -> str:
    """The type of the file system ``path`` is on, from the system's mount table ("" where it cannot be read): the
    last mount listed whose point is the longest that holds ``path``."""
    path = os.path.realpath(path)
    point, kind = "", ""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) < 3:
                    continue
                at = fields[1].replace("\\040", " ")  # the table writes a space in a path as \040
                if (path == at or path.startswith(at.rstrip("/") + "/")) and len(at) >= len(point):
                    point, kind = at, fields[2]
    except OSError:
        return ""
    return kind


def _direct(fd: int) -> int:
    """File ``fd`` opened again for writes that skip the page cache (``O_DIRECT``), or -1 where that cannot be."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return -1
    try:
        return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | flag)
    except OSError:  # no /proc, or a file system that takes no direct I/O (tmpfs)
        return -1


def _column_starts(dtype: np.dtype[Any], n: int, skip: str) -> tuple[list[tuple[str, int]], int]:
    """Where each field's column of ``n`` rows starts (each on an 8-byte boundary), and the bytes of all."""
    starts, size = [], 0
    for name in dtype.names or ():
        if name != skip:
            starts.append((name, size))
            size += -(-n * dtype[name].itemsize // 8) * 8
    return starts, size


class Columns:
    """Fields of some rows as one array per field, all in one byte buffer (``data``, each column on an 8-byte
    boundary): how ``finish`` hands the finished fields on and how the spill file keeps the working state."""

    def __init__(self, dtype: np.dtype[Any], n: int, skip: str = "", data: Any = None) -> None:
        """``n`` rows' columns: in ``data`` (``nbytes`` bytes, as ``data`` of another was), or a fresh buffer."""
        #: (field, where its column starts in ``data``, bytes per row)
        self.layout = [(name, at, dtype[name].itemsize) for name, at in _column_starts(dtype, n, skip)[0]]
        self.data = np.empty(self.nbytes(dtype, n, skip), np.uint8) if data is None else data
        self.columns = {
            name: self.data[at : at + n * width].view(dtype[name].base).reshape(n, *dtype[name].shape)
            for name, at, width in self.layout
        }

    @staticmethod
    def nbytes(dtype: np.dtype[Any], n: int, skip: str = "") -> int:
        """The size of the buffer of ``n`` rows' columns of ``dtype`` (but ``skip``)."""
        return _column_starts(dtype, n, skip)[1]

    def row(self, i: int) -> dict[str, Any]:
        """Row ``i``'s fields."""
        return {name: column[i] for name, column in self.columns.items()}

    @classmethod
    def of(cls, rows: Any, at: Any, *parts: tuple[np.dtype[Any], str], scratch: Scratch | None = None) -> list[Columns]:
        """Rows ``at`` (None: all, in order) of ``rows`` (the kernel's, or a copy of some): for each part (a dtype,
        and a field of it to leave out), its fields as a ``Columns``. All parts are copied by ``gather_columns`` in
        one pass over each row, a 64-bit word at a time where a field is whole words: a row is fetched from memory
        once, whatever the parts ask of it. In ``scratch``'s memory when given (the columns are then good until its
        next use), else in fresh memory."""
        rows = np.ascontiguousarray(rows.view(np.ndarray))
        at = np.arange(len(rows)) if at is None else np.asarray(at, np.int64)
        sizes = [cls.nbytes(dtype, len(at), skip) for dtype, skip in parts]
        data = np.empty(sum(sizes), np.uint8) if scratch is None else scratch.take(sum(sizes))
        out, runs, base = [], [], 0
        for (dtype, skip), size in zip(parts, sizes, strict=True):
            part = cls(dtype, len(at), skip, data[base : base + size])
            runs += [(rows.dtype.fields[name][1], base + start, width) for name, start, width in part.layout]
            out.append(part)
            base += size
        if len(at):
            src = rows.view(np.uint8).reshape(len(rows), -1)
            whole = rows.dtype.itemsize % 8 == 0  # else every field is copied by bytes
            words = rows.view(np.uint64).reshape(len(rows), -1) if whole else np.zeros((len(rows), 0), np.uint64)
            plan = _gather_plan(np.array(runs, np.int64).reshape(-1, 3), whole)
            gather_columns(src, words, at, data, data.view(np.uint64), *plan)
        return out


class Scratch:
    """Memory one thread reuses for the columns of one batch after another (``Columns.of``): a sweep's batch of the
    1 M-connection capture is about 17 MB of columns for each of the two threads that keep it, and fresh memory
    for every batch cost a page fault per page and its zeroing, 0.3-0.6 s of those threads' time."""

    def __init__(self) -> None:
        self._data = np.empty(0, np.uint8)

    def reserve(self, n: int, align: int = 8) -> None:
        """Room for ``take(n, align)`` without growing: memory not touched yet (its pages come as they are written)."""
        if len(self._data) < n + align:
            self._data = np.empty(n + align, np.uint8)

    def take(self, n: int, align: int = 8) -> Any:
        """``n`` bytes from an address that is a multiple of ``align``, reused: what the last ``take`` gave is
        overwritten."""
        if len(self._data) < n + align:
            self._data = np.empty(max(n + align, 2 * len(self._data)), np.uint8)
        skip = -self._data.ctypes.data % align
        return self._data[skip : skip + n]


def _gather_plan(runs: Any, whole: bool) -> tuple[Any, ...]:
    """``gather_columns``'s plan for fields ``runs`` (source byte, first destination byte, bytes per row): a field of
    whole words on a word boundary (columns start on one) as one entry per word, the others one per byte."""
    s, d, n = runs.T
    by_word = (n % 8 == 0) & (s % 8 == 0) & whole

    def each(first_src: Any, first_dst: Any, count: Any, step: Any) -> tuple[Any, Any, Any]:
        k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        return np.repeat(first_src, count) + k, np.repeat(first_dst, count) + k, np.repeat(step, count)

    w, b = by_word, ~by_word
    return (*each(s[w] // 8, d[w] // 8, n[w] // 8, n[w] // 8), *each(s[b], d[b], n[b], n[b]))


def buffer_size(max_caplen: int, size_hint: int) -> int:
    """The buffer: CHUNK, less for a small file, never less than the largest unit it must hold."""
    need = max(MAX_META_BLOCK, PCAPNG_PACKET_HEADER + max_caplen + 4 + OPTIONS_SLACK)
    if 0 < size_hint < CHUNK:
        return max(need, size_hint)
    return max(need, CHUNK)


class Places:
    """Where each connection id of some ids is among them: through a table indexed by id, kept between calls (looking
    each up in sorted ids cost a binary search per sketch entry)."""

    def __init__(self) -> None:
        self._place = np.zeros(0, np.int32)

    def of(self, ids: Any, of: Any, n: int) -> Any:
        """Where each connection id of ``of`` is in ``ids``, -1 where it is not (ids below ``n``)."""
        if len(self._place) < n:
            self._place = np.full(max(n, 2 * len(self._place)), -1, np.int32)
        place = self._place
        place[ids] = np.arange(len(ids), dtype=np.int32)
        at = place[of].astype(np.int64)
        place[ids] = -1
        return at


class CaptureState:
    """Every array the kernel reads and writes, grown (doubling) between kernel calls.

    The connection rows, their sides, the 4-tuples and the event pool are ``fields.MappedRows``: all-zero
    mappings whose pages are touched when the kernel starts a row in them, so resident memory follows the
    connections, not the capacity; and grown by moving the mapping, not by copying the rows in use."""

    def __init__(self, *, conns: int = 1024, trace: bool = False, ageing: Ageing | None = None) -> None:
        if ageing is not None:
            conns = ageing.rows
        self.scan = blank(Scan, 1)
        self.ifaces = blank(Iface, 4)
        self.packet = blank(Packet, 1)
        self._conn_rows, self._side_rows = MappedRows(Conn, conns), MappedRows(Side, 2 * conns)
        self.conns, self.sides = self._conn_rows.rows(conns), self._side_rows.rows(2 * conns)
        self.conn0 = template(Conn)
        self.side0 = template(Side)
        self.ht = np.zeros(4 * conns, np.int64)
        #: Every connection's 4-tuple by id; the rows of retired connections to reuse (a stack).
        self._key_rows = MappedRows(Key, conns)
        self.keys = self._key_rows.rows(conns)
        self.free = np.zeros(conns, np.int64)
        self.ageing = ageing
        self.spill: Spill | None = None
        #: Finished rows of retired connections by id (FINISHED_CONN), and of their sides by side row.
        self.done_conns, self.done_sides = FinishedStore(FINISHED_CONN), FinishedStore(FINISHED_SIDE)
        #: The thread that puts finished rows into those stores (``_keep``); waited for before they are read.
        self._keeper = InTurn("whodunnet-keep")
        self._table: tuple[Finished, Finished] | None = None
        #: Connections retired, and brought back, so far (a connection can do both several times).
        self.retired = 0
        self.revived = 0
        #: Where connections are among those whose sketch entries are looked up (``entries_of``).
        self._place = Places()
        #: ``finish``'s memory for a sweep's columns, the connections' and the sides': two sets taken in turn, each
        #: used again two sweeps on, once the threads that read its columns (``Spill.put``'s writer, ``_keep``'s
        #: keeper; each is waited for before it is handed the next sweep's) are done with them. Fresh memory for every
        #: sweep cost a page fault per page and the zeroing of each (0.2-0.5 s of system time on the scanning core of
        #: the 1 M-connection capture).
        self._turns = _no_turns()
        self._turn = 0
        self.sketches = blank(SketchEntry, SKETCHES_MIN)
        #: Kept SYNs, SYN-ACKs and RTO-style retransmissions, rows in use: ``Scan.n_events``.
        self._event_rows = MappedRows(Event, 1024)
        self.events = self._event_rows.rows(1024)
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
        """The arrays in ``scan``'s order, as the kernel takes them (``_for_kernel``)."""
        arrays = [self.scan, self.ifaces, self.packet, self.conns, self.sides, self.conn0, self.side0, self.ht]
        arrays += [self.keys, self.free, self.sketches, self.events]
        arrays += [self.want, self.trace]
        return _for_kernel(*arrays)

    def rows_full(self) -> None:
        """R_GROW_CONNS: retire what is silent long enough; grow when that freed less than half the rows.

        Every sweep costs the same few passes over the rows and the sketch map, however many connections it retires:
        grown when a sweep freed less than a quarter of them, the 1 M-connection capture's rows stayed small and were
        swept 304 times, against 90 (2.6-2.7 s against 1.9-2.0 s of sweeps, 12 % of the analysis; 20-40 MB more
        at the peak)."""
        if self.ageing is not None and self.sweep() * 2 >= len(self.conns):
            return
        self.grow_conns()

    def grow_conns(self) -> None:
        size = 2 * len(self.conns)
        n = int(self.g.slots)
        del self.conns, self.sides  # the mappings' one reader each (``MappedRows.grow``)
        self.conns, self.sides = self._conn_rows.grow(size, n), self._side_rows.grow(2 * size, 2 * n)
        free = np.zeros(size, np.int64)
        free[: len(self.free)] = self.free
        self.free = free
        if len(self.want):
            self.want = np.zeros(size, np.bool_)
            self.want[[i for i in self.traced if i < size]] = True

    def grow_keys(self) -> None:
        n = 2 * len(self.keys)
        del self.keys  # the mapping's one reader (``MappedRows.grow``)
        self.keys = self._key_rows.grow(n, self.n)

    def grow_table(self) -> None:
        old, self.ht = self.ht, np.zeros(2 * len(self.ht), np.int64)
        with np.errstate(over="ignore"):  # hashes wrap by design (only numpy warns)
            rehash(self.ht, old, self.conns, self.keys)

    # -- ageing ---------------------------------------------------------------------------

    def open_rows(self) -> Any:
        """The connection rows in use (open connections), ascending."""
        return np.flatnonzero(self.conns.cid[: int(self.g.slots)] >= 0)

    def sweep(self) -> int:
        """Retire the connections silent for longer than ``ageing`` allows; how many."""
        assert self.ageing is not None
        rows = self.silent_rows(self.ageing.closed_after, self.ageing.idle_after)
        if len(rows):
            self.retire(rows)
        return len(rows)

    def silent_rows(self, closed_after: float, idle_after: float) -> Any:
        """The rows of open connections silent for longer than ``closed_after`` since their close, or ``idle_after``
        if not closed, at the capture's last time so far; ascending. Compiled (``table.silent_rows``): numpy's
        passes, a gather of each field over the open rows, took 0.12 s of the 1 M-connection capture's sweeps."""
        slots = int(self.g.slots)
        out = np.empty(slots, np.int64)
        conns, sides = _for_kernel(self.conns, self.sides)
        return out[: silent_rows(conns, sides, slots, float(self.g.tmax), closed_after, idle_after, out)]

    def retire(self, rows: Any) -> None:
        """Retire the connections in rows ``rows``: spill their state, keep their finished rows,
        take their entries out of the sketch map and free the rows."""
        g = self.g
        before = len(self.sketches)
        rows = np.asarray(rows, np.int64)
        ids = self.conns.cid[rows]
        order = np.argsort(ids)
        rows, ids = rows[order], ids[order]
        # The whole state first (the sketch runs still open), grouped by connection.
        e = self.sketches
        entries, starts, used, at = self.entries_of(ids)
        self.retired += len(rows)
        if self.spill is None:
            self.spill = Spill()
        retiring = self.finish(rows, entries, starts)
        self.keys.spill_at[ids] = self.spill.put(retiring.working_conns, retiring.working_sides, entries, starts)
        self.keys.spill_i[ids] = np.arange(len(ids))
        self._keep(ids, retiring)
        # The others' entries stay (nothing changed the map since it was read above: the retiring connections'
        # pending runs are counted with their entries by the keeper, ``_quantiles``).
        keep = used[at < 0]
        # No smaller than before the sweep: the rows freed fill again, and the kernel would double the map back.
        size = max(SKETCHES_MIN, before)
        while (len(keep) + 2) * 4 > size:
            size *= 2
        fresh = blank(SketchEntry, size)
        with np.errstate(over="ignore"):
            rehome(fresh, np.take(e, keep))
        self.sketches = fresh
        g.sketch_used = len(keep)
        with np.errstate(over="ignore"):
            retire_rows(self.ht, self.conns, self.sides, self.keys, self.free, g, rows)

    def entries_of(self, ids: Any) -> tuple[Any, Any, Any, Any]:
        """The sketch map's entries of connections ``ids``, what ``finish`` needs with their rows: (the entries
        grouped by connection in the order of ``ids``, where each one's begin and the end; the map's used slots,
        where each one's connection is in ``ids``, -1: another's)."""
        e = self.sketches
        used = np.flatnonzero(e.sketch >= 0)
        at = self._place.of(ids, e.sketch[used] >> 2, self.n)
        mine = at >= 0
        by_conn = np.argsort(at[mine], kind="stable")
        entries = np.take(e, used[mine][by_conn])  # (fancy indexing copies records field by field: slower)
        starts = np.searchsorted(at[mine][by_conn], np.arange(len(ids) + 1))
        return entries, starts, used, at

    def revive(self) -> None:
        """R_REVIVE: bring connection ``Scan.revive`` back from the spill, as it was when it retired."""
        g = self.g
        c, j = int(g.revive), int(g.revive_at)
        self.revived += 1
        assert self.spill is not None
        batch, i = int(self.keys.spill_at[c]), int(self.keys.spill_i[c])
        conn, sides, entries = self.spill.get(batch, i)
        self._keeper.wait()
        if g.n_free:
            g.n_free -= 1
            r = int(self.free[int(g.n_free)])
        else:
            if g.slots + 1 >= len(self.conns):
                self.grow_conns()
            r = int(g.slots)
            g.slots += 1
        for name in FINISHED_CONN.names or ():
            self.conns[name][r] = self.done_conns.row(name, c)
        for name in WORKING_CONN.names or ():
            self.conns[name][r] = conn[name]
        for d in range(2):
            for name in FINISHED_SIDE.names or ():
                if name != "q":
                    self.sides[name][2 * r + d] = self.done_sides.row(name, 2 * c + d)
            for name in WORKING_SIDE.names or ():
                self.sides[name][2 * r + d] = sides[d][name]
        self.grow_sketches(int(g.sketch_used) + len(entries) + 2)
        with np.errstate(over="ignore"):
            rehome(self.sketches, entries.view(np.recarray))
        g.sketch_used += len(entries)
        self.keys.spill_at[c] = -1
        self.ht[j] = r + 1

    def finish(self, rows: Any, entries: Any, starts: Any) -> Retiring:
        """Connection rows ``rows`` and their side rows (two per connection, in order) as they are, as columns in
        memory of their own (the kernel reuses the rows once they are free), and the function that works out the
        sides' quantiles (``q``) from those columns and the connections' sketch entries, on any thread (``entries``
        and ``starts``: as ``entries_of`` gives them for those rows' connections, in the same order).

        Every field in one pass over each row (``Columns.of``), the finished fields and the working state at once,
        into memory used before (``_turns``). The rows used to be copied whole here and made columns by the two
        threads that keep them, each reading every copied row again (the 1 M-connection capture's 1.9 GB of row
        copies): that way its analysis took 0.26 s more on one core (4.38 s against 4.12 s, medians of five) and
        0.7 s more CPU on two (decision 0005, thirteenth session)."""
        rows = np.asarray(rows, np.int64)
        self._turn ^= 1
        conn_room, side_room = self._turns[self._turn]
        # Room for as many rows as the kernel has (no sweep retires more): grown a little at a time, as batches came,
        # the rooms were made again and again (49,000 page faults of the 1 M-connection capture's scanning thread).
        conn_room.reserve(_room(len(self.conns), CONN_PARTS))
        side_room.reserve(_room(len(self.sides), SIDE_PARTS))
        conns, working_conns = Columns.of(self.conns, rows, *CONN_PARTS, scratch=conn_room)
        sides, working_sides = Columns.of(self.sides, both_sides(rows), *SIDE_PARTS, scratch=side_room)
        return Retiring(conns, sides, working_conns, working_sides, _quantiles(working_sides, entries, starts))

    def _keep(self, ids: Any, retiring: Retiring) -> None:
        """Store the finished rows of connections ``ids`` (``finish``'s columns of their rows, and their quantiles):
        by a thread of its own while the kernel scans on, one batch at a time. numpy lets go of the GIL while it
        casts and scatters, and the kernel's quantiles do too, so this runs on the second core (on the
        1 M-connection capture the stores took 0.5-0.8 s of the one core, the quantiles' sort and count 0.1 s)."""
        self._keeper.submit(self._put, ids, both_sides(ids), retiring)

    def _put(self, ids: Any, side_ids: Any, retiring: Retiring) -> None:
        sides = dict(retiring.sides.columns)
        sides["q"] = retiring.quantiles()
        self.done_conns.put(ids, retiring.conns.columns)
        self.done_sides.put(side_ids, sides)

    def table(self) -> tuple[Finished, Finished]:
        """Every connection's finished rows, in id order: (``FINISHED_CONN`` rows, ``FINISHED_SIDE``
        rows, side ``2 * id + side``), as columns. The retired ones' are in the finished store already;
        the open ones are finished where they are and join them. The event pool is sorted
        by side row."""
        if self._table is None:
            rows = self.open_rows()
            ids = self.conns.cid[rows]
            entries, starts, _, _ = self.entries_of(ids)
            self._keep(ids, self.finish(rows, entries, starts))
            self._keeper.wait()
            n = self.n
            self._table = self.done_conns.table(n), self.done_sides.table(2 * n)
            self.close()
            # Nothing reads the open rows, their copies, the 4-tuples or the hash table again: free them.
            self._conn_rows, self._side_rows = MappedRows(Conn, 0), MappedRows(Side, 0)
            self.conns, self.sides = self._conn_rows.rows(0), self._side_rows.rows(0)
            self._turns = _no_turns()
            self._key_rows = MappedRows(Key, 0)
            self.keys, self.free, self.ht = self._key_rows.rows(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
            # Then the kept examples grouped by side row (each row's in the order kept), as the
            # connection table reads them: sorted here once, so it need not keep a sorted copy.
            events = self.events[: int(self.g.n_events)]
            # ``np.take``, not ``events[order]``: numpy's fancy indexing copies records field by field (0.08 s
            # for the 2 M events of the 1 M-connection capture, against 0.035 s).
            self.events = np.take(events, np.argsort(events.row, kind="stable"))
            self._event_rows = MappedRows(Event, 0)
        return self._table

    def close(self) -> None:
        """Drop the spill file; end the thread that fills the finished stores."""
        try:
            self._keeper.close()
        finally:
            if self.spill is not None:
                self.spill.close()
                self.spill = None

    def grow_events(self) -> None:
        n = 2 * len(self.events)
        del self.events  # the mapping's one reader (``MappedRows.grow``)
        self.events = self._event_rows.grow(n, int(self.g.n_events))

    def grow_sketches(self, entries: int = 0) -> None:
        """Double the sketch map, or more: until ``entries`` fit in at most half of it."""
        size = 2 * len(self.sketches)
        if entries:
            if entries * 2 <= len(self.sketches):
                return
            while entries * 2 > size:
                size *= 2
        bigger = blank(SketchEntry, size)
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


class Scanner:
    """Reads one capture stream through the kernel into ``state``.

    ``run`` raises ``MalformedInput`` where the input breaks (the state then holds what was
    read before). ``on_chunk`` is called after each read from the stream; ``on_trace(rows)``
    gets the traced connections' packets (``fields.Packet`` rows, with what the connection
    table made of each), in order. The rows are the kernel's own buffer, filled again after the
    call returns: ``on_trace`` copies what it keeps.
    """

    def __init__(
        self,
        stream: BufferSource | MappedFile,
        *,
        max_caplen: int,
        size_hint: int = 0,
        on_chunk: Callable[[], None] | None = None,
        trace: set[int] | None = None,
        on_trace: Callable[[Any], None] | None = None,
        ageing: Ageing | None = None,
    ) -> None:
        #: A mapped file is scanned in place (``_buf`` a window of it); a stream is read into ``_buf``.
        self._mapped = stream if isinstance(stream, MappedFile) else None
        #: A stream that hands out its blocks to be scanned where they are (``ReadAhead.take``), else None.
        self._take: Callable[[memoryview], memoryview] | None = None
        if not isinstance(stream, MappedFile):
            self._read = stream.read
            self._readinto = stream.readinto
            self._take = getattr(stream, "take", None)
        self._max_caplen = max_caplen
        self._on_chunk = on_chunk
        self._on_trace = on_trace
        self.state = CaptureState(trace=trace is not None, ageing=ageing)
        if trace is not None:
            self.state.traced = set(trace)
            want = self.state.want
            want[[i for i in trace if i < len(want)]] = True
        #: The scanner's own buffer, for a stream it reads into, and for a cut record too long to fit before the
        #: next block of a stream that hands out its blocks (``HEADROOM``).
        self._own = np.empty(0 if self._mapped else buffer_size(max_caplen, size_hint), np.uint8)
        #: What the kernel reads: ``_own``, a window of the mapped file, or a stream's block.
        self._buf = self._own
        #: Stream offset of ``_buf[0]``.
        self._base = 0

    def run(self) -> None:
        """Read the whole stream; raises ``MalformedInput`` where it breaks."""
        st = self.state
        buf = self._buf
        pos = end = 0
        eof = False
        make_room: dict[int, Callable[[], None]] = {
            R_GROW_CONNS: st.rows_full,
            R_REVIVE: st.revive,
            R_GROW_KEYS: st.grow_keys,
            R_GROW_TABLE: st.grow_table,
            R_GROW_EVENTS: st.grow_events,
            R_GROW_SKETCHES: st.grow_sketches,
            R_GROW_IFACES: st.grow_ifaces,
        }
        try:
            while True:
                with np.errstate(over="ignore"):  # hashes wrap by design (only numpy warns)
                    code, pos = scan(buf, pos, end, eof, self._max_caplen, *st.args())
                if code == R_NEED_DATA:
                    pos, end, eof = self._refill(pos, end)
                    buf = self._buf
                elif code == R_END:
                    return
                elif code == R_SKIP:
                    pos, end = self._skip(pos, end)
                    buf = self._buf
                elif code in make_room:
                    make_room[code]()
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

    def release_buffer(self) -> None:
        """Free the read buffer once the stream is read."""
        self._buf = self._own = np.empty(0, np.uint8)

    def _refill(self, pos: int, end: int) -> tuple[int, int, bool]:
        """Keep the bytes from ``pos`` (at the front) and read more behind them: the stream's next block with
        them in front, scanned where it is, or (a stream that cannot, or more than ``HEADROOM`` bytes kept) more read
        into the scanner's own buffer behind them."""
        if self._mapped is not None:
            return self._move(self._base + pos, to=self._base + end + 1)  # past what the kernel has
        buf = self._buf
        left = end - pos
        self._base += pos
        if self._take is not None and left <= HEADROOM:
            view = self._take(buf.data[pos:end])
            self._buf = np.frombuffer(view, np.uint8)
            n = len(view) - left
        else:
            own = self._own
            if pos or buf is not own:
                own[:left] = buf[pos:end]
            n = self._readinto(own.data[left:])
            self._buf = own
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
        if self._mapped is not None:
            base = self._base + pos + n
            if base > self._mapped.size <= self._mapped.limit:  # (past the limit too: InputTooLarge, as a stream)
                self._mapped.extend(self._mapped.size)  # read to the end, as a stream is, looking for the rest
                raise MalformedInput(ERRORS[int(g.skip_err)], offset=at)
            pos, end, _ = self._move(base, to=base)
            return pos, end
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

    def _move(self, base: int, *, to: int) -> tuple[int, int, bool]:
        """A mapped file's window: from ``base``, its bytes handed out up to ``to`` at least (``MappedFile.extend``)."""
        m = self._mapped
        assert m is not None
        self._base = base
        before = m.count
        end = m.extend(to)
        self._buf = m.data[base:end]
        m.forget(base)
        if self._on_chunk is not None:
            self._on_chunk()
        # The end is told once the kernel has asked past the last byte, as a stream's empty read tells it (the
        # packet index's last checkpoint, at the end of the file, is the same).
        return 0, end - base, m.eof and end == before

    def _flush_trace(self) -> None:
        st = self.state
        n = int(st.g.n_trace)
        if n and self._on_trace is not None:
            self._on_trace(st.trace[:n])
        st.g.n_trace = 0


def trace(
    path: str | Path | BinaryIO, wanted: set[int], on_rows: Callable[[Any], None], *, limits: Limits
) -> tuple[CaptureState, str | None]:
    """Re-read a capture (a path, or a binary stream the caller closes) and hand the packets of connections
    ``wanted`` (ids) to ``on_rows`` (``fields.Packet`` rows, as the connection table classified them). Returns the
    table's state and the error that stopped reading, if any (the segments before it were handed on)."""
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
