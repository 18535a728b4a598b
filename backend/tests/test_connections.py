"""A capture's connection table and Stevens-graph data through the API, checked against tshark."""

from __future__ import annotations

import csv
import subprocess
from typing import Any, cast

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import AnalysisRun
from evidence.uploads import receive_upload
from tests.conftest import DATA, client_for

ORACLE = DATA / "loopback-scenarios.pcap.tcp_streams.tsv"


@pytest.fixture
def capture(owner: User, incident: Any) -> Any:
    with open(DATA / "loopback-scenarios.pcap", "rb") as stream:
        evidence = receive_upload(user=owner, incident=incident, filename="lo.pcap", stream=stream, content_length=None)
    services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
    return evidence


def tshark_streams() -> dict[int, dict[str, str]]:
    with open(ORACLE) as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
        return {int(r["stream"]): r for r in rows}


@pytest.mark.django_db
def test_it_lists_every_connection_as_tshark_sees_it(teammate: User, incident: Any, capture: Any) -> None:
    url = f"/api/incidents/{incident.pk}/evidence/{capture.pk}/connections/?limit=500"
    page = client_for(teammate).get(url).json()
    oracle = tshark_streams()
    assert page["count"] == len(oracle)
    for row in page["results"]:
        expected = oracle[row["conn_id"]]
        assert row["client"] == expected["orig"] and row["server"] == expected["resp"]
        assert (row["packets_c2s"], row["packets_s2c"]) == (int(expected["orig_pkts"]), int(expected["resp_pkts"]))
        assert (row["bytes_c2s"], row["bytes_s2c"]) == (
            int(expected["orig_payload_bytes"]),
            int(expected["resp_payload_bytes"]),
        )


@pytest.mark.django_db
def test_it_filters_and_sorts_connections_by_flag(owner: User, incident: Any, capture: Any) -> None:
    base = f"/api/incidents/{incident.pk}/evidence/{capture.pk}/connections/"
    client = client_for(owner)
    oracle = tshark_streams()
    zero = client.get(base + "?flag=zero_window").json()
    assert {r["conn_id"] for r in zero["results"]} == {s for s, r in oracle.items() if int(r["zero_window"]) > 0}
    retries = client.get(base + "?flag=syn_retries").json()
    assert {r["conn_id"] for r in retries["results"]} == {s for s, r in oracle.items() if int(r["syn_retrans"]) > 0}
    by_bytes = client.get(base + "?ordering=-bytes_s2c&limit=1").json()["results"][0]
    assert by_bytes["bytes_s2c"] == max(int(r["resp_payload_bytes"]) for r in oracle.values())
    assert client.get(base + "?flag=nonsense").status_code == 400
    assert client.get(base + "?ordering=detail").status_code == 400


@pytest.mark.django_db
def test_it_draws_one_connection_as_a_time_sequence(owner: User, incident: Any, capture: Any) -> None:
    base = f"/api/incidents/{incident.pk}/evidence/{capture.pk}/connections/0/"
    client = client_for(owner)
    detail = client.get(base).json()
    assert detail["detail"]["c2s"]["zero_windows"] + detail["detail"]["s2c"]["zero_windows"] > 0
    series = client.get(base + "time-sequence/").json()
    assert series["sender"] == "server"
    assert len(series["seg_time"]) == len(series["seg_seq"]) == len(series["seg_len"]) > 0
    assert sum(series["seg_len"]) >= 309248  # tshark: the server sent 309,248 payload bytes
    assert series["ack_window_edge"] and all(
        e >= a for e, a in zip(series["ack_window_edge"], series["ack_seq"], strict=True)
    )
    assert client.get(base.replace("/0/", "/999/") + "time-sequence/").status_code == 404


def tshark_packets(path: Any, stream: int) -> list[list[str]]:
    fields = ["frame.number", "frame.time_epoch", "tcp.flags", "tcp.seq", "tcp.ack", "tcp.len", "tcp.window_size_value"]
    args = ["tshark", "-r", str(path), "-Y", f"tcp.stream == {stream}", "-T", "fields"]
    out = subprocess.run([*args, *(a for f in fields for a in ("-e", f))], capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


@pytest.mark.django_db
def test_it_lists_a_connections_packets_page_by_page_as_tshark_does(
    teammate: User, incident: Any, capture: Any, tmp_path: Any
) -> None:
    base = f"/api/incidents/{incident.pk}/evidence/{capture.pk}/connections/0/"
    client = client_for(teammate)
    seen: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        page = client.get(base + f"packets/?start={start}&limit=100").json()
        assert len(page["packets"]) <= 100
        assert page["client"] and page["first_packet"] >= 1
        seen += page["packets"]
        start = page["next_from"]
    expected = tshark_packets(DATA / "loopback-scenarios.pcap", 0)
    assert [p["number"] for p in seen] == [int(r[0]) for r in expected]
    for got, (_, time, flags, seq, ack, length, window) in zip(seen, expected, strict=True):
        assert abs(got["time"] - float(time)) < 1e-6
        assert (got["seq"], got["length"], got["window"]) == (int(seq), int(length), int(window))
        assert ("ACK" in got["flags"]) == bool(int(flags, 16) & 0x10)
        assert ("SYN" in got["flags"]) == bool(int(flags, 16) & 0x02)
        if "ACK" in got["flags"]:
            assert got["ack"] == int(ack)
    # a time range keeps only the packets inside it
    t0, t1 = seen[3]["time"], seen[10]["time"]
    ranged = client.get(base + f"packets/?time_from={t0}&time_to={t1}&limit=1000").json()["packets"]
    assert [p["number"] for p in ranged] == [p["number"] for p in seen if t0 <= p["time"] <= t1]
    # the same range as a pcap that tshark opens, with exactly those packets
    response = client.get(base + f"packets.pcap?time_from={t0}&time_to={t1}")
    assert response.status_code == 200
    out = tmp_path / "p.pcap"
    out.write_bytes(b"".join(cast(Any, response).streaming_content))
    listed = subprocess.run(
        ["tshark", "-r", str(out), "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.len"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert [(round(float(t), 6), int(n)) for t, n in (x.split("\t") for x in listed)] == [
        (round(p["time"], 6), p["length"]) for p in ranged
    ]
    assert client.get(base + "packets/?start=x").status_code == 400
    assert client.get(base.replace("/0/", "/999/") + "packets/").status_code == 404
