from __future__ import annotations

from typing import Any

from rest_framework import serializers

from analysis.models import AnalysisRun, Finding, FindingSeverity, RunStatus
from incidents.models import Layer


class AnalysisRunSerializer(serializers.ModelSerializer[AnalysisRun]):
    id = serializers.IntegerField(read_only=True, help_text="Run id.")
    status = serializers.ChoiceField(
        choices=RunStatus.choices, read_only=True, help_text="queued, running, done or failed."
    )
    progress = serializers.FloatField(read_only=True, help_text="Share of the input read, 0 to 1.")
    progress_message = serializers.CharField(read_only=True, help_text="What the worker is doing now.")
    attempts = serializers.IntegerField(read_only=True, help_text="How many times a worker claimed this run.")
    queued_at = serializers.DateTimeField(read_only=True, help_text="When the run was queued.")
    started_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When a worker last claimed it.")
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it finished.")
    engine_version = serializers.CharField(read_only=True, help_text="Version of the analysis engine.")
    error = serializers.CharField(read_only=True, help_text="Why reading stopped; empty if it did not.")
    error_offset = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Byte offset in the file where reading stopped."
    )
    error_line = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Line of a text file where the first bad line is."
    )
    forced_kind = serializers.CharField(read_only=True, help_text="The kind a person chose; empty: detected.")

    class Meta:
        model = AnalysisRun
        fields = [
            "id",
            "status",
            "progress",
            "progress_message",
            "attempts",
            "queued_at",
            "started_at",
            "finished_at",
            "engine_version",
            "error",
            "error_offset",
            "error_line",
            "forced_kind",
        ]


class FindingSerializer(serializers.ModelSerializer[Finding]):
    id = serializers.IntegerField(read_only=True, help_text="Finding id.")
    evidence: serializers.PrimaryKeyRelatedField[Any] = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The evidence it was found in; null when across several."
    )
    kind = serializers.CharField(read_only=True, help_text="Stable id of what was found, e.g. tcp.syn_retransmit.")
    key = serializers.CharField(read_only=True, help_text="Tells apart findings of one kind (e.g. a connection).")
    layer = serializers.ChoiceField(choices=Layer.choices, read_only=True, help_text="Checklist layer it speaks to.")
    severity = serializers.ChoiceField(
        choices=FindingSeverity.choices, read_only=True, help_text="info, low, medium or high."
    )
    title = serializers.CharField(read_only=True, help_text="One line.")
    explanation = serializers.CharField(read_only=True, help_text="Plain words with the numbers.")
    refs = serializers.JSONField(read_only=True, help_text="References into the evidence (connections, packets, time).")
    # The API field is called data; it shadows Serializer.data only for type checkers.
    data = serializers.JSONField(read_only=True, help_text="The numbers behind the finding.")  # type: ignore[assignment]
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was stored.")

    class Meta:
        model = Finding
        fields = [
            "id",
            "evidence",
            "kind",
            "key",
            "layer",
            "severity",
            "title",
            "explanation",
            "refs",
            "data",
            "created_at",
        ]
