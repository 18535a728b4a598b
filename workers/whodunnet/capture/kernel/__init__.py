"""The compiled capture kernel: small numba functions, one path for every input form.

``scan.scan`` is the loop: ``records`` finds the next packet in the buffer (pcap or pcapng),
``decode`` walks its headers to TCP, ``table`` finds its connection and updates it (with
``holes`` and ``sketch``). Python (``capture.scanner``) only fills the buffer, grows the
arrays and turns codes into messages.

Every function here is compiled with ``jit``. With ``NUMBA_DISABLE_JIT=1`` numba leaves
them plain Python, running the same source over the same numpy records: that is the
readable reference for debugging, and what the tests and the fuzz target run to cover
the kernel line by line (atheris cannot see into compiled code).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def jit(fn: F) -> F:
    """Compile ``fn`` with numba (cached on disk), or leave it Python under NUMBA_DISABLE_JIT."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def hot(fn: F) -> F:
    """``jit``, and inlined into every caller: a step of the per-packet path.

    numba calls another compiled function through its own calling convention and LLVM does
    not inline the larger ones; inlining these (in numba's IR) keeps the per-packet loop one
    function, as fast as if it were written as one. It costs compile time (cached).
    """
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))


def jit_disabled() -> bool:
    """True when numba runs the kernel as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    return bool(getattr(numba.config, "DISABLE_JIT", False))
