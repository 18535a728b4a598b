from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analysis.models import AnalysisRun, Correlation
from analysis.serializers import AnalysisRunSerializer
from evidence.models import Evidence
from whodunnet.engine import EVIDENCE_KINDS
from whodunnet.kinds.counters.settings import LINK_LIMITS, MAX_LINK_BPS
from whodunnet.kinds.sockets.settings import BBR
from whodunnet.tuning import Tuning


def latest_run(evidence: Evidence) -> AnalysisRun | None:
    runs = list(evidence.runs.all())
    return max(runs, key=lambda run: run.pk) if runs else None


def _bbr_field(name: str) -> serializers.Field[Any, Any, Any, Any]:
    s = next(s for s in BBR.settings if s.name == name)
    help_text = s.help[:1].upper() + s.help[1:] + "."
    if s.whole:
        return serializers.IntegerField(min_value=int(s.minimum), max_value=int(s.maximum), help_text=help_text)
    return serializers.FloatField(min_value=s.minimum, max_value=s.maximum, help_text=help_text)


class BbrSettingsSerializer(serializers.Serializer[Any]):
    """Seed 003's BBR-candidate method: how sockets.bbr_candidates ranks prefixes over snapshots."""

    bottom_share = _bbr_field("bottom_share")
    min_bytes = _bbr_field("min_bytes")
    min_duty = _bbr_field("min_duty")
    max_flap = _bbr_field("max_flap")
    v4_prefix = _bbr_field("v4_prefix")
    v6_prefix = _bbr_field("v6_prefix")


class BbrSettingsUpdateSerializer(BbrSettingsSerializer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False


class SnapshotPairingSerializer(serializers.Serializer[Any]):
    """How a counter snapshot is diffed: with which other snapshot, over what interval."""

    role = serializers.ChoiceField(
        choices=["before", "after", "only", "between"],
        help_text="before/after: the earlier/later of the two snapshots diffed; only: alone (totals since boot); "
        "between: in the middle of three or more (only the first and the last are diffed).",
    )
    other = serializers.IntegerField(allow_null=True, help_text="The evidence it is diffed with.")
    other_filename = serializers.CharField(allow_null=True, help_text="That evidence's file name.")
    interval_s = serializers.FloatField(allow_null=True, help_text="Seconds between the two snapshots, if known.")
    ordered_by = serializers.ChoiceField(
        choices=["time", "upload order"], help_text="What decided which snapshot is the earlier."
    )
    formats = serializers.ListField(child=serializers.CharField(), help_text="The counter formats compared.")


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
    bbr = serializers.SerializerMethodField(help_text="The BBR-candidate settings this file is analysed with.")
    pairing = serializers.SerializerMethodField(help_text="For counter snapshots: how this one is diffed.")
    link_limits_bps = serializers.SerializerMethodField(
        help_text="Interface limits (bit/s) a person gave for this counters file; they win over its '# limit' lines."
    )

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
            "bbr",
            "pairing",
            "link_limits_bps",
        ]

    @extend_schema_field(AnalysisRunSerializer(allow_null=True))
    def get_analysis(self, evidence: Evidence) -> dict[str, Any] | None:
        run = latest_run(evidence)
        return dict(AnalysisRunSerializer(run).data) if run else None

    @extend_schema_field(SnapshotPairingSerializer(allow_null=True))
    def get_pairing(self, evidence: Evidence) -> dict[str, Any] | None:
        if evidence.kind != "counters":
            return None
        try:
            pairs = evidence.incident.correlation.counter_pairs
        except Correlation.DoesNotExist:
            return None
        found = next((p for p in pairs if p["evidence"] == evidence.pk), None)
        return dict(SnapshotPairingSerializer(found).data) if found else None

    @extend_schema_field(serializers.DictField(child=serializers.FloatField()))
    def get_link_limits_bps(self, evidence: Evidence) -> dict[str, float]:
        return dict(Tuning.from_json(evidence.tuning).get(LINK_LIMITS))

    @extend_schema_field(BbrSettingsSerializer)
    def get_bbr(self, evidence: Evidence) -> dict[str, Any]:
        return asdict(Tuning.from_json(evidence.tuning).get(BBR))

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
    bbr = BbrSettingsUpdateSerializer(
        required=False, help_text="Change the BBR-candidate settings (sockets evidence); the file is analysed again."
    )
    link_limits_bps = serializers.DictField(
        child=serializers.FloatField(min_value=1, max_value=MAX_LINK_BPS),
        required=False,
        help_text="Interface → limit in bit/s (counters evidence), replacing the ones given before; "
        "the file is analysed again.",
    )

    def validate_link_limits_bps(self, value: dict[str, float]) -> dict[str, float]:
        try:
            return LINK_LIMITS.parse(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class EvidenceLineSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="1-based line number.")
    text = serializers.CharField(help_text="The line, without its newline (cut at 4,000 characters).")


class EvidenceLinesSerializer(serializers.Serializer[Any]):
    start = serializers.IntegerField(help_text="First line returned.")
    end = serializers.IntegerField(help_text="Last line asked for (at most start + 499).")
    lines = EvidenceLineSerializer(many=True, help_text="The lines; fewer when the file ends first.")
