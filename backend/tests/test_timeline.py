"""The timeline's keyset pages: newest first, "load earlier", and a live cursor that never stalls or skips."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections, transaction
from django.utils import timezone

from incidents.models import EventKind, TimelineEvent
from incidents.services import add_note
from tests.conftest import client_for


def page(client: Any, incident: Any, **cursor: str) -> dict[str, Any]:
    response = client.get(f"/api/incidents/{incident.pk}/timeline/", cursor)
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def opened_at(incident: Any) -> dt.datetime:
    """When the incident's first event was written: in a test's one transaction, "now" for every write."""
    return TimelineEvent.objects.get(incident=incident, kind=EventKind.INCIDENT_OPENED).created_at


def add_events(incident: Any, count: int, *, start: dt.datetime | None = None, step_us: int = 1000) -> None:
    """``count`` events, ``step_us`` apart from ``start`` (0: all at one instant, as one transaction writes)."""
    start = start or timezone.now() - dt.timedelta(hours=1)
    TimelineEvent.objects.bulk_create(
        [
            TimelineEvent(
                incident=incident,
                kind=EventKind.NOTE,
                summary=f"event {n}",
                created_at=start + dt.timedelta(microseconds=n * step_us),
            )
            for n in range(count)
        ],
        batch_size=5000,
    )


@pytest.mark.django_db
def test_it_opens_on_the_newest_events_and_loads_earlier_pages_back_to_the_first(owner: User, incident: Any) -> None:
    add_events(incident, 1200)
    client = client_for(owner)

    newest = page(client, incident)
    kinds = [e["kind"] for e in newest["events"]]
    summaries = [e["summary"] for e in newest["events"]]
    # The events were dated an hour back; the incident was opened now, so its event is the newest.
    assert summaries[0] == "event 701" and summaries[-2] == "event 1199" and kinds[-1] == "incident_opened"
    assert newest["earlier"] is not None

    before = page(client, incident, before=newest["earlier"])
    assert [e["summary"] for e in before["events"]][::499] == ["event 201", "event 700"]
    first = page(client, incident, before=before["earlier"])
    assert [e["summary"] for e in first["events"]][::200] == ["event 0", "event 200"]
    assert first["earlier"] is None


@pytest.mark.django_db
def test_it_never_stalls_when_more_than_a_page_of_events_share_one_instant(owner: User, incident: Any) -> None:
    client = client_for(owner)
    cursor = page(client, incident)["next"]
    add_events(incident, 1700, start=opened_at(incident), step_us=0)

    seen: list[int] = []
    for _ in range(6):
        body = page(client, incident, after=cursor)
        seen += [e["id"] for e in body["events"]]
        cursor = body["next"]
        if not body["more"]:
            break

    assert len(seen) == 1700 and len(set(seen)) == 1700
    assert page(client, incident, after=cursor)["events"] == []


@pytest.mark.django_db
def test_it_refuses_a_cursor_it_did_not_issue_or_issued_for_another_incident(
    owner: User, team: Any, incident: Any
) -> None:
    from incidents.services import open_incident

    other = open_incident(user=owner, team=team, title="other", symptom="", severity="sev4", started_at=timezone.now())
    client = client_for(owner)
    foreign = page(client, other)["next"]

    assert client.get(f"/api/incidents/{incident.pk}/timeline/", {"after": "42"}).status_code == 400
    assert client.get(f"/api/incidents/{incident.pk}/timeline/", {"after": foreign}).status_code == 400
    newest = page(client, incident)
    assert client.get(f"/api/incidents/{incident.pk}/timeline/", {"before": newest["next"]}).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_it_delivers_an_event_whose_transaction_commits_after_a_newer_one_was_read(
    owner: User, teammate: User, incident: Any
) -> None:
    client = client_for(owner)
    cursor = page(client, incident)["next"]
    inside, release, done = threading.Event(), threading.Event(), threading.Event()

    def slow_writer() -> None:
        # A transaction that starts first and commits last: its event sorts before the quick one.
        try:
            with transaction.atomic():
                add_note(user=teammate, incident=incident, text="slow")
                inside.set()
                release.wait(20)
        finally:
            connections.close_all()
            done.set()

    threading.Thread(target=slow_writer).start()
    assert inside.wait(20)
    add_note(user=owner, incident=incident, text="quick")

    first = page(client, incident, after=cursor)
    assert [e["summary"] for e in first["events"]] == ["quick"]
    release.set()
    assert done.wait(20)
    second = page(client, incident, after=first["next"])

    assert [e["summary"] for e in second["events"]] == ["slow"]
    slow, quick = TimelineEvent.objects.get(summary="slow"), TimelineEvent.objects.get(summary="quick")
    assert (slow.created_at, slow.pk) < (quick.created_at, quick.pk)
    assert page(client, incident, after=second["next"])["events"] == []


@pytest.mark.django_db
def test_it_reads_100000_events_with_a_fixed_number_of_queries_per_page(
    owner: User, incident: Any, django_assert_max_num_queries: Any
) -> None:
    add_events(incident, 100_000)
    client = client_for(owner)

    # One query more than the rows need: the incident is looked up with its checklist steps.
    with django_assert_max_num_queries(7):
        newest = page(client, incident)
    assert newest["events"][-2]["summary"] == "event 99999"
    with django_assert_max_num_queries(7):
        earlier = page(client, incident, before=newest["earlier"])
    assert earlier["events"][0]["summary"] == "event 99001"
    add_events(incident, 1000, start=opened_at(incident), step_us=1)
    cursor, seen = newest["next"], 0
    while True:
        with django_assert_max_num_queries(8):
            body = page(client, incident, after=cursor)
        seen += len(body["events"])
        cursor = body["next"]
        if not body["more"]:
            break
    assert seen == 1000
    plan = "\n".join(
        row[0]
        for row in _explain(
            f"SELECT id FROM incidents_timelineevent WHERE incident_id = {incident.pk} AND (created_at, id) > "
            f"(now() - interval '2 seconds', 0) ORDER BY created_at, id LIMIT 501"
        )
    )
    assert "timeline_keyset" in plan, plan


def _explain(sql: str) -> list[tuple[str]]:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE incidents_timelineevent")
        cursor.execute("EXPLAIN " + sql)
        return list(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_a_live_reader_keeps_up_with_1000_events_a_second_and_sees_each_once(owner: User, incident: Any) -> None:
    # A writer commits 50 events every 50 ms (1,000 a second, in separate transactions, the database setting
    # each one's time) for 4 s while a reader polls as the console does: again at once while the server says
    # there is more, otherwise once a second.
    stop = threading.Event()
    written: list[str] = []

    def writer() -> None:
        try:
            n = 0
            while not stop.is_set():
                with transaction.atomic():
                    TimelineEvent.objects.bulk_create(
                        [TimelineEvent(incident=incident, kind=EventKind.NOTE, summary=f"e{n + i}") for i in range(50)]
                    )
                written.extend(f"e{n + i}" for i in range(50))
                n += 50
                stop.wait(0.05)
        finally:
            connections.close_all()

    client = client_for(owner)
    cursor = page(client, incident)["next"]
    seen: list[str] = []
    lags: list[float] = []
    thread = threading.Thread(target=writer)
    thread.start()
    started = timezone.now()
    try:
        while (timezone.now() - started).total_seconds() < 4:
            body = page(client, incident, after=cursor)
            seen += [e["summary"] for e in body["events"]]
            if body["events"]:
                newest = dt.datetime.fromisoformat(body["events"][-1]["created_at"])
                lags.append((timezone.now() - newest).total_seconds())
            cursor = body["next"]
            if not body["more"]:
                stop.wait(1.0)
    finally:
        stop.set()
        thread.join(20)
    while True:  # the writer has stopped: one catch-up round, as the console's next poll makes
        body = page(client, incident, after=cursor)
        seen += [e["summary"] for e in body["events"]]
        cursor = body["next"]
        if not body["more"]:
            break
    print(f"\n{len(written)} events in 4 s; the reader's lag behind the newest: max {max(lags):.2f} s")
    assert len(written) >= 2000  # the writer did write at about 1,000 a second (≥ half of it on a loaded machine)
    assert seen == written  # every event once, in the order written
