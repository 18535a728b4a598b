"""Bisect endpoints: permissions (owner, teammate, outsider, anonymous), validation, shapes, kernel tags."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from bisects.kernel import upstream_tag
from bisects.models import BisectJob, BisectStep, JobStatus, Schedule, ScheduleKind, StepStatus
from bisects.services import jobs, schedules, steps
from incidents.models import TimelineEvent
from tests.conftest import client_for

JOB = {
    "repo": "/srv/git/linux",
    "good": "v6.5.13",
    "bad": "v6.6.10",
    "path": "net/ipv4",
    "command": "./repro.sh",
    "repeats": 5,
    "rule": "metric",
    "metric": "transfer_seconds",
    "threshold": 30,
    "direction": "above_is_bad",
    "step_timeout": 1800,
}
WATCH = {
    "name": "6.x stable",
    "kind": "watch",
    "repo": "/srv/git/linux",
    "tag_pattern": "v6.*",
    "interval_minutes": 360,
    "command": "./repro.sh",
}


@pytest.fixture
def job(incident: Any, owner: User) -> BisectJob:
    fields = {k: v for k, v in JOB.items() if k not in ("good", "bad")}
    return jobs.create_job(incident=incident, user=owner, good="v6.5.13", bad="v6.6.10", fields=fields)


@pytest.fixture
def failed_job(incident: Any, owner: User) -> BisectJob:
    job = BisectJob.objects.create(
        incident=incident, good="a", bad="b", repo="/r", command="true", status=JobStatus.FAILED, error="boom"
    )
    BisectStep.objects.create(job=job, index=0, commit="c" * 40, status=StepStatus.DONE, verdict="error")
    return job


@pytest.fixture
def schedule(incident: Any, owner: User) -> Schedule:
    return schedules.create_schedule(user=owner, incident=incident, values=dict(WATCH))


def run_endpoints(incident: Any, failed_job: BisectJob, schedule: Schedule) -> list[tuple[str, str, Any]]:
    """The endpoints that make a worker run a reproducer: start, retry, schedule."""
    base = f"/api/incidents/{incident.pk}/"
    step = failed_job.steps.get()
    return [
        ("post", base + "bisects/", JOB),
        ("post", base + f"bisects/{failed_job.pk}/steps/{step.pk}/retry/", None),
        ("post", base + "bisect-schedules/", {**WATCH, "name": "another"}),
        ("patch", base + f"bisect-schedules/{schedule.pk}/", {"enabled": False}),
    ]


def read_endpoints(incident: Any, job: BisectJob, schedule: Schedule) -> list[tuple[str, str, Any]]:
    """The endpoints every team member may use: read, cancel, remove a schedule."""
    base = f"/api/incidents/{incident.pk}/"
    return [
        ("get", base + "bisects/", None),
        ("get", base + f"bisects/{job.pk}/", None),
        ("post", base + f"bisects/{job.pk}/cancel/", None),
        ("get", base + "bisect-schedules/", None),
        ("get", base + f"bisect-schedules/{schedule.pk}/", None),
        ("delete", base + f"bisect-schedules/{schedule.pk}/", None),
    ]


def endpoints(incident: Any, job: BisectJob, failed_job: BisectJob, schedule: Schedule) -> list[tuple[str, str, Any]]:
    # The writes that need the schedule come before its deletion.
    return [*run_endpoints(incident, failed_job, schedule), *read_endpoints(incident, job, schedule)]


@pytest.mark.django_db
def test_it_lets_an_owner_use_every_bisect_endpoint(
    owner: User, incident: Any, job: BisectJob, failed_job: BisectJob, schedule: Schedule
) -> None:
    client = client_for(owner)
    for method, url, body in endpoints(incident, job, failed_job, schedule):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code in (200, 201, 204), (method, url, response.status_code, response.content)


@pytest.mark.django_db
def test_it_lets_a_teammate_read_and_cancel_but_not_run_a_reproducer(
    teammate: User, incident: Any, job: BisectJob, failed_job: BisectJob, schedule: Schedule
) -> None:
    client = client_for(teammate)
    for method, url, body in run_endpoints(incident, failed_job, schedule):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 403, (method, url, response.status_code, response.content)
        assert "Only the team's owners" in response.json()["detail"]
    assert BisectJob.objects.count() == 2
    assert failed_job.steps.count() == 1
    assert list(Schedule.objects.values_list("name", "enabled")) == [("6.x stable", True)]
    for method, url, body in read_endpoints(incident, job, schedule):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code in (200, 201, 204), (method, url, response.status_code, response.content)


@pytest.mark.django_db
def test_it_answers_not_found_to_an_outsider_on_every_bisect_endpoint(
    outsider: User, incident: Any, job: BisectJob, failed_job: BisectJob, schedule: Schedule
) -> None:
    client = client_for(outsider)
    for method, url, body in endpoints(incident, job, failed_job, schedule):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 404, (method, url, response.status_code)
    job.refresh_from_db()
    failed_job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert failed_job.status == JobStatus.FAILED and failed_job.steps.count() == 1
    assert BisectJob.objects.count() == 2
    assert list(Schedule.objects.values_list("name", "enabled")) == [("6.x stable", True)]


@pytest.mark.django_db
def test_it_refuses_anonymous_requests_to_bisect_endpoints(
    incident: Any, job: BisectJob, failed_job: BisectJob, schedule: Schedule
) -> None:
    client = client_for(None)
    for method, url, body in endpoints(incident, job, failed_job, schedule):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 403, (method, url, response.status_code)
    assert client.get("/api/bisects/kernel-tags/?release=6.6.10").status_code == 403


@pytest.mark.django_db
def test_it_does_not_show_a_bisect_under_another_incident(owner: User, team: Any, job: BisectJob) -> None:
    from incidents.services import open_incident

    second = open_incident(user=owner, team=team, title="x", symptom="", severity="sev3", started_at=timezone.now())
    response = client_for(owner).get(f"/api/incidents/{second.pk}/bisects/{job.pk}/")
    assert response.status_code == 404


@pytest.mark.django_db
def test_it_creates_a_job_with_its_first_step_queued_and_posts_it_on_the_timeline(owner: User, incident: Any) -> None:
    response = client_for(owner).post(f"/api/incidents/{incident.pk}/bisects/", JOB, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued" and body["finished"] is False
    assert body["good"] == "v6.5.13" and body["rule"] == "metric" and body["threshold"] == 30.0
    assert body["started_by"] == "olive"
    assert body["first_bad"] is None
    assert body["progress"] == {
        "steps_done": 0,
        "revisions_left": None,
        "steps_left": None,
        "mean_step_seconds": None,
        "seconds_left": None,
    }
    assert [(s["index"], s["status"], s["commit"]) for s in body["steps"]] == [(0, "queued", "")]
    event = TimelineEvent.objects.get(incident=incident, kind="bisect_started")
    assert event.data["bisect"] == body["id"] and "v6.5.13 (good) .. v6.6.10 (bad)" in event.summary
    assert "runs `./repro.sh` in the sandbox, without network" in event.summary
    assert event.data["command"] == "./repro.sh" and event.data["sandboxed"] is True


@pytest.mark.django_db
def test_it_puts_a_scripts_first_line_and_its_variables_on_the_timeline(owner: User, incident: Any) -> None:
    script = "# build and time it\nmake -j8\n./time-transfer\n"
    body = {**JOB, "command": script, "env": {"XFER_BYTES": "10485760"}, "network": True}
    response = client_for(owner).post(f"/api/incidents/{incident.pk}/bisects/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["env"] == {"XFER_BYTES": "10485760"} and response.json()["network"] is True
    event = TimelineEvent.objects.get(incident=incident, kind="bisect_started")
    assert "runs `make -j8` (+1 more lines) in the sandbox, with the network, with XFER_BYTES set" in event.summary
    assert event.data["command"] == script.strip()


@pytest.mark.django_db
@pytest.mark.parametrize("env", [{"WHODUNNET_COMMIT": "x"}, {"bad name": "x"}, {"A": "x" * 70000}])
def test_it_refuses_variables_a_reproducer_may_not_be_given(owner: User, incident: Any, env: dict[str, str]) -> None:
    response = client_for(owner).post(f"/api/incidents/{incident.pk}/bisects/", {**JOB, "env": env}, format="json")
    assert response.status_code == 400
    assert "env" in response.json()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"repeats": 0}, "repeats"),
        ({"command": ""}, "command"),
        ({"metric": ""}, "metric"),
        ({"min_agreement": 0.5}, "non_field_errors"),
        ({"runner": "ssh"}, "runner"),
        ({"metric": "a=b"}, "non_field_errors"),
    ],
)
def test_it_refuses_a_job_that_cannot_run(owner: User, incident: Any, change: dict[str, Any], field: str) -> None:
    response = client_for(owner).post(f"/api/incidents/{incident.pk}/bisects/", {**JOB, **change}, format="json")
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert not BisectJob.objects.exists()


@pytest.mark.django_db
def test_it_estimates_time_left_from_the_mean_step_time(owner: User, incident: Any, job: BisectJob) -> None:
    BisectJob.objects.filter(pk=job.pk).update(
        status="running", steps_done=3, revisions_left=1000, steps_left=10, mean_step_seconds=42.0
    )
    body = client_for(owner).get(f"/api/incidents/{incident.pk}/bisects/{job.pk}/").json()
    assert body["progress"] == {
        "steps_done": 3,
        "revisions_left": 1000,
        "steps_left": 10,
        "mean_step_seconds": 42.0,
        "seconds_left": 420.0,
    }


@pytest.mark.django_db
def test_it_cancels_a_job_once_and_says_so_on_the_timeline(owner: User, incident: Any, job: BisectJob) -> None:
    client = client_for(owner)
    url = f"/api/incidents/{incident.pk}/bisects/{job.pk}/cancel/"
    first = client.post(url)
    assert first.status_code == 200
    assert first.json()["status"] == "cancelled"
    assert first.json()["steps"][0]["status"] == "cancelled"
    assert client.post(url).status_code == 409
    assert TimelineEvent.objects.filter(incident=incident, kind="bisect_cancelled").count() == 1
    # A cancelled job's step is no longer claimable by a worker.
    assert steps.claim_step(step_id=job.steps.get().pk) is None


@pytest.mark.django_db
def test_it_retries_only_the_last_step_of_a_failed_job(owner: User, incident: Any, failed_job: BisectJob) -> None:
    client = client_for(owner)
    step = failed_job.steps.get()
    response = client.post(f"/api/incidents/{incident.pk}/bisects/{failed_job.pk}/steps/{step.pk}/retry/")
    assert response.status_code == 201
    assert response.json()["index"] == 1 and response.json()["attempt"] == 1
    failed_job.refresh_from_db()
    assert failed_job.status == "running" and failed_job.error == ""
    again = client.post(f"/api/incidents/{incident.pk}/bisects/{failed_job.pk}/steps/{step.pk}/retry/")
    assert again.status_code == 409


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**WATCH, "tag_pattern": ""}, "tag_pattern"),
        ({**WATCH, "branch": "main"}, "tag_pattern"),
        ({**WATCH, "kind": "once"}, "start_at"),
        ({**WATCH, "kind": "nightly", "good": "v1", "bad": "v2"}, "window_start"),
    ],
)
def test_it_refuses_a_schedule_that_could_never_fire(
    owner: User, incident: Any, body: dict[str, Any], field: str
) -> None:
    response = client_for(owner).post(f"/api/incidents/{incident.pk}/bisect-schedules/", body, format="json")
    assert response.status_code == 400
    assert field in response.json(), response.json()


@pytest.mark.django_db
def test_it_fires_a_nightly_schedule_once_per_night_even_if_beat_ticks_again(owner: User, incident: Any) -> None:
    schedules.create_schedule(
        user=owner,
        incident=incident,
        values={
            **WATCH,
            "kind": ScheduleKind.NIGHTLY,
            "tag_pattern": "",
            "good": "v6.5",
            "bad": "v6.6",
            "window_start": dt.time(22, 0),
            "window_end": dt.time(4, 0),
        },
    )
    night = dt.datetime(2026, 3, 1, 23, 0, tzinfo=dt.UTC)
    assert schedules.tick_schedules(now=night) == 1
    assert schedules.tick_schedules(now=night + dt.timedelta(hours=3)) == 0  # same window, after midnight
    assert schedules.tick_schedules(now=night + dt.timedelta(hours=12)) == 0  # outside the window
    assert schedules.tick_schedules(now=night + dt.timedelta(days=1)) == 1  # the next night
    jobs = BisectJob.objects.filter(incident=incident)
    assert jobs.count() == 2
    assert {(j.good, j.bad, j.started_by) for j in jobs} == {("v6.5", "v6.6", None)}


@pytest.mark.django_db
def test_it_starts_a_once_schedule_at_its_time_only(owner: User, incident: Any) -> None:
    at = timezone.now() + dt.timedelta(hours=1)
    schedules.create_schedule(
        user=owner,
        incident=incident,
        values={**WATCH, "kind": "once", "tag_pattern": "", "good": "v1", "bad": "v2", "start_at": at},
    )
    assert schedules.tick_schedules(now=at - dt.timedelta(minutes=1)) == 0
    assert schedules.tick_schedules(now=at) == 1
    assert schedules.tick_schedules(now=at + dt.timedelta(days=3)) == 0
    assert BisectJob.objects.count() == 1


@pytest.mark.parametrize(
    ("release", "tag", "exact"),
    [
        ("6.6.10-1-aws", "v6.6.10", True),
        ("6.5.13", "v6.5.13", True),
        ("5.15.0-91-generic", "v5.15", False),
        ("6.1.0-13-amd64", "v6.1", False),
        ("4.18.0-513.5.1.el8_9.x86_64", "v4.18", False),
        ("6.7.0-rc3", "v6.7-rc3", True),
        ("6.7-rc3+", "v6.7-rc3", True),
        ("6.8.0", "v6.8", True),
        ("Linux ip-10-0-0-1 6.6.10-1-aws #1 SMP x86_64 GNU/Linux", "v6.6.10", True),
    ],
)
def test_it_maps_kernel_releases_to_upstream_tags(release: str, tag: str, exact: bool) -> None:
    found = upstream_tag(release)
    assert found is not None
    assert (found.tag, found.exact) == (tag, exact)


@pytest.mark.django_db
def test_it_maps_kernel_releases_over_the_api(owner: User) -> None:
    response = client_for(owner).get("/api/bisects/kernel-tags/?release=6.5.13&release=6.6.10-1-aws&release=junk")
    assert response.status_code == 200
    assert [(t["input"], t["tag"]) for t in response.json()] == [("6.5.13", "v6.5.13"), ("6.6.10-1-aws", "v6.6.10")]
    assert client_for(owner).get("/api/bisects/kernel-tags/").status_code == 400
