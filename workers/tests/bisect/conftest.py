"""Session fixtures: the planted repository (see bisect_testrepo), a shared clone cache, scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from bisect_testrepo import FLAKY_REPRODUCER, METRIC_REPRODUCER, REPRODUCER, PlantedRepo, build_planted_repo


@pytest.fixture(scope="session")
def planted_repo(tmp_path_factory: pytest.TempPathFactory) -> PlantedRepo:
    return build_planted_repo(tmp_path_factory.mktemp("planted") / "repo")


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clone cache for the session, as the jobs on one worker share it."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("scripts")
    paths = {}
    for name, text in (
        ("plain", REPRODUCER),
        ("flaky", FLAKY_REPRODUCER),
        ("metric", METRIC_REPRODUCER),
    ):
        path = base / f"{name}.sh"
        path.write_text(text)
        path.chmod(0o755)
        paths[name] = path
    return paths
