"""Packet captures: pcap/pcapng (plain or gzip), recognised by magic number.

The reading and the TCP analysis are the capture engine's (``whodunnet.capture``); this folder
is what the rest of Whodunnet needs to know about the kind: its sniffer, how its findings'
numbers are shown, its fuzz entry and seeds. Two captures of the same traffic are compared by
``whodunnet.capture_pairs`` when they are analysed together (``path.*`` findings).
"""

from pathlib import Path
from typing import Any

from whodunnet.kinds.capture.describe import describe
from whodunnet.kinds.capture.findings import FIELDS, FINDINGS
from whodunnet.kinds.capture.fuzz import fuzz_capture
from whodunnet.kinds.capture.sniff import FORMATS, sniff_capture
from whodunnet.kinds.spec import Kind
from whodunnet.model import EvidenceResult, Finding


def analyze_capture(*args: Any, **kwargs: Any) -> tuple[EvidenceResult, list[Finding]]:
    """The capture engine's ``analyze_capture``, imported when a capture is analysed: the registry is read by
    processes that never analyse (the console's web process), and the engine brings numpy (~15 MiB each)."""
    from whodunnet.capture import analyze_capture

    return analyze_capture(*args, **kwargs)


KIND = Kind(
    name="capture",
    label="Packet capture",
    analyze=analyze_capture,
    sniff_bytes=sniff_capture,
    formats=FORMATS,
    findings=FINDINGS,
    fields=FIELDS,
    connections=True,
    streams=True,
    fuzz=fuzz_capture,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
