"""Incidents, their checklist and the shared timeline."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.functions import TransactionNow
from django.db import models

from accounts.models import Team


class Severity(models.TextChoices):
    SEV1 = "sev1", "SEV1"
    SEV2 = "sev2", "SEV2"
    SEV3 = "sev3", "SEV3"
    SEV4 = "sev4", "SEV4"


class Status(models.TextChoices):
    OPEN = "open", "Investigating"
    MITIGATED = "mitigated", "Mitigated"
    RESOLVED = "resolved", "Resolved"


class Layer(models.TextChoices):
    """The checklist's four steps, in the order they are walked."""

    NEIGHBOURS = "neighbours", "Neighbours"
    NETWORK = "network", "Network"
    APPLICATION = "application", "Application"
    KERNEL = "kernel", "Kernel"


class Verdict(models.TextChoices):
    NOT_LOOKED_AT = "not_looked_at", "Not looked at"
    CLEARED = "cleared", "Cleared"
    SUSPECT = "suspect", "Suspect"
    CULPRIT = "culprit", "Culprit"


class Incident(models.Model):
    """A network performance incident a team investigates."""

    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="incidents")
    title = models.CharField(max_length=200)
    symptom = models.TextField(blank=True)
    severity = models.CharField(max_length=4, choices=Severity.choices, default=Severity.SEV3)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    started_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # Who drives the investigation now (a member of the team); null: nobody has taken it.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When users were hurt, as the team states it (it may differ from started_at, when the symptom was noticed).
    impact_started_at = models.DateTimeField(null=True, blank=True)
    impact_ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["team", "status"])]

    def __str__(self) -> str:
        return self.title


class ChecklistStep(models.Model):
    """One step of the checklist with the verdict a person gave it."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="steps")
    layer = models.CharField(max_length=12, choices=Layer.choices)
    verdict = models.CharField(max_length=14, choices=Verdict.choices, default=Verdict.NOT_LOOKED_AT)
    rationale = models.TextField(blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["incident", "layer"], name="unique_step_per_layer")]

    @property
    def position(self) -> int:
        return list(Layer.values).index(self.layer)


class EventKind(models.TextChoices):
    INCIDENT_OPENED = "incident_opened", "Incident opened"
    INCIDENT_UPDATED = "incident_updated", "Incident updated"
    EVIDENCE_UPLOADED = "evidence_uploaded", "Evidence uploaded"
    EVIDENCE_CHANGED = "evidence_changed", "Evidence excluded, included, deleted or restored"
    ANALYSIS_STARTED = "analysis_started", "Analysis started"
    ANALYSIS_FINISHED = "analysis_finished", "Analysis finished"
    ANALYSIS_FAILED = "analysis_failed", "Analysis failed"
    FINDING = "finding", "Finding"
    NOTE = "note", "Note"
    VERDICT_CHANGED = "verdict_changed", "Verdict changed"
    BISECT_STARTED = "bisect_started", "Bisect started"
    BISECT_STEP = "bisect_step", "Bisect step"
    BISECT_FINISHED = "bisect_finished", "Bisect finished"
    BISECT_FAILED = "bisect_failed", "Bisect failed"
    BISECT_CANCELLED = "bisect_cancelled", "Bisect cancelled"
    BISECT_SCHEDULED = "bisect_scheduled", "Bisect schedule changed"


class TimelineEvent(models.Model):
    """Something that happened in an incident; the timeline is append-only, read in (created_at, id) order.

    ``created_at`` is set by PostgreSQL to the start of the transaction that writes the event (``now()``, not
    the statement's time, nor the clock of whichever host wrote it): so every event that a transaction still
    open may yet commit is at or after that transaction's start, which is what lets a reader's cursor never
    skip a late commit (``selectors.timeline_after``, docs/decisions/0011).
    """

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=EventKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(db_default=TransactionNow())
    summary = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    # Key evidence: a person marked it; the postmortem lists the pinned events.
    pinned = models.BooleanField(default=False)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["incident", "created_at", "id"], name="timeline_keyset")]
