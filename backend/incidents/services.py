"""Every write to incidents and the timeline (a verdict on a checklist step: checklist/services.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.exceptions import ValidationError

from accounts.models import Team
from incidents.models import ChecklistStep, EventKind, Incident, Layer, Status, TimelineEvent


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


# How a change reads on the timeline: plain words, not field names.
_CHANGE_LABEL = {
    "title": "title",
    "severity": "severity",
    "status": "status",
    "owner": "owner",
    "impact_started_at": "impact start",
    "impact_ended_at": "impact end",
}


def _described(name: str, value: Any) -> str:
    if value is None:
        return "none"
    if name == "status":
        return str(Status(value).label).lower()
    if isinstance(value, User):
        return value.get_username()
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value)


@transaction.atomic
def update_incident(*, user: User, incident: Incident, changes: dict[str, Any]) -> Incident:
    """Change an incident's title, symptom, severity, status, owner or impact window, noting what changed."""
    changes = dict(changes)
    if "owner" in changes and changes["owner"] is not None:
        owner = User.objects.filter(username=changes["owner"], memberships__team_id=incident.team_id).first()
        if owner is None:
            raise ValidationError({"owner": ["The owner must be a member of the incident's team."]})
        changes["owner"] = owner
    start = changes.get("impact_started_at", incident.impact_started_at)
    end = changes.get("impact_ended_at", incident.impact_ended_at)
    if start is not None and end is not None and end < start:
        raise ValidationError({"impact_ended_at": ["The impact cannot end before it starts."]})
    changed = {name: value for name, value in changes.items() if getattr(incident, name) != value}
    if not changed:
        return incident
    for name, value in changed.items():
        setattr(incident, name, value)
    incident.save(update_fields=list(changed))
    described = ", ".join(
        f"{_CHANGE_LABEL.get(name, name)} → {_described(name, value)}"
        for name, value in changed.items()
        if name != "symptom"
    )
    record_event(
        incident=incident,
        kind=EventKind.INCIDENT_UPDATED,
        actor=user,
        summary=f"Updated {described or 'symptom'}",
        data={
            name: (value.get_username() if isinstance(value, User) else None if value is None else str(value))
            for name, value in changed.items()
        },
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
