"""The sysctl analyzer: every ``name = value`` with its line.

Values stay text (``tcp_rmem`` has three numbers). The findings that use them (the
receive-window model, conntrack pressure) are drawn across evidence by the kernel-versions
and counters combiners.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kinds.sysctl.parser import Sysctl
from whodunnet.kinds.text import read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding

KIND = "sysctl"


def analyze_sysctl(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Every ``name = value`` with its line (or the one bare value of a ``cat /proc/sys/...``)."""
    sysctl, run = read_with(path, Sysctl, limits=limits, progress=progress)
    summary: dict[str, Any] = {
        "settings": len(sysctl.values),
        "values": sysctl.values,
        "value_lines": sysctl.lines,
        "notes": sysctl.notes[:20],
    }
    if (bare := sysctl.bare) is not None:
        summary["bare_line"], summary["bare_value"] = bare
        summary["notes"].append(
            "one value without a name: it is read as the setting the file is named after "
            "(nf_conntrack_max → net.netfilter.nf_conntrack_max)"
        )
    return text_result(path, KIND, summary, run), []
