"""sysctl values (``sysctl -a`` or a subset, ``grep . /proc/sys/...``), read by the findings across evidence."""

from pathlib import Path

from whodunnet.kinds.spec import Kind
from whodunnet.kinds.sysctl.analyzer import analyze_sysctl
from whodunnet.kinds.sysctl.describe import describe
from whodunnet.kinds.sysctl.sniff import is_sysctl

KIND = Kind(
    name="sysctl",
    label="sysctl values",
    analyze=analyze_sysctl,
    streams=True,
    sniff_text=is_sysctl,
    findings=(),
    fields={},
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
