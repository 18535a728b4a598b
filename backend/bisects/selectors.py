"""Bisect reads, scoped through the incident the user may see (get_incident already 404s outsiders)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import Http404

from accounts.models import Membership
from bisects.models import BisectJob, BisectStep, Schedule
from incidents.models import Incident
from incidents.selectors import get_incident


def incident_to_run_bisects(*, user: User, incident_id: int) -> Incident:
    """The incident, if the user may have a worker run a reproducer for it (start, retry, schedule one).

    A reproducer is a command run on a worker, so only the owners of the incident's team may start one;
    other members get 403 (and can still read, cancel or delete), outsiders 404 (``get_incident``).
    This is the one place that decides it: every view that makes a worker run a command asks here.
    """
    incident = get_incident(user=user, incident_id=incident_id)
    if not may_run_bisects(user=user, incident=incident):
        raise PermissionDenied(RUN_BISECTS_DENIED)
    return incident


RUN_BISECTS_DENIED = (
    "Only the team's owners can start, schedule or retry a bisect: its reproducer runs as a command on a worker."
)


def may_run_bisects(*, user: User | AnonymousUser, incident: Incident) -> bool:
    """Whether the user owns the incident's team (and so may have workers run its reproducers)."""
    owners = Membership.objects.filter(team_id=incident.team_id, role=Membership.Role.OWNER)
    return owners.filter(user_id=user.pk or 0).exists()


def bisects_of(*, incident: Incident) -> QuerySet[BisectJob]:
    """The incident's bisect jobs, newest first, without their steps."""
    return incident.bisects.select_related("started_by", "firing__schedule").order_by("-id")


def get_bisect(*, incident: Incident, bisect_id: int) -> BisectJob:
    """One job of the incident with its steps in order; 404 when it is not this incident's."""
    job = (
        bisects_of(incident=incident)
        .prefetch_related(Prefetch("steps", queryset=BisectStep.objects.order_by("index")))
        .filter(pk=bisect_id)
        .first()
    )
    if job is None:
        raise Http404("No such bisect.")
    return job


def get_step(*, job: BisectJob, step_id: int) -> BisectStep:
    step = BisectStep.objects.filter(job=job, pk=step_id).first()
    if step is None:
        raise Http404("No such step.")
    return step


def schedules_of(*, incident: Incident) -> QuerySet[Schedule]:
    return incident.bisect_schedules.select_related("created_by").order_by("id")


def get_schedule(*, incident: Incident, schedule_id: int) -> Schedule:
    schedule = schedules_of(incident=incident).filter(pk=schedule_id).first()
    if schedule is None:
        raise Http404("No such schedule.")
    return schedule
