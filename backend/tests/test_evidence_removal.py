"""A team takes a file out of an investigation: excluded from the analysis (its card stays), or deleted (gone
at once, restorable until the grace period ends, then its bytes and rows are removed); each on the timeline."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from analysis import services
from analysis.models import AnalysisRun, Finding
from evidence.models import Evidence
from evidence.services import purge_deleted
from evidence.uploads import receive_upload
from outbox.models import Message
from tests.conftest import client_for

DEMO = Path(__file__).resolve().parents[2] / "demo" / "receiver-drops"


def upload_and_analyse(incident: Any, user: User, name: str) -> Evidence:
    with open(DEMO / name, "rb") as stream:
        evidence = receive_upload(user=user, incident=incident, filename=name, stream=stream, content_length=None)
    services.execute_run(run_id=AnalysisRun.objects.filter(evidence=evidence).latest("id").pk)
    return evidence


@pytest.fixture
def drops(owner: User, incident: Any) -> dict[str, Evidence]:
    """The receiver-drops demo's server side: nstat and nft before and after, and the client's latencies."""
    names = ["server-nstat-before.txt", "server-nstat-after.txt", "server-nft-before.txt", "server-nft-after.txt"]
    files = {name: upload_and_analyse(incident, owner, name) for name in [*names, "client-latency.csv"]}
    services.correlate(incident_id=incident.pk)
    return files


def checklist_kinds(user: User, incident: Any) -> set[str]:
    steps = client_for(user).get(f"/api/incidents/{incident.pk}/checklist/").json()
    return {f["kind"] for step in steps for f in step["findings"]}


def correlation_queued(incident: Any) -> bool:
    return Message.objects.filter(task="analysis.correlate_incident", args=[incident.pk]).exists()


@pytest.mark.django_db
def test_it_says_on_each_card_what_the_file_shows(teammate: User, incident: Any, drops: dict[str, Evidence]) -> None:
    cards = {c["filename"]: c for c in client_for(teammate).get(f"/api/incidents/{incident.pk}/evidence/").json()}
    # A snapshot pair: both cards say what changed between them, not the totals since boot.
    assert cards["server-nstat-after.txt"]["meaning"] == "nstat: +15 retransmitted segments of 1,503 sent"
    assert cards["server-nstat-before.txt"]["meaning"] == "nstat: +15 retransmitted segments of 1,503 sent"
    assert cards["server-nft-after.txt"]["meaning"] == "nft list ruleset: 1 rule, 1 dropping, +15 packets dropped"
    assert cards["client-latency.csv"]["meaning"] == "1,500 latency samples (column latency_ms, in ms)"
    one = client_for(teammate).get(f"/api/incidents/{incident.pk}/evidence/{drops['server-nft-before.txt'].pk}/")
    assert one.json()["meaning"] == "nft list ruleset: 1 rule, 1 dropping, +15 packets dropped"


@pytest.mark.django_db
def test_it_leaves_an_excluded_files_findings_out_until_it_is_included_again(
    owner: User, teammate: User, incident: Any, drops: dict[str, Evidence]
) -> None:
    latency = drops["client-latency.csv"]
    url = f"/api/incidents/{incident.pk}/evidence/{latency.pk}/"
    assert "latency.timer_signature" in checklist_kinds(owner, incident)
    Message.objects.all().delete()

    answer = client_for(teammate).patch(url, {"excluded": True}, format="json")

    assert answer.status_code == 200 and answer.json()["excluded"] is True
    assert "latency.timer_signature" not in checklist_kinds(owner, incident)
    findings = client_for(owner).get(f"/api/incidents/{incident.pk}/findings/").json()
    assert latency.pk not in {f["evidence"] for f in findings}
    assert "client-latency.csv" not in client_for(owner).get(f"/api/incidents/{incident.pk}/postmortem.md").text
    # Its card stays, saying so; the findings across evidence are recomputed without it.
    cards = client_for(owner).get(f"/api/incidents/{incident.pk}/evidence/").json()
    assert [c["excluded"] for c in cards if c["id"] == latency.pk] == [True]
    assert correlation_queued(incident)
    event = incident.events.latest("id")
    assert (event.kind, event.actor, event.summary) == (
        "evidence_changed",
        teammate,
        "client-latency.csv: excluded from the analysis",
    )

    client_for(owner).patch(url, {"excluded": False}, format="json")
    assert "latency.timer_signature" in checklist_kinds(owner, incident)
    assert incident.events.latest("id").summary == "client-latency.csv: included in the analysis again"


@pytest.mark.django_db
def test_an_excluded_snapshot_is_paired_with_nothing(owner: User, incident: Any, drops: dict[str, Evidence]) -> None:
    assert Finding.objects.filter(incident=incident, kind="host.retransmits").exists()
    client_for(owner).patch(
        f"/api/incidents/{incident.pk}/evidence/{drops['server-nstat-before.txt'].pk}/",
        {"excluded": True},
        format="json",
    )
    services.correlate(incident_id=incident.pk)
    retransmits = Finding.objects.get(incident=incident, kind="host.retransmits")
    assert retransmits.data["delta"] is False  # the after snapshot alone: totals since boot, no pair


@pytest.mark.django_db
def test_it_hides_a_deleted_file_everywhere_and_restores_it_as_it_was(
    owner: User, teammate: User, incident: Any, drops: dict[str, Evidence]
) -> None:
    latency = drops["client-latency.csv"]
    base = f"/api/incidents/{incident.pk}/evidence/"
    team = client_for(teammate)

    assert team.delete(f"{base}{latency.pk}/").status_code == 204

    assert latency.pk not in [c["id"] for c in team.get(base).json()]
    for gone in ("", "download/", "lines/?start=1&end=2"):
        assert team.get(f"{base}{latency.pk}/{gone}").status_code == 404, gone
    assert "latency.timer_signature" not in checklist_kinds(owner, incident)
    [deleted] = team.get(f"{base}deleted/").json()
    assert (deleted["id"], deleted["filename"], deleted["deleted_by"]) == (latency.pk, "client-latency.csv", "tom")
    purge_at = dt.datetime.fromisoformat(deleted["purge_at"])
    assert dt.timedelta(hours=23) < purge_at - timezone.now() <= dt.timedelta(hours=24)
    assert incident.events.latest("id").summary.startswith("client-latency.csv: deleted (it can be restored until ")

    restored = client_for(owner).post(f"{base}{latency.pk}/restore/")

    assert restored.status_code == 200 and restored.json()["filename"] == "client-latency.csv"
    assert "latency.timer_signature" in checklist_kinds(owner, incident)
    assert team.get(f"{base}deleted/").json() == []
    assert incident.events.latest("id").summary == "client-latency.csv: restored"
    assert client_for(owner).post(f"{base}{latency.pk}/restore/").status_code == 404  # not deleted (any more)


@pytest.mark.django_db
def test_it_removes_a_deleted_files_bytes_and_rows_only_after_the_grace_period(
    owner: User, incident: Any, drops: dict[str, Evidence], settings: Any
) -> None:
    latency = drops["client-latency.csv"]
    assert latency.path.exists()
    client_for(owner).delete(f"/api/incidents/{incident.pk}/evidence/{latency.pk}/")
    latency.refresh_from_db()
    assert latency.deleted_at is not None

    assert purge_deleted(now=latency.deleted_at + dt.timedelta(hours=23)) == 0
    assert latency.path.exists() and Evidence.objects.filter(pk=latency.pk).exists()

    assert purge_deleted(now=latency.deleted_at + dt.timedelta(seconds=settings.EVIDENCE_DELETE_GRACE_SECONDS + 1)) == 1

    assert not latency.path.exists()
    assert not Evidence.objects.filter(pk=latency.pk).exists()
    assert not Finding.objects.filter(evidence_id=latency.pk).exists()
    assert client_for(owner).post(f"/api/incidents/{incident.pk}/evidence/{latency.pk}/restore/").status_code == 404
    # The timeline still says it was uploaded and deleted.
    said = list(incident.events.values_list("summary", flat=True))
    assert any(s.startswith("Uploaded client-latency.csv") for s in said)
    assert any(s.startswith("client-latency.csv: deleted") for s in said)
    # The other files are untouched.
    assert all(e.path.exists() for name, e in drops.items() if name != "client-latency.csv")
