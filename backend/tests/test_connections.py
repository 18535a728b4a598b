"""A capture's connection table and Stevens-graph data through the API, checked against tshark."""

from __future__ import annotations

import csv
from typing import Any

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
