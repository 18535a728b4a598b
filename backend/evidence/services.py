"""Writes for evidence: receiving an upload and queueing its analysis."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from analysis.services import queue_run
from evidence.models import Evidence
from evidence.storage import Readable, stream_to_storage
from incidents.models import EventKind, Incident
from incidents.services import record_event
from whodunnet.detect import sniff, sniff_gzip_inner
from whodunnet.errors import MalformedInput
from whodunnet.kinds.sockets.settings import BBR
from whodunnet.tuning import Tuning

MAX_FILENAME = 255
CAPTURE_FORMATS = ("pcap", "pcapng")


def detected_kind(*, head: bytes, path: Path) -> str:
    """The evidence kind shown right after upload; the analysis may refine it."""
    kind = sniff(head)
    if kind in CAPTURE_FORMATS:
        return "capture"
    if kind == "gzip":
        try:
            inner = sniff_gzip_inner(path)
        except MalformedInput:
            return "gzip"
        return "capture" if inner in CAPTURE_FORMATS else "gzip"
    return kind


def display_name(raw: str) -> str:
    """The user's file name as display text only: no path, no control characters."""
    name = raw.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    return (name or "upload")[:MAX_FILENAME]


def receive_upload(
    *,
    user: User,
    incident: Incident,
    filename: str,
    stream: Readable,
    content_length: int | None,
) -> Evidence:
    """Stream an upload to storage, record it, and queue its analysis once it commits."""
    stored = stream_to_storage(
        stream=stream,
        root=Path(settings.EVIDENCE_DIR),
        limit=settings.MAX_UPLOAD_BYTES,
        chunk_size=settings.UPLOAD_CHUNK_BYTES,
        expected=content_length,
    )
    detected = detected_kind(head=stored.head, path=stored.path)
    try:
        with transaction.atomic():
            evidence = Evidence.objects.create(
                incident=incident,
                filename=display_name(filename),
                storage_name=stored.storage_name,
                size=stored.size,
                sha256=stored.sha256,
                kind=detected,
                detected_kind=detected,
                uploaded_by=user,
            )
            record_event(
                incident=incident,
                kind=EventKind.EVIDENCE_UPLOADED,
                actor=user,
                summary=f"Uploaded {evidence.filename} ({stored.size:,} bytes, {detected})",
                data={"evidence": evidence.pk, "sha256": stored.sha256, "kind": detected},
            )
            queue_run(evidence=evidence)
    except BaseException:
        stored.path.unlink(missing_ok=True)
        raise
    return evidence


def reanalyse(*, user: User, evidence: Evidence, kind: str) -> Evidence:
    """Read the file again as the kind a person chose (content sniffing got it wrong)."""
    with transaction.atomic():
        previous = evidence.kind
        evidence.kind = kind
        evidence.save(update_fields=["kind"])
        _analyse_again(
            user=user, evidence=evidence, said=f"kind {previous} → {kind}", data={"from": previous, "to": kind}
        )
    return evidence


def _analyse_again(*, user: User, evidence: Evidence, said: str, data: dict[str, Any]) -> None:
    """Say on the timeline what a person changed, and queue a run that reads the file with it.

    The run reads the file as ``evidence.kind`` when a person chose it over the detected kind.
    Call inside the transaction that made the change.
    """
    record_event(
        incident=evidence.incident,
        kind=EventKind.INCIDENT_UPDATED,
        actor=user,
        summary=f"{evidence.filename}: {said}; analysing it again",
        data={"evidence": evidence.pk, **data},
    )
    queue_run(evidence=evidence, forced_kind=evidence.kind if evidence.kind != evidence.detected_kind else "")


def set_bbr_settings(*, user: User, evidence: Evidence, changes: dict[str, Any]) -> Evidence:
    """Change how sockets.bbr_candidates ranks prefixes for this file, and analyse it again."""
    current = asdict(Tuning.from_json(evidence.tuning).get(BBR))
    said = ", ".join(f"{k} {v:g}" for k, v in sorted(changes.items()) if current.get(k) != v) or "unchanged"
    return _retune(
        user=user,
        evidence=evidence,
        change=lambda tuning: {**tuning, "bbr": {**(tuning.get("bbr") or {}), **changes}},
        said=f"BBR-candidate settings {said}",
    )


def set_link_limits(*, user: User, evidence: Evidence, limits: dict[str, float]) -> Evidence:
    """Give the interfaces' limits (bit/s) that neighbours.link_usage compares throughput with."""
    said = ", ".join(f"{name} {_rate(bps)}" for name, bps in sorted(limits.items())) or "none"
    return _retune(
        user=user,
        evidence=evidence,
        change=lambda tuning: {**tuning, "link_limits_bps": limits},
        said=f"interface limits {said}",
    )


def _rate(bps: float) -> str:
    """300000 → "300 kbit/s", 1e10 → "10 Gbit/s"."""
    for scale, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} bit/s"


def _retune(
    *, user: User, evidence: Evidence, change: Callable[[dict[str, Any]], dict[str, Any]], said: str
) -> Evidence:
    """Store changed analysis settings (validated by the engine's Tuning) and analyse the file again."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        evidence.tuning = Tuning.from_json(change(evidence.tuning)).to_json()
        evidence.save(update_fields=["tuning"])
        _analyse_again(user=user, evidence=evidence, said=said, data={"tuning": evidence.tuning})
    return evidence


def set_captured_at(*, user: User, evidence: Evidence, captured_at: dt.datetime | None) -> Evidence:
    """Say when a snapshot was taken; the findings across evidence are recomputed with it."""
    from analysis.services import enqueue_correlation_on_commit

    with transaction.atomic():
        evidence.captured_at = captured_at
        evidence.save(update_fields=["captured_at"])
        said = captured_at.isoformat() if captured_at else "unknown (upload order)"
        record_event(
            incident=evidence.incident,
            kind=EventKind.INCIDENT_UPDATED,
            actor=user,
            summary=f"{evidence.filename}: taken at {said}",
            data={"evidence": evidence.pk, "captured_at": captured_at.isoformat() if captured_at else None},
        )
        enqueue_correlation_on_commit(evidence.incident_id)
    return evidence
