"""Reads, already scoped to what the user may see: outside the team, an incident does not exist."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet
from django.http import Http404

from accounts.models import Team
from analysis.models import Finding, FindingSeverity
from incidents.models import ChecklistStep, Incident, Layer, TimelineEvent, Verdict

TIMELINE_PAGE = 500

_HINTS = {
    Layer.NEIGHBOURS: "Upload interface counters (ip -s link, /proc/net/dev) from two moments, with each "
    "interface's limit, to see whether a neighbour on the host is near its limit.",
    Layer.NETWORK: "Upload a client-side and a server-side capture of the same traffic to check for loss on "
    "the path; SYN retries, ECN black holes and retransmissions show up in either one.",
    Layer.APPLICATION: "Upload an strace of the client (strace -f -tt -T -y) or its client configuration to see "
    "socket options and timeouts it sets.",
    Layer.KERNEL: "Upload uname -r from before and after the change, with sysctl -a, to compare kernels and "
    "model the receive window.",
}


def teams_for(*, user: User | AnonymousUser) -> QuerySet[Team]:
    return Team.objects.filter(memberships__user_id=user.pk or 0).order_by("name")


def incidents_for(*, user: User | AnonymousUser, status: str | None = None) -> QuerySet[Incident]:
    """Incidents of the user's teams."""
    incidents = (
        Incident.objects.filter(team__memberships__user_id=user.pk or 0)
        .select_related("team", "created_by")
        .annotate(evidence_count=Count("evidence", distinct=True))
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


@dataclass(frozen=True)
class Suggestion:
    verdict: str
    reason: str


@dataclass(frozen=True)
class StepView:
    """A checklist step with the findings of its layer and what the findings suggest."""

    step: ChecklistStep
    findings: list[Finding]
    suggestion: Suggestion | None
    hint: str


def _suggest(findings: list[Finding]) -> Suggestion | None:
    serious = [f for f in findings if f.severity in (FindingSeverity.HIGH, FindingSeverity.MEDIUM)]
    if serious:
        titles = "; ".join(f.title for f in serious[:3])
        return Suggestion(verdict=Verdict.SUSPECT, reason=f"{len(serious)} notable finding(s): {titles}")
    clearing = [f for f in findings if f.data.get("clears_layer")]
    if clearing:
        return Suggestion(verdict=Verdict.CLEARED, reason="; ".join(f.title for f in clearing[:3]))
    return None


def checklist(*, incident: Incident) -> list[StepView]:
    """The four steps in order, each with its layer's findings and a suggested verdict."""
    steps = {step.layer: step for step in incident.steps.select_related("updated_by")}
    by_layer: dict[str, list[Finding]] = {layer: [] for layer in Layer.values}
    for finding in incident.findings.order_by("id"):
        by_layer[finding.layer].append(finding)
    views = []
    for layer in Layer.values:
        findings = by_layer[layer]
        views.append(
            StepView(
                step=steps[layer],
                findings=findings,
                suggestion=_suggest(findings),
                hint=_HINTS[Layer(layer)],
            )
        )
    return views


def get_step(*, incident: Incident, layer: str) -> StepView:
    for view in checklist(incident=incident):
        if view.step.layer == layer:
            return view
    raise Http404("No such checklist step.")
