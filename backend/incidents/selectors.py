"""Reads, already scoped to what the user may see: outside the team, an incident does not exist."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.http import Http404

from accounts.models import Membership
from incidents.models import Incident, TimelineEvent

TIMELINE_PAGE = 500


def incidents_for(*, user: User | AnonymousUser, status: str | None = None) -> QuerySet[Incident]:
    """Incidents of the user's teams."""
    incidents = (
        Incident.objects.filter(team__memberships__user_id=user.pk or 0)
        .select_related("team", "created_by")
        .annotate(
            evidence_count=Count("evidence", distinct=True),
            viewer_role=Subquery(
                Membership.objects.filter(team_id=OuterRef("team_id"), user_id=user.pk or 0).values("role")[:1]
            ),
        )
    )
    if status:
        incidents = incidents.filter(status=status)
    return incidents


def get_incident(*, user: User | AnonymousUser, incident_id: int) -> Incident:
    """The incident if the user's team owns it; 404 otherwise, so outsiders learn nothing."""
    incident = incidents_for(user=user).filter(pk=incident_id).first()
    if incident is None:
        raise Http404("No such incident.")
    return incident


def timeline(*, incident: Incident, after: int | None = None) -> QuerySet[TimelineEvent]:
    events = incident.events.select_related("actor").order_by("id")
    if after is not None:
        events = events.filter(id__gt=after)
    return events[:TIMELINE_PAGE]
