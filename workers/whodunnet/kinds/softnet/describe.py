"""A softnet_stat's one line on its card: packets the CPUs dropped or left for later (time squeeze)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import count, numbers, plural, signed


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``4 CPUs: +2,472 dropped, +4 time squeezes`` (since ``earlier``), or the totals since boot."""
    now = numbers(summary.get("totals"))
    if not now:
        return None
    then = numbers(earlier.get("totals")) if earlier is not None else None
    cpus = summary.get("cpus")
    lead = f"{plural(len(cpus), 'CPU')}: " if isinstance(cpus, list) and cpus else ""

    def said(key: str) -> str:
        n = now.get(key, 0) - (then.get(key, 0) if then is not None else 0)
        return signed(n) if then is not None else count(n)

    return f"{lead}{said('dropped')} dropped, {said('time_squeeze')} time squeezes" + (
        "" if then is not None else " (totals since boot)"
    )
