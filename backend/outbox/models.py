"""The transactional outbox: a task to send, written in the same transaction as the rows it names."""

from __future__ import annotations

from django.db import models


class Message(models.Model):
    """A Celery task waiting to be sent to the broker.

    Written by an app's ``dispatch.py`` inside the transaction that made the work (an upload's run, a bisect's
    next step), so the work and its message commit or roll back together. It is sent right after the commit
    and deleted once the broker took it; while the broker is down it stays here and ``outbox.relay`` (beat,
    and every worker when it starts) sends it later. Tasks claim their rows, so a message sent twice is a no-op.
    """

    task = models.CharField(max_length=100, help_text="The task's stable name, e.g. analysis.analyze_evidence.")
    args = models.JSONField(default=list, blank=True)
    options = models.JSONField(default=dict, blank=True, help_text="send_task options, e.g. time_limit.")
    created_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"
