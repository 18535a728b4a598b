"""strace output: the sockets an application opened, the options it set and the waits that ran out."""

from pathlib import Path

from whodunnet.kinds.spec import Combiner, Kind
from whodunnet.kinds.strace.analyzer import analyze_strace
from whodunnet.kinds.strace.combine import deadline_close_findings
from whodunnet.kinds.strace.describe import describe
from whodunnet.kinds.strace.findings import FIELDS, FINDINGS
from whodunnet.kinds.strace.sniff import is_strace

KIND = Kind(
    name="strace",
    label="strace output",
    analyze=analyze_strace,
    streams=True,
    sniff_text=is_strace,
    findings=FINDINGS,
    fields=FIELDS,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
    combiners=(
        Combiner("the application deadline seen in strace and a capture", "application", deadline_close_findings),
    ),
)
