"""Hashing for the kernel's open-addressing tables (connections by 4-tuple, the sketch map).

Unsigned 64-bit arithmetic that wraps on purpose; the slot comes back as a signed index
(numba would make mixed unsigned/signed arithmetic a float).
"""

from __future__ import annotations

import numpy as np

from whodunnet.capture.fields import U64
from whodunnet.capture.kernel import jit

GOLDEN = 0x9E3779B97F4A7C15
MIX = 0xFF51AFD7ED558CCD


@jit
def mix(h: U64, word: U64) -> U64:
    """Fold one 64-bit word into the hash."""
    return (h ^ np.uint64(word)) * np.uint64(MIX)


@jit
def slot_index(h: U64, size: int) -> int:
    """The slot of hash ``h`` in a table of ``size`` (a power of two) slots."""
    h ^= h >> np.uint64(29)
    return int(np.int64(h & np.uint64(size - 1)))


@jit
def next_slot(j: int, size: int) -> int:
    """Linear probing: the slot after ``j``."""
    return (j + 1) & (size - 1)
