"""The one write to the checklist: a person's verdict on a step, with why, on the timeline."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from incidents.models import ChecklistStep, EventKind, Incident, Layer, Verdict
from incidents.services import record_event


@transaction.atomic
def set_verdict(*, user: User, incident: Incident, layer: str, verdict: str, rationale: str) -> ChecklistStep:
    """Give a checklist step a verdict; a rationale is required and lands on the timeline."""
    rationale = rationale.strip()
    if not rationale:
        raise ValidationError({"rationale": ["Say why: a verdict needs a rationale."]})
    step = ChecklistStep.objects.select_for_update().get(incident=incident, layer=layer)
    previous = step.verdict
    step.verdict = verdict
    step.rationale = rationale
    step.updated_by = user
    step.updated_at = timezone.now()
    step.save()
    record_event(
        incident=incident,
        kind=EventKind.VERDICT_CHANGED,
        actor=user,
        summary=f"{Layer(layer).label}: {Verdict(previous).label} → {Verdict(verdict).label} — {rationale}",
        data={"layer": layer, "from": previous, "to": verdict, "rationale": rationale},
    )
    return step
