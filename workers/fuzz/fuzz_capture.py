"""Atheris fuzz target for the capture engine: the kernel's file formats, decoders and table.

Feeds arbitrary bytes (as a binary stream, plain or gzip) through ``CaptureAnalysis``;
anything other than a result or ``MalformedInput`` is a bug. The kernel runs without the
JIT (``NUMBA_DISABLE_JIT=1``, set here): the same functions as plain Python, so atheris sees
every branch of them (it cannot see into compiled code). Reproduce a crash with the JIT on
too: ``NUMBA_DISABLE_JIT=0 .venv/bin/python workers/fuzz/fuzz_capture.py crash-<hash>``.

Short run (what the test suite does, ~10 s)::

    .venv/bin/python workers/fuzz/fuzz_capture.py -max_total_time=10

Long run, with the test captures as the seed corpus (new inputs are written to
``workers/fuzz/corpus/``; crashes to ``crash-*`` files in the working directory)::

    mkdir -p workers/fuzz/corpus
    .venv/bin/python workers/fuzz/fuzz_capture.py workers/fuzz/corpus workers/tests/data/captures \\
        -max_total_time=3600 -rss_limit_mb=1024 -max_len=65536 -jobs=2 -workers=2

Reproduce one crash: ``.venv/bin/python workers/fuzz/fuzz_capture.py crash-<hash>``.
"""

from __future__ import annotations

import io
import os
import sys

os.environ.setdefault("NUMBA_DISABLE_JIT", "1")  # before numba is imported

import atheris  # type: ignore[import-untyped]
import numba  # noqa: F401 - imported before instrumenting: only our modules are instrumented
import numpy  # noqa: F401

with atheris.instrument_imports(include=["whodunnet"]):
    import whodunnet.capture.scanner  # noqa: F401 - the kernel, imported lazily by the analysis
    from whodunnet.capture import CaptureAnalysis
    from whodunnet.errors import MalformedInput
    from whodunnet.limits import Limits

LIMITS = Limits(max_input_bytes=4 * 1024 * 1024, max_caplen=256 * 1024)
PCAP_HEADER = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")
PCAPNG_HEADER = bytes.fromhex("0a0d0d0a1c0000004d3c2b1a01000000ffffffffffffffff1c000000")


def test_one_input(data: bytes) -> None:
    # Steer a share of inputs past the magic checks, so the record and packet
    # decoders get most of the work rather than the "not a capture" path.
    if data[:1] == b"\x01":
        data = PCAP_HEADER + data[1:]
    elif data[:1] == b"\x02":
        data = PCAPNG_HEADER + data[1:]
    analysis = CaptureAnalysis(limits=LIMITS)
    try:
        summary = analysis.run(io.BytesIO(data))
    except MalformedInput as exc:
        assert isinstance(exc.partial, dict)
        summary = exc.partial
    assert summary["packets"] >= 0
    assert analysis.decompressed_bytes <= LIMITS.max_input_bytes + 1


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
