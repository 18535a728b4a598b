"""Lab incidents through the console: a bundle made with the real kernel TCP stack in network namespaces is
uploaded through the API (here in reverse shell-glob order) to a real worker, and the checklist must reach the
answer a senior engineer would sign. Each test prints what the console suggests per step and how long after the
last upload the final suggestion was there (the closing note's numbers)."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.conftest import client_for
from tests.test_parity import WORKERS_TESTS, settled, upload_all
from tests.worker import WorkerProcess, wait_for

sys.path.insert(0, str(WORKERS_TESTS))
import test_incident_lab as incident_lab  # type: ignore[import-not-found]
from netlab import NetLab, lab_unavailable  # type: ignore[import-not-found]

# The engine's fixture that makes the table tiny (and puts it back).
from test_incident_lab import tiny_conntrack_table  # noqa: F401


@pytest.fixture
def netlab(tmp_path: Path) -> Iterator[Any]:
    with NetLab(tmp_path) as lab:
        yield lab


pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(lab_unavailable() is not None, reason=str(lab_unavailable())),
]


def through_the_console(incident: Any, user: User, files: list[Path], worker: WorkerProcess) -> dict[str, Any]:
    """Upload the files in this order, wait for the final suggestions; the steps by layer, and the wait."""
    client = client_for(user)
    upload_all(client, incident, files)
    last_upload = time.monotonic()
    wait_for(lambda: settled(incident), timeout=120, what="the analyses and the correlation", worker=worker)
    took = time.monotonic() - last_upload
    steps = {s["layer"]: s for s in client.get(f"/api/incidents/{incident.pk}/checklist/").json()}
    said = "\n".join(
        f"  {layer}: " + (f"{s['suggestion']['verdict']} — {s['suggestion']['reason']}" if s["suggestion"]
                          else "no suggestion; would settle it: " + "; ".join(s["needs"]))
        for layer, s in steps.items()
    )  # fmt: skip
    print(f"\n{incident.title}: final suggestion {took:.1f} s after the last upload\n{said}")
    return steps


def test_drops_on_a_host_of_the_path_are_the_networks_culprit(
    owner: User, incident: Any, analysis_worker: WorkerProcess, netlab: Any, tmp_path: Path
) -> None:
    # The engine's lab incident makes the bundle (and checks the engine's own answer): netperf TCP_RR's shape, one
    # connection of one-byte requests, the host in the middle dropping one packet in 100 towards the server.
    incident_lab.test_drops_on_the_middlebox_explain_the_retransmits_and_the_200_ms_tails(netlab, tmp_path)
    nft = (tmp_path / "bundle" / "router-nft-after.txt").read_text()
    dropped = int(re.findall(r"counter packets (\d+)", nft)[0])

    incident.title = "RR tail latency, uploaded in reverse order"
    incident.save()
    steps = through_the_console(incident, owner, sorted((tmp_path / "bundle").iterdir(), reverse=True), analysis_worker)
    network = steps["network"]["suggestion"]
    assert network["verdict"] == "culprit", network
    assert f"dropped {dropped:,} packets" in network["reason"] and "on router" in network["reason"]
    assert "The retransmissions are these drops" in network["reason"]
    assert "200 ms" in network["reason"], network["reason"]


def test_conntrack_table_full_is_the_networks_culprit(
    owner: User,
    incident: Any,
    analysis_worker: WorkerProcess,
    netlab: Any,
    tmp_path: Path,
    tiny_conntrack_table: int,  # noqa: F811
) -> None:
    # A middlebox whose conntrack table holds 256 entries; a client opening many short connections to two ports.
    incident_lab.test_conntrack_table_full_on_the_middlebox(netlab, tmp_path, tiny_conntrack_table)

    incident.title = "Connect tails through the NAT, uploaded in reverse order"
    incident.save()
    steps = through_the_console(incident, owner, sorted((tmp_path / "bundle").iterdir(), reverse=True), analysis_worker)
    network = steps["network"]["suggestion"]
    assert network["verdict"] == "culprit", network
    reason = network["reason"]
    assert re.search(r"the conntrack table on nat held [\d,]+ of 256 entries and counted [\d,]+ dropped", reason)
    assert "200 ephemeral ports × 2 server ports" in reason and "400 possible connections" in reason
    assert "SYN retransmissions on client" in reason and "handshakes retried" in reason
    assert "1 s initial timeout" in reason, reason
