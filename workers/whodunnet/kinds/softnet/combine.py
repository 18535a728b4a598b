"""softnet_stat snapshots → ``host.softnet_backlog``: did the host's CPUs keep up with the packets arriving?

Two snapshots of the same host (paired by ``whodunnet.snapshots``: by the time each was taken,
else in upload order) are diffed CPU by CPU; one snapshot alone gives its totals since boot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whodunnet.kinds.softnet.parser import COUNTERS
from whodunnet.model import EvidenceResult, Finding, Ref, Severity
from whodunnet.snapshots import Diff, diff_counts, diffs

KIND = "softnet"
#: CPUs named in a finding's refs and rows.
MAX_CPUS_LISTED = 64


def softnet_findings(evidence: Sequence[EvidenceResult], findings: Sequence[Finding] = ()) -> list[Finding]:
    """One finding per group of snapshots: the drops and time squeezes over the interval (or since boot)."""
    out = []
    for d in diffs(evidence, KIND):
        resets: list[str] = []
        rows = _rows(evidence[d.after], evidence[d.before] if d.before is not None else None, resets)
        out.append(_finding(evidence, d, rows, resets))
    return out


def _rows(
    after: EvidenceResult, before: EvidenceResult | None, resets: list[str] | None = None
) -> list[dict[str, Any]]:
    """Per CPU: the counters of ``after``, less those of ``before`` for the same CPU when there is one."""
    earlier = {c["cpu"]: c for c in before.summary.get("cpus", [])} if before is not None else {}
    rows = []
    for cpu in after.summary.get("cpus", []):
        now = {k: cpu[k] for k in COUNTERS if k in cpu}
        if before is not None:
            then = earlier.get(cpu["cpu"])
            if then is None:
                continue  # a CPU that came online between the snapshots: no interval to diff over
            now = diff_counts({k: then[k] for k in COUNTERS if k in then}, now, resets or [], f"cpu{cpu['cpu']}.")
        rows.append({"cpu": cpu["cpu"], **now, "line": cpu.get("line")})
    return rows


def _finding(evidence: Sequence[EvidenceResult], d: Diff, rows: list[dict[str, Any]], resets: list[str]) -> Finding:
    before, after = d.before, d.after
    totals = {k: sum(r.get(k, 0) for r in rows) for k in COUNTERS if any(k in r for r in rows)}
    dropped, squeezed = totals.get("dropped", 0), totals.get("time_squeeze", 0)
    when = d.when(evidence)
    busy = sorted((r for r in rows if r.get("dropped") or r.get("time_squeeze")), key=lambda r: -r.get("dropped", 0))
    severity: Severity = "info"
    if dropped or squeezed:
        severity = "low" if before is None else "high" if dropped else "medium"
    if dropped or squeezed:
        title = f"{dropped:,} packets dropped in CPU backlogs, {squeezed:,} time squeezes {when}"
        worst = busy[0]
        explanation = (
            f"The kernel's per-CPU receive backlog (/proc/net/softnet_stat) counted {dropped:,} packets dropped "
            f"because a CPU's backlog queue was full (net.core.netdev_max_backlog) and {squeezed:,} times the "
            f"receive softirq ran out of its budget (net.core.netdev_budget) with packets still waiting, {when}: "
            f"the host's CPUs did not keep up with the packets arriving. These packets are lost inside this host, "
            f"not on the path; TCP retransmits them, after at least 200 ms when fast retransmit does not catch them. "
            f"CPU {worst['cpu']} has the most: {worst.get('dropped', 0):,} dropped, {worst.get('time_squeeze', 0):,} "
            "time squeezes."
        )
        if totals.get("received_rps"):
            explanation += (
                f" RPS steers packets between CPUs here: CPUs were woken {totals['received_rps']:,} times to take them."
            )
    else:
        title = f"no CPU dropped a packet or ran out of budget {when}"
        explanation = (
            f"Every CPU's receive backlog (/proc/net/softnet_stat) kept up {when}: no packet dropped for a full "
            f"queue and no time squeeze, over {totals.get('processed', 0):,} packets processed."
        )
    if resets:
        explanation += f" Counter resets seen for {', '.join(resets[:5])}."
    refs = []
    for idx in (before, after):
        if idx is None:
            continue
        lines = {c["cpu"]: c.get("line") for c in evidence[idx].summary.get("cpus", [])}
        for r in (busy or rows)[:MAX_CPUS_LISTED]:
            line = lines.get(r["cpu"])
            refs.append(Ref(evidence=idx, label=f"cpu {r['cpu']}", lines=(line, line) if line else None))
    return Finding(
        kind="host.softnet_backlog",
        layer="network",
        severity=severity,
        title=title,
        explanation=explanation,
        refs=tuple(refs),
        key=f"softnet-{d.key}",
        data={
            **d.data(),
            **totals,
            "cpus": [{k: v for k, v in r.items() if k != "line"} for r in rows[:MAX_CPUS_LISTED]],
            "resets": resets,
        },
    )
