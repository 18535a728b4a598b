"""Analysis runs: queueing, claiming, executing the engine, storing findings, reconciling.

The AnalysisRun row is the truth. A task only carries the run id; whoever claims the
row (a conditional UPDATE) does the work, so a redelivered or re-queued message is a
no-op while the run is alive, and a run whose worker died is claimed again once its
heartbeat is stale.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import logging
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import orjson
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from analysis import dispatch, provenance, selectors
from analysis.models import (
    CONNECTION_COLUMNS,
    AnalysisRun,
    CaptureConnection,
    Correlation,
    Finding,
    FindingSeverity,
    RunStatus,
)
from evidence import blobs
from evidence.models import Evidence
from incidents.models import EventKind, Incident
from incidents.services import record_event
from outbox import services as outbox
from whodunnet.model import AnalysisResult, EvidenceResult, Provenance, json_bytes

logger = logging.getLogger(__name__)

PROGRESS_WRITE_INTERVAL = 0.5
NOTABLE = (FindingSeverity.LOW, FindingSeverity.MEDIUM, FindingSeverity.HIGH)


def queue_run(*, evidence: Evidence, forced_kind: str = "") -> AnalysisRun:
    """Create a queued run for the evidence and enqueue it once the transaction commits."""
    run = AnalysisRun.objects.create(evidence=evidence, forced_kind=forced_kind)
    dispatch.analyze(run_id=run.pk)
    return run


def queue_correlation(*, incident_id: int) -> None:
    """Recompute the findings across the incident's evidence once the transaction commits."""
    dispatch.correlate(incident_id=incident_id)


def claim_run(*, run_id: int) -> uuid.UUID | None:
    """Take the run if it is queued or orphaned; None when someone else holds it or it is finished."""
    now = timezone.now()
    stale = now - dt.timedelta(seconds=settings.RUN_STALE_SECONDS)
    token = uuid.uuid4()

    claimed = (
        AnalysisRun.objects.filter(pk=run_id)
        .filter(Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, heartbeat_at__lt=stale))
        .update(
            status=RunStatus.RUNNING,
            claim_token=token,
            started_at=now,
            heartbeat_at=now,
            progress=0.0,
            progress_message="starting",
            attempts=F("attempts") + 1,
            # Claimed: the message arrived. Should this worker die, the next sweep re-sends at once.
            resends=0,
            resend_after=None,
        )
    )
    return token if claimed else None


def _refs_json(refs: Iterable[Any], evidence_ids: list[int]) -> list[dict[str, Any]]:
    """Refs name evidence by its index in the analysed list; store the evidence id instead."""
    out = []
    for ref in refs:
        row = dataclasses.asdict(ref)
        index = row.get("evidence")
        row["evidence"] = evidence_ids[index] if isinstance(index, int) and 0 <= index < len(evidence_ids) else None
        out.append(row)
    return out


def _finding_row(finding: Any, evidence_ids: list[int], **scope: Any) -> Finding:
    """An engine finding as a row; ``scope`` says whose it is (a run or a correlation)."""
    return Finding(
        kind=finding.kind,
        key=finding.key,
        layer=finding.layer,
        severity=finding.severity,
        title=finding.title,
        explanation=finding.explanation,
        refs=_refs_json(finding.refs, evidence_ids),
        data=dict(finding.data),
        **scope,
    )


def _store_result(*, run: AnalysisRun, token: uuid.UUID, result: AnalysisResult) -> bool:
    """Write findings and the final status in one transaction, only if we still hold the claim."""
    from whodunnet.provenance import infer

    evidence_result: EvidenceResult = result.evidence[0]
    error = evidence_result.error
    with transaction.atomic():
        locked = AnalysisRun.objects.select_for_update().filter(pk=run.pk, claim_token=token).first()
        if locked is None or locked.status != RunStatus.RUNNING:
            return False
        evidence = locked.evidence
        incident = evidence.incident
        locked.findings.all().delete()
        # A newer run supersedes what older runs of this evidence said (a corrected kind, new
        # settings); an older run that finishes last keeps its status but not its findings.
        Finding.objects.filter(evidence=evidence, run__isnull=False, run_id__lt=locked.pk).delete()
        superseded = AnalysisRun.objects.filter(evidence=evidence, pk__gt=locked.pk).exists()
        findings = Finding.objects.bulk_create(
            _finding_row(f, [evidence.pk], run=locked, incident=incident, evidence=evidence)
            for f in ([] if superseded else result.findings)
        )
        _store_connections(run=locked, evidence=evidence, connections=evidence_result.connections)
        has_content = bool(evidence_result.summary) and evidence_result.kind != "unknown"
        locked.status = RunStatus.FAILED if error and not has_content else RunStatus.DONE
        locked.progress = 1.0
        locked.progress_message = "finished"
        locked.finished_at = timezone.now()
        locked.engine_version = result.engine_version
        locked.summary = dict(evidence_result.summary)
        locked.packet_index = [list(c) for c in evidence_result.packet_index]
        # Inferred again from the name the person uploaded it under (the engine saw the server-made name).
        locked.provenance = infer(evidence.filename, evidence_result.kind, evidence_result.summary).to_json()
        locked.error = error.message if error else ""
        locked.error_offset = error.offset if error else None
        locked.error_line = error.line if error else None
        locked.save()
        if evidence.kind != evidence_result.kind and evidence_result.kind != "unknown":
            evidence.kind = evidence_result.kind
            evidence.save(update_fields=["kind"])
        summary_titles = [f.title for f in findings if f.kind.endswith(".summary")]
        if locked.status == RunStatus.FAILED:
            record_event(
                incident=incident,
                kind=EventKind.ANALYSIS_FAILED,
                summary=f"Could not analyse {evidence.filename}: {locked.error}",
                data={"evidence": evidence.pk, "run": locked.pk, "offset": locked.error_offset},
            )
        else:
            tail = f" — stopped early: {locked.error}" if locked.error else ""
            said = "; ".join(summary_titles) or f"{len(findings)} finding(s)"
            record_event(
                incident=incident,
                kind=EventKind.ANALYSIS_FINISHED,
                summary=f"Analysed {evidence.filename}: {said}{tail}",
                data={"evidence": evidence.pk, "run": locked.pk, "findings": len(findings)},
            )
        for finding in findings:
            if finding.severity in NOTABLE:
                record_event(
                    incident=incident,
                    kind=EventKind.FINDING,
                    summary=f"[{finding.layer}] {finding.title}",
                    data={"evidence": evidence.pk, "finding": finding.pk, "kind": finding.kind, "layer": finding.layer},
                )
        dispatch.correlate(incident_id=incident.pk)
    return True


def _store_connections(*, run: AnalysisRun, evidence: Evidence, connections: Iterable[Any]) -> None:
    """The capture's connection table, streamed into PostgreSQL with COPY (a capture can hold a million).

    Each row's sortable columns plus the engine's whole row as JSON (``json_bytes``, straight from
    the dataclass). COPY runs inside the caller's transaction, like the inserts it replaces.
    """
    run.connections.all().delete()
    table = connection.ops.quote_name(CaptureConnection._meta.db_table)
    columns = ("run_id", "evidence_id", *CONNECTION_COLUMNS, "detail")  # the order of each row below
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for conn in connections:
            c2s, s2c = conn.c2s, conn.s2c
            copy.write_row(
                (
                    run.pk,
                    evidence.pk,
                    conn.id,
                    conn.client,
                    conn.server,
                    conn.first_time,
                    conn.duration,
                    c2s.packets,
                    s2c.packets,
                    c2s.payload_bytes,
                    s2c.payload_bytes,
                    c2s.retransmissions,
                    s2c.retransmissions,
                    conn.syn_count,
                    c2s.zero_windows + s2c.zero_windows,
                    conn.first_rst_by is not None,
                    conn.initial_rtt * 1000 if conn.initial_rtt is not None else None,
                    conn.synack_count,
                    json_bytes(conn).decode(),
                )
            )


def correlate(*, incident_id: int) -> int:
    """Recompute the findings across an incident's evidence with the engine's ``combine``.

    Each evidence's latest finished run gives its summary and findings; its provenance is a person's values
    over what the engine read from the file (``analysis.provenance``), so snapshots pair per host in time order.
    The engine also matches every two captures by their TCP sequence numbers, reading the files (this runs on
    an analysis worker: the local folder's files, or the S3 store's objects as streams), so the
    console's findings are the CLI's on the same files. When
    nothing it reads changed since the last computation (the same runs, kinds and provenance), it does nothing.
    Returns how many findings the incident now has across its evidence.
    """
    from whodunnet.provenance import across

    runs, known, inputs = _inputs(incident_id)
    evidence_ids = [run.evidence_id for run in runs]
    existing = Correlation.objects.filter(incident_id=incident_id).values_list("inputs", flat=True).first()
    if existing == inputs:
        logger.info("incident %s: nothing changed since the last correlation", incident_id)
        return Finding.objects.filter(correlation__incident_id=incident_id).count()
    with tempfile.TemporaryDirectory(prefix="whodunnet-correlate-") as where:
        stored = _files_to_read(runs)
        results = across(
            [
                _engine_evidence(run, k, Path(where) / str(index), stored.get(run.evidence_id))
                for index, (run, k) in enumerate(zip(runs, known, strict=True))
            ]
        )
        sources = {
            index: file
            for index, run in enumerate(runs)
            if (file := stored.get(run.evidence_id)) is not None and not isinstance(file, Path)
        }
        combined, pairing = _combine(runs, results, sources)
    pairs = [
        {
            **pair,
            "evidence": evidence_ids[pair["evidence"]],
            "other": evidence_ids[pair["other"]] if pair["other"] is not None else None,
            "other_filename": runs[pair["other"]].evidence.filename if pair["other"] is not None else None,
        }
        for pair in pairing
    ]
    with transaction.atomic():
        incident = Incident.objects.select_for_update().get(pk=incident_id)
        if _inputs(incident_id)[2] != inputs:
            # A file was analysed or a person changed a provenance while this ran: the correlation queued by that
            # change writes the answer; this one, from older inputs, must not overwrite it.
            logger.info("incident %s: inputs changed during the correlation; leaving it to the newer one", incident_id)
            return Finding.objects.filter(correlation__incident_id=incident_id).count()
        correlation, _ = Correlation.objects.get_or_create(incident=incident)
        before = set(correlation.findings.values_list("kind", "key"))
        said_before = (set(correlation.findings.values_list("title", flat=True)), correlation.counter_pairs)
        correlation.findings.all().delete()
        correlation.evidence_ids = evidence_ids
        correlation.counter_pairs = pairs
        correlation.inputs = inputs
        correlation.provenance = {
            str(evidence_id): result.provenance.to_json()
            for evidence_id, result in zip(evidence_ids, results, strict=True)
        }
        correlation.save()
        rows = Finding.objects.bulk_create(
            _finding_row(f, evidence_ids, correlation=correlation, incident=incident) for f in _unique(combined)
        )
        announced = False
        for row in rows:
            if (row.kind, row.key) not in before and row.severity in NOTABLE:
                announced = True
                record_event(
                    incident=incident,
                    kind=EventKind.FINDING,
                    summary=f"[{row.layer}] {row.title}",
                    data={"finding": row.pk, "kind": row.kind, "evidence": None, "layer": row.layer},
                )
        changed = said_before != ({row.title for row in rows}, pairs)
        if changed and not announced and (said_before[0] or rows):
            # What the incident's evidence says together changed (a pairing, a number): say so, which is also
            # how the open pages learn to show it.
            record_event(
                incident=incident,
                kind=EventKind.ANALYSIS_FINISHED,
                summary=f"Findings across the evidence recomputed: {len(rows)} finding{'s' if len(rows) != 1 else ''}",
                data={"correlation": correlation.pk, "findings": len(rows), "evidence": None},
            )
    return len(rows)


def _inputs(incident_id: int) -> tuple[list[AnalysisRun], list[Provenance], str]:
    """What a correlation reads: each evidence's latest finished run, its provenance, and a digest of both."""
    from whodunnet import ENGINE_VERSION

    runs = selectors.latest_runs(incident_id=incident_id)
    known = [provenance.effective(run.evidence, run) for run in runs]
    inputs = _digest(
        [ENGINE_VERSION] + [[run.pk, run.evidence.kind, k.to_json()] for run, k in zip(runs, known, strict=True)]
    )
    return runs, known, inputs


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _files_to_read(runs: list[AnalysisRun]) -> dict[int, Path | blobs.S3Source]:
    """The stored files ``combine`` may read (it re-reads captures to match every two of them), by evidence id.

    The local folder's files as they are; from an S3 store, the captures' objects as sources the engine reads as
    streams of ranged GETs (nothing is copied to this worker's disk), and only when there are two to match."""
    store = blobs.store()
    if store.kind == "local":
        return {run.evidence_id: run.evidence.path for run in runs if run.evidence.path.exists()}
    captures = [run for run in runs if run.evidence.kind == "capture"]
    if len(captures) < 2:
        return {}
    return {run.evidence_id: store.source(run.evidence.storage_name) for run in captures}


def _engine_evidence(
    run: AnalysisRun, known: Provenance, where: Path, stored: Path | blobs.S3Source | None
) -> EvidenceResult:
    """The run's result as the engine's ``combine`` takes it: its path is named as the person named the file
    (findings name files by it, and "before"/"after" in a name orders snapshots); for a file in the local folder it
    is a link to the stored file, which the engine reads to match captures (a store's object is given to the
    engine as a source beside it)."""
    where.mkdir()
    link = where / (Path(run.evidence.filename).name or "evidence")
    if isinstance(stored, Path):
        link.symlink_to(stored)
    summary = dict(run.summary or {})
    connections = StoredConnections(run.pk) if run.evidence.kind == "capture" else ()
    if known.taken_at is not None and known.source.get("taken_at") == "user":
        summary["timestamp"] = known.taken_at  # a person's time over the file's own, wherever the engine reads it
    return EvidenceResult(
        path=str(link), kind=run.evidence.kind, summary=summary, provenance=known, connections=connections
    )


class StoredConnections(Sequence[Any]):
    """A capture's connection table as the engine's rows, from the run's stored ones: matching two captures then
    reads each file once (for its segments), not twice (the table would otherwise be read again from the file).

    Read from the database the first time a row is asked for: most correlations never look at one (a single
    capture; a capture whose host is known), and 20,000 rows are 60 MB of JSON to read back. How many there are is
    a count."""

    def __init__(self, run_id: int) -> None:
        self._run_id = run_id
        self._count: int | None = None
        self._rows: tuple[Any, ...] | None = None

    def __len__(self) -> int:
        if self._rows is not None:
            return len(self._rows)
        if self._count is None:
            self._count = CaptureConnection.objects.filter(run_id=self._run_id).count()
        return self._count

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        return self._read()[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._read())

    def _read(self) -> tuple[Any, ...]:
        if self._rows is None:
            self._rows = _connection_rows(self._run_id)
        return self._rows

    def match_columns(self) -> dict[str, list[Any]]:
        """What matching two captures reads of each row (``whodunnet.capture_pairs.Ends``), without building the rows:
        the stored columns, and six numbers of each row's document (read as text and parsed by orjson: 0.4 s for
        20,006 rows, where building them as rows took 3.5 s and PostgreSQL taking the numbers out as ``jsonb``
        0.9 s)."""
        stored = (
            CaptureConnection.objects.filter(run_id=self._run_id)
            .order_by("conn_id")
            .values_list("conn_id", "packets_c2s", "packets_s2c", "client", "server", Cast("detail", TextField()))
        )
        numbers = [f"{role}_{n}" for role in ("client", "server") for n in ("isn", "base", "span")]
        out: dict[str, list[Any]] = {name: [] for name in ("ids", "packets", "client", "server", *numbers)}
        for conn_id, c2s_packets, s2c_packets, client, server, text in stored:
            out["ids"].append(conn_id)
            out["packets"].append(c2s_packets + s2c_packets)
            out["client"].append(client)
            out["server"].append(server)
            document = orjson.loads(text)
            for role, side in (("client", document["c2s"]), ("server", document["s2c"])):
                out[f"{role}_isn"].append(-1 if side["isn"] is None else side["isn"])
                out[f"{role}_base"].append(side["base_seq"])
                out[f"{role}_span"].append(side["seq_span"])
        return out


def _connection_rows(run_id: int) -> tuple[Any, ...]:
    from whodunnet.capture.connections import Connection, Direction, SynEvent

    def direction(row: dict[str, Any]) -> Direction:
        return Direction(**{**row, "rto_examples": tuple(tuple(example) for example in row["rto_examples"])})

    # The documents as text, parsed here by orjson (psycopg's own parsing of ``json`` is the standard library's).
    texts = (
        CaptureConnection.objects.filter(run_id=run_id)
        .order_by("conn_id")
        .values_list(Cast("detail", TextField()), flat=True)
    )
    return tuple(
        Connection(
            **{
                **row,
                "syn_times": tuple(SynEvent(**event) for event in row["syn_times"]),
                "synack_times": tuple(SynEvent(**event) for event in row["synack_times"]),
                "c2s": direction(row["c2s"]),
                "s2c": direction(row["s2c"]),
            }
        )
        for row in map(orjson.loads, texts)
    )


def _combine(
    runs: list[AnalysisRun], results: list[EvidenceResult], sources: dict[int, blobs.S3Source]
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The engine's findings across evidence (from the runs' stored findings and the results, the captures read
    from their files or ``sources``, by index) and its pairing."""
    from whodunnet.engine import combine, snapshot_pairing

    index = {run.evidence_id: i for i, run in enumerate(runs)}
    stored = [selectors.engine_finding(f, index) for f in Finding.objects.filter(run__in=runs).order_by("id")]
    return list(combine(results, stored, sources=sources)), list(snapshot_pairing(results))


def _unique(findings: Iterable[Any]) -> list[Any]:
    seen: set[tuple[str, str]] = set()
    out = []
    for finding in findings:
        if (finding.kind, finding.key) not in seen:
            seen.add((finding.kind, finding.key))
            out.append(finding)
    return out


def execute_run(*, run_id: int) -> None:
    """Claim one run, run the engine and store what it says; a no-op if it is finished or held elsewhere.

    An unexpected exception (a bug, not bad input: the engine reports that itself) fails the run with its text.
    """
    token = claim_run(run_id=run_id)
    if token is None:
        logger.info("run %s is not claimable (finished or held elsewhere)", run_id)
        return
    try:
        _analyse(run_id=run_id, token=token)
    except Exception as exc:
        logger.exception("analysis run %s crashed", run_id)
        fail_run(run_id=run_id, message=f"internal error: {type(exc).__name__}: {exc}")


def _analyse(*, run_id: int, token: uuid.UUID) -> None:
    run = AnalysisRun.objects.select_related("evidence__incident").get(pk=run_id)
    evidence = run.evidence
    if run.attempts == 1:
        record_event(
            incident=evidence.incident,
            kind=EventKind.ANALYSIS_STARTED,
            summary=f"Analysing {evidence.filename}",
            data={"evidence": evidence.pk, "run": run.pk},
        )
    last_write = 0.0

    def progress(fraction: float, message: str) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write < PROGRESS_WRITE_INTERVAL:
            return
        last_write = now
        AnalysisRun.objects.filter(pk=run_id, claim_token=token).update(
            progress=max(0.0, min(fraction, 1.0)), progress_message=message[:200], heartbeat_at=timezone.now()
        )

    # Imported here so the web process never loads the engine.
    from whodunnet.engine import analyze
    from whodunnet.limits import Limits
    from whodunnet.tuning import Tuning

    limits = Limits(max_input_bytes=settings.MAX_UPLOAD_BYTES)
    tuning = Tuning.from_json(evidence.tuning)
    # Findings drawn across results (counter diffs, kernel ranges) come from correlate(), once per incident.
    # The stored file: its path, or an object the engine streams from the store (decision 0017).
    result = analyze(
        [blobs.store().source(evidence.storage_name)],
        progress=progress,
        limits=limits,
        kinds=[run.forced_kind or None],
        tuning=tuning,
        combine_evidence=False,
    )
    if not _store_result(run=run, token=token, result=result):
        logger.warning("run %s lost its claim before finishing; its result was dropped", run_id)


def fail_run(*, run_id: int, message: str) -> None:
    """Mark a run failed after an unexpected error (a bug, not bad input), on the timeline too."""
    with transaction.atomic():
        run = AnalysisRun.objects.select_for_update().select_related("evidence__incident").get(pk=run_id)
        if run.status in (RunStatus.DONE, RunStatus.FAILED):
            return
        run.status = RunStatus.FAILED
        run.error = message
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "error", "finished_at"])
        record_event(
            incident=run.evidence.incident,
            kind=EventKind.ANALYSIS_FAILED,
            summary=f"Could not analyse {run.evidence.filename}: {message}",
            data={"evidence": run.evidence_id, "run": run.pk},
        )


def reconcile_runs() -> int:
    """Re-queue runs whose message was lost or whose worker died; returns how many."""
    now = timezone.now()
    stale = now - dt.timedelta(seconds=settings.RUN_STALE_SECONDS)
    orphaned = (
        AnalysisRun.objects.filter(
            Q(status=RunStatus.QUEUED, queued_at__lt=stale) | Q(status=RunStatus.RUNNING, heartbeat_at__lt=stale)
        )
        .filter(Q(resend_after__isnull=True) | Q(resend_after__lt=now))
        .values_list("pk", "resends")
    )
    count = 0
    for run_id, resends in orphaned:
        dispatch.analyze(run_id=run_id)
        AnalysisRun.objects.filter(pk=run_id).update(
            resends=resends + 1,
            resend_after=outbox.next_resend(now=now, stale_seconds=settings.RUN_STALE_SECONDS, resends=resends),
        )
        count += 1
    if count:
        logger.info("re-queued %d orphaned analysis run(s)", count)
    return count
