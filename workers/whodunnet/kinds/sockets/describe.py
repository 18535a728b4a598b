"""Socket statistics' one line on their card: sockets, snapshots and states."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import plural


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``ss: 120 sockets over 30 snapshots``."""
    sockets, snapshots = summary.get("sockets"), summary.get("snapshots")
    if not isinstance(sockets, int):
        return None
    lead = f"{summary['format']}: " if isinstance(summary.get("format"), str) else ""
    text = f"{lead}{plural(sockets, 'socket')}"
    if isinstance(snapshots, int) and snapshots:
        text += f" over {plural(snapshots, 'snapshot')}"
    return text
