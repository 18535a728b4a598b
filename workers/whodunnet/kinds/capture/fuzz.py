"""The capture kind's fuzz entry: arbitrary bytes through the capture kernel (formats, decoders, table).

Anything other than a result or ``MalformedInput`` is a bug. A share of inputs is steered past
the magic checks, so the record and packet decoders get most of the work rather than the
"not a capture" path. ``fuzz_kind.py`` runs the kernel without the JIT, so atheris sees its branches.
"""

from __future__ import annotations

import io

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
    analysis = CaptureAnalysis(limits=LIMITS)
    try:
        summary = analysis.run(io.BytesIO(data))
    except MalformedInput as exc:
        assert isinstance(exc.partial, dict)
        summary = exc.partial
    assert summary["packets"] >= 0
    assert analysis.decompressed_bytes <= LIMITS.max_input_bytes + 1
