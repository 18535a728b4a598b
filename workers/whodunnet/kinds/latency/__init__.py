"""Request latency samples (CSV, pasted tables, a column of numbers) and netperf TCP_RR/TCP_CRR reports,
with the modes that match TCP timers (200 ms RTO-min, 1 s/3 s SYN, 3 + 6 s, 30/60 s application timeouts).
"""

from pathlib import Path

from whodunnet.kinds.latency.analyzer import analyze_latency
from whodunnet.kinds.latency.describe import describe
from whodunnet.kinds.latency.findings import FIELDS, FINDINGS
from whodunnet.kinds.latency.sniff import is_latency
from whodunnet.kinds.spec import Kind

KIND = Kind(
    name="latency",
    label="Latency samples",
    analyze=analyze_latency,
    streams=True,
    sniff_text=is_latency,
    findings=FINDINGS,
    fields=FIELDS,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
