"""The atheris fuzz target of every evidence kind: arbitrary bytes in, a result out, never a crash.

    .venv/bin/python workers/fuzz/fuzz_kind.py KIND [CORPUS_DIR] [libFuzzer options]

KIND is a kind in ``whodunnet.registry`` (``capture``, ``strace`` ...), or ``sniff`` for content
detection over every kind's sniffer. A kind's own fuzz entry (``Kind.fuzz``) is used when it has
one; otherwise its analyzer reads the bytes from a file, as the engine would. Anything but a
result (bad input is an error *in* the result) is a bug. The files in every kind's ``fuzz_seeds/``
are the inputs it starts from (``-seed_inputs``); new inputs are written to CORPUS_DIR, if given.

Short run (what the test suite does)::

    .venv/bin/python workers/fuzz/fuzz_kind.py strace -max_total_time=2

Long run (``make fuzz`` runs every kind)::

    mkdir -p .data/fuzz/capture
    .venv/bin/python workers/fuzz/fuzz_kind.py capture .data/fuzz/capture -max_total_time=3600 \\
        -rss_limit_mb=1024 -max_len=65536

Reproduce one crash: ``.venv/bin/python workers/fuzz/fuzz_kind.py capture crash-<hash>`` (the
capture kernel runs without the JIT here; ``NUMBA_DISABLE_JIT=0`` in front replays it compiled).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

# The capture kernel runs as plain Python here (the same functions, without the JIT), so atheris
# instruments its branches: it cannot see into compiled code. Set before numba is imported.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

import atheris  # type: ignore[import-untyped]
import numba  # noqa: F401 - imported before instrumenting: only whodunnet's own modules are
import numpy  # noqa: F401

with atheris.instrument_imports(include=["whodunnet"]):
    import whodunnet.capture.scanner  # noqa: F401 - the capture kernel (the analysis imports it lazily)
    from whodunnet import registry
    from whodunnet.detect import sniff
    from whodunnet.kinds.spec import Kind
    from whodunnet.limits import Limits

LIMITS = Limits(max_input_bytes=4 * 1024 * 1024, max_caplen=256 * 1024)
KINDS = ", ".join(("sniff", *registry.names()))
USAGE = f"usage: fuzz_kind.py KIND [CORPUS_DIR] [libFuzzer options]; KIND is one of: {KINDS}"


def through_a_file(kind: Kind) -> Callable[[bytes], None]:
    """Run ``kind``'s analyzer on the bytes written to a file: what the engine does with an upload.

    The file lives in memory (``memfd``) and goes away with the process.
    """
    fd = os.memfd_create("fuzz-input")
    path = Path(f"/proc/self/fd/{fd}")

    def one_input(data: bytes) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        evidence, findings = kind.analyze(0, path, limits=LIMITS)
        assert evidence.kind == kind.name and isinstance(findings, list)

    return one_input


def sniff_one(data: bytes) -> None:
    assert isinstance(sniff(data), str)


def main() -> None:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(USAGE)
    name, rest = args[0], args[1:]
    if name == "sniff":
        target = sniff_one
    else:
        kind = registry.kind(name)
        if kind is None:
            sys.exit(USAGE)
        target = kind.fuzz or through_a_file(kind)
    options = [a for a in rest if a.startswith("-")]
    inputs = [a for a in rest if not a.startswith("-")]
    if not any(os.path.isfile(a) for a in inputs):  # fuzzing, not replaying crash files
        seeds = sorted(str(p) for k in registry.KINDS for p in k.fuzz_seeds.glob("*") if p.name != "README.md")
        options.append("-seed_inputs=" + ",".join(seeds))
    atheris.Setup([sys.argv[0], *options, *inputs], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
