"""Resource limits every reader honours, so one bad upload cannot take a worker (or a web request) down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

from whodunnet.errors import InputRefused


@dataclass(frozen=True)
class Limits:
    """Caps applied while reading one input file.

    ``max_input_bytes`` bounds the bytes read from one file *after* decompression (a gzip
    that inflates past it is stopped at the limit, not after, and what was read is the
    partial result); ``max_caplen`` bounds one packet record, so a corrupt length field is
    an error rather than an allocation.

    A gzip is also refused as a bomb (``InputRefused``, no partial result) once it has
    inflated more than ``gzip_ratio_after`` bytes at more than ``max_gzip_ratio`` inflated
    bytes per compressed byte, or more than ``max_inflated_bytes`` in all. Deflate tops out
    near 1032:1 (runs of one byte, what bomb makers use), about 410:1 for text repeating
    every 25 bytes and 140:1 for data repeating at its 32 KiB window; the most compressible
    real evidence we have seen is a capture of jumbo TCP segments of zeros at 267:1, text
    under 100:1. So past 300:1 after 16 MiB is a bomb, refused within a fraction of a second
    of inflating; a slower one ends at ``max_input_bytes`` like any large input.
    """

    max_input_bytes: int = 10 * 1024**3
    max_caplen: int = 256 * 1024
    max_gzip_ratio: float = 300.0
    gzip_ratio_after: int = 16 * 1024**2
    max_inflated_bytes: int = 64 * 1024**3


#: The defaults, shared (the dataclass is frozen, so sharing one instance is safe).
DEFAULT_LIMITS = Limits()


class InflateGuard:
    """Checks a gzip reader's progress against the bomb limits; call ``check`` after each inflated piece."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def check(self, *, compressed: int, inflated: int) -> None:
        """Raise ``InputRefused`` when ``inflated`` bytes from ``compressed`` bytes of gzip look like a bomb."""
        limits = self.limits
        if inflated > limits.max_inflated_bytes:
            raise InputRefused(
                f"refused as a gzip bomb: it inflates past {limits.max_inflated_bytes:,} bytes (max_inflated_bytes)",
                offset=compressed,
            )
        if inflated > limits.gzip_ratio_after and inflated > limits.max_gzip_ratio * max(compressed, 1):
            raise InputRefused(
                f"refused as a gzip bomb: {compressed:,} compressed bytes inflated to {inflated:,} "
                f"({inflated / max(compressed, 1):,.0f}:1, the limit is {limits.max_gzip_ratio:,.0f}:1)",
                offset=compressed,
            )


class SmallReads:
    """A binary file read at most ``size`` bytes at a time, with ``tell`` counting what was handed out.

    ``gzip.GzipFile`` reads its input 128 KiB at a time; wrapped in this, ``tell()`` is never more than
    ``size`` ahead of what the decompressor has consumed, so ``InflateGuard`` measures the ratio closely.
    """

    def __init__(self, raw: BinaryIO, size: int = 16 * 1024) -> None:
        self._raw = raw
        self._size = size

    def read(self, n: int = -1, /) -> bytes:
        return self._raw.read(self._size if n < 0 else min(n, self._size))

    def tell(self) -> int:
        return self._raw.tell()

    def seek(self, offset: int, whence: int = 0, /) -> int:
        return self._raw.seek(offset, whence)
