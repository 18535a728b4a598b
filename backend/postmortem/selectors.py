"""What a postmortem says, read from the incident: the checklist with its chains of evidence (``checklist``
over the engine's ``whodunnet.verdicts``), the key findings, the pinned timeline events and the fixes the
findings point to (``whodunnet.fixes``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from analysis.models import Finding, FindingSeverity
from analysis.selectors import findings_of
from checklist.selectors import StepView, checklist
from evidence.selectors import evidence_of
from incidents.models import EventKind, Incident, Layer, Status, TimelineEvent
from incidents.selectors import pinned_events
from whodunnet.fixes import Fix, collect

SEVERITY_ORDER = [FindingSeverity.HIGH, FindingSeverity.MEDIUM, FindingSeverity.LOW, FindingSeverity.INFO]


@dataclass(frozen=True)
class KeyFinding:
    finding: Finding
    source: str  # "client.pcap (host client-1)"; for a finding across files, every file its references name


@dataclass(frozen=True)
class Postmortem:
    incident: Incident
    impact_start: dt.datetime
    impact_end: dt.datetime | None  # when it was first marked mitigated or resolved; None: still open
    steps: list[StepView]
    cited: dict[int, Finding]  # the findings the suggestions cite, by id
    key_findings: list[KeyFinding]  # high severity or cited by a suggestion; one per title
    other_findings: int  # how many more the console shows
    pinned: list[TimelineEvent]
    fixes: list[Fix]
    generated_at: dt.datetime


def _impact_end(incident: Incident) -> dt.datetime | None:
    ended = {Status.MITIGATED.value, Status.RESOLVED.value}
    for event in incident.events.filter(kind=EventKind.INCIDENT_UPDATED).order_by("created_at", "id"):
        if event.data.get("status") in ended:
            return event.created_at
    return None


def _source(finding: Finding, names: dict[int, str]) -> str:
    """The file a finding comes from, or every file a finding across evidence refers to, in order."""
    evidence = finding.evidence
    if evidence is None:
        files = dict.fromkeys(names[r["evidence"]] for r in finding.refs if r.get("evidence") in names)
        return ", ".join(files) or "several files"
    return f"{evidence.filename} (host {evidence.host})" if evidence.host else evidence.filename


def postmortem(*, incident: Incident, now: dt.datetime) -> Postmortem:
    """The postmortem of an incident the caller may already see (``incidents.selectors.get_incident``)."""
    steps = checklist(incident=incident)
    findings = list(findings_of(incident=incident).select_related("evidence"))
    by_id = {f.pk: f for f in findings}
    cited = {pk: by_id[pk] for step in steps if step.suggestion for pk in step.suggestion.findings if pk in by_id}
    layers = list(Layer.values)
    key = sorted(
        (f for f in findings if f.severity == FindingSeverity.HIGH or f.pk in cited),
        key=lambda f: (SEVERITY_ORDER.index(FindingSeverity(f.severity)), layers.index(f.layer), f.pk),
    )
    # The same finding seen from two files (two captures of one transfer) says the same title: list it once,
    # with both sources.
    by_title: dict[str, list[Finding]] = {}
    for f in key:
        by_title.setdefault(f.title, []).append(f)
    names = dict(evidence_of(incident=incident).values_list("pk", "filename"))
    key_findings = [
        KeyFinding(finding=same[0], source=", ".join(dict.fromkeys(_source(f, names) for f in same)))
        for same in by_title.values()
    ]
    return Postmortem(
        incident=incident,
        impact_start=incident.started_at,
        impact_end=_impact_end(incident),
        steps=steps,
        cited=cited,
        key_findings=key_findings,
        other_findings=len(findings) - len(key),
        pinned=pinned_events(incident=incident),
        fixes=collect([(f.kind, f.data) for f in findings]),
        generated_at=now,
    )
