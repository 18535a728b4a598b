"""Lab incidents through the console: a bundle made with the real kernel TCP stack in network namespaces is
uploaded through the API (here in reverse shell-glob order) to a real worker, and the checklist must reach the
answer a senior engineer would sign. Each test prints what the console suggests per step and how long after the
last upload the final suggestion was there (the closing note's numbers)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.conftest import client_for
from tests.test_parity import WORKERS_TESTS, settled, upload_all
from tests.worker import WorkerProcess, wait_for

sys.path.insert(0, str(WORKERS_TESTS))
from netlab import SERVER_IP, NetLab, lab_unavailable  # type: ignore[import-not-found]

TRAFFIC = str(WORKERS_TESTS / "lab_traffic.py")

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


def test_seed_004s_drops_on_a_host_of_the_path_are_the_networks_culprit(
    owner: User, incident: Any, analysis_worker: WorkerProcess, tmp_path: Path
) -> None:
    # netperf TCP_RR's shape: one-byte requests and answers on one connection; the host in the middle drops one
    # packet in 80 towards the server (never a SYN). Snapshots are stamped as a person takes them (date, tool).
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (tmp_path / "lab").mkdir()
    with NetLab(tmp_path / "lab") as lab:
        lab.router_rules(f"ip daddr {SERVER_IP} tcp flags & syn == 0 numgen inc mod 80 == 40 counter drop")
        lab.spawn("s", sys.executable, TRAFFIC, "server", "rr1", "7030")
        time.sleep(0.3)
        for when in ("before", "after"):
            if when == "after":
                csv = bundle / "client-latency.csv"
                lab.ex("c", "timeout", "60", sys.executable, TRAFFIC, "client", "rr1", SERVER_IP, "7030", "1200",
                       str(csv))  # fmt: skip
            for ns, host in (("c", "client"), ("s", "server")):
                text = lab.ex(ns, "nstat", "-asz")
                (bundle / f"{host}-nstat-{when}.txt").write_text(f"=== {time.time():.6f}\n{text}")
            text = lab.nft_output("r", "list ruleset")
            (bundle / f"router-nft-{when}.txt").write_text(f"=== {time.time():.6f}\n{text}")
        dropped = int(re.findall(r"counter packets (\d+)", lab.nft_output("r", "list table inet lab"))[0])
    assert dropped >= 5, "the lab dropped too little to test anything"

    incident.title = "RR tail latency, uploaded in reverse order"
    incident.save()
    steps = through_the_console(incident, owner, sorted(bundle.iterdir(), reverse=True), analysis_worker)
    network = steps["network"]["suggestion"]
    assert network["verdict"] == "culprit", network
    assert f"dropped {dropped:,} packets" in network["reason"] and "on router" in network["reason"]
    assert "The retransmissions are these drops" in network["reason"]
    assert "200 ms" in network["reason"], network["reason"]
