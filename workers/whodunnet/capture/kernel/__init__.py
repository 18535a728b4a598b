"""The compiled capture kernel: small numba functions, one path for every input form.

``scan.scan`` is the loop: ``records`` finds the next packet in the buffer (pcap or pcapng),
``decode`` walks its headers to TCP, ``table`` finds its connection and updates it (with
``holes`` and ``sketch``). Python (``capture.scanner``) only fills the buffer, grows the
arrays and turns codes into messages.

Every function here is compiled with ``jit`` (or ``hot``). With ``NUMBA_DISABLE_JIT=1``
numba leaves them plain Python, running the same source over the same numpy records: that is
the readable reference for debugging, and what the tests and the fuzz target run to cover the
kernel line by line (atheris cannot see into compiled code).

The compiled code is cached on disk. numba stamps a cached function with its own source
file only, but a compiled function carries its callees (from the other files here) and the
constants it read: the locators below stamp every kernel function with all of the kernel's
sources (this folder, ``constants.py``, ``fields.py``), so a change to any of them compiles
the kernel again instead of loading a stale one.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
from numba.core import caching

F = TypeVar("F", bound=Callable[..., Any])

KERNEL_DIR = Path(__file__).resolve().parent
#: Everything compiled into the kernel: this folder's sources and the two it reads constants
#: and record types from.
KERNEL_SOURCES = (*sorted(KERNEL_DIR.glob("*.py")), KERNEL_DIR.parent / "constants.py", KERNEL_DIR.parent / "fields.py")


@functools.cache
def kernel_stamp() -> str:
    """A hash of every kernel source: the freshness stamp of each cached kernel function."""
    digest = hashlib.sha256()
    for path in KERNEL_SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _WholeKernelStamp:
    """Locator mixin: a kernel function's cache, stamped with ``kernel_stamp``."""

    def get_source_stamp(self) -> str:
        return kernel_stamp()


def _numba(name: str) -> Any:
    """A name of numba's caching module (public since numba 0.61, underscored before)."""
    return getattr(caching, name, None) or getattr(caching, f"_{name}")


def _stamped(name: str) -> type:
    return type(f"Kernel{name}", (_WholeKernelStamp, _numba(name)), {})


# Same order as numba's own: NUMBA_CACHE_DIR, then __pycache__ here, then the user-wide cache. Only the kernel's
# functions are found by them (``_KernelCache``); numba's own list, which any other numba code uses, is left as it is.
_LOCATORS = [_stamped(n) for n in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")]


class _KernelCache(caching.FunctionCache):
    """numba's on-disk cache of one kernel function: found by the stamped locators, and loaded without numba's
    compile-time registries.

    Before it loads a cached function, numba's cache imports and installs everything its compiler
    might ever need (its typing and lowering of Python, numpy, typed containers, random, linear
    algebra: ``BaseContext.refresh``), and compiles its reference-counting runtime: 0.25-0.35 s of
    every process that analyses a capture, for machine code that needs none of it. The loaded code
    links against numba's C helpers only (``numba_*``), which the context installs when it is made;
    compiled without the runtime (``_nrt``: False, below), it never calls the runtime's ``NRT_*``. A
    miss (no cached code, or code for other sources) compiles as before: the compiler refreshes the
    context itself. Decision 0010.
    """

    _impl_class: Any = type("KernelCacheImpl", (_numba("CompileResultCacheImpl"),), {"_locator_classes": _LOCATORS})

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)  # type: ignore[no-untyped-call]


def _cached(dispatcher: Any) -> Any:
    """``dispatcher`` cached on disk by ``_KernelCache`` (numba's ``cache=True`` would make it a plain
    ``FunctionCache``, whose locators each test that their folder is writable); under NUMBA_DISABLE_JIT,
    the plain function as it is."""
    if not jit_disabled():
        dispatcher._cache = _KernelCache(dispatcher.py_func)  # type: ignore[no-untyped-call]
    return dispatcher


#: How every kernel function is compiled (and cached on disk, by ``_cached``): releasing the GIL,
#: and without numba's reference counting (``_nrt``: the kernel allocates nothing, and the counting
#: put ~190 calls into the scan loop).
_OPTIONS: dict[str, Any] = {"nogil": True, "_nrt": False}


def jit(fn: F) -> F:
    """Compile ``fn`` with numba (cached on disk), or leave it Python under NUMBA_DISABLE_JIT."""
    return cast(F, _cached(numba.njit(**_OPTIONS)(fn)))


def hot(fn: F) -> F:
    """``jit``, and inlined into every caller: a step of the per-packet path.

    numba calls another compiled function through its own calling convention and LLVM does
    not inline the larger ones; inlining these (in numba's IR) keeps the per-packet loop one
    function, as fast as if it were written as one. It costs compile time (cached).
    """
    return cast(F, _cached(numba.njit(inline="always", **_OPTIONS)(fn)))


def jit_disabled() -> bool:
    """True when numba runs the kernel as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    return bool(getattr(numba.config, "DISABLE_JIT", False))
