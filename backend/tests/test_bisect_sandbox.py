"""A team owner's bisect reproducer, run by a real bisect worker, tries to get at what the worker holds.

The worker process has the database URL, the broker URL and the secret key in its environment, the
embedded PostgreSQL's Unix socket and the broker on its loopback, and another team's evidence on its
disk. The reproducer reports what it could reach; the job's stored runs must show it reached nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from bisects.models import BisectJob
from config.celery import app
from incidents.services import open_incident
from tests.conftest import DATA, client_for
from tests.test_worker_queues import small_repo
from tests.worker import WorkerProcess, wait_for
from whodunnet.bisect.sandbox import Sandbox, SandboxError

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _sandbox_problem() -> str | None:
    try:
        return Sandbox.for_worker().check()
    except SandboxError as exc:
        return str(exc)


@pytest.fixture
def worker(evidence_dir: Path, tmp_path: Path, bisect_cache: Path) -> Iterator[WorkerProcess]:
    problem = _sandbox_problem()
    if problem:
        pytest.skip(f"the bisect sandbox cannot start here: {problem}")
    app.control.purge()
    process = WorkerProcess(
        kind="bisect",
        evidence_dir=evidence_dir,
        log_dir=tmp_path,
        extra_env={"WHODUNNET_BISECT_CACHE_DIR": str(bisect_cache), "DJANGO_SECRET_KEY": "the-workers-secret-key"},
    ).start()
    yield process
    process.stop()


def other_teams_evidence(other_team: Any, outsider: User) -> Path:
    other = open_incident(
        user=outsider, team=other_team, title="theirs", symptom="", severity="sev3", started_at=timezone.now()
    )
    body = (DATA / "loopback-scenarios.pcap").read_bytes()
    response = client_for(outsider).post(
        f"/api/incidents/{other.pk}/evidence/upload/?filename=theirs.pcap",
        body,
        content_type="application/octet-stream",
    )
    assert response.status_code == 201, response.content
    path = Path(settings.EVIDENCE_DIR)
    files = [p for p in path.rglob("*") if p.is_file() and p.read_bytes() == body]
    assert files, "the upload is on the worker's disk"
    return files[0]


def database_socket() -> Path | None:
    host = connection.settings_dict.get("HOST") or ""
    if host.startswith("/"):
        return Path(host) / f".s.PGSQL.{connection.settings_dict.get('PORT') or 5432}"
    return None


def test_it_keeps_a_reproducer_away_from_the_workers_secrets_database_broker_and_evidence(
    owner: User,
    incident: Any,
    other_team: Any,
    outsider: User,
    worker: WorkerProcess,
    tmp_path: Path,
    bisect_cache: Path,
) -> None:
    evidence = other_teams_evidence(other_team, outsider)
    socket_path = database_socket()
    db_port = connection.settings_dict.get("PORT") or 5432
    broker = urlsplit(os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"))
    probes = [
        "env | grep -cE 'SECRET|DATABASE|BROKER|the-workers-secret-key' | sed 's/^/secrets: /'",
        f"cat '{evidence}' >/dev/null 2>&1 && echo 'evidence: read' || echo 'evidence: hidden'",
        f"cat '{Path(settings.EVIDENCE_DIR)}'/*/* >/dev/null 2>&1 && echo 'store: read' || echo 'store: hidden'",
        f"bash -c 'exec 3<>/dev/tcp/{broker.hostname}/{broker.port}' 2>/dev/null && echo 'broker: reached' "
        "|| echo 'broker: refused'",
        f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{db_port}' 2>/dev/null && echo 'postgres-tcp: reached' "
        "|| echo 'postgres-tcp: refused'",
        "echo uid: $(id -u)",
        "echo server-processes: $(ps -e -o comm= | grep -cE '^(celery|python|postgres|valkey|redis)')",
        "touch ../escaped ../../escaped 2>/dev/null; echo 'outside: tried'",
    ]
    if socket_path is not None:
        visible = f"test -S '{unquote(str(socket_path))}'"
        probes.append(f"{visible} && echo 'postgres-socket: visible' || echo 'postgres-socket: hidden'")
    small_repo(tmp_path / "repo")
    response = client_for(owner).post(
        f"/api/incidents/{incident.pk}/bisects/",
        {
            "repo": str(tmp_path / "repo"),
            "good": "good",
            "bad": "bad",
            "command": "\n".join(probes),
            "step_timeout": 30,
        },
        format="json",
    )
    assert response.status_code == 201, response.content

    job = wait_for(
        lambda: (j := BisectJob.objects.get(pk=response.json()["id"])) and j.is_terminal and j,
        timeout=60,
        what="the probing bisect to end",
        worker=worker,
    )

    step = job.steps.order_by("index").first()
    assert step is not None and step.runs, job.error
    report = dict(line.split(": ", 1) for line in step.runs[0]["stdout_tail"].splitlines() if ": " in line)
    assert report["secrets"] == "0"
    assert report["evidence"] == "hidden" and report["store"] == "hidden"
    assert report["broker"] == "refused" and report["postgres-tcp"] == "refused"
    assert report.get("postgres-socket", "hidden") == "hidden"
    assert report["uid"] != "0"
    assert report["server-processes"] == "0"
    assert report["outside"] == "tried"  # into the sandbox's own throwaway root, not the worker's disk
    assert list(bisect_cache.rglob("escaped")) == []
