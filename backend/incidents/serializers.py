from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import Membership
from accounts.serializers import TeamSerializer
from incidents.models import EventKind, Incident, Layer, Severity, Status, TimelineEvent, Verdict


class StepVerdictSerializer(serializers.Serializer[Any]):
    layer = serializers.ChoiceField(choices=Layer.choices, help_text="Checklist step.")
    verdict = serializers.ChoiceField(choices=Verdict.choices, help_text="The verdict a person gave it.")


class IncidentSerializer(serializers.ModelSerializer[Incident]):
    id = serializers.IntegerField(read_only=True, help_text="Incident id.")
    team = TeamSerializer(read_only=True, help_text="The team that owns it.")
    title = serializers.CharField(read_only=True, help_text="Short title.")
    symptom = serializers.CharField(read_only=True, help_text="What users see.")
    severity = serializers.ChoiceField(choices=Severity.choices, read_only=True, help_text="sev1 (worst) to sev4.")
    status = serializers.ChoiceField(
        choices=Status.choices, read_only=True, help_text="open (investigating), mitigated or resolved."
    )
    owner = serializers.CharField(
        source="owner.username",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Who drives the investigation; null: nobody yet.",
    )
    impact_started_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="Start of the impact window; null: not stated."
    )
    impact_ended_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="End of the impact window; null: not stated or still going on."
    )
    started_at = serializers.DateTimeField(read_only=True, help_text="When the symptom started.")
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was opened here.")
    created_by = serializers.CharField(source="created_by.username", read_only=True, help_text="Who opened it.")
    evidence_count = serializers.IntegerField(read_only=True, help_text="Files uploaded.")
    viewer_role = serializers.ChoiceField(
        choices=Membership.Role.choices,
        read_only=True,
        help_text="Your role in the owning team: owners may also start, schedule and retry bisects.",
    )
    verdicts = serializers.SerializerMethodField(help_text="Each checklist step's verdict, in checklist order.")

    class Meta:
        model = Incident
        fields = [
            "id",
            "team",
            "title",
            "symptom",
            "severity",
            "status",
            "owner",
            "impact_started_at",
            "impact_ended_at",
            "started_at",
            "created_at",
            "created_by",
            "evidence_count",
            "viewer_role",
            "verdicts",
        ]

    @extend_schema_field(StepVerdictSerializer(many=True))
    def get_verdicts(self, incident: Incident) -> list[dict[str, str]]:
        order = list(Layer.values)
        steps = sorted(incident.steps.all(), key=lambda step: order.index(step.layer))
        return [{"layer": step.layer, "verdict": step.verdict} for step in steps]


class IncidentDetailSerializer(IncidentSerializer):
    members = serializers.SerializerMethodField(help_text="Sign-in names of the owning team's members (owner choices).")

    class Meta(IncidentSerializer.Meta):
        fields = [*IncidentSerializer.Meta.fields, "members"]

    def get_members(self, incident: Incident) -> list[str]:
        return sorted(m.user.get_username() for m in incident.team.memberships.all())


class IncidentCreateSerializer(serializers.Serializer[Any]):
    team = serializers.IntegerField(help_text="Id of one of your teams.")
    title = serializers.CharField(max_length=200, help_text="Short title.")
    symptom = serializers.CharField(allow_blank=True, default="", help_text="What users see.")
    severity = serializers.ChoiceField(choices=Severity.choices, default=Severity.SEV3, help_text="sev1 to sev4.")
    started_at = serializers.DateTimeField(help_text="When the symptom started.")


class IncidentUpdateSerializer(serializers.Serializer[Any]):
    title = serializers.CharField(max_length=200, required=False, help_text="Short title.")
    symptom = serializers.CharField(allow_blank=True, required=False, help_text="What users see.")
    severity = serializers.ChoiceField(choices=Severity.choices, required=False, help_text="sev1 to sev4.")
    status = serializers.ChoiceField(
        choices=Status.choices, required=False, help_text="open (investigating), mitigated, resolved."
    )
    owner = serializers.CharField(
        allow_null=True, required=False, help_text="Sign-in name of a team member; null: nobody."
    )
    impact_started_at = serializers.DateTimeField(
        allow_null=True, required=False, help_text="Start of the impact window; null: not stated."
    )
    impact_ended_at = serializers.DateTimeField(
        allow_null=True, required=False, help_text="End of the impact window; null: not stated or still going on."
    )


class EventSerializer(serializers.ModelSerializer[TimelineEvent]):
    id = serializers.IntegerField(read_only=True, help_text="Event id, unique; with created_at, the timeline's order.")
    kind = serializers.ChoiceField(choices=EventKind.choices, read_only=True, help_text="What happened.")
    actor = serializers.SerializerMethodField(help_text="Who did it; null for the system.")
    created_at = serializers.DateTimeField(
        read_only=True, help_text="When: the start of the database transaction that recorded it."
    )
    summary = serializers.CharField(read_only=True, help_text="One line for people.")
    # The API field is called data; it shadows Serializer.data only for type checkers.
    data = serializers.JSONField(read_only=True, help_text="Ids and values behind the event.")  # type: ignore[assignment]
    pinned = serializers.BooleanField(read_only=True, help_text="A person pinned it as key evidence.")

    class Meta:
        model = TimelineEvent
        fields = ["id", "kind", "actor", "created_at", "summary", "data", "pinned"]

    def get_actor(self, event: TimelineEvent) -> str | None:
        return event.actor.get_username() if event.actor else None


class TimelinePageSerializer(serializers.Serializer[Any]):
    events = EventSerializer(many=True, read_only=True, help_text="Events, oldest first (created_at, then id).")
    next = serializers.CharField(
        read_only=True, help_text="Pass as after= to get what happens next; poll with it. Opaque."
    )
    earlier = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="Pass as before= for the page of events before this page's first new event; null when there "
        "are none. Opaque.",
    )
    more = serializers.BooleanField(
        read_only=True, help_text="More events are already waiting after next: ask again now, not in a second."
    )


class NoteSerializer(serializers.Serializer[Any]):
    text = serializers.CharField(help_text="The note.", max_length=10000)


class PinSerializer(serializers.Serializer[Any]):
    pinned = serializers.BooleanField(help_text="True pins the event as key evidence, false unpins it.")
