"""Kernel versions' one line on their card: ``kernel 6.5.13 → 6.6.10``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import listing


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``kernel 6.5.13 → 6.6.10`` for a before and an after; else every version with its host."""
    versions = [v for v in summary.get("versions") or () if isinstance(v, Mapping) and v.get("raw")]
    if not versions:
        return None
    before = [v["raw"] for v in versions if v.get("role") == "before"]
    after = [v["raw"] for v in versions if v.get("role") == "after"]
    if before and after and set(before) != set(after):
        return f"kernel {listing(list(dict.fromkeys(before)), 2)} → {listing(list(dict.fromkeys(after)), 2)}"
    named = list(dict.fromkeys(f"{v['raw']} on {v['host']}" if v.get("host") else str(v["raw"]) for v in versions))
    if before and after:
        return f"kernel {listing(named)}, the same before and after"
    return f"kernel{'s' if len(named) > 1 else ''} {listing(named)}"
