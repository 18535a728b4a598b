"""A firewall ruleset's one line on its card: how many rules drop, and the packets they dropped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import count, plural, signed

STOPPING = ("drop", "reject")


def _dropping(summary: Mapping[str, Any]) -> dict[str, int]:
    return {
        str(rule["key"]): int(rule.get("packets") or 0)
        for rule in summary.get("rules") or ()
        if isinstance(rule, Mapping) and rule.get("verdict") in STOPPING and "key" in rule
    }


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``nft list ruleset: 1 dropping rule, +15 packets dropped`` (since ``earlier``), or the counters so far."""
    rules = summary.get("rules")
    if not isinstance(rules, list):
        return None
    now = _dropping(summary)
    formats = ", ".join(str(f) for f in summary.get("formats") or ())
    lead = f"{formats}: " if formats else ""
    text = f"{lead}{plural(len(rules), 'rule')}, {count(len(now))} dropping"
    if earlier is None:
        return text + f", {plural(sum(now.values()), 'packet')} dropped so far"
    then = _dropping(earlier)
    return text + f", {signed(sum(n - then.get(key, 0) for key, n in now.items()))} packets dropped"
