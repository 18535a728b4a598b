"""An strace's one line on its card: processes, time span, the sockets and their options, the timeouts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import count, listing, plural, seconds


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``2 processes over 10.2 s: 1 socket to 10.91.3.2:7010 (SO_RCVBUF 65,536); 1 timeout``."""
    pids = summary.get("pids")
    if not isinstance(pids, list):
        return None
    text = plural(len(pids), "process", "processes")
    first, last = summary.get("first_time"), summary.get("last_time")
    if isinstance(first, (int, float)) and isinstance(last, (int, float)) and last > first:
        text += f" over {seconds(last - first)}"
    sockets = [s for s in summary.get("sockets") or () if isinstance(s, Mapping)]
    if sockets:
        peers = list(dict.fromkeys(str(s["peer"]) for s in sockets if s.get("peer")))
        text += f": {plural(len(sockets), 'socket')}"
        if peers:
            text += f" to {listing(peers, 2)}"
        options = {k: v for s in sockets for k, v in (s.get("options") or {}).items()}
        if options:
            shown = [f"{k} {count(v) if isinstance(v, int) else v}" for k, v in options.items()]
            text += f" ({listing(shown, 2)})"
    timeouts = summary.get("timeout_count")
    if isinstance(timeouts, int) and timeouts:
        text += f"; {plural(timeouts, 'timeout')}"
    return text
