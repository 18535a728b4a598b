"""Resource limits every reader honours, so one bad upload cannot take a worker down."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps applied while reading one input file.

    ``max_input_bytes`` bounds the bytes read from one file *after* decompression (a gzip
    that inflates past it is stopped at the limit, not after); ``max_caplen`` bounds one
    packet record, so a corrupt length field is an error rather than an allocation.
    """

    max_input_bytes: int = 10 * 1024**3
    max_caplen: int = 256 * 1024


#: The defaults, shared (the dataclass is frozen, so sharing one instance is safe).
DEFAULT_LIMITS = Limits()
