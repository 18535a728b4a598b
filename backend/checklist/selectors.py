"""The checklist as a person reads it: four steps in order, each with its findings and a suggested verdict."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from analysis.models import Finding
from analysis.selectors import findings_of
from checklist.rules import Suggestion, advise
from incidents.models import ChecklistStep, Incident, Layer

HINTS = {
    Layer.NEIGHBOURS: "Upload interface counters (ip -s link, /proc/net/dev) from two moments, with each "
    "interface's limit, to see whether a neighbour on the host is near its limit.",
    Layer.NETWORK: "Upload a client-side and a server-side capture of the same traffic to check for loss on "
    "the path; SYN retries, ECN black holes and retransmissions show up in either one.",
    Layer.APPLICATION: "Upload an strace of the client (strace -f -tt -T -y) or its client configuration to see "
    "socket options and timeouts it sets.",
    Layer.KERNEL: "Upload uname -r from before and after the change, with sysctl -a, to compare kernels and "
    "model the receive window.",
}


@dataclass(frozen=True)
class StepView:
    """A checklist step with the findings of its layer and what the findings suggest."""

    step: ChecklistStep
    findings: list[Finding]
    suggestion: Suggestion | None
    hint: str
    needs: tuple[str, ...]  # the files that would settle this step, from what the incident already holds


def checklist(*, incident: Incident) -> list[StepView]:
    """The four steps in order, each with its layer's findings, a suggested verdict and what would settle it
    (``checklist.rules``, over the engine's ``whodunnet.verdicts``)."""
    steps = {step.layer: step for step in incident.steps.select_related("updated_by")}
    everything = list(findings_of(incident=incident))
    by_layer: dict[str, list[Finding]] = {layer: [] for layer in Layer.values}
    for finding in everything:
        by_layer[finding.layer].append(finding)
    advice = advise(incident=incident, rows=everything)
    return [
        StepView(
            step=steps[layer],
            findings=by_layer[layer],
            suggestion=advice[layer].suggestion,
            hint=HINTS[Layer(layer)],
            needs=advice[layer].needs,
        )
        for layer in Layer.values
    ]


def get_step(*, incident: Incident, layer: str) -> StepView:
    for view in checklist(incident=incident):
        if view.step.layer == layer:
            return view
    raise Http404("No such checklist step.")
