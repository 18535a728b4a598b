from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tests.conftest import client_for


@pytest.mark.django_db
def test_it_opens_an_incident_with_four_unlooked_steps_and_a_timeline_event(owner: User, team: Any) -> None:
    client = client_for(owner)
    response = client.post(
        "/api/incidents/",
        {
            "team": team.pk,
            "title": "Kafka timeouts",
            "symptom": "30 s",
            "severity": "sev2",
            "started_at": "2026-11-22T10:00:00Z",
        },
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["team"]["slug"] == "edge" and body["created_by"] == "olive" and body["status"] == "open"
    steps = client.get(f"/api/incidents/{body['id']}/checklist/").json()
    assert [s["layer"] for s in steps] == ["neighbours", "network", "application", "kernel"]
    assert {s["verdict"] for s in steps} == {"not_looked_at"}
    events = client.get(f"/api/incidents/{body['id']}/timeline/").json()["events"]
    assert [e["kind"] for e in events] == ["incident_opened"]
    assert events[0]["actor"] == "olive"


@pytest.mark.django_db
def test_it_filters_the_incident_list_by_status(owner: User, incident: Any) -> None:
    client = client_for(owner)
    client.patch(f"/api/incidents/{incident.pk}/", {"status": "resolved"}, format="json")
    assert client.get("/api/incidents/?status=open").json() == []
    assert [i["id"] for i in client.get("/api/incidents/?status=resolved").json()] == [incident.pk]
    assert client.get("/api/incidents/?status=nonsense").status_code == 400


@pytest.mark.django_db
def test_it_requires_a_rationale_to_change_a_verdict(owner: User, incident: Any) -> None:
    client = client_for(owner)
    url = f"/api/incidents/{incident.pk}/checklist/network/"
    refused = client.patch(url, {"verdict": "cleared", "rationale": "   "}, format="json")
    assert refused.status_code == 400
    assert "rationale" in refused.json()
    accepted = client.patch(url, {"verdict": "cleared", "rationale": "every packet arrived"}, format="json")
    assert accepted.status_code == 200
    assert accepted.json()["verdict"] == "cleared"
    assert accepted.json()["updated_by"] == "olive"
    last = client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"][-1]
    assert last["kind"] == "verdict_changed"
    assert last["data"] == {
        "layer": "network",
        "from": "not_looked_at",
        "to": "cleared",
        "rationale": "every packet arrived",
    }


@pytest.mark.django_db
def test_it_returns_only_newer_events_after_a_cursor(owner: User, teammate: User, incident: Any) -> None:
    first = client_for(owner).get(f"/api/incidents/{incident.pk}/timeline/").json()
    client_for(teammate).post(
        f"/api/incidents/{incident.pk}/notes/", {"text": "SYN retries on the client"}, format="json"
    )
    newer = client_for(owner).get(f"/api/incidents/{incident.pk}/timeline/", {"after": first["next"]}).json()
    assert [(e["kind"], e["actor"], e["summary"]) for e in newer["events"]] == [
        ("note", "tom", "SYN retries on the client")
    ]


@pytest.mark.django_db
def test_it_signs_in_with_a_session_and_enforces_csrf(owner: User, incident: Any) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.get("/api/auth/csrf/")
    token = client.cookies["csrftoken"].value
    bad = client.post(
        "/api/auth/login/", {"username": "olive", "password": "wrong"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert bad.status_code == 400
    ok = client.post(
        "/api/auth/login/", {"username": "olive", "password": "olive-pw"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert ok.status_code == 200 and ok.json()["teams"][0]["slug"] == "edge"
    token = client.cookies["csrftoken"].value
    without = client.post(f"/api/incidents/{incident.pk}/notes/", {"text": "hi"}, format="json")
    assert without.status_code == 403
    with_token = client.post(
        f"/api/incidents/{incident.pk}/notes/", {"text": "hi"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert with_token.status_code == 201


@pytest.mark.django_db
def test_it_accepts_an_api_token_from_scripts(owner: User, incident: Any) -> None:
    token = client_for(owner).post("/api/auth/token/").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get(f"/api/incidents/{incident.pk}/").status_code == 200
    rotated = client_for(owner).post("/api/auth/token/").json()["token"]
    assert rotated != token
    assert client.get(f"/api/incidents/{incident.pk}/").status_code in (401, 403)


@pytest.mark.django_db
def test_it_lets_a_teammate_take_the_incident_and_state_the_impact_window(
    owner: User, teammate: User, outsider: User, incident: Any
) -> None:
    client = client_for(teammate)
    url = f"/api/incidents/{incident.pk}/"
    shown = client.get(url).json()
    assert shown["owner"] is None and shown["status"] == "open"
    assert shown["members"] == ["olive", "tom"]

    changed = client.patch(
        url,
        {
            "owner": "tom",
            "status": "mitigated",
            "impact_started_at": "2026-03-01T10:04:00Z",
            "impact_ended_at": "2026-03-01T10:41:00Z",
        },
        format="json",
    )
    assert changed.status_code == 200, changed.content
    body = changed.json()
    assert body["owner"] == "tom" and body["status"] == "mitigated"
    assert body["impact_started_at"].startswith("2026-03-01T10:04:00")
    assert body["impact_ended_at"].startswith("2026-03-01T10:41:00")
    events = client.get(url + "timeline/").json()["events"]
    summary = events[-1]["summary"]
    assert "owner → tom" in summary and "status → mitigated" in summary
    assert "impact start → 2026-03-01 10:04:00 UTC" in summary and "impact end → 2026-03-01 10:41:00 UTC" in summary
    assert events[-1]["actor"] == "tom"

    # Someone outside the team cannot own it; an impact cannot end before it starts; both leave it as it was.
    assert client.patch(url, {"owner": "oscar"}, format="json").status_code == 400
    refused = client.patch(url, {"impact_ended_at": "2026-03-01T09:00:00Z"}, format="json")
    assert refused.status_code == 400 and "impact_ended_at" in refused.json()
    assert client.get(url).json()["owner"] == "tom"

    cleared = client.patch(url, {"owner": None, "impact_ended_at": None}, format="json").json()
    assert cleared["owner"] is None and cleared["impact_ended_at"] is None
    # An outsider learns nothing about the incident, not even that it exists.
    assert client_for(outsider).patch(url, {"owner": "oscar"}, format="json").status_code == 404
