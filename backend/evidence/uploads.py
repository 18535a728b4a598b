"""Writes for uploads: start one, append a request body to it, finish it as evidence, end it, reap the stale.

Two ways in share this (decision 0009): the one-shot body of ``POST|PUT …/evidence/upload/`` (``receive_upload``:
exact or refused, nothing kept of a body that stops short) and the resumable tus upload (``start_upload``, then
``append`` per PATCH, keeping whole parts of a body cut off mid-way). Both check the size limit, the team's quota
and the disk before a byte is written and again while the body streams, and both finish the same way: the file
is made durable under its name in the configured store (``evidence.blobs``: renamed on disk, or the S3 multipart
upload completed), then one transaction writes the Evidence row, the timeline event and the signal that queues
its analysis.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import logging
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import Team
from evidence import blobs, signals
from evidence.blobs import Staging
from evidence.models import Evidence, Upload
from evidence.storage import (
    HASHES,
    Appender,
    Body,
    Readable,
    StorageFull,
    UploadBusy,
    UploadRefused,
    UploadTooLarge,
)
from incidents.models import EventKind, Incident
from incidents.services import record_event
from whodunnet import registry
from whodunnet.detect import sniff, sniff_gzip_inner
from whodunnet.errors import MalformedInput

logger = logging.getLogger(__name__)

MAX_FILENAME = 255


class OffsetMismatch(UploadRefused):
    """A PATCH whose Upload-Offset is not where the upload stands (409: ask HEAD and resume from there)."""

    status = 409


def detected_kind(*, head: bytes, open_file: Callable[[], BinaryIO]) -> str:
    """The evidence kind shown right after upload; the analysis may refine it.

    A binary format is named by its kind (``pcap`` → capture); a gzip is named by what it holds
    when that is a binary format, else it stays ``gzip`` until the analysis reads it.
    """
    found = sniff(head)
    if found == "gzip":
        try:
            with open_file() as stored:
                found = sniff_gzip_inner(stored)
        except MalformedInput:
            return "gzip"
        binary = registry.kind_of_format(found)
        return binary.name if binary else "gzip"
    binary = registry.kind_of_format(found)
    return binary.name if binary else found


def display_name(raw: str) -> str:
    """The user's file name as display text only: no path, no control characters."""
    name = raw.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    return (name or "upload")[:MAX_FILENAME]


# --- room: the size limit, the team's quota, the disk ---------------------------------------------------


def team_usage(*, team_id: int) -> int:
    """Bytes a team holds: its evidence, plus what its unfinished uploads reserve (``Upload.reserved``)."""
    stored = Evidence.objects.filter(incident__team_id=team_id).aggregate(total=Sum("size"))["total"] or 0
    pending = Upload.objects.filter(incident__team_id=team_id, evidence__isnull=True).aggregate(
        total=Sum(Coalesce("length", "offset"))
    )["total"]
    return int(stored) + int(pending or 0)


def _check_size(length: int | None) -> None:
    limit = settings.MAX_UPLOAD_BYTES
    if length is not None and length > limit:
        raise UploadTooLarge(f"The file is {length:,} bytes; the limit is {limit:,} bytes.")


def _check_quota(*, team_id: int, more: int, upload: Upload | None = None) -> None:
    """Refuse with 507 when ``more`` bytes would take the team past its quota (``upload``'s own reservation
    is not counted twice)."""
    quota = settings.TEAM_QUOTA_BYTES
    used = team_usage(team_id=team_id) - (upload.reserved if upload is not None else 0)
    if used + more > quota:
        raise StorageFull(
            f"Your team's evidence would take {used + more:,} bytes, past its quota of {quota:,} bytes "
            f"({used:,} in use or reserved by unfinished uploads). Delete evidence or ask an operator to raise "
            "WHODUNNET_TEAM_QUOTA_BYTES."
        )


def _check_disk(more: int) -> None:
    free = blobs.store().free_bytes()  # None: an object store, which has no free count to ask
    if free is not None and more > free:
        raise StorageFull(
            f"The server's evidence disk has {free:,} bytes free, fewer than the {more:,} this upload needs. "
            "Try again later."
        )


# --- starting, appending, finishing ---------------------------------------------------------------------


@contextlib.contextmanager
def _staging(upload: Upload) -> Iterator[Staging]:
    """The upload's bytes so far, held for this request alone (423 while another request holds them)."""
    try:
        with blobs.store().staging(upload.id.hex) as part:
            yield part
    except blobs.BusyError:
        raise UploadBusy(
            "Another request is still sending this upload; ask for its offset (HEAD) again in a few seconds."
        ) from None
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise StorageFull(
                "The server's evidence disk is full; nothing of this request was kept. Try again later."
            ) from None
        raise


def start_upload(*, user: User, incident: Incident, filename: str, length: int | None, resumable: bool) -> Upload:
    """Make room for an upload (size limit, quota, disk) and record it; its bytes come with ``append``."""
    _check_size(length)
    with transaction.atomic():
        # One team's uploads start one at a time, so two cannot both fit into the last of its quota.
        Team.objects.select_for_update().filter(pk=incident.team_id).first()
        if length is not None:
            _check_quota(team_id=incident.team_id, more=length)
            _check_disk(length)
        return Upload.objects.create(
            incident=incident,
            created_by=user,
            filename=display_name(filename),
            length=length,
            resumable=resumable,
        )


def receive_upload(
    *, user: User, incident: Incident, filename: str, stream: Readable, content_length: int | None
) -> Evidence:
    """One request body is the whole file: stored as evidence only when every byte arrived, else nothing is kept.

    ``content_length`` None reads the stream to its end (a chunked body whose end the server marks, a file).
    """
    upload = start_upload(user=user, incident=incident, filename=filename, length=content_length, resumable=False)
    body = Body(stream=stream, length=content_length)
    key = upload.id.hex
    try:
        with _staging(upload) as part:
            appender = Appender(
                part,
                start=0,
                end=content_length if content_length is not None else settings.MAX_UPLOAD_BYTES,
                part_bytes=settings.UPLOAD_PART_BYTES,
                chunk_size=settings.UPLOAD_CHUNK_BYTES,
                hasher=HASHES.take(key, 0),
                on_part=lambda pos: _progress(upload, pos),
            )
            appender.copy(body, exact_end=content_length is not None)
            return _finish(upload=upload, part=part, hasher=appender.hasher, size=appender.pos)
    except BaseException:
        _drop(upload)
        raise


def _progress(upload: Upload, pos: int) -> None:
    """A one-shot body passed a part: note how far it got (its quota reservation when its length is unknown,
    and a sign of life for the reaper), and stop it when that takes the team past its quota or fills the disk."""
    Upload.objects.filter(pk=upload.pk).update(offset=pos, updated_at=timezone.now())
    if upload.length is None:  # its reservation is what it has received, now counted in the database
        _check_quota(team_id=upload.incident.team_id, more=0)
    _check_disk(settings.UPLOAD_PART_BYTES)


def append(*, upload: Upload, offset: int, body: Body) -> Upload:
    """Append one PATCH body to a resumable upload at ``offset``; finish it when its last byte is in.

    Bytes are kept up to where the body ended; a body cut off mid-way (the client gone, a timeout, a full disk)
    keeps only its whole parts, so the upload resumes from a part boundary. Raises ``UploadRefused``
    subclasses (409 wrong offset, 413 past the length, 423 another request writing, 507 no room).
    """
    key = upload.id.hex
    with _staging(upload) as part:
        upload.refresh_from_db()  # the offset may have moved while another request held the file
        if offset != upload.offset:
            raise OffsetMismatch(
                f"This upload stands at byte {upload.offset:,}, not {offset:,}: ask HEAD for Upload-Offset and "
                "send from there."
            )
        assert upload.length is not None
        if upload.evidence_id is not None or (offset == upload.length and not body.length):
            return _finish_again(upload=upload, part=part)
        if body.length is not None and offset + body.length > upload.length:
            raise UploadTooLarge(
                f"This body runs to byte {offset + body.length:,}, past the upload's length of {upload.length:,}."
            )
        _check_disk(body.length if body.length is not None else settings.UPLOAD_PART_BYTES)
        appender = Appender(
            part,
            start=offset,
            end=upload.length,
            part_bytes=settings.UPLOAD_PART_BYTES,
            chunk_size=settings.UPLOAD_CHUNK_BYTES,
            hasher=HASHES.take(key, offset),
        )
        try:
            appender.copy(body, exact_end=False)
        except BaseException:
            _keep(upload=upload, part=part, offset=appender.boundary, hasher=appender.boundary_hash)
            raise
        _keep(upload=upload, part=part, offset=appender.pos, hasher=appender.hasher)
        if appender.pos == upload.length:
            _finish(upload=upload, part=part, hasher=appender.hasher, size=appender.pos)
    return upload


def _keep(*, upload: Upload, part: Staging, offset: int, hasher: Any | None) -> None:
    """Make the first ``offset`` bytes durable and the upload's new offset; anything after them goes."""
    part.keep(offset)
    upload.offset = offset
    upload.save(update_fields=["offset", "updated_at"])
    HASHES.keep(upload.id.hex, offset, hasher)


def _finish_again(*, upload: Upload, part: Staging) -> Upload:
    """An upload whose bytes were all in when its request died before recording it, or one already recorded."""
    if upload.evidence_id is None:
        _finish(upload=upload, part=part, hasher=HASHES.take(upload.id.hex, upload.offset), size=upload.offset)
    return upload


def finish_if_complete(*, upload: Upload) -> Upload:
    """Record the evidence of an upload whose every byte is in but whose request died first (idempotent)."""
    if upload.evidence_id is None and upload.resumable and upload.offset == upload.length:
        with _staging(upload) as part:
            upload.refresh_from_db()
            return _finish_again(upload=upload, part=part)
    return upload


def _finish(*, upload: Upload, part: Staging, hasher: Any | None, size: int) -> Evidence:
    """Put the complete file in place, then record it as evidence and queue its analysis once that commits."""
    store = blobs.store()
    storage_name = part.place()
    try:
        if hasher is None:  # resumed in another process: hash the stored file once, now (decisions 0009, 0017)
            logger.info("upload %s was resumed in another process: hashing its %s bytes again", upload.id, f"{size:,}")
            with store.open(storage_name) as stored:
                hasher = blobs.sha256_of(stored, chunk_size=settings.UPLOAD_CHUNK_BYTES)
        sha256 = hasher.hexdigest()
        head = blobs.head_of(store, storage_name)
        detected = detected_kind(head=head, open_file=lambda: store.open(storage_name, block=blobs.SNIFF_BYTES))
        incident = upload.incident
        with transaction.atomic():
            evidence = Evidence.objects.create(
                incident=incident,
                filename=upload.filename,
                storage_name=storage_name,
                size=size,
                sha256=sha256,
                kind=detected,
                detected_kind=detected,
                uploaded_by=upload.created_by,
            )
            upload.evidence = evidence
            upload.offset = size
            upload.save(update_fields=["evidence", "offset", "updated_at"])
            record_event(
                incident=incident,
                kind=EventKind.EVIDENCE_UPLOADED,
                actor=upload.created_by,
                summary=f"Uploaded {evidence.filename} ({size:,} bytes, {detected})",
                data={"evidence": evidence.pk, "sha256": sha256, "kind": detected},
            )
            signals.send(signals.needs_reading, evidence=evidence)
    except BaseException:
        part.unplace(storage_name)  # the bytes go back where a retry can finish them
        upload.evidence = None
        raise
    HASHES.forget(upload.id.hex)
    return evidence


def end_upload(*, upload: Upload) -> None:
    """Termination: the client gives up; its bytes and its reservation go (423 while a request still writes)."""
    key = upload.id.hex
    with _staging(upload) as part:
        part.remove()
        upload.delete()
    HASHES.forget(key)


def _drop(upload: Upload) -> None:
    """A one-shot upload that failed: nothing of it stays."""
    blobs.store().staging(upload.id.hex).remove()
    Upload.objects.filter(pk=upload.pk).delete()
    HASHES.forget(upload.id.hex)


def expires_at(upload: Upload) -> dt.datetime:
    """When the reaper may remove this upload if nothing more arrives (tus ``Upload-Expires``)."""
    return upload.updated_at + dt.timedelta(seconds=settings.UPLOAD_STALE_SECONDS)


def reap_uploads(*, now: dt.datetime | None = None) -> int:
    """Remove unfinished uploads idle past UPLOAD_STALE_SECONDS and part files no upload owns; how many went.

    A part file being written (locked) is left for the next sweep; a finished upload's row goes too (its
    evidence stays), once the client has had as long to read its result.
    """
    now = now or timezone.now()
    stale = now - dt.timedelta(seconds=settings.UPLOAD_STALE_SECONDS)
    removed = 0
    store = blobs.store()
    for upload in Upload.objects.filter(updated_at__lt=stale):
        if upload.evidence_id is None and not store.try_remove(upload.id.hex):
            continue
        upload.delete()
        removed += 1
    known = {u.hex for u in Upload.objects.values_list("id", flat=True)}
    for orphan in store.reap_orphans(known=known, idle_seconds=settings.UPLOAD_STALE_SECONDS, now=now.timestamp()):
        logger.info("removed orphaned upload bytes %s", orphan)
        removed += 1
    return removed
