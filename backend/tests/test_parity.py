"""The console's answer equals the CLI's: a bundle made with the real kernel TCP stack in network namespaces
(a receive-window incident: a client with SO_RCVBUF 64 KiB and a 10 s deadline behind a NAT on a 150 ms path,
captures on both sides, nstat and ``ip -s link`` before and after on both hosts, an strace of the client, kernel
versions, sysctl) is uploaded through the API in shell-glob order to a real worker, and its findings and checklist
are compared with ``whodunnet analyze`` on the same files with the same provenance."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import AnalysisRun, Correlation, Finding
from tests.conftest import client_for
from tests.worker import WorkerProcess, wait_for

WORKERS_TESTS = Path(__file__).resolve().parents[2] / "workers" / "tests"
sys.path.insert(0, str(WORKERS_TESTS))
import test_incident_lab as incident_lab  # type: ignore[import-not-found]  # noqa: E402
from netlab import NetLab, lab_unavailable  # type: ignore[import-not-found]  # noqa: E402

WHODUNNET = Path(sys.executable).with_name("whodunnet")

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(lab_unavailable() is not None, reason=str(lab_unavailable())),
]


def make_bundle(where: Path) -> list[Path]:
    """The receive-window incident, for real (the engine's lab incident, ``workers/tests/test_incident_lab.py``)."""
    bundle = where / "bundle"
    bundle.mkdir()
    (where / "lab").mkdir()
    with NetLab(where / "lab") as lab:
        incident_lab.make_bundle(lab, bundle)
    return sorted(bundle.iterdir())  # shell-glob order: every "-after" before its "-before"


def settled(incident: Any) -> bool:
    """Every run finished and the correlation computed from what the incident holds now."""
    if AnalysisRun.objects.filter(evidence__incident=incident).exclude(status__in=("done", "failed")).exists():
        return False
    correlation = Correlation.objects.filter(incident=incident).first()
    return correlation is not None and correlation.inputs == services._inputs(incident.pk)[2]


def upload_all(client: Any, incident: Any, files: list[Path]) -> dict[str, int]:
    """Upload the files through the API in this order; their evidence ids by file name."""
    ids = {}
    for path in files:
        response = client.post(
            f"/api/incidents/{incident.pk}/evidence/upload/?filename={path.name}",
            path.read_bytes(),
            content_type="application/octet-stream",
        )
        assert response.status_code == 201, response.content
        ids[path.name] = response.json()["id"]
    return ids


def test_the_console_finds_what_the_cli_finds_on_the_same_files(
    owner: User, incident: Any, analysis_worker: WorkerProcess, tmp_path: Path
) -> None:
    files = make_bundle(tmp_path)
    client = client_for(owner)
    ids = upload_all(client, incident, files)
    # The kernel versions do not say their host: a person says it on the card, and to the CLI with --host.
    url = f"/api/incidents/{incident.pk}/evidence/{ids['kernel-versions.txt']}/"
    assert client.patch(url, {"host": "client", "role": "client"}, format="json").status_code == 200
    last_change = time.monotonic()
    wait_for(lambda: settled(incident), timeout=120, what="the analyses and the correlation", worker=analysis_worker)
    took = time.monotonic() - last_change
    steps = {s["layer"]: s for s in client.get(f"/api/incidents/{incident.pk}/checklist/").json()}

    kernels = str(tmp_path / "bundle" / "kernel-versions.txt")
    given = ["--host", "client", kernels, "--role", "client", kernels]
    cli = subprocess.run(
        [str(WHODUNNET), "analyze", "--json", *given, *map(str, files)],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    expected = json.loads(cli.stdout)["findings"]
    console = [{"kind": f.kind, "title": f.title} for f in Finding.objects.filter(incident=incident)]

    def across(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return sorted((r["kind"], r["title"]) for r in rows)

    assert across(console) == across(expected)
    for kind in ("path.no_loss_between_captures", "host.retransmits", "kernel.receive_window_model"):
        assert kind in {r["kind"] for r in console}, kind

    text = subprocess.run(
        [str(WHODUNNET), "analyze", *given, *map(str, files)],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    ).stdout  # fmt: skip
    printed = dict(re.findall(r"^  (\w+): (\w+(?: suggestion)?)", text, re.M))
    shown = {layer: (s["suggestion"] or {}).get("verdict", "no suggestion") for layer, s in steps.items()}
    assert shown == {layer: printed[layer] if printed[layer] != "no" else "no suggestion" for layer in shown}
    report = "\n".join(
        f"{layer}: {s['suggestion']['verdict'] if s['suggestion'] else 'no suggestion'} — "
        f"{s['suggestion']['reason'] if s['suggestion'] else '; '.join(s['needs'])}"
        for layer, s in steps.items()
    )
    print(
        f"\nthe receive-window incident through the console, {took:.1f} s from the last change to the final "
        f"suggestion:\n{report}"
    )
