"""The knowledge base of network behaviour changes (``whodunnet/data/kernel_changes.json``).

``has_change(entry, version)`` answers whether a kernel carries a change, taking stable
backports into account: 6.6.10 does not have 697a6c8cec03 (first in 6.10) but 6.6.33
does, because it was backported to the 6.6 series at 6.6.33.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from whodunnet.kernel.versions import Version, version_tuple


@cache
def changes() -> tuple[dict[str, Any], ...]:
    """Every entry of the knowledge base, as stored."""
    text = resources.files("whodunnet").joinpath("data/kernel_changes.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["changes"])


def change(change_id: str) -> dict[str, Any]:
    for entry in changes():
        if entry["id"] == change_id or entry["commit"].startswith(change_id):
            return entry
    raise KeyError(change_id)


def has_change(entry: dict[str, Any], version: Version) -> bool:
    """True if ``version`` contains the change, in mainline or through a stable backport."""
    first = version_tuple(entry["first_release"])
    if version[:2] >= first[:2]:
        return True
    for backport in entry.get("stable_backports", ()):
        b = version_tuple(backport)
        if version[:2] == b[:2] and version[2] >= b[2]:
            return True
    return False


def changes_between(before: Version, after: Version) -> list[dict[str, Any]]:
    """The changes one kernel has and the other does not, each with its direction.

    ``direction`` is ``"gained"`` when ``after`` has it and ``before`` does not (the usual
    upgrade), ``"lost"`` for the reverse (a downgrade, or a newer mainline without a backport).
    """
    out = []
    for entry in changes():
        had, has = has_change(entry, before), has_change(entry, after)
        if had != has:
            out.append({"entry": entry, "direction": "gained" if has else "lost"})
    return out
