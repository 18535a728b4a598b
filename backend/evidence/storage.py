"""Upload bytes, exact or refused: appended in whole parts, hashed as they stream, never held whole in memory.

Every upload (a one-shot body or a resumable tus upload, decision 0009) writes to its ``Staging`` in the
configured store (``evidence.blobs``, decision 0017): a part file ``incoming/<upload id>.part`` under
``EVIDENCE_DIR`` held by an exclusive ``flock``, or one S3 multipart upload held by a PostgreSQL advisory lock,
so two requests never write one upload and the reaper never removes one that is being written. ``Appender``
copies a request body into it from a given offset, hashing (sha256) and counting; it remembers the last *part
boundary* it passed (a multiple of ``UPLOAD_PART_BYTES``) with the hash state there, which is what a cut-off
request keeps: a resumable upload resumes from a whole part (under S3, one ``UploadPart``). A completed upload
is made durable under its server-made name (a rename, or ``CompleteMultipartUpload``); only then is the
database row written.

The readers at the bottom (``read_lines``) serve requests that look into stored evidence, with memory bounded
whatever the file holds (a 2 GB line, a gzip bomb).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from evidence.blobs import Staging
from whodunnet.errors import InputRefused
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits, SmallReads


class UploadRefused(Exception):
    """An upload the server will not (or can no longer) take; ``status`` is the HTTP answer, the text says why."""

    status = 400


class BodyIncomplete(UploadRefused):
    """The request body ended (or failed) before the bytes it declared had arrived."""

    status = 400


class UploadTooLarge(UploadRefused):
    """The upload went past the size limit (or a resumable upload's declared length)."""

    status = 413


class StorageFull(UploadRefused):
    """The team's quota, or the disk, cannot hold the upload (507 Insufficient Storage)."""

    status = 507


class UploadBusy(UploadRefused):
    """Another request is still writing this upload (423 Locked: retry in a moment)."""

    status = 423


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True)
class Body:
    """A request body to copy: ``length`` from Content-Length, or None when the server marks its end (chunked)."""

    stream: Readable | BinaryIO
    length: int | None


SNIFF_BYTES = 64 * 1024
_FULL = (errno.ENOSPC, errno.EDQUOT)


def _disk_full() -> StorageFull:
    return StorageFull("The server's evidence disk is full; nothing of this request was kept. Try again later.")


class Appender:
    """Copies one request body into a locked part file from ``start``, hashing and counting.

    ``pos`` is how far the bytes on disk go; ``boundary``/``boundary_hash`` are the last whole part passed (or
    ``start``) and the sha256 state of everything before it (None when the hash of the bytes before ``start``
    is not known in this process). ``end`` is the most the file may hold (an upload's declared length, or the
    size limit); ``on_part`` is called at each part boundary (quota checks, progress) and may raise.
    """

    def __init__(
        self,
        part: Staging,
        *,
        start: int,
        end: int,
        part_bytes: int,
        chunk_size: int,
        hasher: Any | None,
        on_part: Callable[[int], None] = lambda _: None,
    ) -> None:
        self.part = part
        self.start = start
        self.pos = start
        self.end = end
        self.part_bytes = part_bytes
        self.chunk_size = chunk_size
        self.hasher = hasher
        self.boundary = start
        self.boundary_hash = hasher.copy() if hasher is not None else None
        self._next = (start // part_bytes + 1) * part_bytes
        self.on_part = on_part

    def copy(self, body: Body, *, exact_end: bool) -> None:
        """Append the whole body; raises ``BodyIncomplete`` if it stops short of its declared length.

        ``exact_end``: the body must also end exactly at ``end`` (a one-shot body whose length is the file's).
        """
        # Told where this body and the file end (``end`` is the file's length whenever the body's is known), the S3
        # store sends the parts this body covers whole as they arrive instead of holding them (decision 0022).
        until = self.start + body.length if body.length is not None else None
        self.part.begin(self.start, until=until, total=self.end if until is not None else None)
        while True:
            want = self.chunk_size
            if body.length is not None:
                want = min(want, self.start + body.length - self.pos)
                if want <= 0:
                    break
            try:
                chunk = body.stream.read(want)
            except Exception as exc:  # the server's body reader: a reset, a timeout, a broken chunked encoding
                raise BodyIncomplete(self._short(body, f" ({type(exc).__name__}: {exc})")) from None
            if not chunk:
                if body.length is not None:
                    raise BodyIncomplete(self._short(body, ""))
                break
            if self.pos + len(chunk) > self.end:
                raise UploadTooLarge(f"The upload went past {self.end:,} bytes, more than it may hold.")
            self._write(chunk)
            self._feed(chunk)
        if exact_end and self.pos != self.end:
            raise BodyIncomplete(f"The body ended after {self.pos:,} of the {self.end:,} bytes declared.")

    def _short(self, body: Body, why: str) -> str:
        got = self.pos - self.start
        if body.length is None:
            return f"The connection ended after {got:,} bytes, before the chunked body's end{why}."
        return f"The body ended after {got:,} of the {body.length:,} bytes its Content-Length declared{why}."

    def _write(self, chunk: bytes) -> None:
        try:
            self.part.write(chunk)
        except OSError as exc:
            if exc.errno in _FULL:
                raise _disk_full() from None
            raise

    def _feed(self, chunk: bytes) -> None:
        view = memoryview(chunk)
        while view:
            piece = view[: self._next - self.pos]
            if self.hasher is not None:
                self.hasher.update(piece)
            self.pos += len(piece)
            view = view[len(piece) :]
            if self.pos == self._next:
                self.boundary = self.pos
                self.boundary_hash = self.hasher.copy() if self.hasher is not None else None
                self._next += self.part_bytes
                self.on_part(self.pos)


class HashStates:
    """The streaming sha256 of each upload at the offset it reached, kept in this process between requests.

    Python's sha256 state cannot be saved to disk or moved to another process, so a resumed upload whose
    previous request ran here continues its hash; one that lands on another process (or after a restart) is
    hashed again from its part file when it completes (measured in decision 0009). Bounded: the oldest go.
    """

    def __init__(self, size: int = 256) -> None:
        self._states: OrderedDict[str, tuple[int, Any]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def take(self, key: str, offset: int) -> Any | None:
        """The hash of an upload's first ``offset`` bytes, if this process has it (a fresh upload's is empty)."""
        with self._lock:
            kept = self._states.pop(key, None)
        if offset == 0:
            return hashlib.sha256()
        if kept is not None and kept[0] == offset:
            return kept[1]
        return None

    def keep(self, key: str, offset: int, state: Any | None) -> None:
        if state is None:
            return
        with self._lock:
            self._states[key] = (offset, state)
            self._states.move_to_end(key)
            while len(self._states) > self._size:
                self._states.popitem(last=False)

    def forget(self, key: str) -> None:
        with self._lock:
            self._states.pop(key, None)


HASHES = HashStates()


# --- reading stored evidence for a request ----------------------------------------------------------------

MAX_LINES = 500
MAX_LINE_CHARS = 4000
#: Bytes of one line kept for display (UTF-8 needs up to 4 per character); the rest of a long line is skipped.
_LINE_KEEP = MAX_LINE_CHARS * 4
#: How much of a line one read takes: a 2 GB line is walked in pieces of this size, never held.
_LINE_PIECE = 64 * 1024


class LinesUnreadable(Exception):
    """The file cannot be shown as lines (a gzip bomb, corrupt gzip); the text says why."""


def read_lines(raw: BinaryIO, start: int, end: int, *, limits: Limits = DEFAULT_LIMITS) -> list[dict[str, Any]]:
    """Lines ``start``..``end`` (1-based) of a text file, plain or gzip, as text for display.

    Memory stays bounded whatever the file holds: a line is read in pieces of ``_LINE_PIECE`` and only its
    first ``_LINE_KEEP`` bytes are kept; a gzip is inflated under the engine's bomb guard (expansion ratio and
    inflated size). Undecodable bytes are replaced.
    """
    out: list[dict[str, Any]] = []
    with raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream: Any = gzip.GzipFile(fileobj=SmallReads(raw)) if gzipped else raw
        guard = InflateGuard(limits) if gzipped else None
        inflated = 0
        number = 1
        kept = bytearray()
        try:
            while number <= end:
                piece = stream.readline(_LINE_PIECE)
                inflated += len(piece)
                if guard is not None:
                    guard.check(compressed=raw.tell(), inflated=inflated)
                if number >= start and len(kept) < _LINE_KEEP:
                    kept += piece[: _LINE_KEEP - len(kept)]
                if piece.endswith(b"\n") or not piece:
                    if number >= start and (piece or kept):
                        text = kept.decode("utf-8", errors="replace").rstrip("\r\n")
                        out.append({"number": number, "text": text[:MAX_LINE_CHARS]})
                    if not piece:
                        break
                    kept.clear()
                    number += 1
                elif number == end and number >= start and len(kept) >= _LINE_KEEP:
                    # The last line wanted is already cut: no need to walk to its end.
                    out.append({"number": number, "text": kept.decode("utf-8", errors="replace")[:MAX_LINE_CHARS]})
                    break
        except InputRefused as exc:
            raise LinesUnreadable(str(exc)) from None
        except (OSError, EOFError, zlib.error) as exc:
            if not out:
                raise LinesUnreadable(f"the gzip data is corrupt or cut short ({exc})") from None
    return out
