"""Upload → broker → a real worker process → findings, including a worker killed mid-run."""

from __future__ import annotations

import gzip
import os
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import dispatch
from analysis.models import AnalysisRun, Finding
from config.celery import app
from incidents.models import TimelineEvent
from tests.conftest import DATA, client_for
from tests.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

TERMINAL = ("done", "failed")


@pytest.fixture
def worker(analysis_worker: WorkerProcess) -> WorkerProcess:
    return analysis_worker


def upload(client: Any, incident: Any, body: bytes, name: str) -> dict[str, Any]:
    response = client.post(
        f"/api/incidents/{incident.pk}/evidence/upload/?filename={name}", body, content_type="application/octet-stream"
    )
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


def run_of(evidence_id: int) -> AnalysisRun:
    return AnalysisRun.objects.get(evidence_id=evidence_id)


def finished(evidence_id: int) -> AnalysisRun | None:
    run = run_of(evidence_id)
    return run if run.status in TERMINAL else None


def pcap_header(linktype: int = 1) -> bytes:
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)


def tcp_frame(i: int) -> bytes:
    eth = b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\x08\x00"
    sport = 40000 + (i % 500)
    tcp = struct.pack("!HHIIBBHHH", sport, 80, i * 100, 0, 0x50, 0x18, 65535, 0, 0) + b"x" * 20
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    )
    return eth + ip + tcp


def big_capture(packets: int) -> bytes:
    frames = [tcp_frame(i) for i in range(500)]
    records = bytearray(pcap_header())
    for i in range(packets):
        frame = frames[i % 500]
        records += struct.pack("<IIII", 1_700_000_000 + i // 1000, (i % 1000) * 1000, len(frame), len(frame))
        records += frame
    return bytes(records)


def test_it_analyses_a_real_capture_in_a_worker_and_stores_findings_once(
    owner: User, teammate: User, incident: Any, worker: WorkerProcess
) -> None:
    client = client_for(owner)
    evidence = upload(client, incident, (DATA / "retransmit-fast009.pcap").read_bytes(), "client.pcap")
    run = wait_for(lambda: finished(evidence["id"]), timeout=60, what="the analysis to finish", worker=worker)
    assert run.status == "done", run.error
    card = client_for(teammate).get(f"/api/incidents/{incident.pk}/evidence/{evidence['id']}/").json()
    assert card["analysis"]["status"] == "done"
    assert card["analysis"]["progress"] == 1.0
    # tshark (conv,tcp) sees 39 frames in one TCP conversation in this Zeek trace.
    assert card["summary"]["packets"] == 39
    assert card["summary"]["tcp_connections"] == 1
    kinds = list(Finding.objects.filter(evidence_id=evidence["id"]).values_list("kind", flat=True))
    assert kinds.count("capture.summary") == 1

    # Delivered again (a redelivery after a lost ack): a no-op, nothing doubles.
    before = Finding.objects.filter(evidence_id=evidence["id"]).count()
    app.send_task(dispatch.ANALYZE_EVIDENCE, args=[run.pk])
    app.send_task(dispatch.ANALYZE_EVIDENCE, args=[run.pk])
    wait_for(
        lambda: "analyze_evidence" in worker.logs() and worker.logs().count("succeeded") >= 3,
        timeout=30,
        what="the duplicate deliveries to be handled",
        worker=worker,
    )
    assert Finding.objects.filter(evidence_id=evidence["id"]).count() == before
    assert run_of(evidence["id"]).attempts == 1
    finished_events = TimelineEvent.objects.filter(incident=incident, kind="analysis_finished")
    assert finished_events.count() == 1


def test_it_finishes_a_run_exactly_once_after_its_worker_is_killed(
    owner: User, incident: Any, worker: WorkerProcess, evidence_dir: Path, tmp_path: Path
) -> None:
    packets = int(os.environ.get("WHODUNNET_TEST_KILL_PACKETS", "1500000"))
    evidence = upload(client_for(owner), incident, big_capture(packets), "big.pcap")
    # Kill as soon as the worker has claimed the run: the engine is fast, so do not wait long.
    wait_for(
        lambda: run_of(evidence["id"]).status == "running",
        timeout=60,
        what="the worker to claim the run",
        worker=worker,
        interval=0.005,
    )
    worker.kill()
    killed = run_of(evidence["id"])
    assert killed.status == "running" and killed.attempts == 1

    # The run's heartbeat goes stale; a new worker's start-up reconcile claims it again.
    time.sleep(3.5)
    second = WorkerProcess(kind="analysis", evidence_dir=evidence_dir, log_dir=tmp_path).start()
    try:
        run = wait_for(lambda: finished(evidence["id"]), timeout=120, what="the re-run to finish", worker=second)
    finally:
        second.stop()
    assert run.status == "done", run.error
    assert run.attempts == 2
    assert run.summary["packets"] == packets
    assert Finding.objects.filter(evidence_id=evidence["id"], kind="capture.summary").count() == 1
    assert TimelineEvent.objects.filter(incident=incident, kind="analysis_finished").count() == 1


@pytest.fixture
def small_limit_worker(evidence_dir: Path, tmp_path: Path) -> Iterator[WorkerProcess]:
    app.control.purge()
    process = WorkerProcess(
        kind="analysis",
        evidence_dir=evidence_dir,
        log_dir=tmp_path,
        extra_env={"WHODUNNET_MAX_UPLOAD_BYTES": str(4 * 1024 * 1024)},
    ).start()
    yield process
    process.stop()


def test_it_reports_bad_input_on_each_card_and_still_analyses_the_good_file(
    owner: User, incident: Any, small_limit_worker: WorkerProcess
) -> None:
    worker = small_limit_worker
    client = client_for(owner)
    good = (DATA / "retransmit-fast009.pcap").read_bytes()
    cut_at = len(good) - 100
    huge_caplen = pcap_header() + struct.pack("<IIII", 1, 0, 0xFFFFFFFF, 0xFFFFFFFF) + b"\x00" * 64
    bomb = gzip.compress(pcap_header() + b"\x00" * (8 * 1024 * 1024), compresslevel=9)
    uploads = {
        "empty": upload(client, incident, b"", "empty.pcap"),
        "random": upload(client, incident, os.urandom(4096), "random.pcap"),
        "cut": upload(client, incident, good[:cut_at], "cut.pcap"),
        "caplen": upload(client, incident, huge_caplen, "caplen.pcap"),
        "bomb": upload(client, incident, bomb, "bomb.pcap.gz"),
        "good": upload(client, incident, good, "good.pcap"),
    }
    runs = {
        name: wait_for(lambda e=e: finished(e["id"]), timeout=90, what=f"{name} to finish", worker=worker)
        for name, e in uploads.items()
    }
    assert runs["good"].status == "done" and not runs["good"].error
    assert runs["empty"].status == "failed" and "empty" in runs["empty"].error
    assert runs["random"].status == "failed" and runs["random"].error
    assert runs["cut"].error and runs["cut"].error_offset is not None
    assert runs["cut"].summary["packets"] > 0, "a cut capture keeps what was read before the cut"
    assert runs["caplen"].error and runs["caplen"].error_offset == 24
    assert runs["bomb"].error and "limit" in runs["bomb"].error
    card = client.get(f"/api/incidents/{incident.pk}/evidence/{uploads['cut']['id']}/").json()
    assert str(runs["cut"].error_offset) in card["analysis"]["error"] or card["analysis"]["error_offset"]
