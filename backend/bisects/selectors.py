"""Bisect reads, scoped through the incident the user may see (get_incident already 404s outsiders)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.http import Http404

from bisects.models import BisectJob, BisectStep, Schedule
from incidents.models import Incident
from incidents.selectors import get_incident


def incident_to_run_bisects(*, user: User, incident_id: int) -> Incident:
    """The incident, if the user may have a worker run a reproducer for it (start, retry, schedule one).

    Today that is anyone in the incident's team (``get_incident``: outsiders get 404). This is the one place
    that decides it: every view that makes a worker run a command asks here.
    """
    return get_incident(user=user, incident_id=incident_id)


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
