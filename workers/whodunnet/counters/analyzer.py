"""The counters analyzer: one snapshot per file, summarized for the combined analysis.

Counter findings (``host.retransmits``, ``host.interface_drops`` ...) are made by
``whodunnet.correlate`` because they are deltas between two snapshots, and the
second snapshot is another file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from whodunnet.counters.parser import CounterParser
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding
from whodunnet.textkinds import LineLog, iter_lines, text_result

KIND = "counters"


def analyze_counters(
    index: int,
    path: Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
    link_limits_bps: Mapping[str, float] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Parse one counters snapshot (any of the supported formats, or several in one file).

    ``link_limits_bps`` are interface limits a person gave; they win over the file's ``# limit`` lines.
    """
    log = LineLog()
    parser = CounterParser(log)
    error: MalformedInput | None = None
    count = 0
    try:
        for number, text in iter_lines(path, limits=limits, on_progress=progress):
            count = number
            parser.feed(number, text)
    except MalformedInput as exc:
        error = exc
    if link_limits_bps:
        parser.snap.limits_bps.update(link_limits_bps)
    summary: dict[str, Any] = {"lines": count, **parser.snap.to_json()}
    return text_result(path, KIND, summary, log, error), []
