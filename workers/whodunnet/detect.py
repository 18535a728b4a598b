"""Content sniffing: what kind of evidence a file is, from its first bytes, never its name.

``sniff`` is what the backend calls on the first 64 KiB of an upload. Text kinds are a
small registry: adding one (strace, ``ss -tin`` ...) is one function decorated with
``@text_kind("name")``; the first registered sniffer that says yes wins, and plain
``"text"`` is the fallback.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from whodunnet.errors import MalformedInput

PCAP_MAGICS = frozenset(
    {
        b"\xa1\xb2\xc3\xd4",  # microseconds, big-endian
        b"\xd4\xc3\xb2\xa1",  # microseconds, little-endian
        b"\xa1\xb2\x3c\x4d",  # nanoseconds, big-endian
        b"\x4d\x3c\xb2\xa1",  # nanoseconds, little-endian
    }
)
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
GZIP_MAGIC = b"\x1f\x8b"

#: How much of a gzip's content ``sniff_gzip_inner`` inflates to decide what is inside.
GZIP_SNIFF_BYTES = 8192

TextSniffer = Callable[[str], bool]
TEXT_KINDS: dict[str, TextSniffer] = {}

# Control bytes that ordinary text files contain (tab, LF, VT, FF, CR, ESC, backspace).
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\x0c\r\x1b\x08")


def text_kind(name: str) -> Callable[[TextSniffer], TextSniffer]:
    """Register ``fn(text) -> bool`` as the sniffer of the text evidence kind ``name``."""

    def register(fn: TextSniffer) -> TextSniffer:
        TEXT_KINDS[name] = fn
        return fn

    return register


def sniff(head: bytes) -> str:
    """The kind of a file from its first bytes.

    Returns ``"empty"``, ``"pcap"``, ``"pcapng"``, ``"gzip"``, a registered text kind,
    ``"text"`` or ``"binary"``.
    """
    if not head:
        return "empty"
    magic = head[:4]
    if magic in PCAP_MAGICS:
        return "pcap"
    if magic == PCAPNG_MAGIC:
        return "pcapng"
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if not looks_like_text(head):
        return "binary"
    text = head.decode("utf-8", errors="replace")
    for name, matches in TEXT_KINDS.items():
        if matches(text):
            return name
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


# The host and application text kinds (strace, kernel versions, counters, ss, latency, sysctl,
# app config) live with their parsers; registered here so that sniffing alone knows them.
from whodunnet.textkinds.sniff import SNIFFERS  # noqa: E402

for _name, _sniffer in SNIFFERS:
    text_kind(_name)(_sniffer)
