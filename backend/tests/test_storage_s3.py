"""Evidence in a real S3-compatible store (SeaweedFS): uploads as multipart uploads, reads, downloads, deletes.

In-process with Django's test client against a real ``weed server -s3``; the same against a real gunicorn and
real Celery workers (two of them, sharing no folder) is in ``test_storage_s3_processes.py``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import AnalysisRun
from evidence import blobs, s3
from evidence.models import Evidence, Upload
from evidence.s3 import S3Error
from evidence.storage import HASHES
from evidence.uploads import reap_uploads, receive_upload
from tests.conftest import DATA, client_for
from tests.s3server import BUCKET

MIB = 1024 * 1024
PART = 5 * MIB  # S3's smallest part: SeaweedFS does not insist, AWS does
TUS = {"HTTP_TUS_RESUMABLE": "1.0.0"}

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def s3_parts(settings: Any, s3_store: Any) -> None:
    settings.UPLOAD_PART_BYTES = PART
    settings.UPLOAD_CHUNK_BYTES = 256 * 1024


def files_in(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def stored_bytes(server: Any, name: str) -> bytes:
    return server.client().get_object(Bucket=BUCKET, Key=blobs.blob_key(name))["Body"].read()  # type: ignore[no-any-return]


def multipart_of(server: Any, upload_id: str) -> list[str]:
    key = blobs.blob_key(upload_id)
    return [u["UploadId"] for u in server.multipart_uploads() if u["Key"] == key]


def create(client: Any, incident: Any, length: int, name: str = "capture.pcap") -> Any:
    encoded = base64.b64encode(name.encode()).decode()
    return client.post(
        f"/api/incidents/{incident.pk}/evidence/uploads/",
        HTTP_UPLOAD_LENGTH=str(length),
        HTTP_UPLOAD_METADATA=f"filename {encoded}",
        **TUS,
    )


def patch(client: Any, location: str, offset: int, body: Any, length: int | None = None) -> Any:
    stream = body if not isinstance(body, bytes) else io.BytesIO(body)
    size = length if length is not None else len(body)
    return client.generic(
        "PATCH",
        location,
        b"",
        content_type="application/offset+octet-stream",
        HTTP_UPLOAD_OFFSET=str(offset),
        CONTENT_LENGTH=str(size),
        **{"wsgi.input": stream},
        **TUS,
    )


class CutOff(io.RawIOBase):
    """A body that delivers ``deliver`` bytes of ``data`` and then fails, as a dropped connection does."""

    def __init__(self, data: bytes, deliver: int) -> None:
        self.data = data
        self.deliver = deliver
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        if self.pos >= self.deliver:
            raise ConnectionResetError("the client went away")
        chunk = self.data[self.pos : min(self.pos + n, self.deliver)]
        self.pos += len(chunk)
        return chunk


def test_a_one_shot_upload_goes_to_the_store_in_parts_and_nothing_to_disk(
    owner: User, incident: Any, s3_store: Any, evidence_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    body = os.urandom(2 * PART + 12345)  # two whole parts and a last, short one
    response = client_for(owner).post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=big.bin", body, content_type="application/octet-stream"
    )
    assert response.status_code == 201, response.content
    evidence = Evidence.objects.get()
    assert evidence.sha256 == hashlib.sha256(body).hexdigest() and evidence.size == len(body)
    assert stored_bytes(s3_store, evidence.storage_name) == body
    assert files_in(evidence_dir) == []  # not a byte on the web host's disk
    assert not multipart_of(s3_store, evidence.storage_name)  # completed, not left open
    # Deleting the evidence (here with its incident) takes its bytes out of the store.
    with django_capture_on_commit_callbacks(execute=True):
        incident.delete()
    assert blobs.store().size(evidence.storage_name) is None


def test_a_compressible_capture_is_kept_as_sent_so_reads_cost_the_store_no_inflating(
    owner: User, incident: Any, s3_store: Any
) -> None:
    """SeaweedFS gzips a chunk it is given without a content type when its first bytes compress, and inflates it on
    every read (a 386 MB capture cost it 2.6 s of CPU to serve, against 0.65 s kept as sent). Uploads name their
    type, so each stored chunk comes back from the volume server as it was sent, not gzip-encoded."""
    capture = (DATA / "loopback-scenarios.pcap").read_bytes()
    body = capture * (2 * PART // len(capture) + 2)  # packet headers and payloads over and over: compresses well
    url = f"/api/incidents/{incident.pk}/evidence/upload/?filename=big.pcap"
    response = client_for(owner).post(url, body, content_type="application/octet-stream")
    assert response.status_code == 201, response.content
    key = blobs.blob_key(Evidence.objects.get().storage_name)
    assert s3_store.client().head_object(Bucket=BUCKET, Key=key)["ContentType"] == s3.OBJECT_TYPE
    filer, volume = s3_store.ports["filer"], s3_store.ports["volume"]
    with urllib.request.urlopen(f"http://127.0.0.1:{filer}/buckets/{BUCKET}/{key}?metadata=true") as answer:
        chunks = json.load(answer)["chunks"]
    assert len(chunks) >= 3
    for chunk in chunks:
        asked = urllib.request.Request(
            f"http://127.0.0.1:{volume}/{chunk['file_id']}", headers={"Accept-Encoding": "gzip"}
        )
        with urllib.request.urlopen(asked) as answer:
            assert answer.headers.get("Content-Encoding") is None
            assert len(answer.read()) == int(chunk["size"])
    assert stored_bytes(s3_store, Evidence.objects.get().storage_name) == body


def test_a_one_shot_body_that_stops_short_leaves_nothing_in_the_store(
    owner: User, incident: Any, s3_store: Any
) -> None:
    keys_before, open_before = set(s3_store.keys()), {m["UploadId"] for m in s3_store.multipart_uploads()}
    body = os.urandom(PART + MIB)
    client: Any = client_for(owner)
    response = client.generic(
        "POST",
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=cut.bin",
        b"",
        content_type="application/octet-stream",
        **{"wsgi.input": io.BytesIO(body[: PART + 10]), "CONTENT_LENGTH": str(len(body))},
    )
    assert response.status_code == 400
    assert not Upload.objects.exists() and not Evidence.objects.exists()
    # The whole part that had gone up went with its multipart upload (aborted); no object was made.
    assert set(s3_store.keys()) == keys_before
    assert {m["UploadId"] for m in s3_store.multipart_uploads()} == open_before


def test_a_resumable_upload_is_one_multipart_upload_continued_across_requests_and_cut_offs(
    owner: User, incident: Any, s3_store: Any, evidence_dir: Path
) -> None:
    client: Any = client_for(owner)
    body = os.urandom(2 * PART + 3 * MIB)
    location = create(client, incident, len(body))["Location"]
    upload_id = location.rsplit("/", 1)[1].replace("-", "")

    # A PATCH that ends inside the first part keeps every byte: they wait as the saved partial part.
    assert patch(client, location, 0, body[: 3 * MIB]).status_code == 204
    assert s3_store.keys(f"incoming/{upload_id}")
    # The next one fills part 1 (uploaded) and ends inside part 2.
    assert patch(client, location, 3 * MIB, body[3 * MIB : 7 * MIB])["Upload-Offset"] == str(7 * MIB)
    first = multipart_of(s3_store, upload_id)
    assert len(first) == 1
    # A PATCH cut off after 4.5 MiB more (past the part 2 boundary at 10 MiB) keeps only up to that boundary.
    cut = CutOff(body[7 * MIB :], deliver=4 * MIB + MIB // 2)
    assert patch(client, location, 7 * MIB, cut, length=len(body) - 7 * MIB).status_code == 400
    assert client.head(location, **TUS)["Upload-Offset"] == str(2 * PART)
    assert multipart_of(s3_store, upload_id) == first  # the same multipart upload, resumed

    # The resume lands on a process that lost the streaming hash: the stored object is hashed once, read back.
    HASHES.forget(upload_id)
    done = patch(client, location, 2 * PART, body[2 * PART :])
    assert done.status_code == 204 and done["Upload-Offset"] == str(len(body))
    evidence = Evidence.objects.get()
    assert evidence.sha256 == hashlib.sha256(body).hexdigest()
    assert stored_bytes(s3_store, evidence.storage_name) == body
    assert not multipart_of(s3_store, upload_id) and not s3_store.keys(f"incoming/{upload_id}")
    assert files_in(evidence_dir) == []


def test_termination_and_the_reaper_abort_multipart_uploads(
    owner: User, incident: Any, s3_store: Any, settings: Any
) -> None:
    import datetime as dt

    client: Any = client_for(owner)
    ended = create(client, incident, 3 * PART)["Location"]
    patch(client, ended, 0, os.urandom(PART + 100))
    ended_id = ended.rsplit("/", 1)[1].replace("-", "")
    assert multipart_of(s3_store, ended_id) and s3_store.keys(f"incoming/{ended_id}")
    assert client.delete(ended, **TUS).status_code == 204
    assert not multipart_of(s3_store, ended_id) and not s3_store.keys(f"incoming/{ended_id}")

    stale = create(client, incident, 3 * PART)["Location"]
    patch(client, stale, 0, os.urandom(PART + 100))
    stale_id = stale.rsplit("/", 1)[1].replace("-", "")
    live = create(client, incident, 3 * PART)["Location"]
    patch(client, live, 0, os.urandom(PART))
    live_id = live.rsplit("/", 1)[1].replace("-", "")
    old = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=settings.UPLOAD_STALE_SECONDS + 5)
    Upload.objects.filter(pk=stale_id).update(updated_at=old)
    # A multipart upload no row owns (a web host lost with its database row): aborted once it is that old.
    orphan = s3_store.client().create_multipart_upload(Bucket=BUCKET, Key=blobs.blob_key("ab" * 16))["UploadId"]
    # Another application's multipart upload in the same bucket: never ours to abort.
    foreign = s3_store.client().create_multipart_upload(Bucket=BUCKET, Key="backups/db.tar")["UploadId"]
    # The stale upload goes (its multipart upload aborted); the orphan is still young, the live one left.
    assert reap_uploads(now=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)) == 1
    assert not multipart_of(s3_store, stale_id) and not s3_store.keys(f"incoming/{stale_id}")
    assert multipart_of(s3_store, live_id) and orphan in multipart_of(s3_store, "ab" * 16)
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=settings.UPLOAD_STALE_SECONDS + 5)
    Upload.objects.filter(pk=live_id).update(updated_at=dt.datetime.now(dt.UTC))
    removed = reap_uploads(now=later)  # the live upload is stale by then too
    assert not multipart_of(s3_store, "ab" * 16) and removed >= 2
    assert foreign in [u["UploadId"] for u in s3_store.multipart_uploads() if u["Key"] == "backups/db.tar"]
    s3_store.client().abort_multipart_upload(Bucket=BUCKET, Key="backups/db.tar", UploadId=foreign)


def test_downloads_lines_and_text_analyses_read_from_the_store(
    owner: User, incident: Any, s3_store: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client: Any = client_for(owner)
    text = "".join(f"net.ipv4.tcp_rmem{i} = 4096 131072 6291456\n" for i in range(1, 2001)).encode()
    response = client.post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=sysctl.txt",
        text,
        content_type="application/octet-stream",
    )
    evidence = Evidence.objects.get(pk=response.json()["id"])
    download = client.get(f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/download/")
    assert download.status_code == 200
    assert download["Content-Disposition"].startswith("attachment") and download["X-Content-Type-Options"] == "nosniff"
    assert int(download["Content-Length"]) == len(text)
    assert b"".join(download.streaming_content) == text
    lines = client.get(f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/lines/?start=1999&end=2000").json()
    assert [line["text"] for line in lines["lines"]] == [
        "net.ipv4.tcp_rmem1999 = 4096 131072 6291456",
        "net.ipv4.tcp_rmem2000 = 4096 131072 6291456",
    ]

    # Text kinds read the object as a stream too: no scratch copy is made (one would fail the run here).
    def no_copy(*_: Any, **__: Any) -> Any:
        raise AssertionError("a text analysis asked for a local copy")

    monkeypatch.setattr(blobs.S3Store, "local_copy", no_copy)
    services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    run = AnalysisRun.objects.get(evidence=evidence)
    assert run.status == "done" and run.summary, run.error
    assert evidence.kind == "sysctl"
    assert scratch_is_empty(settings)


def scratch_is_empty(settings: Any) -> bool:
    scratch = Path(settings.SCRATCH_DIR)
    return not scratch.exists() or not list(scratch.iterdir())


def test_a_capture_in_the_store_is_analysed_and_graphed_from_a_stream(
    owner: User, incident: Any, s3_store: Any, settings: Any
) -> None:
    with open(DATA / "loopback-scenarios.pcap", "rb") as stream:
        evidence = receive_upload(user=owner, incident=incident, filename="lo.pcap", stream=stream, content_length=None)
    services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    run = AnalysisRun.objects.get(evidence=evidence)
    assert run.status == "done", run.error
    assert scratch_is_empty(settings)  # read as a stream: nothing copied
    client: Any = client_for(owner)
    page = client.get(f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/connections/?limit=500").json()
    oracle = (DATA / "loopback-scenarios.pcap.tcp_streams.tsv").read_text().splitlines()
    assert page["count"] == len([line for line in oracle if line and not line.startswith(("#", "stream"))])
    series = client.get(f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/connections/0/time-sequence/").json()
    assert series["sender"] == "server"
    assert sum(series["seg_len"]) >= 309248  # tshark: the server sent 309,248 payload bytes
    # the packets behind a finding, and their pcap, are read from the store too (ranged reads, no copy)
    base = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/connections/0/"
    packets = client.get(base + "packets/?limit=1000").json()["packets"]
    assert packets and packets[0]["number"] == 1 and "SYN" in packets[0]["flags"]
    response = client.get(base + "packets.pcap")
    assert response.status_code == 200
    pcap = b"".join(response.streaming_content)
    assert pcap[:4] == bytes.fromhex("d4c3b2a1") and len(pcap) > 24 + 16 * len(packets)
    assert scratch_is_empty(settings)


def test_the_stream_reader_reads_ranges_with_read_ahead_and_seeks(s3_store: Any) -> None:
    data = os.urandom(3 * MIB + 17)
    s3_store.client().put_object(Bucket=BUCKET, Key=blobs.blob_key("cd" * 16), Body=data)
    store = blobs.store()
    with store.open("cd" * 16, block=MIB) as stream:
        assert stream.read(10) == data[:10]
        assert stream.read() == data[10:]
        stream.seek(2 * MIB - 5)
        assert stream.read(10) == data[2 * MIB - 5 : 2 * MIB + 5]
        assert stream.seek(0, io.SEEK_END) == len(data)
    with store.local_copy("cd" * 16) as path:
        assert path.read_bytes() == data and path.is_relative_to(Path(str(store.scratch_dir)))  # type: ignore[attr-defined]
    assert not path.exists() and not list(Path(str(store.scratch_dir)).iterdir())  # type: ignore[attr-defined]
    assert DATA.exists()


def test_the_move_command_copies_local_evidence_into_the_store_and_verifies_every_sha256(
    owner: User, incident: Any, s3_store: Any, settings: Any, evidence_dir: Path
) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    settings.STORAGE = "local"  # evidence uploaded while the console kept it in the local folder
    bodies = [os.urandom(PART + 1000 * i) for i in range(3)]
    for i, body in enumerate(bodies):
        client_for(owner).post(
            f"/api/incidents/{incident.pk}/evidence/upload/?filename=f{i}",
            body,
            content_type="application/octet-stream",
        )
    rows = list(Evidence.objects.order_by("id"))
    damaged = rows[2]
    local = blobs.LocalStore(evidence_dir)
    local.path(damaged.storage_name).write_bytes(b"not what was uploaded")

    settings.STORAGE = "s3"
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 file"):
        call_command("move_evidence_to_store", "--delete-local", stdout=out, stderr=err)
    assert "2 moved, 0 already in the store, 1 failed" in out.getvalue()
    assert "does not match its recorded sha256" in err.getvalue()
    for row, body in zip(rows[:2], bodies[:2], strict=True):
        assert stored_bytes(s3_store, row.storage_name) == body
        assert local.size(row.storage_name) is None  # verified, then deleted locally
    assert blobs.store().size(damaged.storage_name) is None and local.size(damaged.storage_name) is not None

    # Run again after the damaged file is dealt with: the moved ones are only verified.
    local.path(damaged.storage_name).write_bytes(bodies[2])
    out = io.StringIO()
    call_command("move_evidence_to_store", stdout=out)
    assert "1 moved, 2 already in the store, 0 failed" in out.getvalue()


def test_an_unreachable_store_answers_503_with_retry_after_and_keeps_nothing(
    owner: User, incident: Any, s3_store: Any, settings: Any
) -> None:
    from tests.web import free_port

    settings.S3_ENDPOINT_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    body = os.urandom(PART + 10)
    response = client_for(owner).post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=down.bin",
        body,
        content_type="application/octet-stream",
    )
    assert response.status_code == 503 and response["Retry-After"]
    assert "evidence store is unreachable" in response.json()["detail"]
    assert not Evidence.objects.exists()


def test_requests_are_signed_as_aws_s_published_sigv4_examples() -> None:
    """The store checks every signature in the tests above; these are AWS's own worked examples (GET with a
    range, a listing with a query, a PUT with a signed body), so a signer that only one server accepts fails."""
    import datetime as dt

    from evidence.s3 import EMPTY_SHA256, Keys, sign

    keys = Keys("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    host = {"Host": "examplebucket.s3.amazonaws.com"}
    at = dt.datetime(2013, 5, 24, tzinfo=dt.UTC)

    def signature(method: str, path: str, query: str, headers: dict[str, str], payload: str) -> str:
        signed = sign(
            keys, method=method, path=path, query=query, headers=headers, payload=payload, region="us-east-1", now=at
        )
        return signed["Authorization"].rsplit("Signature=", 1)[1]

    assert signature("GET", "/test.txt", "", {**host, "Range": "bytes=0-9"}, EMPTY_SHA256) == (
        "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )
    assert signature("GET", "/", "max-keys=2&prefix=J", host, EMPTY_SHA256) == (
        "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
    )
    put = {**host, "Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"}
    assert signature("PUT", "/test%24file.text", "", put, hashlib.sha256(b"Welcome to Amazon S3.").hexdigest()) == (
        "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
    )


def test_without_configured_keys_the_store_is_reached_with_the_environment_s_credentials(
    s3_store: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """botocore's credential chain (here: the environment; on a cloud host, its role) when no keys are set."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", settings.S3_ACCESS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", settings.S3_SECRET_ACCESS_KEY)
    settings.S3_ACCESS_KEY_ID = settings.S3_SECRET_ACCESS_KEY = ""
    store = blobs.store()
    store.client.put("ef/" + "ef" * 16, b"from the chain")  # type: ignore[attr-defined]
    assert stored_bytes(s3_store, "ef" * 16) == b"from the chain"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    settings.S3_REGION = "eu-west-1"  # another configuration: a new client, with the wrong secret from the chain
    with pytest.raises(S3Error, match="403"):
        blobs.store().size("ef" * 16)


def test_two_captures_in_the_store_are_matched_across_the_incident(
    owner: User, incident: Any, s3_store: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two-capture matching (a client's and a server's capture of the same traffic) re-reads both files: from
    the store it reads them as streams, copying nothing to the worker's disk, and finds what the CLI finds."""
    from analysis.models import Finding
    from whodunnet.engine import analyze

    client = (DATA / "loopback-scenarios.pcap").read_bytes()
    offset = 24
    for _ in range(40):  # the server's capture point never saw the 41st packet (a data segment)
        offset += 16 + int.from_bytes(client[offset + 8 : offset + 12], "little")
    end = offset + 16 + int.from_bytes(client[offset + 8 : offset + 12], "little")
    server = client[:offset] + client[end:]

    def no_copy(*_: Any, **__: Any) -> Any:
        raise AssertionError("the matching asked for a local copy")

    monkeypatch.setattr(blobs.S3Store, "local_copy", no_copy)
    for name, data in (("server.pcap", server), ("client.pcap", client)):
        evidence = receive_upload(
            user=owner, incident=incident, filename=name, stream=io.BytesIO(data), content_length=None
        )
        services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    services.correlate(incident_id=incident.pk)
    (matched,) = Finding.objects.filter(correlation__incident=incident, kind__startswith="path.")
    folder = Path(settings.SCRATCH_DIR).parent / "cli"
    folder.mkdir()
    (folder / "client.pcap").write_bytes(client)
    (folder / "server.pcap").write_bytes(server)
    (cli,) = [
        f for f in analyze([folder / "client.pcap", folder / "server.pcap"]).findings if f.kind.startswith("path.")
    ]
    assert (matched.kind, matched.title) == (cli.kind, cli.title)
    assert matched.kind == "path.loss_between_captures" and matched.data["only_in_a"] == 1
    assert scratch_is_empty(settings)
