"""Uploads are exact or refused, resumable (tus 1.0), bounded by size, quota and disk, and reaped when abandoned.

These run in-process with Django's test client (bodies are file-like objects standing in for the socket); the
same behaviours against a real gunicorn with curl are in ``test_upload_http.py``.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from evidence import blobs
from evidence.models import Evidence, Upload
from evidence.storage import HASHES
from evidence.uploads import reap_uploads
from tests.conftest import DATA, client_for

MIB = 1024 * 1024
TUS = {"HTTP_TUS_RESUMABLE": "1.0.0"}


@pytest.fixture(autouse=True)
def small_parts(settings: Any) -> None:
    settings.UPLOAD_PART_BYTES = MIB
    settings.UPLOAD_CHUNK_BYTES = 256 * 1024


def files_in(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def upload_url(incident: Any) -> str:
    return f"/api/incidents/{incident.pk}/evidence/upload/?filename=client.pcap"


def one_shot(client: Any, incident: Any, stream: Any, **extra: Any) -> Any:
    """A POST whose body is ``stream`` and whose environ says what ``extra`` says (a lying Content-Length...)."""
    return client.generic(
        "POST", upload_url(incident), b"", content_type="application/octet-stream", **{"wsgi.input": stream, **extra}
    )


def chunked(client: Any, incident: Any, body: bytes) -> Any:
    """A chunked body with no length, de-chunked by the server, which marks its end (as gunicorn does)."""
    extra = {"CONTENT_LENGTH": "", "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input_terminated": True}
    return one_shot(client, incident, io.BytesIO(body), **extra)


# --- one-shot: exact or refused -------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_refuses_a_body_shorter_than_its_content_length_and_keeps_nothing(
    owner: User, incident: Any, evidence_dir: Path
) -> None:
    body = os.urandom(3 * MIB)
    response = one_shot(client_for(owner), incident, io.BytesIO(body), CONTENT_LENGTH=str(5 * MIB))
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    assert "ended after 3,145,728 of the 5,242,880 bytes" in response.json()["detail"]
    assert Evidence.objects.count() == 0 and Upload.objects.count() == 0
    assert files_in(evidence_dir) == []


@pytest.mark.django_db
def test_it_reads_a_chunked_body_to_the_end_the_server_marks(owner: User, incident: Any) -> None:
    body = (DATA / "retransmit-fast009.pcap").read_bytes() * 3
    response = chunked(client_for(owner), incident, body)
    assert response.status_code == 201, response.content
    assert response.json()["size"] == len(body)
    assert response.json()["sha256"] == hashlib.sha256(body).hexdigest()


@pytest.mark.django_db
def test_it_answers_411_with_how_to_send_to_a_chunked_body_it_cannot_read_to_the_end(
    owner: User, incident: Any
) -> None:
    chunked = one_shot(
        client_for(owner), incident, io.BytesIO(b"abc"), CONTENT_LENGTH="", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert chunked.status_code == 411
    assert "curl -T" in chunked.json()["detail"] and "resumable" in chunked.json()["detail"]
    assert Evidence.objects.count() == 0
    # Neither a length nor chunked: by HTTP/1.1 the request has no body, an empty file (its analysis says so).
    empty = one_shot(client_for(owner), incident, io.BytesIO(b"not a body"), CONTENT_LENGTH="")
    assert empty.status_code == 201 and empty.json()["size"] == 0


@pytest.mark.django_db
def test_it_refuses_an_upload_past_the_team_quota_with_507(
    owner: User, incident: Any, settings: Any, evidence_dir: Path
) -> None:
    client: Any = client_for(owner)
    settings.TEAM_QUOTA_BYTES = 3 * MIB
    first = client.post(upload_url(incident), os.urandom(2 * MIB), content_type="application/octet-stream")
    assert first.status_code == 201
    second = client.post(upload_url(incident), os.urandom(2 * MIB), content_type="application/octet-stream")
    assert second.status_code == 507
    assert "quota of 3,145,728 bytes" in second.json()["detail"]
    # A chunked body says no length: it is stopped while it streams, at the first part past the quota.
    streamed = chunked(client, incident, os.urandom(2 * MIB))
    assert streamed.status_code == 507
    assert Evidence.objects.count() == 1 and Upload.objects.filter(evidence__isnull=True).count() == 0
    assert len(files_in(evidence_dir)) == 1


@pytest.mark.django_db
def test_it_refuses_one_file_over_the_size_limit_with_413_before_reading_it(
    owner: User, incident: Any, settings: Any
) -> None:
    settings.MAX_UPLOAD_BYTES = MIB
    response = client_for(owner).post(upload_url(incident), b"x" * (MIB + 1), content_type="application/octet-stream")
    assert response.status_code == 413 and "limit is 1,048,576" in response.json()["detail"]


# --- the disk fills up: 507, nothing half-written ----------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path, settings: Any) -> Iterator[Path]:
    """EVIDENCE_DIR on a 6 MiB tmpfs (root only), unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], check=True)
    settings.EVIDENCE_DIR = mount / "evidence"
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.django_db
def test_it_answers_507_when_the_disk_fills_and_leaves_nothing_half_written(
    owner: User, incident: Any, small_disk: Path, settings: Any
) -> None:
    client: Any = client_for(owner)
    declared = client.post(upload_url(incident), os.urandom(8 * MIB), content_type="application/octet-stream")
    assert declared.status_code == 507 and "disk has" in declared.json()["detail"]
    # No length to check first, and no part boundary (where the free space is checked) before the disk fills:
    # the write itself fails with ENOSPC while the body streams.
    settings.UPLOAD_PART_BYTES = 64 * MIB
    streamed = chunked(client, incident, os.urandom(8 * MIB))
    assert streamed.status_code == 507, streamed.content
    assert "disk is full" in streamed.json()["detail"]
    assert files_in(small_disk) == []
    assert Evidence.objects.count() == 0 and Upload.objects.count() == 0
    # And the disk works again afterwards.
    ok = client.post(upload_url(incident), os.urandom(MIB), content_type="application/octet-stream")
    assert ok.status_code == 201


# --- resumable uploads (tus 1.0) ------------------------------------------------------------------------


def create(client: Any, incident: Any, length: int, name: str = "big.pcap", **extra: Any) -> Any:
    encoded = base64.b64encode(name.encode()).decode()
    return client.post(
        f"/api/incidents/{incident.pk}/evidence/uploads/",
        HTTP_UPLOAD_LENGTH=str(length),
        HTTP_UPLOAD_METADATA=f"filename {encoded},filetype YXBwbGljYXRpb24vb2N0ZXQtc3RyZWFt",
        **{**TUS, **extra},
    )


def patch(client: Any, location: str, offset: int, body: bytes, declared: int | None = None) -> Any:
    return client.generic(
        "PATCH",
        location,
        b"",
        content_type="application/offset+octet-stream",
        HTTP_UPLOAD_OFFSET=str(offset),
        CONTENT_LENGTH=str(len(body) if declared is None else declared),
        **{**TUS, "wsgi.input": io.BytesIO(body)},
    )


def offset_of(client: Any, location: str) -> int:
    response = client.head(location, **TUS)
    assert response.status_code == 200, response.content
    assert response["Tus-Resumable"] == "1.0.0" and response["Cache-Control"] == "no-store"
    return int(response["Upload-Offset"])


@pytest.mark.django_db
def test_it_takes_a_resumable_upload_in_pieces_and_records_it_with_its_hash(owner: User, incident: Any) -> None:
    client: Any = client_for(owner)
    body = (DATA / "retransmit-fast009.pcap").read_bytes()
    body = body + os.urandom(3 * MIB)
    created = create(client, incident, len(body))
    assert created.status_code == 201, created.content
    location = created["Location"]
    assert location.startswith("http://testserver/api/incidents/") and "Upload-Expires" in created
    assert offset_of(client, location) == 0
    first = patch(client, location, 0, body[:1000])
    assert first.status_code == 204 and first["Upload-Offset"] == "1000"
    assert client.get(location).json()["evidence"] is None
    last = patch(client, location, 1000, body[1000:])
    assert last.status_code == 204 and last["Upload-Offset"] == str(len(body))
    status = client.get(location).json()
    evidence = Evidence.objects.get(pk=status["evidence"])
    assert (evidence.size, evidence.sha256) == (len(body), hashlib.sha256(body).hexdigest())
    assert evidence.filename == "big.pcap" and evidence.kind == "capture"
    assert evidence.path.read_bytes() == body
    assert offset_of(client, location) == len(body)


@pytest.mark.django_db
@pytest.mark.parametrize("same_process", [True, False], ids=["hash-kept", "hash-again"])
def test_it_keeps_whole_parts_of_a_cut_off_patch_and_resumes_to_the_right_hash(
    owner: User, incident: Any, same_process: bool
) -> None:
    client: Any = client_for(owner)
    body = os.urandom(5 * MIB + 12345)
    location = create(client, incident, len(body))["Location"]
    # The connection drops at ~70 %: the body stops short of the Content-Length it declared.
    cut = patch(client, location, 0, body[: int(len(body) * 0.7)], declared=len(body))
    assert cut.status_code == 400
    kept = offset_of(client, location)
    assert kept == 3 * MIB  # the whole parts before the drop (parts are 1 MiB here)
    if not same_process:
        HASHES.forget(Upload.objects.get().id.hex)  # as when the resume lands on another web worker
    assert patch(client, location, 0, body).status_code == 409  # a resume from the wrong offset
    assert patch(client, location, kept, body[kept:]).status_code == 204
    evidence = Evidence.objects.get()
    assert evidence.sha256 == hashlib.sha256(body).hexdigest() and evidence.size == len(body)


@pytest.mark.django_db
def test_it_answers_the_tus_refusals_as_json(owner: User, incident: Any, settings: Any) -> None:
    client: Any = client_for(owner)
    url = f"/api/incidents/{incident.pk}/evidence/uploads/"
    options = client.options(url)
    assert options.status_code == 204 and options["Tus-Version"] == "1.0.0"
    assert set(options["Tus-Extension"].split(",")) == {"creation", "termination", "expiration"}
    no_version = client.post(url, HTTP_UPLOAD_LENGTH="10", HTTP_UPLOAD_METADATA="filename eA==")
    assert no_version.status_code == 412 and "Tus-Resumable" in no_version.json()["detail"]
    assert create(client, incident, 10, name="").status_code == 400
    settings.MAX_UPLOAD_BYTES = 100
    assert create(client, incident, 101).status_code == 413
    settings.TEAM_QUOTA_BYTES = 50
    assert create(client, incident, 60).status_code == 507
    location = create(client, incident, 40)["Location"]
    wrong_type = client.generic(
        "PATCH", location, b"x", content_type="application/octet-stream", HTTP_UPLOAD_OFFSET="0", **TUS
    )
    assert wrong_type.status_code == 415
    assert patch(client, location, 0, b"x" * 41).status_code == 413
    assert patch(client, location, 5, b"x").status_code == 409
    with blobs.store().staging(Upload.objects.get().id.hex):  # another request is writing it
        assert patch(client, location, 0, b"x").status_code == 423
        assert client.head(location, **TUS).status_code == 423
    assert client.delete(location, **TUS).status_code == 204
    assert client.head(location, **TUS).status_code == 404
    assert not Upload.objects.exists() and not list(Path(settings.EVIDENCE_DIR).rglob("*.part"))


@pytest.mark.django_db
def test_it_counts_a_resumable_uploads_whole_length_against_the_quota_until_it_completes(
    owner: User, incident: Any, settings: Any
) -> None:
    client: Any = client_for(owner)
    settings.TEAM_QUOTA_BYTES = 3 * MIB
    location = create(client, incident, 2 * MIB)["Location"]
    refused = client.post(upload_url(incident), os.urandom(2 * MIB), content_type="application/octet-stream")
    assert refused.status_code == 507 and "reserved by unfinished uploads" in refused.json()["detail"]
    assert patch(client, location, 0, os.urandom(2 * MIB)).status_code == 204
    finished = client.delete(location, **TUS)
    assert finished.status_code == 409 and "evidence" in finished.json()["detail"]


# --- reaping ------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_reaps_stale_uploads_and_orphaned_part_files_but_not_live_ones(
    owner: User, incident: Any, settings: Any, evidence_dir: Path
) -> None:
    client: Any = client_for(owner)
    stale = Upload.objects.get(id=create(client, incident, 10)["Location"].rstrip("/").rsplit("/", 1)[1])
    patch(client, f"/api/incidents/{incident.pk}/evidence/uploads/{stale.id}/", 0, b"12345")
    live = Upload.objects.get(id=create(client, incident, 10)["Location"].rstrip("/").rsplit("/", 1)[1])
    busy = Upload.objects.get(id=create(client, incident, 10)["Location"].rstrip("/").rsplit("/", 1)[1])
    old = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=settings.UPLOAD_STALE_SECONDS + 5)
    Upload.objects.filter(pk__in=[stale.pk, busy.pk]).update(updated_at=old)
    orphan = evidence_dir / "incoming" / "0123456789abcdef0123456789abcdef.part"  # a web worker killed mid-body
    orphan.write_bytes(b"x" * 100)
    os.utime(orphan, (old.timestamp(), old.timestamp()))
    fresh_orphan = evidence_dir / "incoming" / "fedcba9876543210fedcba9876543210.part"
    fresh_orphan.write_bytes(b"x")
    assert stale.part_path.exists()
    with blobs.store().staging(busy.id.hex):  # a request still writes it: left for the next sweep
        assert reap_uploads() == 2
    assert not stale.part_path.exists() and not orphan.exists()
    assert fresh_orphan.exists() and busy.part_path.exists()
    assert set(Upload.objects.values_list("id", flat=True)) == {live.id, busy.id}
    assert reap_uploads() == 1


def test_it_schedules_the_reaper_in_beat(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["reap-stale-uploads"]
    assert entry["task"] == "evidence.reap_uploads" and entry["schedule"] == settings.UPLOAD_REAP_SECONDS


# --- a gzip bomb ends as a failed analysis, early ---------------------------------------------------------------


@pytest.mark.django_db
def test_it_fails_the_analysis_of_a_gzip_bomb_early_with_a_clear_error(
    owner: User, incident: Any, tmp_path: Path
) -> None:
    import struct
    import time
    import zlib

    from analysis import services
    from analysis.models import AnalysisRun
    from evidence.uploads import receive_upload

    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)  # a pcap header, then 8 GiB of zeros
    member = deflate.compress(header) + b"".join(deflate.compress(bytes(MIB)) for _ in range(64)) + deflate.flush()
    bomb = member + gzip.compress(bytes(64 * MIB), compresslevel=9) * 127  # members of 64 MiB each
    evidence = receive_upload(
        user=owner, incident=incident, filename="bomb.pcap.gz", stream=io.BytesIO(bomb), content_length=len(bomb)
    )
    started = time.monotonic()
    services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    elapsed = time.monotonic() - started
    run = AnalysisRun.objects.get(evidence=evidence)
    assert run.status == "failed", (run.status, run.error)
    assert run.error.startswith("refused as a gzip bomb") and "offset counted in the gzip file" in run.error
    assert run.error_offset is not None and run.error_offset < len(bomb)
    assert elapsed < 10, elapsed
    assert incident.events.filter(kind="analysis_failed", summary__contains="gzip bomb").exists()
