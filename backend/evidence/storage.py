"""Streaming an upload to disk: hashed and size-checked while it streams, never held in memory."""

from __future__ import annotations

import gzip
import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol


class UploadTooLarge(Exception):
    """The upload went past the size limit; what was written is deleted."""


class EmptyStream(Exception):
    pass


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True)
class StoredFile:
    storage_name: str
    path: Path
    size: int
    sha256: str
    head: bytes


SNIFF_BYTES = 64 * 1024


def stream_to_storage(
    *, stream: Readable | BinaryIO, root: Path, limit: int, chunk_size: int, expected: int | None = None
) -> StoredFile:
    """Copy ``stream`` into ``root`` under a new server-made name, hashing as it goes.

    Stops as soon as more than ``limit`` bytes arrive, or the declared length is over
    it, so a client cannot fill the disk by lying about Content-Length.
    """
    if expected is not None and expected > limit:
        raise UploadTooLarge(f"The file is {expected:,} bytes; the limit is {limit:,} bytes.")
    storage_name = uuid.uuid4().hex
    final = root / storage_name[:2] / storage_name
    incoming = root / "incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    partial = incoming / f"{storage_name}.part"
    digest = hashlib.sha256()
    size = 0
    head = bytearray()
    try:
        with open(partial, "wb") as out:
            while True:
                want = chunk_size if expected is None else min(chunk_size, expected - size)
                if want <= 0:
                    break
                chunk = stream.read(want)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise UploadTooLarge(f"The upload went past the limit of {limit:,} bytes.")
                digest.update(chunk)
                if len(head) < SNIFF_BYTES:
                    head += chunk[: SNIFF_BYTES - len(head)]
                out.write(chunk)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return StoredFile(storage_name=storage_name, path=final, size=size, sha256=digest.hexdigest(), head=bytes(head))


MAX_LINES = 500
MAX_LINE_CHARS = 4000


def read_lines(path: Path, start: int, end: int) -> list[dict[str, Any]]:
    """Lines ``start``..``end`` (1-based) of a text file, plain or gzip, as text for display.

    Streams up to the last wanted line; long lines are cut, undecodable bytes replaced.
    """
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener: Any = gzip.open if gzipped else open
    out: list[dict[str, Any]] = []
    with opener(path, "rb") as stream:
        for number, raw_line in enumerate(stream, start=1):
            if number > end:
                break
            if number >= start:
                text = raw_line[: MAX_LINE_CHARS * 4].decode("utf-8", errors="replace").rstrip("\r\n")
                out.append({"number": number, "text": text[:MAX_LINE_CHARS]})
    return out
