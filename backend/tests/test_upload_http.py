"""Uploads and evidence reads against a real gunicorn (config/gunicorn.py), with real curl and raw sockets.

What a client does to a body — stops short and half-closes, pipes it chunked, dies mid-way, resumes it — is
only real over a real connection; so is the memory a web worker needs to read a 2 GB line or a gzip bomb.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from evidence.models import Evidence, Upload
from tests.web import WebProcess
from tests.worker import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed"),
]

MIB = 1024 * 1024


@pytest.fixture
def web(evidence_dir: Path, tmp_path: Path) -> Iterator[WebProcess]:
    process = WebProcess(evidence_dir=evidence_dir, log_dir=tmp_path).start()
    yield process
    process.stop()


@pytest.fixture
def token(owner: User) -> str:
    return str(Token.objects.create(user=owner).key)


def random_file(path: Path, size: int) -> str:
    """Write ``size`` random bytes; their sha256."""
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        left = size
        while left:
            block = os.urandom(min(left, 4 * MIB))
            digest.update(block)
            out.write(block)
            left -= len(block)
    return digest.hexdigest()


def curl(*args: str, stdin: Any = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["curl", "--silent", "--show-error", *args], stdin=stdin, capture_output=True, text=True)


def received(evidence_dir: Path) -> int:
    """Bytes the server has written so far into uploads in progress (their part files)."""
    total = 0
    for part in evidence_dir.rglob("*.part"):
        with contextlib.suppress(FileNotFoundError):  # finished (renamed) or removed meanwhile
            total += part.stat().st_size
    return total


def nothing_kept(evidence_dir: Path) -> bool:
    files = [p for p in evidence_dir.rglob("*") if p.is_file()] if evidence_dir.exists() else []
    return not files and not Upload.objects.exists() and not Evidence.objects.exists()


def test_it_refuses_a_body_that_stops_short_and_half_closes(
    web: WebProcess, token: str, incident: Any, evidence_dir: Path
) -> None:
    declared, sent = 40 * MIB, 20 * MIB
    with socket.create_connection(("127.0.0.1", web.port)) as sock:
        sock.sendall(
            (
                f"PUT /api/incidents/{incident.pk}/evidence/upload/?filename=cut.pcap HTTP/1.1\r\n"
                f"Host: 127.0.0.1\r\nAuthorization: Token {token}\r\n"
                f"Content-Type: application/octet-stream\r\nContent-Length: {declared}\r\n\r\n"
            ).encode()
        )
        block = os.urandom(MIB)
        for _ in range(sent // MIB):
            sock.sendall(block)
        sock.shutdown(socket.SHUT_WR)  # the sender is done: fewer bytes than it declared
        sock.settimeout(30)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer[:300]
    assert b"application/json" in head
    assert "ended after 20,971,520 of the 41,943,040 bytes" in json.loads(body)["detail"]
    assert nothing_kept(evidence_dir)


def test_it_stores_a_chunked_body_from_a_pipe_whole(web: WebProcess, token: str, incident: Any, tmp_path: Path) -> None:
    source = tmp_path / "capture.bin"
    sha256 = random_file(source, 12 * MIB + 7)
    url = f"{web.url}/api/incidents/{incident.pk}/evidence/upload/?filename=piped.pcap"
    with open(source, "rb") as pipe_in:
        cat = subprocess.Popen(["cat"], stdin=pipe_in, stdout=subprocess.PIPE)
        result = curl("--fail", "-H", f"Authorization: Token {token}", "-T", "-", url, stdin=cat.stdout)
        cat.wait()
    assert result.returncode == 0, result.stderr + web.logs()
    evidence = json.loads(result.stdout)
    assert (evidence["size"], evidence["sha256"]) == (12 * MIB + 7, sha256)


def test_it_keeps_nothing_of_a_client_killed_mid_upload(
    web: WebProcess, token: str, incident: Any, tmp_path: Path, evidence_dir: Path
) -> None:
    source = tmp_path / "big.bin"
    random_file(source, 64 * MIB)
    client = subprocess.Popen(
        [
            "curl",
            "--silent",
            "--limit-rate",
            "4M",
            "-H",
            f"Authorization: Token {token}",
            "-T",
            str(source),
            f"{web.url}/api/incidents/{incident.pk}/evidence/upload/?filename=killed.pcap",
        ]
    )
    # Killed once the server holds a quarter of the body: 12 s before it could have all of it.
    wait_for(lambda: received(evidence_dir) >= 16 * MIB, timeout=60, what="16 MiB of the upload to arrive")
    client.send_signal(signal.SIGKILL)
    client.wait()
    wait_for(lambda: nothing_kept(evidence_dir), timeout=20, what="the cut-off upload to leave nothing")


def test_it_resumes_an_upload_with_plain_curl_after_the_client_dies(
    web: WebProcess, token: str, incident: Any, tmp_path: Path, evidence_dir: Path
) -> None:
    size = 40 * MIB + 123
    source = tmp_path / "big.pcap"
    sha256 = random_file(source, size)
    auth = ["-H", f"Authorization: Token {token}", "-H", "Tus-Resumable: 1.0.0"]
    created = curl(
        "--fail",
        "-i",
        "-X",
        "POST",
        *auth,
        "-H",
        f"Upload-Length: {size}",
        "-H",
        "Upload-Metadata: filename YmlnLnBjYXA=",
        f"{web.url}/api/incidents/{incident.pk}/evidence/uploads/",
    )
    assert created.returncode == 0, created.stderr
    location = next(
        line.split(":", 1)[1].strip() for line in created.stdout.splitlines() if line.lower().startswith("location:")
    )
    patch = ["-X", "PATCH", *auth, "-H", "Content-Type: application/offset+octet-stream"]
    client = subprocess.Popen(
        ["curl", "--silent", "--limit-rate", "4M", *patch, "-H", "Upload-Offset: 0", "-T", str(source), location]
    )
    # Killed once the server holds 16 of the 40 MiB: 6 s before it could have all of it.
    wait_for(lambda: received(evidence_dir) >= 16 * MIB, timeout=60, what="16 MiB of the upload to arrive")
    client.send_signal(signal.SIGKILL)
    client.wait()

    def offset() -> int | None:
        """The kept offset, or None while the cut-off PATCH is still being closed on the server (423)."""
        head = curl("-I", *auth, location)
        code = int(head.stdout.split(None, 2)[1])
        if code == 423:
            return None
        assert code == 200, head.stdout
        return int(next(v for k, v in _headers(head.stdout) if k == "upload-offset")) or None

    kept = wait_for(offset, timeout=20, what="the kept offset", worker=web)
    assert kept % (8 * MIB) == 0 and 0 < kept < size
    wrong = curl(*patch, "-H", "Upload-Offset: 0", "-T", str(source), "-w", "%{http_code}", "-o", "/dev/null", location)
    assert wrong.stdout == "409"
    # The README's resume: send the rest of the file from the kept offset.
    resumed = curl("--fail", *patch, "-H", f"Upload-Offset: {kept}", "-C", str(kept), "-T", str(source), location)
    assert resumed.returncode == 0, resumed.stderr + web.logs()
    status = json.loads(curl("--fail", *auth, location).stdout)
    evidence = Evidence.objects.get(pk=status["evidence"])
    assert (evidence.size, evidence.sha256) == (size, sha256)


def _headers(text: str) -> list[tuple[str, str]]:
    return [
        (key.strip().lower(), value.strip())
        for key, sep, value in (line.partition(":") for line in text.splitlines())
        if sep
    ]


# --- bounded reads: the web worker's memory whatever the file holds --------------------------------------


def stored(incident: Any, owner: User, evidence_dir: Path, name: str, make: Any) -> Evidence:
    """Evidence whose file ``make(path)`` writes in place (no upload needed to test reading it)."""
    evidence = Evidence(
        incident=incident, filename=name, storage_name=uuid.uuid4().hex, size=0, sha256="0" * 64, kind="strace",
        detected_kind="strace", uploaded_by=owner,
    )  # fmt: skip
    evidence.path.parent.mkdir(parents=True, exist_ok=True)
    make(evidence.path)
    evidence.size = evidence.path.stat().st_size
    evidence.save()
    return evidence


def zero_bomb(path: Path, gib: int) -> None:
    """A gzip that inflates to ``gib`` GiB of zeros (no newline): one 1 GiB member, written ``gib`` times."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(MIB)
    member = b"".join(deflate.compress(block) for _ in range(1024)) + deflate.flush()
    with open(path, "wb") as out:
        for _ in range(gib):
            out.write(member)


def test_it_reads_lines_of_a_2_gb_line_and_a_20_gb_bomb_in_bounded_memory(
    web: WebProcess, token: str, incident: Any, owner: User, evidence_dir: Path
) -> None:
    def one_long_line(path: Path) -> None:
        with open(path, "wb") as out:
            out.write(b"first " * 10)
            out.truncate(2 * 1024**3)  # sparse: 2 GiB of zeros, and no newline anywhere
            out.seek(0, os.SEEK_END)
            out.write(b"\nsecond line\n")

    long_line = stored(incident, owner, evidence_dir, "long.strace", one_long_line)
    bomb = stored(incident, owner, evidence_dir, "bomb.strace.gz", lambda path: zero_bomb(path, 20))
    base = f"{web.url}/api/incidents/{incident.pk}/evidence/"
    auth = ["-H", f"Authorization: Token {token}"]
    before = web.peak_rss()

    first = json.loads(curl("--fail", *auth, base + f"{long_line.pk}/lines/?start=1&end=1").stdout)
    assert first["lines"][0]["text"].startswith("first first") and len(first["lines"][0]["text"]) == 4000
    second = json.loads(curl("--fail", *auth, base + f"{long_line.pk}/lines/?start=2&end=2").stdout)
    assert second["lines"] == [{"number": 2, "text": "second line"}]
    cut = json.loads(curl("--fail", *auth, base + f"{bomb.pk}/lines/?start=1&end=1").stdout)
    assert len(cut["lines"][0]["text"]) == 4000
    refused = curl(*auth, "-w", "\n%{http_code}", base + f"{bomb.pk}/lines/?start=2&end=2")
    body, _, code = refused.stdout.rpartition("\n")
    assert code == "422" and "gzip bomb" in json.loads(body)["detail"]
    download = curl("--fail", *auth, "-o", "/dev/null", "-w", "%{size_download}", base + f"{bomb.pk}/download/")
    assert int(download.stdout) == bomb.size

    peak = web.peak_rss()
    print(f"web worker peak RSS: {before / MIB:.0f} MiB before, {peak / MIB:.0f} MiB after the reads")
    assert peak - before < 48 * MIB, (before, peak)
