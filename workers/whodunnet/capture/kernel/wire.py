"""Reading numbers out of the capture buffer (a uint8 array), as Python ints.

``int(buf[p])`` is an int64 in compiled code and a Python int without the JIT, so the
arithmetic on top means the same in both modes (no uint8 wrap-around, no numpy overflow).
"""

from __future__ import annotations

import numpy as np

from whodunnet.capture.fields import U64
from whodunnet.capture.kernel import hot
from whodunnet.capture.kernel.types import Buffer


@hot
def be16(buf: Buffer, p: int) -> int:
    return (int(buf[p]) << 8) | int(buf[p + 1])


@hot
def be32(buf: Buffer, p: int) -> int:
    return (int(buf[p]) << 24) | (int(buf[p + 1]) << 16) | (int(buf[p + 2]) << 8) | int(buf[p + 3])


@hot
def le16(buf: Buffer, p: int) -> int:
    return (int(buf[p + 1]) << 8) | int(buf[p])


@hot
def le32(buf: Buffer, p: int) -> int:
    return (int(buf[p + 3]) << 24) | (int(buf[p + 2]) << 16) | (int(buf[p + 1]) << 8) | int(buf[p])


@hot
def u16(buf: Buffer, p: int, big: bool) -> int:
    return be16(buf, p) if big else le16(buf, p)


@hot
def u32(buf: Buffer, p: int, big: bool) -> int:
    return be32(buf, p) if big else le32(buf, p)


@hot
def i64(buf: Buffer, p: int, big: bool) -> int:
    """A signed 64-bit number in the file's byte order."""
    hi = u32(buf, p, big) if big else u32(buf, p + 4, big)
    lo = u32(buf, p + 4, big) if big else u32(buf, p, big)
    if hi >= 1 << 31:
        hi -= 1 << 32
    return hi * (1 << 32) + lo


@hot
def be64(buf: Buffer, p: int) -> U64:
    """An unsigned 64-bit big-endian word (half an IPv6 address)."""
    return np.uint64(be32(buf, p)) << np.uint64(32) | np.uint64(be32(buf, p + 4))
