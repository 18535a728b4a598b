"""The rules that suggest a checklist step's verdict from the incident's findings: one function per case.

A rule gets the facts of one step (its layer, that layer's findings and every finding of the incident, for
chains that cross layers) and returns a ``Suggestion`` or None. ``RULES`` is tried in order and the first rule
that says something wins, so a rule that proves more (a culprit, from a complete chain of evidence) goes above
the ones that only raise suspicion. Adding a rule is one function here and one line in ``RULES``; its test goes
in ``tests/test_checklist_rules.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analysis.models import Finding, FindingSeverity
from incidents.models import Verdict

# Findings that make a person look: a step with one of these is at least suspect.
SERIOUS = (FindingSeverity.HIGH, FindingSeverity.MEDIUM)
# How many findings a reason names before it stops listing.
NAMED = 3


@dataclass(frozen=True)
class Suggestion:
    """A verdict the findings suggest, and the reason in words a person can check."""

    verdict: str
    reason: str


@dataclass(frozen=True)
class StepFacts:
    """What a rule may look at for one step."""

    layer: str
    findings: Sequence[Finding]  # this layer's, oldest first
    incident_findings: Sequence[Finding]  # every layer's, for rules that chain evidence across layers


Rule = Callable[[StepFacts], Suggestion | None]


def _titles(findings: Sequence[Finding]) -> str:
    return "; ".join(finding.title for finding in findings[:NAMED])


def notable_findings_make_the_step_suspect(facts: StepFacts) -> Suggestion | None:
    """A high or medium finding in this layer is reason enough to suspect it; the reason names them."""
    serious = [finding for finding in facts.findings if finding.severity in SERIOUS]
    if not serious:
        return None
    return Suggestion(verdict=Verdict.SUSPECT, reason=f"{len(serious)} notable finding(s): {_titles(serious)}")


def a_clearing_finding_clears_the_step(facts: StepFacts) -> Suggestion | None:
    """An analyzer that checked this layer and found it fine (``data.clears_layer``) clears it.

    Only reached when nothing serious was found: a clearing finding never outweighs a suspicious one.
    """
    clearing = [finding for finding in facts.findings if finding.data.get("clears_layer")]
    if not clearing:
        return None
    return Suggestion(verdict=Verdict.CLEARED, reason=_titles(clearing))


RULES: tuple[Rule, ...] = (
    notable_findings_make_the_step_suspect,
    a_clearing_finding_clears_the_step,
)


def suggest(facts: StepFacts, rules: Sequence[Rule] = RULES) -> Suggestion | None:
    """The first suggestion a rule makes, in order; None when the findings say nothing about this step."""
    for rule in rules:
        suggestion = rule(facts)
        if suggestion is not None:
            return suggestion
    return None
