"""The checklist's API shapes: a step with its findings and suggestion, and a person's verdict."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from analysis.serializers import FindingSerializer
from incidents.models import Layer, Verdict


class SuggestionSerializer(serializers.Serializer[Any]):
    verdict = serializers.ChoiceField(choices=Verdict.choices, help_text="The verdict the findings suggest.")
    reason = serializers.CharField(
        help_text="The chain of evidence in one paragraph, with every number and where it came from."
    )
    needs = serializers.ListField(
        child=serializers.CharField(), help_text="What would settle the step when the chain is not complete."
    )
    findings = serializers.ListField(child=serializers.IntegerField(), help_text="The findings the reason cites.")


class StepSerializer(serializers.Serializer[Any]):
    layer = serializers.ChoiceField(choices=Layer.choices, source="step.layer", help_text="Checklist step.")
    position = serializers.IntegerField(source="step.position", help_text="0 to 3, the order of the steps.")
    verdict = serializers.ChoiceField(choices=Verdict.choices, source="step.verdict", help_text="Current verdict.")
    rationale = serializers.CharField(source="step.rationale", help_text="Why the verdict was given.")
    updated_by = serializers.CharField(
        source="step.updated_by.username", allow_null=True, default=None, help_text="Who gave the verdict."
    )
    updated_at = serializers.DateTimeField(source="step.updated_at", allow_null=True, help_text="When.")
    findings = FindingSerializer(many=True, help_text="Findings of this layer.")
    suggestion = SuggestionSerializer(allow_null=True, help_text="What the findings suggest; a person decides.")
    hint = serializers.CharField(help_text="What kind of evidence speaks to this step, in general.")
    needs = serializers.ListField(
        child=serializers.CharField(),
        help_text="The files that would settle this step, from what the incident already holds (empty: none).",
    )


class VerdictSerializer(serializers.Serializer[Any]):
    verdict = serializers.ChoiceField(choices=Verdict.choices, help_text="The new verdict.")
    rationale = serializers.CharField(
        allow_blank=True, help_text="Why. Required: a verdict without a rationale is refused."
    )

    def validate_rationale(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Say why: a verdict needs a rationale.")
        return value
