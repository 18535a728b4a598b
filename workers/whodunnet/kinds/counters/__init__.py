"""Host counters: ``nstat``, ``netstat -s``, ``/proc/net/{netstat,snmp,dev}``, ``ip -s link``, ``ifconfig``,
``ethtool -S``, ``conntrack -S``, ``nf_conntrack_count``/``max``. One snapshot per file; two snapshots of the
same formats are diffed (``whodunnet.snapshots``) into the ``host.*`` and ``neighbours.link_usage`` findings.
"""

from pathlib import Path

from whodunnet.kinds.counters.analyzer import analyze_counters
from whodunnet.kinds.counters.combine import counter_findings
from whodunnet.kinds.counters.describe import describe
from whodunnet.kinds.counters.findings import FIELDS, FINDINGS
from whodunnet.kinds.counters.settings import LINK_LIMITS
from whodunnet.kinds.counters.sniff import is_counters
from whodunnet.kinds.spec import Combiner, Kind

KIND = Kind(
    name="counters",
    label="Host counters",
    analyze=analyze_counters,
    streams=True,
    sniff_text=is_counters,
    findings=FINDINGS,
    fields=FIELDS,
    settings=(LINK_LIMITS,),
    combiners=(Combiner("the counter snapshot diffs", "network", counter_findings),),
    snapshot=True,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
