"""Firewall rule counter snapshots → ``firewall.drops``: which rules dropped (or rejected) how many packets.

Two snapshots of the same firewall (paired by ``whodunnet.snapshots``: by the time each was
taken, else in upload order) are diffed rule by rule, a rule being known by its table, chain and
text; a rule only in the later snapshot counts from zero, and a counter that went down was
reset (the rules were reloaded), so its later value is the difference. One snapshot alone gives
the totals since its rules were loaded.

How much a table dropped is set against what its counted rules decided (accepted, dropped or
rejected, and its chains' policies where iptables counts them): nftables does not count a
policy, so where the policy accepts uncounted packets the share is an upper bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whodunnet.kinds.firewall.parser import DROPPING
from whodunnet.model import EvidenceResult, Finding, Ref, Severity
from whodunnet.snapshots import Diff, diffs

KIND = "firewall"
#: Dropping rules listed in a finding.
MAX_RULES_LISTED = 50
#: A table that drops at least this share of the packets its rules decided on (and at least
#: ``NOTABLE_PACKETS`` of them) between two snapshots makes the finding medium: loss on the path.
NOTABLE_SHARE = 0.01
NOTABLE_PACKETS = 10
DECIDING = frozenset({"accept", "drop", "reject"})
PAST = {"drop": "dropped", "reject": "rejected"}


def firewall_findings(evidence: Sequence[EvidenceResult], findings: Sequence[Finding] = ()) -> list[Finding]:
    """One finding per group of snapshots of the same formats: the dropping rules over the interval."""
    out = []
    for d in diffs(evidence, KIND):
        resets: list[str] = []
        after = list(evidence[d.after].summary.get("rules", []))
        rows = after if d.before is None else diff_rules(evidence[d.before].summary.get("rules", []), after, resets)
        out.append(_finding(evidence, d, rows, resets))
    return out


def diff_rules(before: list[dict[str, Any]], after: list[dict[str, Any]], resets: list[str]) -> list[dict[str, Any]]:
    """Each rule of ``after`` with its packets and bytes since ``before`` (``new``: not in ``before``)."""
    earlier = {r["key"]: r for r in before}
    rows = []
    for r in after:
        then = earlier.get(r["key"])
        row = dict(r)
        if then is None:
            row["new"] = True
        elif r["packets"] < then["packets"] or r["bytes"] < then["bytes"]:
            resets.append(r["key"])
        else:
            row["packets"], row["bytes"] = r["packets"] - then["packets"], r["bytes"] - then["bytes"]
        row["before_line"] = then["line"] if then is not None else None
        rows.append(row)
    return rows


def _tables(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["verdict"] not in DECIDING:
            continue
        t = tables.setdefault(r["table"], {"table": r["table"], "decided_packets": 0, "dropped_packets": 0})
        t["decided_packets"] += r["packets"]
        if r["verdict"] in DROPPING:
            t["dropped_packets"] += r["packets"]
    for t in tables.values():
        t["share"] = t["dropped_packets"] / t["decided_packets"] if t["decided_packets"] else None
    return sorted(tables.values(), key=lambda t: -t["dropped_packets"])


def _finding(evidence: Sequence[EvidenceResult], d: Diff, rows: list[dict[str, Any]], resets: list[str]) -> Finding:
    before, after = d.before, d.after
    dropping = sorted((r for r in rows if r["verdict"] in DROPPING and r["packets"] > 0), key=lambda r: -r["packets"])
    packets, byts = sum(r["packets"] for r in dropping), sum(r["bytes"] for r in dropping)
    tables = _tables(rows)
    when = d.when(evidence, "since the rules were loaded (one snapshot)")
    notable = [t for t in tables if (t["share"] or 0) >= NOTABLE_SHARE and t["dropped_packets"] >= NOTABLE_PACKETS]
    severity: Severity = "info"
    if dropping:
        severity = "medium" if before is not None and notable else "low"
    if dropping:
        top = dropping[0]
        more = f" (and {len(dropping) - 1} more rule{'s' if len(dropping) > 2 else ''}: {packets:,} packets in all)"
        title = (
            f"{top['chain']}: '{top['rule']}' {PAST[top['verdict']]} {top['packets']:,} packets "
            f"({top['bytes']:,} bytes) {when}" + (more if len(dropping) > 1 else "")
        )
        explanation = (
            f"{len(dropping)} firewall rule{'s' if len(dropping) != 1 else ''} dropped or rejected {packets:,} packets "
            f"({byts:,} bytes) {when}: "
            + "; ".join(
                f"{r['table']}/{r['chain']} '{r['rule']}' {r['packets']:,} ({r['bytes']:,} bytes)" for r in dropping[:5]
            )
            + ". "
            + " ".join(
                f"In table {t['table']} that is {t['share']:.2%} of the {t['decided_packets']:,} packets its counted "
                "rules and policies decided on."
                for t in tables
                if t["dropped_packets"] and t["share"] is not None
            )
            + " A TCP segment dropped here is retransmitted by its sender (after at least 200 ms when fast "
            "retransmit does not catch it); a SYN dropped here costs the client its SYN timeout (1 s on Linux)."
        )
    else:
        title = f"no firewall rule dropped a packet {when}"
        explanation = (
            f"None of the {len(rows):,} counted rules and policies dropped or rejected a packet {when}."
            if rows
            else "The ruleset has no rule with a counter (nft: add 'counter' to the rules to count them)."
        )
    if resets:
        explanation += f" Counters went down (rules reloaded) for {len(resets)} rule(s), e.g. {resets[0]}."
    if any(r.get("rounded") for r in dropping):
        explanation += " Some counters were printed rounded (iptables -L without -x): those numbers are approximate."
    refs = []
    for r in dropping[:MAX_RULES_LISTED]:
        for idx, line in ((before, r.get("before_line")), (after, r["line"])):
            if idx is not None and line:
                refs.append(Ref(evidence=idx, label=f"{r['chain']}: {r['rule']}"[:120], lines=(line, line)))
    listed = [
        {k: r[k] for k in ("table", "chain", "rule", "verdict", "packets", "bytes") if k in r}
        | {"new": bool(r.get("new"))}
        for r in dropping[:MAX_RULES_LISTED]
    ]
    return Finding(
        kind="firewall.drops",
        layer="network",
        severity=severity,
        title=title,
        explanation=explanation,
        refs=tuple(refs),
        key=f"firewall-{d.key}",
        data={
            **d.data(),
            "dropped_packets": packets,
            "dropped_bytes": byts,
            "rules": listed,
            "tables": tables,
            "resets": resets[:20],
        },
    )
