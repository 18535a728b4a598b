"""Reads, already scoped to what the user may see: outside the team, an incident does not exist."""

from __future__ import annotations

import dataclasses
import datetime as dt

from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.db.models import BooleanField, Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.http import Http404

from accounts.models import Membership
from incidents.cursors import After, Before, Key
from incidents.models import Incident, TimelineEvent

TIMELINE_PAGE = 500


def incidents_for(*, user: User | AnonymousUser, status: str | None = None) -> QuerySet[Incident]:
    """Incidents of the user's teams."""
    incidents = (
        Incident.objects.filter(team__memberships__user_id=user.pk or 0)
        .select_related("team", "created_by", "owner")
        .prefetch_related("steps")
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
    incident = incidents_for(user=user).filter(pk=incident_id).prefetch_related("team__memberships__user").first()
    if incident is None:
        raise Http404("No such incident.")
    return incident


@dataclasses.dataclass(frozen=True)
class TimelinePage:
    """Events in (created_at, id) order, and where to read on from: ``next`` for what comes later,
    ``earlier`` for the events before the first new one (None: there are none)."""

    events: list[TimelineEvent]
    next: After
    earlier: Before | None
    more: bool


def _key(event: TimelineEvent) -> Key:
    return (event.created_at, event.pk)


def _compare(op: str, key: Key) -> RawSQL:
    # A row comparison, so PostgreSQL walks the (incident, created_at, id) index from the key on.
    table = TimelineEvent._meta.db_table
    return RawSQL(f'("{table}"."created_at", "{table}"."id") {op} (%s, %s)', key, output_field=BooleanField())


def _open_transactions() -> tuple[dt.datetime, list[dt.datetime]]:
    """Now, and when each transaction open in this database started (ours aside).

    An event's created_at is its transaction's start (TimelineEvent), so an event with an earlier key than one
    already read can only come from a transaction that is open now. Reading the events only up to "now", and
    remembering these starts in the cursor, lets the next read pick up exactly those late commits.
    """
    with connection.cursor() as cursor:
        # Statistics are cached for the length of a transaction; a reader inside one must see them fresh.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT clock_timestamp(), coalesce(array_agg(xact_start) FILTER (WHERE xact_start IS NOT NULL"
            " AND pid <> pg_backend_pid()), '{}') FROM pg_stat_activity WHERE datname = current_database()"
        )
        now, starts = cursor.fetchone()
    return now, list(starts)


def _pending(
    starts: list[dt.datetime], key: Key | None, delivered: list[TimelineEvent]
) -> list[tuple[dt.datetime, int]]:
    if key is None:
        return []
    floors: dict[dt.datetime, int] = {start: 0 for start in starts if start <= key[0]}
    for event in delivered:
        if event.created_at in floors:
            floors[event.created_at] = max(floors[event.created_at], event.pk)
    return sorted(floors.items())


def timeline_newest(*, incident: Incident) -> TimelinePage:
    """The newest page of the timeline: what a reader opening the incident sees first."""
    now, starts = _open_transactions()
    newest = list(
        incident.events.select_related("actor")
        .filter(created_at__lt=now)
        .order_by("-created_at", "-id")[: TIMELINE_PAGE + 1]
    )
    older = len(newest) > TIMELINE_PAGE
    events = newest[:TIMELINE_PAGE][::-1]
    key = _key(events[-1]) if events else None
    return TimelinePage(
        events=events,
        next=After(key=key, pending=tuple(_pending(starts, key, []))),
        earlier=Before(key=_key(events[0])) if older else None,
        more=False,
    )


def timeline_before(*, incident: Incident, cursor: Before) -> TimelinePage:
    """The page of events just before the cursor ("Load earlier"); its ``next`` is of no use and says so."""
    page = list(
        incident.events.select_related("actor")
        .filter(_compare("<", cursor.key))
        .order_by("-created_at", "-id")[: TIMELINE_PAGE + 1]
    )
    older = len(page) > TIMELINE_PAGE
    events = page[:TIMELINE_PAGE][::-1]
    return TimelinePage(
        events=events,
        next=After(key=cursor.key),
        earlier=Before(key=_key(events[0])) if older else None,
        more=False,
    )


def timeline_after(*, incident: Incident, cursor: After) -> TimelinePage:
    """What a live reader has not had yet: the next page of new events, and any event that a transaction still
    open at the last read committed since with an earlier key. Never the same page twice: the key only grows."""
    now, starts = _open_transactions()
    events = incident.events.select_related("actor").order_by("created_at", "id")
    fresh = events.filter(created_at__lt=now)
    if cursor.key is not None:
        fresh = fresh.filter(_compare(">", cursor.key))
    new = list(fresh[: TIMELINE_PAGE + 1])
    more = len(new) > TIMELINE_PAGE
    new = new[:TIMELINE_PAGE]
    late: list[TimelineEvent] = []
    carried: list[tuple[dt.datetime, int]] = []
    if cursor.pending and cursor.key is not None:
        which = Q()
        for start, floor in cursor.pending:
            which |= Q(created_at=start, id__gt=floor)
        late = list(events.filter(which).filter(_compare("<=", cursor.key))[:TIMELINE_PAGE])
        if len(late) == TIMELINE_PAGE:
            more = True
        # A transaction still open, or one whose late events did not all fit, stays pending.
        still_open = set(starts)
        for start, floor in cursor.pending:
            delivered = [e.pk for e in late if e.created_at == start]
            if start in still_open or len(late) == TIMELINE_PAGE:
                carried.append((start, max([floor, *delivered])))
    key = _key(new[-1]) if new else cursor.key
    pending = dict(_pending(starts, key, new))
    for start, floor in carried:
        pending[start] = max(floor, pending.get(start, 0))
    return TimelinePage(
        events=sorted([*late, *new], key=_key),
        next=After(key=key, pending=tuple(sorted(pending.items()))),
        earlier=Before(key=_key(new[0])) if new else None,
        more=more,
    )


def get_event(*, incident: Incident, event_id: int) -> TimelineEvent:
    """One event of the incident's timeline; 404 for another incident's."""
    event = incident.events.select_related("actor").filter(pk=event_id).first()
    if event is None:
        raise Http404("No such event.")
    return event


def pinned_events(*, incident: Incident) -> list[TimelineEvent]:
    """The events people pinned as key evidence, in timeline order."""
    return list(incident.events.select_related("actor").filter(pinned=True).order_by("created_at", "id"))
