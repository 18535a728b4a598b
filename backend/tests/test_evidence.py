from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.conftest import DATA, client_for


def upload(client: Any, incident: Any, body: bytes, name: str = "client.pcap", method: str = "post") -> Any:
    return getattr(client, method)(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename={name}",
        body,
        content_type="application/octet-stream",
    )


@pytest.mark.django_db
def test_it_stores_an_upload_under_a_server_name_with_its_hash(owner: User, incident: Any, evidence_dir: Path) -> None:
    body = (DATA / "retransmit-fast009.pcap").read_bytes()
    response = upload(client_for(owner), incident, body, name="../../etc/passwd<script>.pcap")
    assert response.status_code == 201
    evidence = response.json()
    assert evidence["sha256"] == hashlib.sha256(body).hexdigest()
    assert evidence["size"] == len(body)
    assert evidence["kind"] == "capture"
    assert evidence["filename"] == "passwd<script>.pcap"
    assert evidence["analysis"]["status"] == "queued"
    stored = [p for p in evidence_dir.rglob("*") if p.is_file()]
    assert len(stored) == 1
    assert stored[0].read_bytes() == body
    assert "passwd" not in str(stored[0])


@pytest.mark.django_db
def test_it_accepts_put_as_curl_t_sends_it(owner: User, incident: Any) -> None:
    response = upload(client_for(owner), incident, b"\x1f\x8b" + b"\x00" * 30, name="x.gz", method="put")
    assert response.status_code == 201
    assert response.json()["kind"] == "gzip"


@pytest.mark.django_db
def test_it_refuses_an_upload_over_the_limit_and_keeps_nothing(
    owner: User, incident: Any, settings: Any, evidence_dir: Path
) -> None:
    settings.MAX_UPLOAD_BYTES = 1000
    response = upload(client_for(owner), incident, b"x" * 5000)
    assert response.status_code == 413
    assert "1,000" in response.json()["detail"]
    assert not [p for p in evidence_dir.rglob("*") if p.is_file()]
    assert incident.evidence.count() == 0


@pytest.mark.django_db
def test_it_serves_evidence_back_only_as_an_attachment(owner: User, incident: Any) -> None:
    client = client_for(owner)
    evidence = upload(client, incident, b"<html><script>alert(1)</script></html>", name="page.html").json()
    response = client.get(f"/api/incidents/{incident.pk}/evidence/{evidence['id']}/download/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert body == b"<html><script>alert(1)</script></html>"


@pytest.mark.django_db
def test_it_puts_the_upload_on_the_timeline(owner: User, teammate: User, incident: Any) -> None:
    upload(client_for(owner), incident, (DATA / "retransmit-fast009.pcap").read_bytes())
    events = client_for(teammate).get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]
    assert events[-1]["kind"] == "evidence_uploaded"
    assert events[-1]["actor"] == "olive"
    assert "client.pcap" in events[-1]["summary"]


@pytest.mark.django_db
def test_it_takes_the_file_name_from_the_path_as_curl_t_appends_it(owner: User, incident: Any) -> None:
    response = client_for(owner).put(
        f"/api/incidents/{incident.pk}/evidence/upload/server%20side.pcap",
        (DATA / "retransmit-fast009.pcap").read_bytes(),
        content_type="application/octet-stream",
    )
    assert response.status_code == 201
    assert response.json()["filename"] == "server side.pcap"
    assert response.json()["kind"] == "capture"


@pytest.mark.django_db
def test_it_accepts_a_browser_upload_with_a_session_and_the_csrf_header(owner: User, incident: Any) -> None:
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.get("/api/auth/csrf/")
    token = client.cookies["csrftoken"].value
    client.post(
        "/api/auth/login/", {"username": "olive", "password": "olive-pw"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    token = client.cookies["csrftoken"].value
    url = f"/api/incidents/{incident.pk}/evidence/upload/?filename=client.pcap"
    body = (DATA / "retransmit-fast009.pcap").read_bytes()
    refused = client.post(url, body, content_type="application/octet-stream")
    assert refused.status_code == 403
    accepted = client.post(url, body, content_type="application/octet-stream", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201, accepted.content
    assert accepted.json()["size"] == len(body)


@pytest.mark.django_db
def test_it_serves_numbered_lines_of_a_text_evidence_as_json(owner: User, incident: Any) -> None:
    client = client_for(owner)
    body = "".join(f"line {n} <b>not html</b>\n" for n in range(1, 1001)).encode()
    evidence = upload(client, incident, body, name="client.strace").json()
    url = f"/api/incidents/{incident.pk}/evidence/{evidence['id']}/lines/"
    response = client.get(url + "?start=10&end=12")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json()["lines"] == [{"number": n, "text": f"line {n} <b>not html</b>"} for n in (10, 11, 12)]
    capped = client.get(url + "?start=1&end=100000").json()
    assert capped["end"] == 500 and len(capped["lines"]) == 500
    assert client.get(url + "?start=0").status_code == 400
    assert client.get(url + "?start=990&end=2000").json()["lines"][-1]["number"] == 1000
