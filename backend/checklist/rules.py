"""The checklist's suggestions: a thin adapter over the engine's rules (``whodunnet.verdicts``).

The rules themselves (one function per case, each with a docstring and a unit test in
``workers/tests/test_verdicts.py``) live in the engine so that ``whodunnet analyze`` prints the same checklist
as the console. This module hands them the incident as the engine reads it (``analysis.selectors.engine_view``)
and turns their answer into the console's terms: the findings a reason cites become finding ids, and a step
with no suggestion gets the files that would settle it.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.models import Finding
from analysis.selectors import engine_view
from incidents.models import Incident
from whodunnet import verdicts


@dataclass(frozen=True)
class Suggestion:
    """A verdict the findings suggest, the chain of evidence behind it and what would settle the step."""

    verdict: str
    reason: str
    needs: tuple[str, ...]
    findings: tuple[int, ...]  # the ids of the findings the reason cites


@dataclass(frozen=True)
class StepAdvice:
    """What the rules say about one step: a suggestion (or None) and the files that would settle it."""

    suggestion: Suggestion | None
    needs: tuple[str, ...]


def advise(*, incident: Incident, rows: list[Finding] | None = None) -> dict[str, StepAdvice]:
    """Each step's suggestion and needs, by layer, from the incident's evidence and findings (``rows``: the
    incident's findings in use, when the caller has them)."""
    evidence, findings, rows = engine_view(incident=incident, rows=rows)
    suggestions = verdicts.checklist(evidence, findings)
    missing = verdicts.settle(evidence, findings)
    out: dict[str, StepAdvice] = {}
    for step in verdicts.STEPS:
        said = suggestions[step]
        if said is None:
            out[step] = StepAdvice(suggestion=None, needs=missing[step])
            continue
        suggestion = Suggestion(
            verdict=said.verdict,
            reason=said.reason,
            needs=said.needs,
            findings=tuple(rows[i].pk for i in said.findings),
        )
        out[step] = StepAdvice(suggestion=suggestion, needs=said.needs)
    return out
