"""Byte sources for the capture reader: plain or gzip files, with the input-size limit.

A plain file on disk is mapped and scanned in place (``MappedFile``); a gzip or any other stream is read ahead
in a thread (``ReadAhead``) and scanned in the read-ahead's blocks where they are (``ReadAhead.take``).

Decompression is done here with a raw ``decompressobj`` (isal's when it is installed,
it is several times faster than zlib) and ``max_length``, so the engine itself decides
how many bytes are inflated: a gzip bomb is stopped at ``max_input_bytes`` (+1 byte, to
know that there was more), never after.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import queue
import stat
import threading
import zlib
from collections import deque
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO, Protocol, cast

import numpy as np

from whodunnet.errors import InputTooLarge, MalformedInput
from whodunnet.limits import InflateGuard
from whodunnet.magic import GZIP_MAGIC

_zlib_impl: ModuleType
try:  # isal's inflate is several times faster than zlib's; both have the same API
    from isal import isal_zlib

    _zlib_impl = isal_zlib
except ImportError:  # pragma: no cover - depends on the install
    _zlib_impl = zlib
_ZLIB_ERRORS: tuple[type[Exception], ...] = (zlib.error, _zlib_impl.error)
#: What isal's gzip reader raises where the data breaks: cut short, not a member, a bad CRC, corrupt.
_BREAKS: tuple[type[Exception], ...] = (EOFError, OSError, *_ZLIB_ERRORS)
_GzipReader: Any
try:  # isal's gzip reader in C (isal 1.6 and later): inflates into a buffer it is given
    from isal.isal_zlib import _GzipReader
except ImportError:  # pragma: no cover - depends on the install
    _GzipReader = None

#: Compressed bytes read from disk at a time.
RAW_CHUNK = 256 * 1024
#: Most bytes inflated per read, and the size of each of the read-ahead's buffers. A ``decompressobj`` (``_Inflate``)
#: allocates its whole output size up front, and an allocation above glibc's mmap threshold (128 KiB, raised to the
#: largest block freed) is fresh pages every time; 1 MiB blocks are soon reused from the heap instead.
MAX_INFLATE = 1 << 20
#: Bytes before each of the read-ahead's blocks, for the end of the block before that the scanner still needs (a
#: packet cut by the block's end): room for a packet of 64 KiB and its record's header and options. A longer tail (a
#: pcapng block of up to ``MAX_META_BLOCK``) is copied into the scanner's own buffer instead (``Scanner._refill``).
HEADROOM = 128 * 1024
#: Compressed bytes isal's gzip reader keeps read ahead of what it has inflated: the bomb check counts them as
#: inflated already (``InflateGuard``), so they are few; more made no difference to its speed.
FAST_RAW_BUFFER = 32 * 1024
#: How many recent reads remember where they were in the compressed file (for error offsets).
MARKS = 256
#: Blocks (of up to ``MAX_INFLATE`` bytes) a capture's read-ahead thread keeps ready. The scanning thread waits a few
#: milliseconds at a time for the threads that keep retired connections, and the inflating goes on meanwhile (about
#: 1 MB a millisecond): with 4 it stopped, full, and the scan waited for it later (0.16-0.29 s of the gzipped 1 M-
#: connection capture). 16: `whodunnet analyze` of it 3.00-3.22 s against 3.08-3.30 s (four alternating runs),
#: 12 MB more at the peak.
READ_AHEAD_BLOCKS = 16
#: A mapped capture is handed to the kernel up to the next multiple of this many bytes at a time (the read-ahead's
#: block size: the progress and the packet index's checkpoints come as often as they do from a stream).
WINDOW = MAX_INFLATE


class GzipError(MalformedInput):
    """Broken gzip data; ``offset`` counts bytes of the compressed file."""


class ByteSource(Protocol):
    """Anything with ``read(n) -> bytes`` (returns ``b""`` at the end)."""

    def read(self, n: int, /) -> bytes: ...


class IntoSource(Protocol):
    """Anything with ``readinto(view) -> int`` (returns 0 at the end)."""

    def readinto(self, view: memoryview, /) -> int: ...


class BufferSource(ByteSource, IntoSource, Protocol):
    """A ``ByteSource`` that can also read into a buffer."""


def read_into(source: ByteSource | IntoSource, view: memoryview) -> int:
    """Bytes of ``source`` into ``view``, how many (0 at the end): by its ``readinto`` where it has one (a file: no
    copy), else a ``read`` copied in."""
    readinto = getattr(source, "readinto", None)
    if readinto is not None:
        return int(readinto(view) or 0)
    data = cast(ByteSource, source).read(len(view))
    view[: len(data)] = data
    return len(data)


class GzipSource:
    """Streams the inflated content of a (possibly multi-member) gzip stream, straight into the reader's buffer.

    isal's gzip reader (``_GzipReader``, written in C) inflates into the buffer it is given, where a
    ``decompressobj`` hands out a fresh block for every read and copies its unread input each time (decision 0026:
    the gzipped 1 M-connection capture inflated alone 1.46-1.53 s against 1.12-1.30 s; in its analysis the
    inflating thread's 1.40 CPU s became 1.32). Where it meets broken data it raises, and its ``tell`` says how much
    it had put in the buffer before. The stream is then read again from its start by a ``decompressobj``
    (``_Inflate``), up to where it had come, and on from there: every byte before the break is handed out, the
    break is told where it is, and trailing garbage after the last member is ignored as gzip(1) does, as before. A
    stream that cannot seek back hands out what the gzip reader had inflated and ends with its error.
    """

    def __init__(self, raw: ByteSource, guard: InflateGuard | None = None) -> None:
        self._raw = raw
        self._guard = guard
        seekable = getattr(raw, "seekable", None)
        self._origin = raw.tell() if seekable is not None and seekable() else None  # type: ignore[attr-defined]
        self.raw_bytes = 0
        #: Bytes of the inflated stream handed out (the gzip-bomb test checks this).
        self.decompressed_bytes = 0
        self._fast = _GzipReader(_Counted(self), FAST_RAW_BUFFER) if _GzipReader is not None else None
        self._slow: _Inflate | None = None if self._fast is not None else _Inflate(self)
        #: The error the gzip reader met, raised once the bytes before it are handed out (a stream with no seek).
        self._broken: GzipError | None = None
        #: (decompressed bytes produced, compressed bytes read) after each recent read; the lock because
        #: the read-ahead thread appends while an error's offset may be looked up.
        self._marks: deque[tuple[int, int]] = deque(maxlen=MARKS)
        self._marks_lock = threading.Lock()

    def readinto(self, view: memoryview, /) -> int:
        """Inflate at most ``len(view)`` (and ``MAX_INFLATE``) bytes into ``view``; 0 at the end."""
        view = view[:MAX_INFLATE]
        if self._broken is not None:
            raise self._broken
        if self._slow is not None:
            n = self._slow.readinto(view)
        else:
            assert self._fast is not None
            try:
                n = self._fast.readinto(view)
            except _BREAKS as exc:
                n = self._after_break(exc, view)
        if n:
            self._count(n)
        return n

    def _after_break(self, exc: BaseException, view: memoryview) -> int:
        """The gzip reader met broken data: read again from the start (``_Inflate``), or keep what it inflated."""
        assert self._fast is not None
        inflated = int(self._fast.tell()) - self.decompressed_bytes  # in ``view``, before the break
        self._fast = None
        if self._origin is not None:
            self._raw.seek(self._origin)  # type: ignore[attr-defined]
            self.raw_bytes = 0
            self._slow = _Inflate(self)
            self._slow.skip(self.decompressed_bytes)
            return self._slow.readinto(view)
        if isinstance(exc, EOFError):
            self._broken = _cut_short(self.raw_bytes)
        else:
            start = max(0, self.raw_bytes - FAST_RAW_BUFFER)
            self._broken = _corrupt(exc, start, self.raw_bytes - start)
        if inflated <= 0:
            raise self._broken
        return inflated

    def _count(self, n: int) -> None:
        self.decompressed_bytes += n
        consumed = self.raw_bytes - (self._slow.pending if self._slow is not None else 0)
        if self._guard is not None:
            self._guard.check(compressed=consumed, inflated=self.decompressed_bytes)
        with self._marks_lock:
            self._marks.append((self.decompressed_bytes, consumed))

    def compressed_position(self, offset: int) -> int | None:
        """How far into the gzip file the decompressor had read when it produced byte ``offset``
        of the decompressed data (None when that was too long ago to remember)."""
        with self._marks_lock:
            marks = list(self._marks)
        for produced, read in marks:
            if produced > offset:
                return read
        return None

    def raw_read(self, n: int) -> bytes:
        data = self._raw.read(n)
        self.raw_bytes += len(data)
        return data

    def raw_readinto(self, view: memoryview) -> int:
        n = read_into(self._raw, view)
        self.raw_bytes += n
        return n


def _cut_short(offset: int) -> GzipError:
    """The error of a gzip file that ends at compressed byte ``offset``, before its end marker."""
    return GzipError("the gzip data ends before its end marker (the compressed file is cut short)", offset=offset)


def _corrupt(exc: BaseException, start: int, n: int) -> GzipError:
    """The error of gzip data found corrupt (``exc``) within the ``n`` compressed bytes from byte ``start``."""
    return GzipError(f"the gzip data is corrupt ({exc}) within the {n:,} compressed bytes from here", offset=start)


class _Counted(io.RawIOBase):
    """The compressed file as the gzip reader reads it (``readinto``), counting the bytes in ``GzipSource``."""

    def __init__(self, source: GzipSource) -> None:
        super().__init__()
        self._source = source

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        return self._source.raw_readinto(memoryview(view))


class _Inflate:
    """A gzip stream inflated by a ``decompressobj``, member after member, for ``GzipSource`` when isal's gzip
    reader is not there or has met broken data: it tells where the data breaks, by the compressed bytes it was
    given, and stops at trailing garbage after the last member."""

    def __init__(self, source: GzipSource) -> None:
        self._source = source
        self._d = _zlib_impl.decompressobj(wbits=31)
        self._pending = b""
        self._done = False

    @property
    def pending(self) -> int:
        """Compressed bytes read but not yet inflated."""
        return len(self._pending)

    def skip(self, n: int) -> None:
        """Inflate ``n`` bytes and drop them (what was handed out before the reading started again)."""
        while n > 0:
            data = self._inflate(min(n, MAX_INFLATE))
            if not data:
                return
            n -= len(data)

    def readinto(self, view: memoryview) -> int:
        data = self._inflate(len(view))
        view[: len(data)] = data
        return len(data)

    def _inflate(self, n: int) -> bytes:
        while not self._done:
            d = self._d
            if d.eof:
                rest = d.unused_data or self._source.raw_read(RAW_CHUNK)
                if not rest.startswith(GZIP_MAGIC[:1]) or (len(rest) > 1 and rest[:2] != GZIP_MAGIC):
                    # Trailing zero padding or garbage after the last member: ignored, as gzip(1) does.
                    self._done = True
                    break
                self._d = d = _zlib_impl.decompressobj(wbits=31)
                self._pending = rest
            data = self._pending or self._source.raw_read(RAW_CHUNK)
            if not data:
                raise _cut_short(self._source.raw_bytes)
            try:
                out = d.decompress(data, min(n, MAX_INFLATE))
            except _ZLIB_ERRORS as exc:
                raise _corrupt(exc, self._source.raw_bytes - len(data), len(data)) from None
            self._pending = d.unconsumed_tail
            if out:
                return bytes(out)
        return b""


class ReadAhead:
    """Reads (a gzip stream: inflates) a capture in a thread, ``READ_AHEAD_BLOCKS`` blocks ahead of the reader.

    The capture kernel releases the GIL while it scans a buffer, and so do isal while it inflates and the file's
    read while the system copies: with the two on two cores a capture is read at the kernel's speed or the
    decompressor's rather than at the sum of both. A plain stream too (a pipe, an object store's): its reading is
    the system's copy (a plain file on disk is mapped instead, ``MappedFile``). The blocks are the same
    ``READ_AHEAD_BLOCKS + 2`` buffers, read into (``readinto``) again once the reader has taken what they held: no
    fresh memory, and no page fault, for every block. The thread never reads past ``cap`` bytes in total (the input
    limit + 1, what ``LimitedSource`` would ask for), so a gzip bomb is still stopped at the limit; an error the
    reading meets (corrupt data, a refused bomb) is raised to the reader where the stream reaches it, after every
    byte before it.

    Each buffer has ``HEADROOM`` bytes before its block: ``take`` hands the scanner a whole block to scan where it
    is, with the bytes of the block before that the scanner has not used (a packet cut by the block's end) copied
    into them, instead of the scanner copying every block into its own buffer (decision 0026).
    """

    def __init__(self, inner: ByteSource | IntoSource, cap: int, *, blocks: int = READ_AHEAD_BLOCKS) -> None:
        self._inner = inner
        self._left = cap
        self._ready: queue.Queue[tuple[bytearray, int] | BaseException] = queue.Queue(maxsize=blocks)
        #: Buffers to read into: one being read into, ``blocks`` ready, one being taken by the reader; made by the
        #: thread as it needs them (``_buffer``), so a small capture makes one or two, not ``blocks + 2`` MiB.
        self._free: queue.SimpleQueue[bytearray] = queue.SimpleQueue()
        self._unmade = blocks + 2
        #: The buffer the reader is taking from, and the part of it not handed out yet (``_at`` to ``_end``).
        self._held: bytearray | None = None
        self._at = self._end = 0
        self._ended = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="capture read-ahead", daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                buf = self._buffer()
                if self._stop.is_set():
                    return
                want = min(MAX_INFLATE, self._left)
                n = read_into(self._inner, memoryview(buf)[HEADROOM : HEADROOM + want]) if want > 0 else 0
                self._left -= n
                self._hand((buf, n))
                if not n:
                    return
        except BaseException as exc:  # handed to the reader, raised there
            self._hand(exc)

    def _buffer(self) -> bytearray:
        """A buffer to read into: one the reader has given back, else a new one while fewer than ``blocks + 2``
        are made, else the next one given back (waited for)."""
        if self._unmade:
            try:
                return self._free.get_nowait()
            except queue.Empty:
                self._unmade -= 1
                return bytearray(HEADROOM + MAX_INFLATE)
        return self._free.get()

    def _hand(self, item: tuple[bytearray, int] | BaseException) -> None:
        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _next_block(self, tail: memoryview | None = None) -> bool:
        """Whether there are bytes to hand out (waits for the thread's next block when the last is used up). With
        ``tail`` (at most ``HEADROOM`` bytes), a new block starts with those bytes, copied in before the buffer
        they are in is given back."""
        if self._at == self._end and not self._ended:
            if self._thread.ident is None:  # started by the first read: nothing runs for a capture never read
                self._thread.start()
            item = self._ready.get()
            if isinstance(item, BaseException):
                self._ended = True
                raise item
            buf, n = item
            self._ended = not n
            start = HEADROOM
            if tail is not None and len(tail):
                start -= len(tail)
                buf[start:HEADROOM] = tail
            if self._held is not None:  # used up: the thread may read into it again
                self._free.put(self._held)
            self._held = buf
            self._at, self._end = start, HEADROOM + n
        return self._at < self._end

    def read(self, n: int, /) -> bytes:
        if not self._next_block():
            return b""
        assert self._held is not None
        at = self._at
        self._at = min(self._end, at + n)
        return bytes(self._held[at : self._at])

    def readinto(self, view: memoryview, /) -> int:
        """``read`` straight into ``view``: the block is copied once, into the reader's buffer."""
        if not self._next_block():
            return 0
        assert self._held is not None
        n = min(len(view), self._end - self._at)
        view[:n] = memoryview(self._held)[self._at : self._at + n]
        self._at += n
        return n

    def take(self, tail: memoryview, /) -> memoryview:
        """The bytes not handed out yet, at most a block, to be read where they are: ``tail`` (at most
        ``HEADROOM`` bytes the reader still needs, a view of the last block taken or a copy) in front of them.
        Only ``tail`` at the end of the stream. The view stays good until the next call."""
        if len(tail) > HEADROOM:
            raise ValueError(f"{len(tail)} bytes do not fit before a block (at most {HEADROOM})")
        if self._at < self._end:  # the rest of a block partly read: the bytes before it are handed out
            assert self._held is not None
            self._at -= len(tail)
            self._held[self._at : self._at + len(tail)] = tail
        elif not self._next_block(tail):
            return tail
        assert self._held is not None
        view = memoryview(self._held)[self._at : self._end]
        self._at = self._end
        return view

    def close(self) -> None:
        self._stop.set()
        self._free.put(bytearray(0))  # a thread waiting for a buffer wakes, and sees the stop
        if self._thread.ident is not None:
            self._thread.join()
        # The buffers go now, not with the last reference to this reader.
        self._held, self._at, self._end = None, 0, 0
        while not self._ready.empty():
            self._ready.get_nowait()
        while not self._free.empty():
            self._free.get_nowait()


class MappedFile:
    """A plain capture file read in place: mapped into memory, the kernel scans the mapping itself, with no copy.

    A stream costs two copies of every byte: the system's, from the page cache into the read-ahead's block, and
    the block's into the scanner's buffer (decision 0021). The mapping is private (``ACCESS_COPY``): nothing writes
    it, but numpy then sees it writable, which is the array type the kernel was compiled for. ``extend`` hands out
    the file up to the next multiple of ``WINDOW`` bytes and never past ``limit`` (what ``LimitedSource`` would
    read, and ``InputTooLarge`` where it would raise); ``forget`` gives back the pages the scan has left behind,
    so that the mapped file never counts in the process's memory for more than a window or two.
    """

    def __init__(self, fd: int, size: int, limit: int) -> None:
        self._map = mmap.mmap(fd, size, access=mmap.ACCESS_COPY)
        self._map.madvise(mmap.MADV_SEQUENTIAL)
        self.data: Any = np.frombuffer(self._map, np.uint8)
        self.size = size
        self.limit = limit
        #: Bytes handed out (to the kernel) so far.
        self.count = 0
        self._forgotten = 0

    @property
    def eof(self) -> bool:
        """Whether every byte of the file is handed out (a file past the limit never is)."""
        return self.count == self.size <= self.limit

    def extend(self, to: int = 0) -> int:
        """Hand out bytes up to the next multiple of ``WINDOW``, and at least up to ``to``; the new ``count``.
        Raises ``InputTooLarge`` when that is past the limit and the file goes on past it."""
        if to > self.limit < self.size:
            raise too_large(self.limit)
        want = max(to, (self.count // WINDOW + 1) * WINDOW)
        self.count = max(self.count, min(want, self.size, self.limit))
        return self.count

    def forget(self, before: int) -> None:
        """The scan is past byte ``before``: the whole pages before it leave the process (they stay cached)."""
        upto = before - before % mmap.PAGESIZE
        if upto > self._forgotten:
            self._map.madvise(mmap.MADV_DONTNEED, self._forgotten, upto - self._forgotten)
            self._forgotten = upto

    def close(self) -> None:
        self.data = None
        with contextlib.suppress(BufferError):  # a view of it is still held: unmapped when the last one goes
            self._map.close()


class LimitedSource:
    """Passes reads through up to ``limit`` bytes, then raises ``InputTooLarge``.

    It asks the inner source for at most ``limit + 1`` bytes in total: the one extra
    byte is how it tells "exactly at the limit" from "past it". The bytes before the
    limit are still handed out, so the reader's partial result covers all of them.
    """

    def __init__(self, inner: ReadAhead, limit: int) -> None:
        self._inner = inner
        self.limit = limit
        self.count = 0
        self._exceeded = False

    def read(self, n: int, /) -> bytes:
        if self._exceeded:
            self._too_large()
        data = self._inner.read(min(n, self.limit + 1 - self.count))
        return data[: self._admit(len(data))]

    def readinto(self, view: memoryview, /) -> int:
        """``read`` straight into ``view`` when the inner source can (a plain file: no copy)."""
        if self._exceeded:
            self._too_large()
        return self._admit(read_into(self._inner, view[: min(len(view), self.limit + 1 - self.count)]))

    def take(self, tail: memoryview, /) -> memoryview:
        """``ReadAhead.take`` up to the limit: ``tail`` and the next bytes, to be read where they are."""
        if self._exceeded:
            self._too_large()
        view = self._inner.take(tail)
        return view[: len(tail) + self._admit(len(view) - len(tail))]

    def _admit(self, n: int) -> int:
        """``n`` bytes more were read: how many of them are within the limit (raises when none of them is)."""
        self.count += n
        if self.count > self.limit:
            self._exceeded = True
            n -= self.count - self.limit
            self.count = self.limit
            if not n:
                self._too_large()
        return n

    def _too_large(self) -> None:
        raise too_large(self.limit)


def too_large(limit: int) -> InputTooLarge:
    """The error of an input past ``limit`` bytes (``Limits.max_input_bytes``), where reading stopped."""
    return InputTooLarge(
        f"the input is larger than the limit of {limit:,} bytes (max_input_bytes); reading stopped at the limit",
        offset=limit,
    )


class OpenedCapture:
    """A capture file opened for streaming: the (decompressed, limited) bytes and where we are."""

    def __init__(
        self, raw: BinaryIO, *, max_input_bytes: int, owns_raw: bool, guard: InflateGuard | None = None
    ) -> None:
        self.raw = raw
        self._owns_raw = owns_raw
        self.size = _size_of(raw)
        start = raw.read(2)
        base: ByteSource
        if raw.seekable():
            raw.seek(-len(start), io.SEEK_CUR)
            base = raw
        else:
            base = _Prefixed(start, raw)
        self.compressed = start == GZIP_MAGIC
        self.gzip = GzipSource(base, guard) if self.compressed else None
        self._ahead: ReadAhead | None = None
        self.stream: LimitedSource | MappedFile
        fd = _regular_fd(raw) if not self.compressed and self.size else None
        if fd is not None:
            self.stream = MappedFile(fd, self.size, max_input_bytes)
        else:
            self._ahead = ReadAhead(self.gzip if self.gzip is not None else base, max_input_bytes + 1)
            self.stream = LimitedSource(self._ahead, max_input_bytes)

    @property
    def decompressed_bytes(self) -> int:
        """Bytes the decompressor produced (for plain files: bytes read)."""
        return self.gzip.decompressed_bytes if self.gzip is not None else self.stream.count

    def fraction(self) -> float:
        """How far through the file (in on-disk bytes) reading has come, 0..1."""
        if not self.size:
            return 0.0
        done = self.gzip.raw_bytes if self.gzip is not None else self.stream.count
        return min(1.0, done / self.size)

    def where(self, exc: MalformedInput) -> str:
        """For a compressed file: which bytes the error's offset counts, to add to its message."""
        if self.gzip is None or exc.offset is None:
            return ""
        if isinstance(exc, GzipError):
            return " (offset counted in the gzip file)"
        read = self.gzip.compressed_position(exc.offset)
        if read is None or isinstance(exc, InputTooLarge):
            return " (offset counted in the decompressed data)"
        return f" (offset counted in the decompressed data, reached within the first {read:,} bytes of the gzip file)"

    def close(self) -> None:
        if self._ahead is not None:
            self._ahead.close()
        if isinstance(self.stream, MappedFile):
            self.stream.close()
        if self._owns_raw:
            self.raw.close()


def open_capture(
    source: str | Path | BinaryIO, *, max_input_bytes: int, guard: InflateGuard | None = None
) -> OpenedCapture:
    """Open a path or a binary file object for streaming (gzip is recognised by content, inflated under ``guard``)."""
    if isinstance(source, (str, Path)):
        return OpenedCapture(open(source, "rb"), max_input_bytes=max_input_bytes, owns_raw=True, guard=guard)
    return OpenedCapture(source, max_input_bytes=max_input_bytes, owns_raw=False, guard=guard)


class _Prefixed:
    """A non-seekable stream with the bytes already peeked at put back in front."""

    def __init__(self, prefix: bytes, raw: ByteSource) -> None:
        self._prefix = prefix
        self._raw = raw

    def read(self, n: int, /) -> bytes:
        if self._prefix:
            head, self._prefix = self._prefix[:n], self._prefix[n:]
            return head
        return self._raw.read(n)


def _regular_fd(raw: BinaryIO) -> int | None:
    """The descriptor of a regular file read from its start (what can be mapped), else None."""
    try:
        fd = raw.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode) and raw.tell() == 0:
            return fd
    except (OSError, AttributeError, io.UnsupportedOperation):
        pass
    return None


def _size_of(raw: BinaryIO) -> int:
    try:
        return os.fstat(raw.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        pass
    if raw.seekable():
        here = raw.tell()
        end = raw.seek(0, io.SEEK_END)
        raw.seek(here)
        return end
    return 0
