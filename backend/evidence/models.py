"""Uploaded evidence files; the file's bytes live in EVIDENCE_DIR under a server-made name."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db import models

from incidents.models import Incident


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
    # When a snapshot was taken, as a person says; it orders counter snapshots (before/after)
    # and gives the interval for rates, over the file's own timestamp and the upload order.
    captured_at = models.DateTimeField(null=True, blank=True)
    # Analysis settings a person changed for this file (whodunnet.tuning.Tuning as JSON, e.g.
    # {"bbr": {"bottom_share": 0.1}}); empty means the engine's defaults.
    tuning = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]

    @property
    def path(self) -> Path:
        return Path(settings.EVIDENCE_DIR) / self.storage_name[:2] / self.storage_name
