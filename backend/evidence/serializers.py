from __future__ import annotations

from typing import Any

from rest_framework import serializers

from whodunnet.engine import EVIDENCE_KINDS
from whodunnet.tuning import BBR_HELP, BBR_RANGES, MAX_LINK_BPS, check_link_limits


def _bbr_field(name: str) -> serializers.Field[Any, Any, Any, Any]:
    low, high, whole = BBR_RANGES[name]
    help_text = BBR_HELP[name][:1].upper() + BBR_HELP[name][1:] + "."
    if whole:
        return serializers.IntegerField(min_value=int(low), max_value=int(high), help_text=help_text)
    return serializers.FloatField(min_value=low, max_value=high, help_text=help_text)


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
            return check_link_limits(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class EvidenceLineSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="1-based line number.")
    text = serializers.CharField(help_text="The line, without its newline (cut at 4,000 characters).")


class EvidenceLinesSerializer(serializers.Serializer[Any]):
    start = serializers.IntegerField(help_text="First line returned.")
    end = serializers.IntegerField(help_text="Last line asked for (at most start + 499).")
    lines = EvidenceLineSerializer(many=True, help_text="The lines; fewer when the file ends first.")


class UploadStatusSerializer(serializers.Serializer[Any]):
    """A resumable upload as JSON (the tus requests answer in headers; this is for people and the browser)."""

    id = serializers.UUIDField(help_text="The upload's id, the last segment of its URL.")
    filename = serializers.CharField(help_text="The file's display name, from the Upload-Metadata filename.")
    length = serializers.IntegerField(help_text="The file's size in bytes, as Upload-Length declared it.")
    offset = serializers.IntegerField(help_text="Bytes kept so far: the next PATCH sends from here.")
    expires = serializers.DateTimeField(
        allow_null=True, help_text="When the upload is removed if nothing more arrives (null once it is evidence)."
    )
    evidence = serializers.IntegerField(
        allow_null=True, help_text="The evidence it became once its last byte was in; null until then."
    )
