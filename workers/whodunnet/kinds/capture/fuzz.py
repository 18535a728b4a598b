"""The capture kind's fuzz entry: arbitrary bytes through the capture kernel (formats, decoders, table).

Anything other than a result or ``MalformedInput`` is a bug. A share of inputs is steered past
the magic checks, so the record and packet decoders get most of the work rather than the
"not a capture" path. ``fuzz_kind.py`` runs the kernel without the JIT, so atheris sees its branches.
Inputs of odd length are read as a file (an in-memory one), which the reader maps and scans in place; the others
as a stream, read ahead in blocks that the reader scans where they are. Another share is gzipped first (``\x03``),
and then broken where the input says (``\x04``: eight of its bytes written over the gzip): the gzip reader, and its
reading again from the start where the data breaks, from a file, a stream, or a stream that cannot seek back
(``source.GzipSource``).
"""

from __future__ import annotations

import gzip
import io
import os
from typing import Any, BinaryIO, cast

from whodunnet.errors import MalformedInput
from whodunnet.limits import Limits

LIMITS = Limits(max_input_bytes=4 * 1024 * 1024, max_caplen=256 * 1024)
PCAP_HEADER = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")
PCAPNG_HEADER = bytes.fromhex("0a0d0d0a1c0000004d3c2b1a01000000ffffffffffffffff1c000000")


def fuzz_capture(data: bytes) -> None:
    from whodunnet.capture import CaptureAnalysis  # here, not at import: the registry must not load numpy

    if data[:1] == b"\x01":
        data = PCAP_HEADER + data[1:]
    elif data[:1] == b"\x02":
        data = PCAPNG_HEADER + data[1:]
    elif data[:1] in (b"\x03", b"\x04") and len(data) > 12:
        packed = gzip.compress(PCAP_HEADER + data[11:], compresslevel=1, mtime=0)
        if data[:1] == b"\x04":
            at = int.from_bytes(data[1:3], "little") % len(packed)
            packed = packed[:at] + data[3:11] + packed[at + 8 :]
        data = packed
    analysis = CaptureAnalysis(limits=LIMITS)
    opened: io.BufferedReader | io.BytesIO = _as_file(data) if len(data) % 2 else io.BytesIO(data)
    source = cast(BinaryIO, Unseekable(opened)) if len(data) % 3 == 0 else opened
    try:
        summary = analysis.run(source)
    except MalformedInput as exc:
        assert isinstance(exc.partial, dict)
        summary = exc.partial
    finally:
        source.close()
    assert summary["packets"] >= 0
    assert analysis.decompressed_bytes <= LIMITS.max_input_bytes + 1


def _as_file(data: bytes) -> io.BufferedReader:
    """``data`` as a regular file (in memory, on no disk), opened at its start."""
    fd = os.memfd_create("fuzz-capture")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return os.fdopen(fd, "rb")


class Unseekable(io.RawIOBase):
    """A stream that cannot seek back (a pipe): the reader reads ahead and inflates without a second pass."""

    def __init__(self, inner: io.BufferedReader | io.BytesIO) -> None:
        super().__init__()
        self._inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        return self._inner.readinto(view)

    def close(self) -> None:
        self._inner.close()
        super().close()
