"""A firewall's rule counters (``iptables -L -v -x -n``, ``iptables-save -c``, ``nft list ruleset``): which rule
dropped how many packets and bytes. Two snapshots of the same firewall are diffed into ``firewall.drops``.
"""

from pathlib import Path

from whodunnet.kinds.firewall.analyzer import analyze_firewall
from whodunnet.kinds.firewall.combine import firewall_findings
from whodunnet.kinds.firewall.describe import describe
from whodunnet.kinds.firewall.findings import FIELDS, FINDINGS
from whodunnet.kinds.firewall.sniff import is_firewall
from whodunnet.kinds.spec import Combiner, Kind

KIND = Kind(
    name="firewall",
    label="Firewall rule counters",
    analyze=analyze_firewall,
    streams=True,
    sniff_text=is_firewall,
    findings=FINDINGS,
    fields=FIELDS,
    combiners=(Combiner("the firewall counter diffs", "network", firewall_findings),),
    snapshot=True,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
