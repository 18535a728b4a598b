"""Analysis reads, scoped through the incident the user may see (``get_incident`` already 404s outsiders)."""

from __future__ import annotations

from typing import cast

from django.db.models import Q, QuerySet
from django.http import Http404

from analysis import provenance
from analysis.models import AnalysisRun, Correlation, Finding, RunStatus
from evidence.models import Evidence
from evidence.selectors import evidence_of
from incidents.models import Incident
from whodunnet import provenance as engine_provenance
from whodunnet.model import EvidenceResult, Layer, Provenance, Ref, Severity
from whodunnet.model import Finding as EngineFinding


def cards_of(*, incident: Incident) -> QuerySet[Evidence]:
    """The incident's evidence with what its cards show: every run, and the incident's snapshot pairing."""
    return evidence_of(incident=incident).select_related("incident__correlation").prefetch_related("runs")


def get_card(*, incident: Incident, evidence_id: int) -> Evidence:
    evidence = cards_of(incident=incident).filter(pk=evidence_id).first()
    if evidence is None:
        raise Http404("No such evidence.")
    return evidence


#: The evidence whose findings count: not excluded from the analysis by a person, not deleted.
IN_USE = Q(evidence__excluded=False, evidence__deleted_at__isnull=True)


def latest_runs(*, incident_id: int) -> list[AnalysisRun]:
    """Each evidence's latest finished run, in upload order (what the findings across evidence are drawn from);
    files excluded from the analysis or deleted are left out."""
    finished = (
        AnalysisRun.objects.filter(IN_USE, evidence__incident_id=incident_id, status=RunStatus.DONE)
        .select_related("evidence")
        .order_by("evidence_id", "-id")
    )
    latest: dict[int, AnalysisRun] = {}
    for run in finished:
        latest.setdefault(run.evidence_id, run)
    return [latest[key] for key in sorted(latest)]


def findings_of(*, incident: Incident) -> QuerySet[Finding]:
    """The incident's findings that count: each file's own (while the file is in use) and those across evidence
    (drawn from the files in use only), in the order they were made."""
    return incident.findings.filter(IN_USE | Q(evidence__isnull=True)).order_by("id")


def engine_view(
    *, incident: Incident, rows: list[Finding] | None = None
) -> tuple[list[EvidenceResult], list[EngineFinding], list[Finding]]:
    """The incident as the engine's rules read it (``whodunnet.verdicts``): each evidence with its summary and
    provenance (as the last correlation gave it to the engine, else a person's values over the file's own), and
    every finding with its refs naming evidence by index in that list. The third list is the rows, in the same
    order as the engine's findings. ``rows``: the incident's findings (``findings_of``) when the caller has read them
    already (the checklist does), so that they are not read twice."""
    runs = latest_runs(incident_id=incident.pk)
    try:
        across = incident.correlation.provenance
    except Correlation.DoesNotExist:
        across = {}
    evidence = [
        EvidenceResult(
            path=run.evidence.filename,
            kind=run.evidence.kind,
            summary=run.summary or {},
            provenance=(
                engine_provenance.merge(
                    Provenance.from_json(across[str(run.evidence_id)]), provenance.given(run.evidence)
                )
                if str(run.evidence_id) in across
                else provenance.effective(run.evidence, run)
            ),
        )
        for run in runs
    ]
    index = {run.evidence_id: i for i, run in enumerate(runs)}
    rows = list(findings_of(incident=incident)) if rows is None else rows
    findings = [engine_finding(row, index) for row in rows]
    return evidence, findings, rows


def engine_finding(row: Finding, index: dict[int, int]) -> EngineFinding:
    """A stored finding as the engine's, its refs naming evidence by position (``index``: evidence id → position)."""
    return EngineFinding(
        kind=row.kind,
        layer=cast(Layer, row.layer),
        severity=cast(Severity, row.severity),
        title=row.title,
        explanation=row.explanation,
        refs=_refs(row, index),
        key=row.key,
        data=row.data,
    )


def _refs(row: Finding, index: dict[int, int]) -> tuple[Ref, ...]:
    """A stored finding's refs (evidence ids) as the engine's (evidence indexes); its own evidence when it has none."""
    refs = tuple(
        Ref(evidence=index[ref["evidence"]], label=ref.get("label") or "")
        for ref in row.refs
        if ref.get("evidence") in index
    )
    if not refs and row.evidence_id in index:
        refs = (Ref(evidence=index[row.evidence_id]),)
    return refs
