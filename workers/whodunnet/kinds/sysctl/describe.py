"""sysctl values' one line on their card: how many settings, and the first few."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import listing, plural


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``3 settings: net.core.rmem_max = 4194304, net.ipv4.tcp_rmem = 4096 131072 33554432 and 1 more``."""
    values = summary.get("values")
    if not isinstance(values, Mapping) or not values:
        return None
    shown = [f"{name} = {' '.join(str(value).split())}" for name, value in values.items()]
    return f"{plural(len(values), 'setting')}: {listing(shown, 2)}"
