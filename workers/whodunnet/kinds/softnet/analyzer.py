"""The softnet analyzer: one ``/proc/net/softnet_stat`` snapshot per file, summarized per CPU.

Like host counters, its finding is a difference between two snapshots of the same host (or the
totals since boot when there is one), so it is made by this kind's combiner (``combine.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from whodunnet.kinds.softnet.parser import SoftnetParser
from whodunnet.kinds.text import read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding

KIND = "softnet"


def analyze_softnet(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Each CPU's processed, dropped and time-squeeze counters, with the line it came from."""
    parser, run = read_with(path, SoftnetParser, limits=limits, progress=progress)
    return text_result(path, KIND, parser.to_json(), run), []
