"""Every error the API answers is JSON, including the ones Django (not DRF) answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.conftest import client_for


@pytest.mark.django_db
def test_it_answers_a_json_413_to_an_oversized_json_body_on_every_write(
    owner: User, incident: Any, settings: Any
) -> None:
    client = client_for(owner)
    big = {"text": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}
    for method, url in [
        ("post", f"/api/incidents/{incident.pk}/notes/"),
        ("patch", f"/api/incidents/{incident.pk}/"),
        ("post", "/api/incidents/"),
        ("post", "/api/auth/login/"),
    ]:
        response = getattr(client, method)(url, big, format="json")
        assert response.status_code == 413, (url, response.status_code, response.content[:200])
        assert response["Content-Type"] == "application/json"
        assert "larger than 2,621,440 bytes" in response.json()["detail"]


@pytest.mark.django_db
def test_it_answers_json_for_errors_django_answers_itself(owner: User, settings: Any) -> None:
    client = client_for(owner)
    missing = client.get("/api/no-such-route/")
    assert missing.status_code == 404 and missing.json() == {"detail": "Not found."}
    bad_host = client.get("/api/incidents/", HTTP_HOST="evil.example")
    assert bad_host.status_code == 400 and bad_host["Content-Type"] == "application/json"
    assert client.get("/no-such-page/").status_code in (200, 404)  # the app's own routes are not JSON errors


@pytest.mark.django_db
def test_it_answers_a_json_500_when_a_view_crashes(owner: User, incident: Any, monkeypatch: Any) -> None:
    from incidents import views

    def crash(*_: Any, **__: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(views.IncidentDetailView, "get", crash)
    client = client_for(owner)
    client.raise_request_exception = False
    response = client.get(f"/api/incidents/{incident.pk}/")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert "boom" not in response.content.decode()
