"""Where evidence bytes live: the local folder (``WHODUNNET_STORAGE=local``) or an S3-compatible store (``s3``).

One small interface, two backends (decisions 0017 and 0022):

- ``Store.open(name)`` — a stored file as a readable, seekable binary stream (``readinto``): the local file, or
  sequential ranged GETs with one block of read-ahead.
- ``Store.source(name)`` — what an analysis hands the engine: the local file's path, or an ``S3Source`` the
  engine reads as a stream (captures) or, for kinds that read by path, through ``Store.local_copy(name)``: a copy
  streamed into this worker's scratch folder and deleted when the block ends. Nothing a worker writes is needed
  by another machine.
- ``Store.staging(upload_id)`` — one upload's bytes so far, locked for one writer (``Staging``): a part file on
  disk (decision 0009), or one S3 multipart upload whose whole parts are ``UploadPart`` calls streamed as the
  body arrives and whose pending partial part waits in memory (at most one part) and, between requests, in a
  small object ``incoming/<id>.<part number>.tail``.
- ``delete``, ``size``, ``put_file`` (moving local evidence in) and ``reap_orphans`` (the reaper's sweep).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from django.conf import settings
from django.db import connection

from evidence.s3 import S3Client, S3Error, Upstream

SNIFF_BYTES = 64 * 1024
#: Blocks an analysis fetches ahead of the one the engine reads (each S3_READ_AHEAD_BYTES, in as many threads).
ANALYSIS_READ_AHEAD = 3
#: What the first read of a stream fetches, with nothing ahead: a look at the head (the engine's sniff reads 64 KiB).
FIRST_LOOK = 64 * 1024
#: The block of a read in a web request (downloads, lines, the time-sequence graph): with one block ahead, 4 MiB of
#: a web worker's memory per read, not the 16 MiB that analysis blocks would take (decision 0022).
WEB_READ_BLOCK = 2 * 1024 * 1024
TAIL_PREFIX = "incoming/"
#: The keys this console makes: evidence (and an upload's multipart upload) ``ab/ab…`` named by a UUID's hex, and
#: the saved partial parts of uploads. The reaper touches nothing else in the bucket.
OUR_KEY = re.compile(r"([0-9a-f]{2})/\1[0-9a-f]{30}")
OUR_TAIL = re.compile(r"incoming/[0-9a-f]{32}\.\d{5}\.tail")


class BusyError(Exception):
    """Another request holds this upload."""


def blob_key(name: str) -> str:
    """Where a stored file lives, in the folder and in the bucket: ``ab/abcdef…``."""
    return f"{name[:2]}/{name}"


class Staging(Protocol):
    """One upload's bytes so far, held by one writer between ``__enter__`` and ``__exit__``."""

    def __enter__(self) -> Staging: ...
    def __exit__(self, *_: object) -> None: ...
    def begin(self, start: int, *, until: int | None = ..., total: int | None = ...) -> None: ...
    def write(self, chunk: bytes | memoryview) -> None: ...
    def keep(self, offset: int) -> None: ...
    def place(self) -> str: ...
    def unplace(self, name: str) -> None: ...
    def remove(self) -> None: ...


class Store(Protocol):
    kind: str

    def open(self, name: str, *, block: int = ..., ahead: int = ...) -> BinaryIO: ...
    def source(self, name: str) -> Path | S3Source: ...
    def local_copy(self, name: str) -> contextlib.AbstractContextManager[Path]: ...
    def size(self, name: str) -> int | None: ...
    def delete(self, name: str) -> None: ...
    def put_file(self, name: str, path: Path) -> None: ...
    def staging(self, upload_id: str) -> Staging: ...
    def busy(self, upload_id: str) -> bool: ...
    def try_remove(self, upload_id: str) -> bool: ...
    def reap_orphans(self, *, known: set[str], idle_seconds: float, now: float) -> list[str]: ...
    def free_bytes(self) -> int | None: ...


def sha256_of(stream: BinaryIO, *, chunk_size: int = 1 << 20) -> Any:
    digest = hashlib.sha256()
    while chunk := stream.read(chunk_size):
        digest.update(chunk)
    return digest


def head_of(store: Store, name: str) -> bytes:
    with store.open(name, block=SNIFF_BYTES) as f:
        return f.read(SNIFF_BYTES)


# --- the local folder ---------------------------------------------------------------------------------------


class LocalStaging:
    """A part file ``EVIDENCE_DIR/incoming/<upload id>.part`` under an exclusive ``flock`` (decision 0009)."""

    def __init__(self, root: Path, upload_id: str) -> None:
        self.root = root
        self.path = root / "incoming" / f"{upload_id}.part"
        self.fd = -1

    def __enter__(self) -> LocalStaging:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = -1
            raise BusyError from None
        return self

    def __exit__(self, *_: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = -1

    def begin(self, start: int, *, until: int | None = None, total: int | None = None) -> None:
        os.ftruncate(self.fd, start)  # a request killed mid-write may have left bytes past the kept offset
        os.lseek(self.fd, start, os.SEEK_SET)

    def write(self, chunk: bytes | memoryview) -> None:
        view = memoryview(chunk)
        while view:
            view = view[os.write(self.fd, view) :]

    def keep(self, offset: int) -> None:
        os.ftruncate(self.fd, offset)
        os.fsync(self.fd)

    def place(self) -> str:
        """Make the complete file durable and rename it to a new server-made name (same filesystem: atomic)."""
        os.fsync(self.fd)
        name = uuid.uuid4().hex
        final = self.root / blob_key(name)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.path, final)
        directory = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return name

    def unplace(self, name: str) -> None:
        os.replace(self.root / blob_key(name), self.path)  # the bytes go back where a retry can finish them

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


@contextlib.contextmanager
def _probe(path: Path, *, shared: bool) -> Iterator[bool | None]:
    """Try to lock a part file without waiting: None when there is no file, False when a request holds it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        yield None
        return
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        yield False
        return
    try:
        yield True
    finally:
        os.close(fd)


class LocalStore:
    kind = "local"

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> Path:
        return self.root / blob_key(name)

    def open(self, name: str, *, block: int = 0, ahead: int = 1) -> BinaryIO:
        return open(self.path(name), "rb")

    def source(self, name: str) -> Path:
        return self.path(name)

    @contextlib.contextmanager
    def local_copy(self, name: str) -> Iterator[Path]:
        yield self.path(name)

    def size(self, name: str) -> int | None:
        try:
            return self.path(name).stat().st_size
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)

    def put_file(self, name: str, path: Path) -> None:
        final = self.path(name)
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, final)

    def staging(self, upload_id: str) -> LocalStaging:
        return LocalStaging(self.root, upload_id)

    def _part(self, upload_id: str) -> Path:
        return self.root / "incoming" / f"{upload_id}.part"

    def busy(self, upload_id: str) -> bool:
        with _probe(self._part(upload_id), shared=True) as locked:
            return locked is False

    def try_remove(self, upload_id: str) -> bool:
        path = self._part(upload_id)
        with _probe(path, shared=False) as locked:
            if locked:
                path.unlink(missing_ok=True)
            return locked is not False

    def reap_orphans(self, *, known: set[str], idle_seconds: float, now: float) -> list[str]:
        removed: list[str] = []
        incoming = self.root / "incoming"
        if not incoming.is_dir():
            return removed
        for path in incoming.glob("*.part"):
            try:
                idle = now - path.stat().st_mtime
            except FileNotFoundError:
                continue
            if path.stem not in known and idle > idle_seconds and self.try_remove(path.stem):
                removed.append(path.name)
        return removed

    def free_bytes(self) -> int | None:
        root = self.root
        while not root.exists() and root != root.parent:
            root = root.parent
        return shutil.disk_usage(root).free


# --- an S3-compatible store ---------------------------------------------------------------------------------


class S3Reader(io.RawIOBase):
    """A stored object as a seekable stream: ranged GETs of ``block`` bytes, read straight into reused buffers, the
    next ``ahead`` blocks fetched in one background thread while the current one is read, so at most ``ahead + 1``
    blocks are in memory. One fetching thread is enough: the store answers one GET at full speed, and a second
    would only compete with the reader for the same cores."""

    def __init__(self, client: S3Client, key: str, *, block: int, ahead: int = 1, size: int | None = None) -> None:
        self._client = client
        self._key = key
        self._block = max(block, 4096)
        self._depth = max(ahead, 0)
        if size is None:
            found = client.head(key)
            if found is None:
                raise FileNotFoundError(f"no object {key} in the store")
            size = found
        self._size = size
        self._pos = 0
        self._buf: memoryview = memoryview(b"")
        self._buf_start = 0
        self._ahead: dict[int, Future[memoryview]] = {}
        self._spare: list[bytearray] = []
        self._pool: ThreadPoolExecutor | None = None
        self._fills = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(base + offset, 0)
        return self._pos

    def _get(self, start: int, into: bytearray) -> memoryview:
        view = memoryview(into)[: min(len(into), self._size - start)]
        self._client.get_range_into(self._key, start, view)
        return view

    def _buffer(self) -> bytearray:
        return self._spare.pop() if self._spare else bytearray(self._block)

    def _recycle(self, view: memoryview) -> None:
        block = view.obj
        if isinstance(block, bytearray) and len(block) == self._block and len(self._spare) <= self._depth:
            self._spare.append(block)
        view.release()

    def _fill(self) -> None:
        self._fills += 1
        if self._fills == 1 and self._pos < FIRST_LOOK < self._block:
            # A stream's first read is often only a look at its head (the engine sniffs the kind, then opens the
            # file again to read it): fetch just that, and nothing ahead until the reader goes on.
            self._buf, self._buf_start = self._get(0, bytearray(FIRST_LOOK)), 0
            return
        start = self._pos - self._pos % self._block
        fetching = self._ahead.pop(start, None)
        self._recycle(self._buf)
        self._buf = fetching.result() if fetching is not None else self._get(start, self._buffer())
        self._buf_start = start
        for stale in [s for s in self._ahead if not start < s <= start + self._depth * self._block]:
            future = self._ahead.pop(stale)  # a seek elsewhere: what was fetched ahead is not needed
            if not future.cancel():
                with contextlib.suppress(Exception):
                    self._recycle(future.result())
        for following in range(start + self._block, start + (self._depth + 1) * self._block, self._block):
            if following >= self._size or following in self._ahead:
                continue
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="s3-read-ahead")
            self._ahead[following] = self._pool.submit(self._get, following, self._buffer())

    def readinto(self, view: Any) -> int:
        if self._pos >= self._size:
            return 0
        if not (self._buf_start <= self._pos < self._buf_start + len(self._buf)):
            self._fill()
        offset = self._pos - self._buf_start
        n = min(len(view), len(self._buf) - offset)
        view[:n] = self._buf[offset : offset + n]
        self._pos += n
        return n

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._ahead.clear()
        self._buf = memoryview(b"")
        self._spare.clear()
        super().close()


class S3Source:
    """A stored object as the engine's ``Source``: opened as a stream with read-ahead, or copied to scratch."""

    def __init__(self, store: S3Store, name: str) -> None:
        self.store = store
        self.name = name
        self._size: int | None = None

    @property
    def size(self) -> int:
        if self._size is None:
            self._size = self.store.size(self.name) or 0
        return self._size

    def open(self) -> BinaryIO:
        return self.store.open(self.name, block=self.store.read_ahead, ahead=ANALYSIS_READ_AHEAD)

    def local_copy(self) -> contextlib.AbstractContextManager[Path]:
        return self.store.local_copy(self.name)


def _lock_key(upload_id: str) -> int:
    return int.from_bytes(uuid.UUID(upload_id).bytes[:8], "big", signed=True)


class S3Staging:
    """One upload as one S3 multipart upload at its final key (``blob_key(upload id)``).

    Parts are ``part_bytes`` each (part number = offset / part_bytes + 1). A part that this request's body covers
    whole (its Content-Length says so) is sent to the store *as it arrives*, an ``UploadPart`` request whose body
    is the request's body, so no part is held in memory; the request passes the part's end only once the store
    has answered for it. A body cut off mid-part drops that request, and the store keeps nothing of the part.
    The bytes of a part the body does not cover whole (a PATCH that ends mid-part, a chunked body of unknown
    length) wait in memory (at most one part) and, when the request ends, are saved as the object
    ``incoming/<id>.<part number>.tail``, read back by the request that resumes at that offset and sent first.
    Named by part number, a tail saved by a request that died before it recorded its new offset never overwrites
    the tail the recorded offset needs; a resume drops the tails of other parts. A file of one part is one
    ``PutObject``. A PostgreSQL advisory lock (released when the web worker's connection ends, even on kill -9)
    keeps one writer per upload across every web host.
    """

    def __init__(self, store: S3Store, upload_id: str) -> None:
        self.store = store
        self.s3 = store.client
        self.upload_id = upload_id
        self.key = blob_key(upload_id)
        self.tail_prefix = f"{TAIL_PREFIX}{upload_id}."
        self.part_bytes = settings.UPLOAD_PART_BYTES
        #: Where the part being written starts, and its bytes not yet in the store (at most one part).
        self._part_start = 0
        self._pending = bytearray()
        self._stream: Upstream | None = None
        self._until: int | None = None
        self._total: int | None = None
        self._whole = False
        self._locked = False
        self._multipart: str | None = None

    def __enter__(self) -> S3Staging:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_lock_key(self.upload_id)])
            self._locked = bool(cursor.fetchone()[0])
        if not self._locked:
            raise BusyError
        return self

    def __exit__(self, *_: object) -> None:
        self._drop_stream()
        if self._locked:
            with contextlib.suppress(Exception), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(self.upload_id)])
            self._locked = False

    def _find_multipart(self) -> str | None:
        if self._multipart is None:
            self._multipart = self.store.multipart_id(self.key)
        return self._multipart

    def _tail_key(self, start: int) -> str:
        return f"{self.tail_prefix}{start // self.part_bytes + 1:05d}.tail"

    def _drop_tails(self, *, but: str = "") -> None:
        for item in list(self.s3.objects(self.tail_prefix)):
            if item.key != but:
                self.s3.delete(item.key)

    def _drop_stream(self) -> None:
        if self._stream is not None:
            self._stream.abort()  # a part cut off mid-way: the store keeps nothing of it
            self._stream = None

    def begin(self, start: int, *, until: int | None = None, total: int | None = None) -> None:
        """Write from ``start``; this request's body ends at ``until`` and the file at ``total`` (when known)."""
        self._part_start = start - start % self.part_bytes
        self._pending = bytearray()
        self._until, self._total = until, total
        if start > self._part_start:
            tail = self.s3.get(self._tail_key(start)) or b""
            if len(tail) < start - self._part_start:
                raise RuntimeError(f"upload {self.upload_id}: the saved partial part is shorter than the offset")
            self._pending += memoryview(tail)[: start - self._part_start]
        self._drop_tails(but=self._tail_key(start) if start > self._part_start else "")

    def _part_end(self) -> int:
        end = self._part_start + self.part_bytes
        return min(end, self._total) if self._total is not None else end

    def _covered(self) -> bool:
        """This request's body runs to the end of the current part, whose length is known: it can be streamed."""
        end = self._part_end()
        known = end - self._part_start == self.part_bytes or end == self._total
        return known and self._until is not None and self._until >= end > self._part_start

    def _open_stream(self) -> Upstream:
        length = self._part_end() - self._part_start
        if self._part_start == 0 and self._part_end() == self._total and self._find_multipart() is None:
            stream = self.s3.stream(self.key, length)  # the whole file is one part: one PutObject
            self._whole = True
        else:
            multipart = self._find_multipart() or self.s3.create_multipart(self.key)
            self._multipart = multipart
            number = self._part_start // self.part_bytes + 1
            stream = self.s3.stream(self.key, length, query={"partNumber": str(number), "uploadId": multipart})
        if self._pending:  # the start of the part, saved by an earlier request
            stream.write(memoryview(self._pending))
            self._pending = bytearray()
        return stream

    def write(self, chunk: bytes | memoryview) -> None:
        view = memoryview(chunk)
        while view:
            if self._stream is None and self._covered():
                self._stream = self._open_stream()
            if self._stream is not None:
                n = min(len(view), self._stream.left)
                self._stream.write(view[:n])
                view = view[n:]
                if not self._stream.left:
                    self._stream.finish()  # the store has the part: only now does the request pass its end
                    self._stream = None
                    self._part_start = self._part_end()
                continue
            room = self.part_bytes - len(self._pending)
            self._pending += view[:room]
            view = view[room:]
            if len(self._pending) == self.part_bytes:  # a whole part of a body of unknown length
                self._upload_pending()
                self._part_start += self.part_bytes

    def _upload_pending(self) -> None:
        multipart = self._find_multipart() or self.s3.create_multipart(self.key)
        self._multipart = multipart
        self.s3.upload_part(self.key, multipart, self._part_start // self.part_bytes + 1, self._pending)
        self._pending = bytearray()

    def keep(self, offset: int) -> None:
        """Keep the first ``offset`` bytes: the parts before it are in the store; the partial part is saved (or,
        past ``offset``, dropped)."""
        self._drop_stream()
        keep = offset - self._part_start
        if keep > len(self._pending):
            raise RuntimeError(f"upload {self.upload_id}: asked to keep {offset:,} bytes, more than are held")
        del self._pending[max(keep, 0) :]
        if self._pending:
            self.s3.put(self._tail_key(self._part_start), self._pending)

    def place(self) -> str:
        """Complete the multipart upload (the last, partial part goes up first); the object's name is the
        upload's id. Idempotent: an upload placed before its row was written is found complete."""
        self._drop_stream()
        multipart = None if self._whole else self._find_multipart()
        if self._whole:
            pass  # the file went up as one PutObject as it arrived
        elif multipart is None:
            if not self._pending and self.store.size(self.upload_id) is not None:
                return self.upload_id  # placed by an earlier request whose database write failed
            self.s3.put(self.key, self._pending)
        else:
            if self._pending:
                self._upload_pending()
            try:
                self.s3.complete_multipart(self.key, multipart, self.s3.parts(self.key, multipart))
            except S3Error as exc:
                # The store completed it but its answer was lost, and the retry found no such upload any more.
                if exc.code != "NoSuchUpload" or self.store.size(self.upload_id) is None:
                    raise
            self._multipart = None
        self._pending = bytearray()
        self._drop_tails()
        return self.upload_id

    def unplace(self, name: str) -> None:
        """The object stays complete under its name; a retry's ``place`` finds it."""

    def remove(self) -> None:
        """Abort the multipart upload, drop the saved partial part and any completed object of this upload."""
        self._drop_stream()
        self.store.abort(self.key)
        self._drop_tails()
        self.s3.delete(self.key)
        self._multipart = None
        self._pending = bytearray()


class S3Store:
    kind = "s3"

    def __init__(
        self,
        *,
        endpoint_url: str | None,
        bucket: str,
        access_key: str | None,
        secret_key: str | None,
        region: str | None,
        scratch_dir: Path,
        read_ahead: int,
    ) -> None:
        self.bucket = bucket
        self.scratch_dir = scratch_dir
        self.read_ahead = read_ahead
        self.client = S3Client(
            endpoint_url=endpoint_url or None,
            bucket=bucket,
            region=region or "us-east-1",
            access_key=access_key or None,
            secret_key=secret_key or None,
        )

    def open(self, name: str, *, block: int = WEB_READ_BLOCK, ahead: int = 1) -> BinaryIO:
        reader = S3Reader(self.client, blob_key(name), block=block, ahead=ahead)
        return io.BufferedReader(reader, buffer_size=1 << 16)

    def source(self, name: str) -> S3Source:
        return S3Source(self, name)

    @contextlib.contextmanager
    def local_copy(self, name: str) -> Iterator[Path]:
        """The object streamed into this worker's scratch folder; deleted when the block ends."""
        self.scratch_dir.mkdir(parents=True, exist_ok=True)
        self._sweep_scratch()
        folder = Path(tempfile.mkdtemp(prefix="evidence-", dir=self.scratch_dir))
        try:
            path = folder / name
            with (
                self.open(name, block=self.read_ahead, ahead=ANALYSIS_READ_AHEAD) as source,
                open(path, "wb") as target,
            ):
                shutil.copyfileobj(source, target, length=1 << 20)
            yield path
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _sweep_scratch(self) -> None:
        """Copies left by a run whose worker was killed: gone once older than any task may run."""
        too_old = time.time() - settings.CELERY_TASK_TIME_LIMIT
        for folder in self.scratch_dir.glob("evidence-*"):
            with contextlib.suppress(OSError):
                if folder.stat().st_mtime < too_old:
                    shutil.rmtree(folder, ignore_errors=True)

    def size(self, name: str) -> int | None:
        return self.client.head(blob_key(name))

    def delete(self, name: str) -> None:
        self.client.delete(blob_key(name))

    def put_file(self, name: str, path: Path) -> None:
        """Send a local file as one object: in parts of UPLOAD_PART_BYTES (one in memory), aborted on failure."""
        key, part = blob_key(name), settings.UPLOAD_PART_BYTES
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size <= part:
                self.client.put(key, f.read())
                return
            multipart = self.client.create_multipart(key)
            try:
                buf = bytearray(part)
                number = 0
                while n := f.readinto(buf):
                    number += 1
                    self.client.upload_part(key, multipart, number, memoryview(buf)[:n])
                self.client.complete_multipart(key, multipart, self.client.parts(key, multipart))
            except BaseException:
                with contextlib.suppress(Exception):
                    self.client.abort_multipart(key, multipart)
                raise

    def staging(self, upload_id: str) -> S3Staging:
        return S3Staging(self, upload_id)

    def keys(self, prefix: str) -> list[str]:
        return [item.key for item in self.client.objects(prefix)]

    def multipart_id(self, key: str) -> str | None:
        for upload in self.client.multipart_uploads(prefix=key):
            if upload.key == key:
                return upload.upload_id
        return None

    def abort(self, key: str) -> None:
        for upload in list(self.client.multipart_uploads(prefix=key)):
            if upload.key == key:
                self.client.abort_multipart(key, upload.upload_id)

    def busy(self, upload_id: str) -> bool:
        staging = self.staging(upload_id)
        try:
            staging.__enter__()
        except BusyError:
            return True
        staging.__exit__()
        return False

    def try_remove(self, upload_id: str) -> bool:
        staging = self.staging(upload_id)
        try:
            staging.__enter__()
        except BusyError:
            return False
        try:
            self.abort(staging.key)
            staging._drop_tails()
        finally:
            staging.__exit__()
        return True

    def reap_orphans(self, *, known: set[str], idle_seconds: float, now: float) -> list[str]:
        """Abort multipart uploads and drop saved partial parts that no upload owns, once idle that long."""
        removed: list[str] = []
        for upload in list(self.client.multipart_uploads()):
            name = upload.key.rsplit("/", 1)[-1]
            if not OUR_KEY.fullmatch(upload.key):
                continue  # not one of ours: a bucket may be shared
            if name not in known and now - upload.initiated.timestamp() > idle_seconds:
                self.client.abort_multipart(upload.key, upload.upload_id)
                removed.append(upload.key)
        for item in list(self.client.objects(TAIL_PREFIX)):
            name = item.key[len(TAIL_PREFIX) :].split(".", 1)[0]
            idle = now - item.last_modified.timestamp()
            if OUR_TAIL.fullmatch(item.key) and name not in known and idle > idle_seconds:
                self.client.delete(item.key)
                removed.append(item.key)
        return removed

    def free_bytes(self) -> int | None:
        return None  # an object store has no free count to ask; the team quota still applies


# --- the configured store -----------------------------------------------------------------------------------

_lock = threading.Lock()


@lru_cache(maxsize=8)
def _build(config: tuple[Any, ...]) -> Store:
    kind, root, endpoint, bucket, access, secret, region, scratch, read_ahead = config
    if kind == "local":
        return LocalStore(Path(root))
    return S3Store(
        endpoint_url=endpoint,
        bucket=bucket,
        access_key=access,
        secret_key=secret,
        region=region,
        scratch_dir=Path(scratch),
        read_ahead=read_ahead,
    )


def store() -> Store:
    """The store the settings name (built once per configuration; its S3 client is thread-safe)."""
    config = (
        settings.STORAGE,
        str(settings.EVIDENCE_DIR),
        settings.S3_ENDPOINT_URL,
        settings.S3_BUCKET,
        settings.S3_ACCESS_KEY_ID,
        settings.S3_SECRET_ACCESS_KEY,
        settings.S3_REGION,
        str(settings.SCRATCH_DIR),
        settings.S3_READ_AHEAD_BYTES,
    )
    with _lock:
        return _build(config)
