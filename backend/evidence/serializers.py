from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analysis.models import AnalysisRun
from analysis.serializers import AnalysisRunSerializer
from evidence.models import Evidence
from whodunnet.engine import EVIDENCE_KINDS


def latest_run(evidence: Evidence) -> AnalysisRun | None:
    runs = list(evidence.runs.all())
    return max(runs, key=lambda run: run.pk) if runs else None


class EvidenceSerializer(serializers.ModelSerializer[Evidence]):
    id = serializers.IntegerField(read_only=True, help_text="Evidence id.")
    filename = serializers.CharField(read_only=True, help_text="The uploader's file name (display only).")
    size = serializers.IntegerField(read_only=True, help_text="Bytes stored.")
    sha256 = serializers.CharField(read_only=True, help_text="SHA-256 of the stored bytes.")
    kind = serializers.CharField(read_only=True, help_text="Evidence kind, detected from content.")
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True, help_text="Who uploaded it.")
    uploaded_at = serializers.DateTimeField(read_only=True, help_text="When it was uploaded.")
    captured_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When the snapshot was taken, if a person said so."
    )
    analysis = serializers.SerializerMethodField(help_text="The latest analysis run.")
    summary = serializers.SerializerMethodField(help_text="What the latest analysis read (packets, bytes, ...).")

    class Meta:
        model = Evidence
        fields = [
            "id",
            "filename",
            "size",
            "sha256",
            "kind",
            "uploaded_by",
            "uploaded_at",
            "captured_at",
            "analysis",
            "summary",
        ]

    @extend_schema_field(AnalysisRunSerializer(allow_null=True))
    def get_analysis(self, evidence: Evidence) -> dict[str, Any] | None:
        run = latest_run(evidence)
        return dict(AnalysisRunSerializer(run).data) if run else None

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_summary(self, evidence: Evidence) -> Any:
        run = latest_run(evidence)
        return run.summary if run else None


class UploadErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField(help_text="Why the upload was refused.")


class EvidenceUpdateSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(
        choices=[(kind, kind) for kind in EVIDENCE_KINDS],
        required=False,
        help_text="The kind to read the file as, when detection from the content got it wrong.",
    )
    captured_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="When this snapshot was taken: orders counter snapshots and sets the interval of rates.",
    )


class EvidenceLineSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="1-based line number.")
    text = serializers.CharField(help_text="The line, without its newline (cut at 4,000 characters).")


class EvidenceLinesSerializer(serializers.Serializer[Any]):
    start = serializers.IntegerField(help_text="First line returned.")
    end = serializers.IntegerField(help_text="Last line asked for (at most start + 499).")
    lines = EvidenceLineSerializer(many=True, help_text="The lines; fewer when the file ends first.")
