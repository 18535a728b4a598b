"""Socket statistics: ``ss -tin`` snapshots (also ``-e -m -o``) and tcp_info exports (CSV, JSON).

Findings: per-prefix percentiles of rtt, delivery rate and cwnd, and over many snapshots the
prefixes consistently in the bottom group by delivery rate (BBR candidates; its parameters are
this kind's settings).
"""

from pathlib import Path

from whodunnet.kinds.sockets.analyzer import analyze_sockets
from whodunnet.kinds.sockets.describe import describe
from whodunnet.kinds.sockets.findings import FIELDS, FINDINGS
from whodunnet.kinds.sockets.settings import BBR
from whodunnet.kinds.sockets.sniff import is_sockets
from whodunnet.kinds.spec import Kind

KIND = Kind(
    name="sockets",
    label="Socket statistics (ss)",
    analyze=analyze_sockets,
    streams=True,
    sniff_text=is_sockets,
    findings=FINDINGS,
    fields=FIELDS,
    settings=(BBR,),
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
