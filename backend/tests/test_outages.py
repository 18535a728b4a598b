"""A broker or database outage: committed writes answer 2xx and their work runs later; the rest is a JSON 503."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.db import connection

from analysis.models import AnalysisRun
from config.celery import app
from evidence.models import Evidence
from outbox import services as outbox
from outbox.models import Message
from tests.conftest import DATA, client_for
from tests.outage import Broker, DatabaseDoor
from tests.worker import WorkerProcess, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker of this test's own, so stopping it leaves the other tests' broker alone."""
    own = Broker(tmp_path / "valkey").start()
    saved = app.conf.broker_url
    use_broker(own.url)
    yield own
    own.stop()
    use_broker(saved)


def use_broker(url: str) -> None:
    app.conf.update(broker_url=url, broker_write_url=url, broker_read_url=url)
    # The producer pools are bound to the URL they were made with: drop them (Celery has no public reset).
    app.__dict__["_pool"] = None
    app.amqp.__dict__["_producer_pool"] = None


def upload(client: Any, incident: Any, name: str) -> Any:
    return client.post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename={name}",
        (DATA / "retransmit-fast009.pcap").read_bytes(),
        content_type="application/octet-stream",
    )


def test_it_sends_a_committed_task_to_the_broker_and_empties_the_outbox(broker: Broker, owner: User, incident: Any):
    response = upload(client_for(owner), incident, "client.pcap")

    assert response.status_code == 201
    assert not Message.objects.exists()
    assert redis.Redis.from_url(broker.url).llen("analysis") == 1


@pytest.mark.worker
def test_it_keeps_an_upload_made_while_the_broker_is_down_and_analyses_it_when_the_broker_is_back(
    broker: Broker, owner: User, incident: Any, evidence_dir: Path, tmp_path: Path
) -> None:
    broker.stop()
    client = client_for(owner)

    started = time.monotonic()
    response = upload(client, incident, "client.pcap")
    took = time.monotonic() - started

    assert response.status_code == 201, response.content
    assert took < 5, f"the answer waited {took:.1f} s for a broker that is down"
    assert Evidence.objects.count() == 1  # a client that got 201 has no reason to send it again
    message = Message.objects.get()
    assert message.task == "analysis.analyze_evidence"
    assert message.attempts == 1
    run = AnalysisRun.objects.get()
    assert run.status == "queued"

    broker.start()
    worker = WorkerProcess(
        kind="analysis", evidence_dir=evidence_dir, log_dir=tmp_path, extra_env={"CELERY_BROKER_URL": broker.url}
    ).start()
    try:
        # The worker relays the outbox as it starts: no beat, no reconciler needed.
        wait_for(lambda: AnalysisRun.objects.get(pk=run.pk).status == "done", timeout=90, what="run", worker=worker)
        # Its correlation goes through the outbox too, sent by the worker as its transaction commits.
        wait_for(lambda: not Message.objects.exists(), timeout=30, what="an empty outbox", worker=worker)
    finally:
        worker.stop()
    assert Evidence.objects.count() == 1


def test_it_answers_a_patch_made_while_the_broker_is_down_and_relays_it_later(
    broker: Broker, owner: User, incident: Any
) -> None:
    client = client_for(owner)
    evidence_id = upload(client, incident, "client.pcap").json()["id"]
    broker.stop()

    response = client.patch(f"/api/incidents/{incident.pk}/evidence/{evidence_id}/", {"kind": "capture"}, format="json")

    assert response.status_code == 200, response.content
    assert Message.objects.count() == 1
    assert outbox.relay_pending() == 0  # still down: nothing sent, nothing lost
    assert Message.objects.get().attempts == 2

    broker.start()
    assert outbox.relay_pending() == 1
    assert not Message.objects.exists()
    assert redis.Redis.from_url(broker.url).llen("analysis") == 2  # the upload's run and the correction's


def test_it_relays_each_message_once_when_two_relays_race(broker: Broker, owner: User, incident: Any) -> None:
    broker.stop()
    upload(client_for(owner), incident, "client.pcap")
    message = Message.objects.get()
    broker.start()

    assert outbox.relay(message_ids=[message.pk]) == 1
    assert outbox.relay(message_ids=[message.pk]) == 0
    assert outbox.relay_pending() == 0


@pytest.fixture
def door() -> Iterator[DatabaseDoor]:
    """Point Django's connection at a TCP door to the test database, which the test can shut."""
    settings = connection.settings_dict
    socket_path = f"{settings['HOST']}/.s.PGSQL.{settings.get('PORT') or 5432}"
    door = DatabaseDoor(socket_path).open()
    saved = dict(settings)
    connection.close()
    settings.update(HOST="127.0.0.1", PORT=str(door.port))
    yield door
    door.close()
    connection.close()
    settings.clear()
    settings.update(saved)


def test_it_answers_json_503_with_retry_after_when_the_database_is_unreachable(
    door: DatabaseDoor, owner: User, incident: Any
) -> None:
    client = client_for(owner)
    client.raise_request_exception = False
    assert client.get(f"/api/incidents/{incident.pk}/timeline/").status_code == 200

    door.close()
    for method, url, body in [
        ("get", f"/api/incidents/{incident.pk}/timeline/", None),
        ("post", f"/api/incidents/{incident.pk}/notes/", {"text": "anyone?"}),
        ("get", "/api/incidents/", None),
    ]:
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 503, (url, response.status_code, response.content[:200])
        assert response["Content-Type"] == "application/json"
        assert response["Retry-After"] == "5"
        assert "database" in response.json()["detail"]

    door.open()
    connection.close()
    assert client.get(f"/api/incidents/{incident.pk}/timeline/").status_code == 200


def test_it_answers_json_503_when_a_middleware_finds_the_database_unreachable(
    door: DatabaseDoor, owner: User, client: Any
) -> None:
    # A browser session: the session middleware and DRF's session auth read the database before any view does.
    client.force_login(owner)
    client.raise_request_exception = False
    door.close()

    response = client.get("/api/auth/me/")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["detail"].startswith("The database is unreachable")
