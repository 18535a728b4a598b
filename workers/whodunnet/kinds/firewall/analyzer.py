"""The firewall analyzer: one snapshot of a firewall's rule counters per file.

A rule's counters count since the rule was loaded, so what a firewall dropped during an incident
is the difference between two snapshots of the same host: the finding is made by this kind's
combiner (``combine.py``), as for host counters.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from whodunnet.kinds.firewall.parser import FirewallParser
from whodunnet.kinds.text import read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding

KIND = "firewall"


def analyze_firewall(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Every rule with a counter: its table, chain, text, verdict, packets and bytes, and its line."""
    parser, run = read_with(path, FirewallParser, limits=limits, progress=progress)
    return text_result(path, KIND, parser.to_json(), run), []
