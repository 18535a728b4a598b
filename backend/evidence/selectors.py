"""Evidence reads, scoped through the incident the user may see."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from evidence.models import Evidence
from incidents.models import Incident


def evidence_of(*, incident: Incident) -> QuerySet[Evidence]:
    """The incident's evidence in upload order."""
    return incident.evidence.select_related("uploaded_by").order_by("id")


def get_evidence(*, incident: Incident, evidence_id: int) -> Evidence:
    evidence = evidence_of(incident=incident).filter(pk=evidence_id).first()
    if evidence is None:
        raise Http404("No such evidence.")
    return evidence
