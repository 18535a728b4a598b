"""The counters analyzer: one snapshot per file, summarized for the findings across evidence.

Counter findings (``host.retransmits``, ``host.interface_drops`` ...) are made by this
kind's combiner (``combine.py``) because they are deltas between two snapshots, and the
second snapshot is another file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kinds.counters.parser import CounterParser
from whodunnet.kinds.text import read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding

KIND = "counters"


def analyze_counters(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
    link_limits_bps: Mapping[str, float] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Parse one counters snapshot (any of the supported formats, or several in one file).

    ``link_limits_bps`` are interface limits a person gave; they win over the file's ``# limit`` lines.
    """
    parser, run = read_with(path, CounterParser, limits=limits, progress=progress)
    if link_limits_bps:
        parser.snap.limits_bps.update(link_limits_bps)
    summary: dict[str, Any] = parser.snap.to_json()
    return text_result(path, KIND, summary, run), []
