"""Uploaded evidence files; the file's bytes live in EVIDENCE_DIR under a server-made name."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db import models

from incidents.models import Incident


class Role(models.TextChoices):
    """A host's place on the path (``whodunnet.model.ROLES``)."""

    CLIENT = "client", "Client"
    SERVER = "server", "Server"
    MIDDLEBOX = "middlebox", "Middlebox or router"
    HYPERVISOR = "hypervisor", "Hypervisor"
    OTHER = "other", "Other"


class Evidence(models.Model):
    """One uploaded file. ``filename`` is display text only; ``storage_name`` is what is on disk."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="evidence")
    filename = models.CharField(max_length=255)
    storage_name = models.CharField(max_length=64, unique=True, default=uuid.uuid4)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    kind = models.CharField(max_length=20)
    detected_kind = models.CharField(max_length=20)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    uploaded_at = models.DateTimeField(auto_now_add=True)
    # Where the file comes from, as a person says (null: not said; the engine's inference from the content or
    # the file name is then used, stored on the analysis run). A person's value always wins.
    # The host the file was taken on: a name ("db-1", "10.0.0.5").
    host = models.CharField(max_length=100, null=True, blank=True)
    # Its role on the path.
    role = models.CharField(max_length=12, choices=Role.choices, null=True, blank=True)
    # When a snapshot was taken; it orders a host's snapshots (before/after) and gives the interval for rates.
    taken_at = models.DateTimeField(null=True, blank=True)
    # Analysis settings a person changed for this file (whodunnet.tuning.Tuning as JSON, e.g.
    # {"bbr": {"bottom_share": 0.1}}); empty means the engine's defaults.
    tuning = models.JSONField(default=dict, blank=True)
    # A person took the file out of the analysis (another service's traffic, the wrong host): its card stays, but
    # its findings are left out of the checklist, the findings across evidence and the postmortem until it is
    # put back.
    excluded = models.BooleanField(default=False)
    # Deleted by a person: gone from the incident at once, restorable until its bytes are removed from storage
    # (and the row with its analyses) WHODUNNET_EVIDENCE_DELETE_GRACE_SECONDS later (``services.purge_deleted``).
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["deleted_at"], condition=models.Q(deleted_at__isnull=False), name="evidence_deleted")
        ]

    @property
    def path(self) -> Path:
        return Path(settings.EVIDENCE_DIR) / self.storage_name[:2] / self.storage_name


class Upload(models.Model):
    """An upload in progress: its bytes so far are ``EVIDENCE_DIR/incoming/<id>.part`` (decision 0009).

    A resumable (tus) upload declares its length, is appended to by PATCH requests from ``offset`` and keeps
    that length reserved against the team's quota until it completes or is reaped. A one-shot upload (the
    body of one ``POST|PUT …/upload/``) lives for one request; its row is what lets the reaper find its part
    file when the web worker dies mid-body. When the last byte is in, the file becomes ``evidence``.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="uploads")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    filename = models.CharField(max_length=255)
    # The declared size; null only for a one-shot body sent chunked (its end is where the body ends).
    length = models.BigIntegerField(null=True)
    # Bytes kept: a resumable upload resumes here. Only ever moves to a whole part or the end (decision 0009).
    offset = models.BigIntegerField(default=0)
    resumable = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # The last time a byte was kept; the reaper removes unfinished uploads idle for UPLOAD_STALE_SECONDS.
    updated_at = models.DateTimeField(auto_now=True)
    evidence = models.OneToOneField(Evidence, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["created_at"]

    @property
    def part_path(self) -> Path:
        return Path(settings.EVIDENCE_DIR) / "incoming" / f"{self.id.hex}.part"

    @property
    def reserved(self) -> int:
        """Bytes this upload counts against its team's quota until it completes."""
        if self.evidence_id is not None:
            return 0
        return self.length if self.length is not None else self.offset
