"""Content sniffing: what kind of evidence a file is, from its first bytes, never its name.

``sniff`` is what the backend calls on the first 64 KiB of an upload. Every kind in
``whodunnet.registry`` brings its own sniffer: binary formats by magic number (a capture
says ``pcap`` or ``pcapng``), text kinds from the decoded head, tried in the registry's
order (the first that says yes wins); plain ``"text"`` is the fallback.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import BinaryIO

from whodunnet import registry
from whodunnet.errors import MalformedInput
from whodunnet.magic import GZIP_MAGIC

#: How much of a gzip's content ``sniff_gzip_inner`` inflates to decide what is inside.
GZIP_SNIFF_BYTES = 8192

# Control bytes that ordinary text files contain (tab, LF, VT, FF, CR, ESC, backspace).
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\x0c\r\x1b\x08")


def sniff(head: bytes) -> str:
    """The kind of a file from its first bytes.

    Returns ``"empty"``, a binary format a kind reads (``"pcap"``, ``"pcapng"``), ``"gzip"``,
    the name of a text kind, ``"text"`` or ``"binary"``.
    """
    if not head:
        return "empty"
    for kind in registry.KINDS:
        if kind.sniff_bytes is not None and (fmt := kind.sniff_bytes(head)) is not None:
            return fmt
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if not looks_like_text(head):
        return "binary"
    text = head.decode("utf-8", errors="replace")
    for kind in registry.KINDS:
        if kind.sniff_text is not None and kind.sniff_text(text):
            return kind.name
    return "text"


def looks_like_text(head: bytes) -> bool:
    """True for UTF-8 or 8-bit text: no NUL bytes and almost no other control bytes."""
    if b"\x00" in head:
        return False
    controls = sum(1 for b in head if b < 0x20 and b not in _TEXT_CONTROLS)
    if controls * 100 > len(head):
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the end of the head is still text; otherwise allow
        # 8-bit text (latin-1 logs) as long as it is mostly printable.
        if exc.start < len(head) - 3:
            high = sum(1 for b in head if b >= 0x80)
            return high * 10 < len(head)
    return True


def sniff_gzip_inner(source: str | Path | BinaryIO, *, limit: int = GZIP_SNIFF_BYTES) -> str:
    """The kind of what a gzip file holds, from at most ``limit`` inflated bytes.

    Raises ``MalformedInput`` when the data is not a valid gzip stream.
    """
    if isinstance(source, (str, Path)):
        with open(source, "rb") as f:
            return _sniff_gzip_stream(f, limit)
    return _sniff_gzip_stream(source, limit)


def _sniff_gzip_stream(f: BinaryIO, limit: int) -> str:
    d = zlib.decompressobj(wbits=31)
    out = b""
    pending = b""
    while len(out) < limit and not d.eof:
        data = pending or f.read(16384)
        if not data:
            break
        try:
            out += d.decompress(data, limit - len(out))
        except zlib.error as exc:
            raise MalformedInput(f"the file starts like gzip but does not decompress ({exc})") from None
        pending = d.unconsumed_tail
    return sniff(out)
