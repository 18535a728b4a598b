"""Analysis reads, scoped through the incident the user may see (``get_incident`` already 404s outsiders)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from evidence.models import Evidence
from evidence.selectors import evidence_of
from incidents.models import Incident


def cards_of(*, incident: Incident) -> QuerySet[Evidence]:
    """The incident's evidence with what its cards show: every run, and the incident's snapshot pairing."""
    return evidence_of(incident=incident).select_related("incident__correlation").prefetch_related("runs")


def get_card(*, incident: Incident, evidence_id: int) -> Evidence:
    evidence = cards_of(incident=incident).filter(pk=evidence_id).first()
    if evidence is None:
        raise Http404("No such evidence.")
    return evidence
