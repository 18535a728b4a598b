"""The combined findings (see the package docstring)."""

from __future__ import annotations

from collections.abc import Sequence

from whodunnet.correlate.counters import counter_findings
from whodunnet.correlate.kernel import kernel_findings
from whodunnet.model import EvidenceResult, Finding


def correlate(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[Finding]:
    """Findings that need several pieces of evidence (or a pair of snapshots) together."""
    out: list[Finding] = []
    out.extend(counter_findings(evidence))
    out.extend(kernel_findings(evidence, findings))
    return out
