"""Compile the capture kernel before anyone waits for it: ``python -m whodunnet.capture.warm``.

numba compiles the kernel on its first call and keeps the machine code on disk (decision 0010);
compiling takes 10-30 s, loading the cached code about 0.4 s. ``make install`` (and the Docker
image) run this module once, so the cache exists before the first analysis; each analysis
worker calls ``warm()`` when it starts, so its first analysis does not pay the load either.

The sample is a small real capture shipped with the package (``data/warm.pcap``, from Zeek's
test traces, BSD-3-Clause): one analysis and one Stevens graph of it, and its connection retired as a
sweep retires connections in a capture of many, take every compiled path.
"""

from __future__ import annotations

import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "warm.pcap"


def warm() -> float:
    """Load (or compile) the kernel by analysing the sample; returns the seconds it took."""
    from whodunnet.capture.analyzer import CaptureAnalysis, analyze_capture
    from whodunnet.capture.timeseq import time_sequence
    from whodunnet.limits import DEFAULT_LIMITS

    started = time.perf_counter()
    evidence, _ = analyze_capture(0, SAMPLE, limits=DEFAULT_LIMITS)
    if evidence.error is not None or not evidence.connections:
        raise RuntimeError(f"the kernel's warm-up sample did not analyse: {evidence.error}")
    time_sequence(SAMPLE, evidence.connections[0].id)
    # Growing the 4-tuples' hash table, retiring connections (a sweep, when the kernel's rows are full) and
    # reviving one happen only in captures of many connections, never in the sample: their compiled steps are
    # loaded by doing them to the sample's connection.
    analysis = CaptureAnalysis(limits=DEFAULT_LIMITS)
    analysis.run(SAMPLE)
    assert analysis.state is not None
    analysis.state.grow_table()
    analysis.state.retire(analysis.state.silent_rows(-1.0, -1.0))  # every open row: each is silent for 0 s or more
    assert analysis.state.spill is not None
    analysis.state.spill.get(0, 0)  # as a revival reads a retired connection back
    analysis.connections()
    return time.perf_counter() - started


if __name__ == "__main__":
    print(f"capture kernel ready in {warm():.1f} s")
