"""The API shapes of analysis: runs, findings, connections, and the evidence card (a file with its analysis)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analysis import provenance
from analysis.models import (
    CONNECTION_COLUMNS,
    AnalysisRun,
    CaptureConnection,
    Correlation,
    Finding,
    FindingSeverity,
    RunStatus,
)
from evidence.models import Evidence, Role
from incidents.models import Layer
from whodunnet import registry
from whodunnet.tuning import Tuning


class AnalysisRunSerializer(serializers.ModelSerializer[AnalysisRun]):
    id = serializers.IntegerField(read_only=True, help_text="Run id.")
    status = serializers.ChoiceField(
        choices=RunStatus.choices, read_only=True, help_text="queued, running, done or failed."
    )
    progress = serializers.FloatField(read_only=True, help_text="Share of the input read, 0 to 1.")
    progress_message = serializers.CharField(read_only=True, help_text="What the worker is doing now.")
    attempts = serializers.IntegerField(read_only=True, help_text="How many times a worker claimed this run.")
    queued_at = serializers.DateTimeField(read_only=True, help_text="When the run was queued.")
    started_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When a worker last claimed it.")
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it finished.")
    engine_version = serializers.CharField(read_only=True, help_text="Version of the analysis engine.")
    error = serializers.CharField(read_only=True, help_text="Why reading stopped; empty if it did not.")
    error_offset = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Byte offset in the file where reading stopped."
    )
    error_line = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Line of a text file where the first bad line is."
    )
    forced_kind = serializers.CharField(read_only=True, help_text="The kind a person chose; empty: detected.")

    class Meta:
        model = AnalysisRun
        fields = [
            "id",
            "status",
            "progress",
            "progress_message",
            "attempts",
            "queued_at",
            "started_at",
            "finished_at",
            "engine_version",
            "error",
            "error_offset",
            "error_line",
            "forced_kind",
        ]


class FindingSerializer(serializers.ModelSerializer[Finding]):
    id = serializers.IntegerField(read_only=True, help_text="Finding id.")
    evidence: serializers.PrimaryKeyRelatedField[Any] = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The evidence it was found in; null when across several."
    )
    kind = serializers.CharField(read_only=True, help_text="Stable id of what was found, e.g. tcp.syn_retransmit.")
    key = serializers.CharField(read_only=True, help_text="Tells apart findings of one kind (e.g. a connection).")
    layer = serializers.ChoiceField(choices=Layer.choices, read_only=True, help_text="Checklist layer it speaks to.")
    severity = serializers.ChoiceField(
        choices=FindingSeverity.choices, read_only=True, help_text="info, low, medium or high."
    )
    title = serializers.CharField(read_only=True, help_text="One line.")
    explanation = serializers.CharField(read_only=True, help_text="Plain words with the numbers.")
    refs = serializers.JSONField(read_only=True, help_text="References into the evidence (connections, packets, time).")
    # The API field is called data; it shadows Serializer.data only for type checkers.
    data = serializers.JSONField(read_only=True, help_text="The numbers behind the finding.")  # type: ignore[assignment]
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was stored.")

    class Meta:
        model = Finding
        fields = [
            "id",
            "evidence",
            "kind",
            "key",
            "layer",
            "severity",
            "title",
            "explanation",
            "refs",
            "data",
            "created_at",
        ]


class ConnectionSerializer(serializers.ModelSerializer[CaptureConnection]):
    conn_id = serializers.IntegerField(read_only=True, help_text="Connection id (tshark's tcp.stream number).")
    client = serializers.CharField(read_only=True, help_text="Client ip:port (the side that sent the SYN).")
    server = serializers.CharField(read_only=True, help_text="Server ip:port.")
    first_time = serializers.FloatField(read_only=True, help_text="First packet, seconds since the epoch.")
    duration = serializers.FloatField(read_only=True, help_text="Seconds from first to last packet.")
    packets_c2s = serializers.IntegerField(read_only=True, help_text="Packets client → server.")
    packets_s2c = serializers.IntegerField(read_only=True, help_text="Packets server → client.")
    bytes_c2s = serializers.IntegerField(read_only=True, help_text="Payload bytes client → server.")
    bytes_s2c = serializers.IntegerField(read_only=True, help_text="Payload bytes server → client.")
    retrans_c2s = serializers.IntegerField(read_only=True, help_text="Retransmissions by the client.")
    retrans_s2c = serializers.IntegerField(read_only=True, help_text="Retransmissions by the server.")
    syn_count = serializers.IntegerField(read_only=True, help_text="SYNs sent (more than 1: retries).")
    zero_windows = serializers.IntegerField(read_only=True, help_text="Zero-window advertisements, both ways.")
    has_rst = serializers.BooleanField(read_only=True, help_text="A RST was seen.")
    rtt_ms = serializers.FloatField(read_only=True, allow_null=True, help_text="Initial RTT from the handshake.")
    synack_count = serializers.IntegerField(
        read_only=True, help_text="SYN-ACKs sent (more than 1: the server's retries)."
    )

    class Meta:
        model = CaptureConnection
        fields = list(CONNECTION_COLUMNS)


class ConnectionDetailSerializer(ConnectionSerializer):
    detail = serializers.JSONField(read_only=True, help_text="Every field of the engine's connection row.")

    class Meta(ConnectionSerializer.Meta):
        fields = [*ConnectionSerializer.Meta.fields, "detail"]


class ConnectionPageSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField(help_text="Connections matching the filters.")
    results = ConnectionSerializer(many=True, help_text="This page of them.")


class PacketRowSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="Packet number in the file (1-based, as Wireshark counts).")
    time = serializers.FloatField(help_text="Seconds since the epoch.")
    src = serializers.CharField(help_text="Sender ip:port.")
    dst = serializers.CharField(help_text="Receiver ip:port.")
    flags = serializers.ListField(child=serializers.CharField())
    seq = serializers.IntegerField(help_text="Sequence number relative to the sender's first.")
    ack = serializers.IntegerField(allow_null=True, help_text="Acknowledgement relative to the peer's first.")
    length = serializers.IntegerField(help_text="TCP payload bytes.")
    window = serializers.IntegerField(allow_null=True, help_text="Advertised window as sent (not scaled).")
    annotations = serializers.ListField(child=serializers.CharField())
    from_client = serializers.BooleanField()


class PacketPageSerializer(serializers.Serializer[Any]):
    packets = PacketRowSerializer(many=True)
    next_from = serializers.IntegerField(allow_null=True, help_text="Packet number the next page starts from.")
    scanned = serializers.IntegerField(help_text="Packets read from the file for this page.")
    error = serializers.CharField(allow_null=True)
    first_packet = serializers.IntegerField()
    last_packet = serializers.IntegerField()
    client = serializers.CharField()
    server = serializers.CharField()
    indexed = serializers.BooleanField(help_text="The capture has a packet index (pages seek instead of scanning).")


class TimeSequenceSerializer(serializers.Serializer[Any]):
    connection = serializers.IntegerField(help_text="Connection id.")
    sender = serializers.CharField(help_text="The side whose data is drawn: client or server.")
    t0 = serializers.FloatField(help_text="Time origin (seconds since the epoch) of the time columns.")
    base_seq = serializers.IntegerField(help_text="Sequence number origin of the seq columns.")
    window_scale = serializers.IntegerField(allow_null=True, help_text="Receiver's window scale (null: unknown).")
    seg_time = serializers.ListField(child=serializers.FloatField(), help_text="Data segments: seconds after t0.")
    seg_seq = serializers.ListField(child=serializers.IntegerField(), help_text="Data segments: relative seq.")
    seg_len = serializers.ListField(child=serializers.IntegerField(), help_text="Data segments: payload bytes.")
    seg_retransmission = serializers.ListField(child=serializers.BooleanField(), help_text="Retransmitted?")
    ack_time = serializers.ListField(child=serializers.FloatField(), help_text="ACKs: seconds after t0.")
    ack_seq = serializers.ListField(child=serializers.IntegerField(), help_text="ACKs: relative ack number.")
    ack_window_edge = serializers.ListField(
        child=serializers.IntegerField(), help_text="ACKs: ack + advertised window (the receive window's right edge)."
    )
    segments_total = serializers.IntegerField(help_text="Data segments in the connection.")
    acks_total = serializers.IntegerField(help_text="ACKs in the connection.")
    stride = serializers.IntegerField(help_text="1: every point; n: every n-th kept (retransmissions always).")
    error = serializers.CharField(allow_null=True, help_text="Why reading stopped early, if it did.")


def latest_run(evidence: Evidence) -> AnalysisRun | None:
    runs = list(evidence.runs.all())
    return max(runs, key=lambda run: run.pk) if runs else None


def _done_summary(evidence: Evidence) -> dict[str, Any] | None:
    """The summary of the file's latest finished run (what it says, whatever a newer run is doing); a failed run's
    is what it read before the error (its card says it failed)."""
    done = [run for run in evidence.runs.all() if run.status in (RunStatus.DONE, RunStatus.FAILED)]
    summary = max(done, key=lambda run: run.pk).summary if done else None
    return summary if isinstance(summary, dict) else None


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
        choices=["time", "file name", "counters", "upload order"],
        help_text="What decided which snapshot is the earlier: when each was taken, before/after in the file names, "
        "the counters themselves (monotonic counters mostly grow), or, failing all, the upload order.",
    )
    host = serializers.CharField(
        allow_null=True, default=None, help_text="The host both snapshots come from (never paired across hosts)."
    )
    formats = serializers.ListField(child=serializers.CharField(), help_text="The counter formats compared.")


SOURCES = ["user", "content", "filename", "default"]
SOURCE_HELP = (
    "Where the value comes from: user (a person set it), content (read from the file), filename (read from its "
    "name), default (the engine's guess); null when unknown."
)


class KnownHostSerializer(serializers.Serializer[Any]):
    value = serializers.CharField(allow_null=True, help_text="The host's name or address; null when unknown.")
    source = serializers.ChoiceField(choices=SOURCES, allow_null=True, help_text=SOURCE_HELP)  # type: ignore[assignment]  # a field, not Field.source


class KnownRoleSerializer(serializers.Serializer[Any]):
    value = serializers.ChoiceField(choices=Role.choices, allow_null=True, help_text="The role; null when unknown.")
    source = serializers.ChoiceField(choices=SOURCES, allow_null=True, help_text=SOURCE_HELP)  # type: ignore[assignment]  # a field, not Field.source


class KnownTimeSerializer(serializers.Serializer[Any]):
    value = serializers.DateTimeField(allow_null=True, help_text="When it was taken; null when unknown.")
    source = serializers.ChoiceField(choices=SOURCES, allow_null=True, help_text=SOURCE_HELP)  # type: ignore[assignment]  # a field, not Field.source


class ProvenanceSerializer(serializers.Serializer[Any]):
    """Where a file comes from; a person's value (source user) wins over what was read from the file."""

    host = KnownHostSerializer(help_text="The host the file was taken on.")
    role = KnownRoleSerializer(help_text="The host's role on the path.")
    taken_at = KnownTimeSerializer(help_text="When the snapshot was taken.")


class EvidenceSerializer(serializers.ModelSerializer[Evidence]):
    id = serializers.IntegerField(read_only=True, help_text="Evidence id.")
    filename = serializers.CharField(read_only=True, help_text="The uploader's file name (display only).")
    size = serializers.IntegerField(read_only=True, help_text="Bytes stored.")
    sha256 = serializers.CharField(read_only=True, help_text="SHA-256 of the stored bytes.")
    kind = serializers.CharField(read_only=True, help_text="Evidence kind, detected from content.")
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True, help_text="Who uploaded it.")
    uploaded_at = serializers.DateTimeField(read_only=True, help_text="When it was uploaded.")
    provenance = serializers.SerializerMethodField(
        help_text="Where the file comes from: host, role and when it was taken, each with the source of its value."
    )
    analysis = serializers.SerializerMethodField(help_text="The latest analysis run.")
    summary = serializers.SerializerMethodField(help_text="What the latest analysis read (packets, bytes, ...).")
    settings = serializers.SerializerMethodField(
        help_text="The settings this file is analysed with, by settings group of its kind (see /api/evidence-kinds/): "
        '{"bbr": {"min_bytes": 100000, ...}} for socket statistics, {"link_limits_bps": {"eth0": 1e10}} for counters.'
    )
    pairing = serializers.SerializerMethodField(help_text="For snapshots: how this one is diffed with another.")
    meaning = serializers.SerializerMethodField(
        help_text='What the file shows, in one line ("kernel 6.5.13 → 6.6.10", "nstat: +84 retransmitted segments of '
        '1,596 sent": for a snapshot diffed with another, what changed between the two); null until it is read.'
    )
    excluded = serializers.BooleanField(
        read_only=True,
        help_text="A person left the file out of the analysis: its findings are not in the checklist, the findings "
        "across evidence or the postmortem.",
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
            "provenance",
            "analysis",
            "summary",
            "settings",
            "pairing",
            "meaning",
            "excluded",
        ]

    @extend_schema_field(AnalysisRunSerializer(allow_null=True))
    def get_analysis(self, evidence: Evidence) -> dict[str, Any] | None:
        run = latest_run(evidence)
        return dict(AnalysisRunSerializer(run).data) if run else None

    @extend_schema_field(ProvenanceSerializer)
    def get_provenance(self, evidence: Evidence) -> dict[str, Any]:
        done = [run for run in evidence.runs.all() if run.status == RunStatus.DONE]
        run = max(done, key=lambda run: run.pk) if done else None
        try:
            across = evidence.incident.correlation.provenance.get(str(evidence.pk))
        except Correlation.DoesNotExist:
            across = None
        return provenance.for_card(evidence, run, across)

    @extend_schema_field(SnapshotPairingSerializer(allow_null=True))
    def get_pairing(self, evidence: Evidence) -> dict[str, Any] | None:
        if evidence.kind not in registry.snapshot_kinds():
            return None
        try:
            pairs = evidence.incident.correlation.counter_pairs
        except Correlation.DoesNotExist:
            return None
        found = next((p for p in pairs if p["evidence"] == evidence.pk), None)
        return dict(SnapshotPairingSerializer(found).data) if found else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_meaning(self, evidence: Evidence) -> str | None:
        kind = registry.kind(evidence.kind)
        summary = _done_summary(evidence)
        if kind is None or summary is None:
            return None
        pair = self.get_pairing(evidence)
        if pair and pair["other"] is not None and pair["role"] in ("before", "after"):
            other = self._summary_of(evidence, pair["other"])
            if other is not None:
                # Both cards of a pair say what changed from the earlier to the later.
                earlier, later = (summary, other) if pair["role"] == "before" else (other, summary)
                return kind.describe(later, earlier)
        return kind.describe(summary, None)

    def _summary_of(self, evidence: Evidence, other_id: int) -> dict[str, Any] | None:
        """The other snapshot's summary: from the cards listed with this one (the list view passes them all),
        else read."""
        cards: dict[int, Evidence] | None = self.context.get("cards")
        other = cards.get(other_id) if cards is not None else None
        if other is None:
            other = evidence.incident.evidence.filter(pk=other_id).prefetch_related("runs").first()
        return _done_summary(other) if other is not None else None

    @extend_schema_field(serializers.DictField(child=serializers.DictField(child=serializers.FloatField())))
    def get_settings(self, evidence: Evidence) -> dict[str, Any]:
        kind = registry.kind(evidence.kind)
        tuning = Tuning.from_json(evidence.tuning)
        return {g.name: g.to_json(tuning.get(g)) for g in kind.settings} if kind else {}

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_summary(self, evidence: Evidence) -> Any:
        run = latest_run(evidence)
        return run.summary if run else None
