"""Numbers in the words a person reads on an evidence card: ``1,596``, ``4.87 MiB``, ``10.3 s``, ``3 sockets``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def count(n: float) -> str:
    """A whole number with thousands separators."""
    return f"{n:,.0f}"


def plural(n: float, word: str, many: str = "") -> str:
    """``1 socket``, ``3 sockets`` (``many`` for irregular plurals: ``prefix``/``prefixes``)."""
    return f"{count(n)} {word if n == 1 else (many or word + 's')}"


def size(n: float) -> str:
    """A size in binary units: ``437 B``, ``21.1 KiB``, ``4.87 MiB``."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return (
                f"{value:.0f} {unit}"
                if unit == "B"
                else f"{value:.3g} {unit}"
                if value < 100
                else f"{value:.0f} {unit}"
            )
        value /= 1024
    return f"{value:.0f} TiB"  # pragma: no cover - the loop returns


def seconds(s: float) -> str:
    """A duration: ``12 µs``, ``4.7 ms``, ``10.3 s``, ``2 min 5 s``."""
    if s >= 120:
        return f"{int(s // 60)} min {int(s % 60)} s"
    if s >= 10:
        return f"{s:.1f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 0.001:
        return f"{s * 1000:.3g} ms"
    return f"{s * 1e6:.3g} µs"


def signed(n: float) -> str:
    """A change: ``+84``, ``-3``, ``+0``."""
    return f"{'+' if n >= 0 else '-'}{count(abs(n))}"


def numbers(value: Any) -> Mapping[str, float]:
    """The numeric entries of a summary's map (anything else is left out)."""
    if not isinstance(value, Mapping):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def listing(items: list[str], most: int = 3) -> str:
    """``a, b and c``; past ``most`` items, ``a, b, c and 4 more``."""
    shown, rest = items[:most], len(items) - most
    if rest > 0:
        return f"{', '.join(shown)} and {rest} more"
    return " and ".join([", ".join(shown[:-1]), shown[-1]]) if len(shown) > 1 else "".join(shown)
