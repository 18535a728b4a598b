"""Kernel versions (``uname -r``/``-a``, ``/proc/version``, ``before:``/``after:``), and the kernel findings.

The findings need the rest of the incident's evidence, so they are combiners: the knowledge
base's changes between a before and an after kernel, and the receive-window model (a pinned
SO_RCVBUF from strace or Kafka, the kernels, sysctl values, a capture's RTT).
"""

from pathlib import Path

from whodunnet.kinds.kernel_versions.analyzer import analyze_kernel_versions
from whodunnet.kinds.kernel_versions.combine import known_changes, receive_window_model
from whodunnet.kinds.kernel_versions.describe import describe
from whodunnet.kinds.kernel_versions.findings import FIELDS, FINDINGS
from whodunnet.kinds.kernel_versions.sniff import is_kernel_versions
from whodunnet.kinds.spec import Combiner, Kind

KIND = Kind(
    name="kernel_versions",
    label="Kernel versions",
    analyze=analyze_kernel_versions,
    streams=True,
    sniff_text=is_kernel_versions,
    findings=FINDINGS,
    fields=FIELDS,
    combiners=(
        Combiner("the kernel range against the knowledge base", "kernel", known_changes),
        Combiner("the receive-window model", "kernel", receive_window_model),
    ),
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
