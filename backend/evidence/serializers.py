from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from evidence.models import Evidence, Role
from evidence.services import purge_time
from whodunnet import registry
from whodunnet.engine import EVIDENCE_KINDS
from whodunnet.kinds.settings import SettingsGroup
from whodunnet.kinds.spec import UNITS


class UploadErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField(help_text="Why the upload was refused.")


def _settings_field(group: SettingsGroup) -> serializers.Field[Any, Any, Any, Any]:
    """The PATCH body's field for one settings group, derived from the group's schema."""
    described = group.describe()
    if described["numbers"] is not None:
        fields: dict[str, Any] = {}
        for n in described["numbers"]:
            common = {"help_text": n["help"][:1].upper() + n["help"][1:] + ".", "required": False}
            low, high = n["minimum"], n["maximum"]
            if n["whole"]:
                field: Any = serializers.IntegerField(min_value=int(low), max_value=int(high), **common)
            else:
                field = serializers.FloatField(min_value=low, max_value=high, **common)
            fields[n["name"]] = field
        name = "".join(part.capitalize() for part in group.name.split("_")) + "SettingsUpdateSerializer"
        nested = type(name, (serializers.Serializer,), {"__doc__": group.help, **fields})
        return nested(required=False, help_text=f"Change the {group.title}; the file is analysed again.")  # type: ignore[no-any-return]
    rates = described["rates"]
    return serializers.DictField(
        child=serializers.FloatField(min_value=rates["minimum"], max_value=rates["maximum"]),
        required=False,
        help_text=group.help,
    )


class _EvidenceUpdate(serializers.Serializer[Any]):
    """Correct the kind, say where the file comes from (host, role, taken at), exclude it from the analysis or
    include it again, or change a settings group."""

    kind = serializers.CharField(
        required=False,
        help_text="The kind to read the file as, when detection from the content got it wrong: "
        "one of the kinds /api/evidence-kinds/ lists.",
    )
    host = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        max_length=100,
        help_text="The host the file was taken on (a name or an address); null or empty: as read from the file.",
    )
    role = serializers.ChoiceField(
        choices=Role.choices,
        required=False,
        allow_null=True,
        help_text="The host's role on the path; null: as read from the file.",
    )
    taken_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="When this snapshot was taken: orders a host's snapshots and sets the interval of rates; "
        "null: as read from the file.",
    )
    excluded = serializers.BooleanField(
        required=False,
        help_text="true: leave the file's findings out of the checklist, the findings across evidence and the "
        "postmortem (its card stays); false: use them again.",
    )

    def validate_host(self, value: str | None) -> str | None:
        return (value or "").strip() or None

    def validate_kind(self, value: str) -> str:
        if value not in EVIDENCE_KINDS:
            raise serializers.ValidationError(f"not an evidence kind: {value!r} (one of {', '.join(EVIDENCE_KINDS)})")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Each settings group's own checks (the engine's words: "not an interface name: 'x y'")."""
        for name, group in registry.settings_groups().items():
            if name in attrs:
                try:
                    group.parse(attrs[name])
                except ValueError as exc:
                    raise serializers.ValidationError({name: [str(exc)]}) from exc
        return attrs


#: The PATCH body: its settings fields are derived from every kind's settings schema.
EvidenceUpdateSerializer: type[serializers.Serializer[Any]] = type(
    "EvidenceUpdateSerializer",
    (_EvidenceUpdate,),
    {name: _settings_field(group) for name, group in registry.settings_groups().items()},
)


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


class DisplaySerializer(serializers.Serializer[Any]):
    unit = serializers.CharField(help_text='The unit a value is shown and typed in ("%", "Gbit/s").')
    factor = serializers.FloatField(help_text="value = shown × factor (0.01 for a percentage of a share).")


class NumberSettingSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="The setting's key in its group.")
    label = serializers.CharField(help_text="The form's label.")  # type: ignore[assignment]  # a field, not Field.label
    help = serializers.CharField(help_text="What it means.")
    default = serializers.FloatField(help_text="Its value when nobody changed it.")
    minimum = serializers.FloatField(help_text="The smallest value accepted.")
    maximum = serializers.FloatField(help_text="The largest value accepted.")
    whole = serializers.BooleanField(help_text="Whether it must be a whole number.")
    display = DisplaySerializer(allow_null=True, help_text="How the form shows it, when not as it is.")


class RateSettingsSerializer(serializers.Serializer[Any]):
    keys_from = serializers.CharField(help_text="The summary key whose keys are offered (a snapshot's interfaces).")
    key_label = serializers.CharField(help_text="What a key is (interface).")
    minimum = serializers.FloatField(help_text="The smallest rate accepted, in bit/s.")
    maximum = serializers.FloatField(help_text="The largest rate accepted, in bit/s.")
    display = DisplaySerializer(help_text="How the form shows a rate.")


class SettingsGroupSerializer(serializers.Serializer[Any]):
    """A group of settings of one kind, as the PATCH body names it; the UI renders its form from this."""

    name = serializers.CharField(help_text="The group's key in the PATCH body and in `settings`.")
    title = serializers.CharField(help_text="The form's title.")
    help = serializers.CharField(help_text="What the settings change.")
    submit_label = serializers.CharField(help_text="The form's button.")
    shape = serializers.ChoiceField(
        choices=["numbers", "rates"], help_text="numbers: a fixed set of numbers; rates: a rate per key."
    )
    numbers = NumberSettingSerializer(many=True, allow_null=True, help_text="The numbers (shape numbers).")
    rates = RateSettingsSerializer(allow_null=True, help_text="The rates (shape rates).")


class FindingFieldSerializer(serializers.Serializer[Any]):
    key = serializers.CharField(help_text="A key of the finding's data (or of its rows).")
    label = serializers.CharField(help_text="Its label.")  # type: ignore[assignment]  # a field, not Field.label
    unit = serializers.ChoiceField(choices=list(UNITS), help_text="How its numbers are shown.")


class EvidenceKindInfoSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="The kind, as evidence and the PATCH body name it.")
    label = serializers.CharField(help_text="Its name for people.")  # type: ignore[assignment]  # a field, not Field.label
    snapshot = serializers.BooleanField(help_text="A point-in-time snapshot, diffed with another (pairing).")
    connections = serializers.BooleanField(help_text="Whether its evidence has a connection table.")
    settings = SettingsGroupSerializer(many=True, help_text="The settings a person can change.")
    findings = serializers.ListField(child=serializers.CharField(), help_text="The finding kinds it can emit.")
    keys = FindingFieldSerializer(many=True, help_text="The label and unit of every data key of those findings.")


class FindingTableSerializer(serializers.Serializer[Any]):
    key = serializers.CharField(help_text="The data key holding the rows.")
    label = serializers.CharField(help_text="The table's name.")  # type: ignore[assignment]  # a field, not Field.label
    columns = serializers.ListField(child=serializers.CharField(), help_text="The columns, in order (empty: all).")
    by = serializers.CharField(help_text="For a map of rows: the first column's name (its keys); else empty.")


class FindingSpecSerializer(serializers.Serializer[Any]):
    """How the UI shows one finding kind's numbers."""

    kind = serializers.CharField(help_text="The finding kind.")
    evidence_kind = serializers.CharField(
        help_text="The evidence kind that emits it, whose keys say how its data is shown; empty for the engine's own."
    )
    view = serializers.CharField(help_text="A dedicated rendering, when it has one; else empty.")
    facts = serializers.ListField(child=serializers.CharField(), help_text="The data keys shown as facts, in order.")
    tables = FindingTableSerializer(many=True, help_text="The data keys shown as tables.")
    keys = FindingFieldSerializer(many=True, help_text="Its own keys' labels and units (the engine's findings).")


class EvidenceKindCatalogueSerializer(serializers.Serializer[Any]):
    """Every evidence kind and every finding kind, as the engine's registry describes them."""

    kinds = EvidenceKindInfoSerializer(many=True, help_text="The evidence kinds, in the order they are detected.")
    findings = FindingSpecSerializer(many=True, help_text="How each finding kind's numbers are shown.")


class DeletedEvidenceSerializer(serializers.Serializer[Any]):
    """A deleted file that can still be restored."""

    id = serializers.IntegerField(help_text="Evidence id (restore it with POST …/evidence/<id>/restore/).")
    filename = serializers.CharField(help_text="The uploader's file name (display only).")
    size = serializers.IntegerField(help_text="Bytes stored until it is purged.")
    kind = serializers.CharField(help_text="Evidence kind.")
    deleted_at = serializers.DateTimeField(help_text="When it was deleted.")
    deleted_by = serializers.CharField(
        source="deleted_by.username", allow_null=True, default=None, help_text="Who deleted it."
    )
    purge_at = serializers.SerializerMethodField(
        help_text="When its bytes and analyses are removed for good (it can be restored until then)."
    )

    @extend_schema_field(serializers.DateTimeField())
    def get_purge_at(self, evidence: Evidence) -> str:
        return purge_time(evidence).isoformat()
