"""Each checklist rule on its own (no database: the findings are unsaved rows), then the order they are tried in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.models import Finding
from checklist import rules
from checklist.rules import StepFacts, Suggestion


def finding(title: str, severity: str = "info", layer: str = "network", **data: Any) -> Finding:
    return Finding(kind="test.finding", layer=layer, severity=severity, title=title, explanation="", data=data)


def facts(*findings: Finding, layer: str = "network") -> StepFacts:
    return StepFacts(layer=layer, findings=list(findings), incident_findings=list(findings))


def test_notable_findings_make_the_step_suspect_and_name_at_most_three() -> None:
    found = [finding(f"SYN retransmitted ({n})", "high") for n in range(4)] + [finding("a medium one", "medium")]
    suggestion = rules.notable_findings_make_the_step_suspect(facts(*found, finding("just info")))
    assert suggestion == Suggestion(
        verdict="suspect",
        reason="5 notable finding(s): SYN retransmitted (0); SYN retransmitted (1); SYN retransmitted (2)",
    )


def test_notable_findings_make_the_step_suspect_says_nothing_about_low_and_info_findings() -> None:
    assert rules.notable_findings_make_the_step_suspect(facts(finding("low", "low"), finding("info"))) is None


def test_a_clearing_finding_clears_the_step_with_its_title() -> None:
    suggestion = rules.a_clearing_finding_clears_the_step(
        facts(finding("Every packet arrived", clears_layer=True), finding("an aside"))
    )
    assert suggestion == Suggestion(verdict="cleared", reason="Every packet arrived")


def test_a_clearing_finding_clears_the_step_needs_a_finding_that_says_so() -> None:
    assert rules.a_clearing_finding_clears_the_step(facts(finding("an aside", clears_layer=False))) is None


def test_it_suspects_a_step_with_a_serious_finding_even_when_another_clears_it() -> None:
    suggestion = rules.suggest(
        facts(finding("Every packet arrived", clears_layer=True), finding("ECN black hole", "high"))
    )
    assert suggestion is not None and suggestion.verdict == "suspect"


def test_it_suggests_nothing_for_a_step_without_findings() -> None:
    assert rules.suggest(facts()) is None


def test_it_tries_rules_in_order_and_takes_the_first_that_speaks() -> None:
    def silent(_: StepFacts) -> Suggestion | None:
        return None

    def culprit(_: StepFacts) -> Suggestion | None:
        return Suggestion(verdict="culprit", reason="a complete chain")

    suggestion = rules.suggest(facts(finding("x", "high")), rules=(silent, culprit, *rules.RULES))
    assert suggestion == Suggestion(verdict="culprit", reason="a complete chain")


def test_every_rule_has_a_docstring_and_tests_named_after_it() -> None:
    tests = Path(__file__).read_text()
    for rule in rules.RULES:
        assert (rule.__doc__ or "").strip(), f"{rule.__name__} needs a docstring saying the case it covers"
        assert f"def test_{rule.__name__}" in tests, f"{rule.__name__} needs a test here named after it"
