"""Evidence reads, scoped through the incident the user may see."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from evidence.models import Evidence, Upload
from incidents.models import Incident


def evidence_of(*, incident: Incident) -> QuerySet[Evidence]:
    """The incident's evidence in upload order (a deleted file is not: ``deleted_evidence_of``)."""
    return incident.evidence.filter(deleted_at__isnull=True).select_related("uploaded_by").order_by("id")


def deleted_evidence_of(*, incident: Incident) -> QuerySet[Evidence]:
    """The incident's deleted files that can still be restored, the latest deleted first."""
    return (
        incident.evidence.filter(deleted_at__isnull=False)
        .select_related("uploaded_by", "deleted_by")
        .order_by("-deleted_at", "-id")
    )


def get_deleted_evidence(*, incident: Incident, evidence_id: int) -> Evidence:
    evidence = deleted_evidence_of(incident=incident).filter(pk=evidence_id).first()
    if evidence is None:
        raise Http404("No such deleted evidence.")
    return evidence


def get_evidence(*, incident: Incident, evidence_id: int) -> Evidence:
    evidence = evidence_of(incident=incident).filter(pk=evidence_id).first()
    if evidence is None:
        raise Http404("No such evidence.")
    return evidence


def get_upload(*, incident: Incident, user: Any, upload_id: uuid.UUID) -> Upload:
    """A resumable upload of this incident that this user started (its URL is theirs alone)."""
    upload = Upload.objects.filter(pk=upload_id, incident=incident, created_by=user, resumable=True).first()
    if upload is None:
        raise Http404("No such upload.")
    return upload
