"""Reading numbers out of the capture buffer (a uint8 array), as Python ints.

Without the JIT ``int(buf[p])`` is a Python int. Compiled (numba 0.68), it stays the byte's
uint8, and a number put together from bytes by shifts is a uint64. Arithmetic with an int64 (a
position, a constant, a record field) makes numba use a float64 for a uint64 and an int64:
exact for these widths (below 2**53), so the result is the Python int's; what is stored in a
record's int64 field is converted back. Only two unsigned numbers subtracted from each other
would wrap, and the kernel has no such subtraction. Reading the bytes as int64s instead (every
comparison an integer one) gave the same output on every shape and measured no faster: the bulk
capture 8 % slower in a started worker, pcapng the same (decision 0021).

The numbers of several bytes index the buffer with unsigned positions (``np.uint64``): numba
indexes with a signed integer by first adding the length to a negative one (a compare and a
conditional move per byte), and those keep LLVM from reading a field's bytes as the one load
it is. Unsigned, a 32-bit field is one load (``movbe`` for big-endian), as in C: the kernel 17 %
faster on the bulk capture, 23 % as pcapng (decision 0021). Positions are never negative; a
negative one would be an error without the JIT (``np.uint64`` refuses it), not a read from the
buffer's end. (A single byte read the same way measured no faster.)
"""

from __future__ import annotations

import numpy as np

from whodunnet.capture.fields import U64
from whodunnet.capture.kernel import hot
from whodunnet.capture.kernel.types import Buffer

_1, _2, _3 = np.uint64(1), np.uint64(2), np.uint64(3)


@hot
def be16(buf: Buffer, p: int) -> int:
    i = np.uint64(p)
    return (int(buf[i]) << 8) | int(buf[i + _1])


@hot
def be32(buf: Buffer, p: int) -> int:
    i = np.uint64(p)
    return (int(buf[i]) << 24) | (int(buf[i + _1]) << 16) | (int(buf[i + _2]) << 8) | int(buf[i + _3])


@hot
def le16(buf: Buffer, p: int) -> int:
    i = np.uint64(p)
    return (int(buf[i + _1]) << 8) | int(buf[i])


@hot
def le32(buf: Buffer, p: int) -> int:
    i = np.uint64(p)
    return (int(buf[i + _3]) << 24) | (int(buf[i + _2]) << 16) | (int(buf[i + _1]) << 8) | int(buf[i])


@hot
def u16(buf: Buffer, p: int, big: bool) -> int:
    """A 16-bit number in the file's byte order. Two returns, not one conditional expression: LLVM makes the
    latter one set of byte loads from either address, the former one load in each branch."""
    if big:
        return be16(buf, p)
    return le16(buf, p)


@hot
def u32(buf: Buffer, p: int, big: bool) -> int:
    """A 32-bit number in the file's byte order (as ``u16``)."""
    if big:
        return be32(buf, p)
    return le32(buf, p)


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
