"""``/proc/net/softnet_stat``: per-CPU receive backlog counters. Drops and time squeezes mean the host's
CPUs could not keep up with the packets arriving; two snapshots are diffed into ``host.softnet_backlog``.
"""

from pathlib import Path

from whodunnet.kinds.softnet.analyzer import analyze_softnet
from whodunnet.kinds.softnet.combine import softnet_findings
from whodunnet.kinds.softnet.describe import describe
from whodunnet.kinds.softnet.findings import FIELDS, FINDINGS
from whodunnet.kinds.softnet.sniff import is_softnet
from whodunnet.kinds.spec import Combiner, Kind

KIND = Kind(
    name="softnet",
    label="CPU backlog (softnet_stat)",
    analyze=analyze_softnet,
    streams=True,
    sniff_text=is_softnet,
    findings=FINDINGS,
    fields=FIELDS,
    combiners=(Combiner("the CPU backlog diffs", "network", softnet_findings),),
    snapshot=True,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
