"""Shared test base: a team with an owner and a teammate, and an outsider from another team."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from accounts.models import Membership, Team

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def evidence_dir(settings: Any, tmp_path: Path) -> Path:
    settings.EVIDENCE_DIR = tmp_path / "evidence"
    return settings.EVIDENCE_DIR  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Any]:
    """One real SeaweedFS S3 server for the session (tests use distinct keys: upload ids are UUIDs)."""
    from tests.s3server import SeaweedServer

    server = SeaweedServer().start()
    yield server
    server.stop()


@pytest.fixture
def s3_store(settings: Any, s3_server: Any, tmp_path: Path) -> Any:
    """This test's evidence lives in the S3 server (WHODUNNET_STORAGE=s3); returns the server."""
    settings.STORAGE = "s3"
    settings.S3_ENDPOINT_URL = s3_server.endpoint
    settings.S3_BUCKET = s3_server.env["WHODUNNET_S3_BUCKET"]
    settings.S3_ACCESS_KEY_ID = s3_server.env["WHODUNNET_S3_ACCESS_KEY_ID"]
    settings.S3_SECRET_ACCESS_KEY = s3_server.env["WHODUNNET_S3_SECRET_ACCESS_KEY"]
    settings.SCRATCH_DIR = tmp_path / "scratch"
    return s3_server


@pytest.fixture
def bisect_cache() -> Iterator[Path]:
    """A folder for workers' bisect caches that the sandbox user can reach (pytest's tmp_path is 0700 root)."""
    path = Path(tempfile.mkdtemp(prefix="wdn-bisect-test-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def team(db: None) -> Team:
    return Team.objects.create(name="Edge", slug="edge")


@pytest.fixture
def other_team(db: None) -> Team:
    return Team.objects.create(name="Payments", slug="payments")


def _member(username: str, team: Team, role: str) -> User:
    user = User.objects.create_user(username=username, password=f"{username}-pw")
    Membership.objects.create(team=team, user=user, role=role)
    return user


@pytest.fixture
def owner(team: Team) -> User:
    return _member("olive", team, Membership.Role.OWNER)


@pytest.fixture
def teammate(team: Team) -> User:
    return _member("tom", team, Membership.Role.MEMBER)


@pytest.fixture
def outsider(other_team: Team) -> User:
    return _member("oscar", other_team, Membership.Role.OWNER)


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def incident(owner: User, team: Team) -> Any:
    from django.utils import timezone

    from incidents.services import open_incident

    return open_incident(
        user=owner,
        team=team,
        title="Cross-region timeouts",
        symptom="30 s timeouts",
        severity="sev2",
        started_at=timezone.now(),
    )


def copy_data(name: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / name
    shutil.copyfile(DATA / name, target)
    return target


@pytest.fixture
def tmp_data(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


@pytest.fixture
def analysis_worker(evidence_dir: Path, tmp_path: Path) -> Iterator[Any]:
    """A real Celery worker serving the analysis queues, pointed at this test's database and evidence folder."""
    from config.celery import app
    from tests.worker import WorkerProcess

    app.control.purge()
    process = WorkerProcess(kind="analysis", evidence_dir=evidence_dir, log_dir=tmp_path).start()
    yield process
    process.stop()
