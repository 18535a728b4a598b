"""Every incident-scoped endpoint: owner and teammate get in, an outsider gets 404, anonymous 403."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import AnalysisRun
from evidence.uploads import receive_upload
from tests.conftest import DATA, client_for


@pytest.fixture
def evidence(incident: Any, owner: User) -> Any:
    with open(DATA / "retransmit-fast009.pcap", "rb") as stream:
        evidence = receive_upload(
            user=owner, incident=incident, filename="client.pcap", stream=stream, content_length=None
        )
    services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    return evidence


def endpoints(incident: Any, evidence: Any) -> list[tuple[str, str, dict[str, Any] | None]]:
    base = f"/api/incidents/{incident.pk}/"
    opened = incident.events.order_by("id").first().pk
    return [
        ("get", base, None),
        ("patch", base, {"status": "mitigated"}),
        ("get", base + "checklist/", None),
        ("patch", base + "checklist/network/", {"verdict": "suspect", "rationale": "SYN retries"}),
        ("get", base + "timeline/", None),
        ("get", base + f"timeline/{opened}/", None),
        ("patch", base + f"timeline/{opened}/", {"pinned": True}),
        ("get", base + "postmortem.md", None),
        ("get", base + "postmortem.html", None),
        ("post", base + "notes/", {"text": "looking at the client capture"}),
        ("get", base + "findings/", None),
        ("get", base + "evidence/", None),
        ("get", base + f"evidence/{evidence.pk}/", None),
        ("get", base + f"evidence/{evidence.pk}/download/", None),
        ("get", base + f"evidence/{evidence.pk}/lines/?start=1&end=2", None),
        ("get", base + f"evidence/{evidence.pk}/connections/", None),
        ("get", base + f"evidence/{evidence.pk}/connections/0/", None),
        ("get", base + f"evidence/{evidence.pk}/connections/0/time-sequence/", None),
        ("get", base + f"evidence/{evidence.pk}/connections/0/packets/", None),
        ("get", base + f"evidence/{evidence.pk}/connections/0/packets.pcap", None),
        ("patch", base + f"evidence/{evidence.pk}/", {"kind": "capture"}),
        ("patch", base + f"evidence/{evidence.pk}/", {"bbr": {"min_bytes": 1000}}),
        ("patch", base + f"evidence/{evidence.pk}/", {"link_limits_bps": {"eth0": 1e10}}),
        ("patch", base + f"evidence/{evidence.pk}/", {"taken_at": "2026-11-20T10:00:00Z"}),
        ("patch", base + f"evidence/{evidence.pk}/", {"host": "client-1", "role": "client"}),
        ("patch", base + f"evidence/{evidence.pk}/", {"host": None, "role": None, "taken_at": None}),
        ("patch", base + f"evidence/{evidence.pk}/", {"excluded": True}),
        ("patch", base + f"evidence/{evidence.pk}/", {"excluded": False}),
        ("get", base + "evidence/deleted/", None),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_it_lets_the_team_use_every_incident_endpoint(who: str, request: Any, incident: Any, evidence: Any) -> None:
    client = client_for(request.getfixturevalue(who))
    for method, url, body in endpoints(incident, evidence):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code in (200, 201), (method, url, response.status_code)


@pytest.mark.django_db
def test_it_answers_not_found_to_an_outsider_on_every_incident_endpoint(
    outsider: User, incident: Any, evidence: Any
) -> None:
    client = client_for(outsider)
    for method, url, body in endpoints(incident, evidence):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 404, (method, url, response.status_code)
    upload = client.post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename=x.pcap",
        b"abc",
        content_type="application/octet-stream",
    )
    assert upload.status_code == 404
    incident.refresh_from_db()
    evidence.refresh_from_db()
    assert (evidence.host, evidence.role, evidence.taken_at, evidence.excluded) == (None, None, None, False)
    assert incident.status == "open"
    assert not incident.events.filter(kind="note").exists()
    assert not incident.events.filter(pinned=True).exists()
    assert incident.evidence.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "allowed"), [("owner", True), ("teammate", True), ("outsider", False), (None, False)])
def test_only_the_team_deletes_and_restores_evidence(
    who: str | None, allowed: bool, request: Any, incident: Any, evidence: Any
) -> None:
    client = client_for(request.getfixturevalue(who) if who else None)
    url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
    refused = 404 if who else 403
    assert client.delete(url).status_code == (204 if allowed else refused)
    evidence.refresh_from_db()
    assert (evidence.deleted_at is not None) == allowed
    if not allowed:  # the team deletes it, so that the outsider's restore has something to be refused
        client_for(request.getfixturevalue("owner")).delete(url)
    restored = client.post(url + "restore/")
    assert restored.status_code == (200 if allowed else refused)
    evidence.refresh_from_db()
    assert (evidence.deleted_at is None) == allowed


@pytest.mark.django_db
def test_it_refuses_anonymous_requests(incident: Any, evidence: Any) -> None:
    client = client_for(None)
    for method, url, body in endpoints(incident, evidence):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 403, (method, url, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["owner", "teammate", "outsider"])
def test_the_evidence_kinds_are_for_anyone_signed_in_and_nobody_else(who: str, request: Any) -> None:
    # The catalogue describes the engine, not any team's data: every signed-in user may read it.
    assert client_for(request.getfixturevalue(who)).get("/api/evidence-kinds/").status_code == 200
    assert client_for(None).get("/api/evidence-kinds/").status_code == 403


@pytest.mark.django_db
def test_it_lists_only_the_incidents_of_my_teams(owner: User, outsider: User, incident: Any) -> None:
    assert [row["id"] for row in client_for(owner).get("/api/incidents/").json()] == [incident.pk]
    assert client_for(outsider).get("/api/incidents/").json() == []


@pytest.mark.django_db
def test_it_will_not_open_an_incident_for_another_team(outsider: User, team: Any) -> None:
    response = client_for(outsider).post(
        "/api/incidents/", {"team": team.pk, "title": "x", "started_at": "2026-11-22T10:00:00Z"}, format="json"
    )
    assert response.status_code == 400
    assert "team" in response.json()


# --- resumable uploads: the team may start its own; an upload's URL answers only the one who started it ------

TUS = {"HTTP_TUS_RESUMABLE": "1.0.0"}


def start_upload(client: Any, incident: Any) -> Any:
    return client.post(
        f"/api/incidents/{incident.pk}/evidence/uploads/",
        HTTP_UPLOAD_LENGTH="3",
        HTTP_UPLOAD_METADATA="filename eC5wY2Fw",
        **TUS,
    )


def upload_calls(client: Any, location: str) -> list[Any]:
    """HEAD, GET, PATCH and DELETE on one upload, in that order."""
    return [
        client.head(location, **TUS),
        client.get(location),
        client.generic(
            "PATCH", location, b"abc", content_type="application/offset+octet-stream", HTTP_UPLOAD_OFFSET="0", **TUS
        ),
        client.delete(location, **TUS),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_it_lets_the_team_start_resumable_uploads_and_use_their_own(who: str, request: Any, incident: Any) -> None:
    client: Any = client_for(request.getfixturevalue(who))
    assert client.options(f"/api/incidents/{incident.pk}/evidence/uploads/").status_code == 204
    created = start_upload(client, incident)
    assert created.status_code == 201
    head, get, patch, delete = upload_calls(client, created["Location"])
    assert (head.status_code, get.status_code, patch.status_code) == (200, 200, 204)
    assert delete.status_code == 409  # it became evidence with that PATCH
    assert incident.evidence.get().uploaded_by == request.getfixturevalue(who)


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["teammate", "outsider"])
def test_it_answers_not_found_on_someone_elses_upload(who: str, request: Any, owner: User, incident: Any) -> None:
    location = start_upload(client_for(owner), incident)["Location"]
    statuses = [r.status_code for r in upload_calls(client_for(request.getfixturevalue(who)), location)]
    assert statuses == [404, 404, 404, 404]
    if who == "outsider":
        assert start_upload(client_for(request.getfixturevalue(who)), incident).status_code == 404
    owners: Any = client_for(owner)
    assert owners.head(location, **TUS)["Upload-Offset"] == "0"


@pytest.mark.django_db
def test_it_refuses_anonymous_resumable_uploads(owner: User, incident: Any) -> None:
    location = start_upload(client_for(owner), incident)["Location"]
    anonymous = client_for(None)
    assert start_upload(anonymous, incident).status_code == 403
    assert [r.status_code for r in upload_calls(anonymous, location)] == [403, 403, 403, 403]
