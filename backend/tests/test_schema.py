import subprocess
import sys
from pathlib import Path

BACKEND = Path(__file__).resolve().parent.parent


def test_it_has_a_committed_openapi_schema_that_matches_the_code(tmp_path: Path) -> None:
    fresh = tmp_path / "openapi.yml"
    subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--file", str(fresh), "--validate", "--fail-on-warn"],
        cwd=BACKEND,
        check=True,
    )
    committed = (BACKEND / "openapi.yml").read_text()
    assert fresh.read_text() == committed, "openapi.yml is stale: run `make schema` and commit it"


def test_the_frontend_tests_see_the_evidence_kinds_the_api_serves() -> None:
    check = subprocess.run(
        [sys.executable, str(BACKEND.parent / "scripts" / "evidence_kinds_fixture.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
