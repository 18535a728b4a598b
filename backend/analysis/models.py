"""Analysis runs (the truth about background work) and the findings they produce."""

from __future__ import annotations

from typing import Any

from django.db import models

from evidence.models import Evidence
from incidents.models import Incident, Layer


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


TERMINAL_STATUSES = frozenset({RunStatus.DONE, RunStatus.FAILED})


class FindingSeverity(models.TextChoices):
    INFO = "info", "Info"
    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"


class AnalysisRun(models.Model):
    """One analysis of one piece of evidence. The UI reads this row, never Celery's results."""

    evidence = models.ForeignKey(Evidence, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    progress = models.FloatField(default=0.0)
    progress_message = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The reconciler's re-sends of a row still waiting: a backlog must not grow a duplicate message per sweep.
    resends = models.PositiveSmallIntegerField(default=0)
    resend_after = models.DateTimeField(null=True, blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    summary = models.JSONField(null=True, blank=True)
    # A capture's packet index ([byte offset, packet number, time] per checkpoint): the packet
    # list seeks with it instead of reading the file from the start.
    packet_index = models.JSONField(default=list, blank=True)
    # Where the engine says the file comes from ({"host", "role", "taken_at", "source"}: whodunnet.model.Provenance
    # as JSON), read from the content and the file name; a person's values on the evidence win over it.
    provenance = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    error_offset = models.BigIntegerField(null=True, blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    # The kind a person chose for the file; empty means detect it from the content.
    forced_kind = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]


class Correlation(models.Model):
    """The findings across an incident's evidence, recomputed from the stored results whenever
    one analysis finishes (counter snapshot diffs, kernel before/after, the receive-window model)."""

    incident = models.OneToOneField(Incident, on_delete=models.CASCADE, related_name="correlation")
    computed_at = models.DateTimeField(auto_now=True)
    evidence_ids = models.JSONField(default=list)
    # A digest of what the last computation read (each evidence's latest run and provenance): the same inputs
    # give the same findings, so a correlation queued again with nothing changed is skipped.
    inputs = models.CharField(max_length=64, blank=True)
    # Where each evidence comes from, as the engine was given it (by evidence id: whodunnet.model.Provenance as
    # JSON): a person's values, else the file's own, else what the other files say (a capture's host).
    provenance = models.JSONField(default=dict)
    # How counter snapshots were paired: one entry per counters evidence, with its role
    # (before/after/only/between), the snapshot it is diffed with and the interval between them.
    counter_pairs = models.JSONField(default=list)


class Finding(models.Model):
    """Something an analyzer says about the evidence, with the numbers and references."""

    run = models.ForeignKey(AnalysisRun, null=True, on_delete=models.CASCADE, related_name="findings")
    correlation = models.ForeignKey(Correlation, null=True, on_delete=models.CASCADE, related_name="findings")
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="findings")
    # The one piece of evidence a finding speaks about; null for findings across several.
    evidence = models.ForeignKey(Evidence, null=True, on_delete=models.CASCADE, related_name="findings")
    kind = models.CharField(max_length=60)
    key = models.CharField(max_length=200, blank=True)
    layer = models.CharField(max_length=12, choices=Layer.choices)
    severity = models.CharField(max_length=6, choices=FindingSeverity.choices)
    title = models.CharField(max_length=300)
    explanation = models.TextField()
    refs = models.JSONField(default=list)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "kind", "key"], name="unique_finding_per_run"),
            models.UniqueConstraint(
                fields=["correlation", "kind", "key"],
                condition=models.Q(correlation__isnull=False),
                name="unique_finding_per_correlation",
            ),
            models.CheckConstraint(
                condition=models.Q(run__isnull=False) ^ models.Q(correlation__isnull=False),
                name="finding_from_a_run_or_a_correlation",
            ),
        ]


#: A connection row's sortable columns: what the connection table API shows, in its order
#: (each row also holds the engine's whole row as ``detail``).
CONNECTION_COLUMNS = (
    "conn_id",
    "client",
    "server",
    "first_time",
    "duration",
    "packets_c2s",
    "packets_s2c",
    "bytes_c2s",
    "bytes_s2c",
    "retrans_c2s",
    "retrans_s2c",
    "syn_count",
    "zero_windows",
    "has_rst",
    "rtt_ms",
    "synack_count",
)


class JSONDocument(models.JSONField):
    """A JSON value kept in PostgreSQL's ``json`` type: the text as written, checked but not taken apart.

    For documents written in bulk and read whole: a capture's connection rows (a million of them, 3 KB each).
    Taking each apart into ``jsonb`` cost the database more than the rest of their COPY (2.1 s against 0.8 s for
    a capture's 20,000 rows, decision 0024). Nothing looks inside them in a query: what the table sorts and
    filters by are the columns beside them.
    """

    def db_type(self, connection: Any) -> str:
        return "json"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        # psycopg has parsed it already: Django asks psycopg for ``jsonb`` as text (and parses that itself), not for
        # ``json``. A reader that wants the text casts the column (``analysis.services._connection_rows``).
        return value


class CaptureConnection(models.Model):
    """One TCP connection of an analysed capture: sortable columns plus the engine's full row."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="connections")
    evidence = models.ForeignKey(Evidence, on_delete=models.CASCADE, related_name="connections")
    conn_id = models.IntegerField()
    client = models.CharField(max_length=64)
    server = models.CharField(max_length=64)
    first_time = models.FloatField()
    duration = models.FloatField()
    packets_c2s = models.BigIntegerField()
    packets_s2c = models.BigIntegerField()
    bytes_c2s = models.BigIntegerField()
    bytes_s2c = models.BigIntegerField()
    retrans_c2s = models.IntegerField()
    retrans_s2c = models.IntegerField()
    syn_count = models.IntegerField()
    zero_windows = models.IntegerField()
    has_rst = models.BooleanField()
    rtt_ms = models.FloatField(null=True)
    synack_count = models.IntegerField()
    detail = JSONDocument()

    class Meta:
        ordering = ["conn_id"]
        constraints = [models.UniqueConstraint(fields=["run", "conn_id"], name="unique_connection_per_run")]
