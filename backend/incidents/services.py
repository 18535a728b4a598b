"""Every write to incidents and the timeline (a verdict on a checklist step: checklist/services.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.exceptions import ValidationError

from accounts.models import Team
from incidents.models import ChecklistStep, EventKind, Incident, Layer, TimelineEvent


def record_event(
    *,
    incident: Incident,
    kind: EventKind,
    summary: str,
    actor: User | None = None,
    data: dict[str, Any] | None = None,
) -> TimelineEvent:
    """Append one event to an incident's timeline."""
    return TimelineEvent.objects.create(incident=incident, kind=kind, summary=summary, actor=actor, data=data or {})


@transaction.atomic
def open_incident(
    *,
    user: User,
    team: Team,
    title: str,
    symptom: str,
    severity: str,
    started_at: dt.datetime,
) -> Incident:
    """Open an incident for a team, with its four checklist steps not looked at."""
    incident = Incident.objects.create(
        team=team, title=title, symptom=symptom, severity=severity, started_at=started_at, created_by=user
    )
    ChecklistStep.objects.bulk_create(ChecklistStep(incident=incident, layer=layer) for layer in Layer.values)
    record_event(
        incident=incident,
        kind=EventKind.INCIDENT_OPENED,
        actor=user,
        summary=f"Opened “{title}” ({severity.upper()})",
        data={"severity": severity},
    )
    return incident


@transaction.atomic
def update_incident(*, user: User, incident: Incident, changes: dict[str, Any]) -> Incident:
    """Change an incident's title, symptom, severity or status, noting what changed."""
    changed = {name: value for name, value in changes.items() if getattr(incident, name) != value}
    if not changed:
        return incident
    for name, value in changed.items():
        setattr(incident, name, value)
    incident.save(update_fields=list(changed))
    described = ", ".join(f"{name} → {value}" for name, value in changed.items() if name != "symptom")
    record_event(
        incident=incident,
        kind=EventKind.INCIDENT_UPDATED,
        actor=user,
        summary=f"Updated {described or 'symptom'}",
        data={name: str(value) for name, value in changed.items()},
    )
    return incident


def add_note(*, user: User, incident: Incident, text: str) -> TimelineEvent:
    """Add a person's note to the timeline."""
    text = text.strip()
    if not text:
        raise ValidationError({"text": ["A note cannot be empty."]})
    return record_event(incident=incident, kind=EventKind.NOTE, actor=user, summary=text)


def pin_event(*, user: User, event: TimelineEvent, pinned: bool) -> TimelineEvent:
    """Mark an event as key evidence (or unmark it); the postmortem lists the pinned ones."""
    if event.pinned != pinned:
        event.pinned = pinned
        event.save(update_fields=["pinned"])
    return event
