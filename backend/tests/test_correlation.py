"""Evidence analysed together: a kernel upgrade with a pinned SO_RCVBUF, and kind correction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import AnalysisRun, Finding
from evidence.uploads import receive_upload
from tests.conftest import DATA, client_for
from whodunnet.engine import EVIDENCE_KINDS

SEED000 = DATA / "seed000"


def upload_and_analyse(incident: Any, user: User, path: Path, name: str | None = None) -> Any:
    with open(path, "rb") as stream:
        evidence = receive_upload(
            user=user, incident=incident, filename=name or path.name, stream=stream, content_length=None
        )
    run = AnalysisRun.objects.filter(evidence=evidence).latest("id")
    services.execute_run(run_id=run.pk)
    return evidence


@pytest.mark.django_db
def test_it_models_the_receive_window_across_kernel_and_strace_evidence(owner: User, incident: Any) -> None:
    before = upload_and_analyse(incident, owner, SEED000 / "before.txt")
    after = upload_and_analyse(incident, owner, SEED000 / "after.txt")
    strace = upload_and_analyse(incident, owner, SEED000 / "client.strace")
    assert [e.kind for e in (before, after, strace)] == ["kernel_versions", "kernel_versions", "strace"]

    services.correlate(incident_id=incident.pk)

    across = Finding.objects.filter(incident=incident, correlation__isnull=False)
    model = across.get(kind="kernel.receive_window_model")
    windows = {k["kernel"] if "kernel" in k else k.get("version"): k["window"] for k in model.data["kernels"]}
    assert sorted(windows.values()) == [32768, 65536]
    assert model.layer == "kernel" and model.evidence is None
    assert {ref["evidence"] for ref in model.refs} <= {before.pk, after.pk, strace.pk}
    assert across.filter(kind="kernel.known_change_in_range").exists()

    steps = client_for(owner).get(f"/api/incidents/{incident.pk}/checklist/").json()
    kernel = next(s for s in steps if s["layer"] == "kernel")
    assert "kernel.receive_window_model" in [f["kind"] for f in kernel["findings"]]
    assert kernel["suggestion"]["verdict"] == "suspect"

    # Recomputing replaces, never doubles.
    services.correlate(incident_id=incident.pk)
    assert Finding.objects.filter(incident=incident, kind="kernel.receive_window_model").count() == 1


@pytest.mark.django_db
def test_it_analyses_a_file_again_as_the_kind_a_person_chose(owner: User, teammate: User, incident: Any) -> None:
    evidence = upload_and_analyse(incident, owner, SEED000 / "client.strace", name="client.log")
    client = client_for(teammate)
    url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
    assert client.patch(url, {"kind": "nonsense"}, format="json").status_code == 400
    response = client.patch(url, {"kind": "sysctl"}, format="json")
    assert response.status_code == 200
    assert response.json()["kind"] == "sysctl"
    assert response.json()["analysis"]["status"] == "queued"
    assert response.json()["analysis"]["forced_kind"] == "sysctl"
    services.execute_run(run_id=response.json()["analysis"]["id"])
    assert AnalysisRun.objects.filter(evidence=evidence).count() == 2
    summaries = [e["summary"] for e in client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]]
    assert "client.log: kind strace → sysctl; analysing it again" in summaries
    card = client.get(url).json()
    assert card["kind"] == "sysctl"
    # An strace read as sysctl: every line is reported bad, by line number, and nothing is lost.
    assert card["analysis"]["error_line"] == 1
    assert "not a 'name = value' line" in card["analysis"]["error"]


@pytest.mark.django_db
def test_it_repairs_snapshots_uploaded_in_the_wrong_order_by_when_they_were_taken(owner: User, incident: Any) -> None:
    # The "after" snapshot is uploaded first, under names that do not say which is which: by upload order the
    # deltas would be negative.
    after = upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-after.txt", "nstat-1.txt")
    before = upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-before.txt", "nstat-2.txt")
    client = client_for(owner)
    services.correlate(incident_id=incident.pk)
    card = client.get(f"/api/incidents/{incident.pk}/evidence/{after.pk}/").json()
    assert card["pairing"]["other"] == before.pk and card["pairing"]["ordered_by"] != "time"
    for evidence, taken in ((before, "2026-11-20T10:00:00Z"), (after, "2026-11-20T10:00:30Z")):
        url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
        assert client.patch(url, {"taken_at": taken}, format="json").status_code == 200
    services.correlate(incident_id=incident.pk)
    retransmits = Finding.objects.get(incident=incident, correlation__isnull=False, kind="host.retransmits")
    assert retransmits.data["counters"]["TcpRetransSegs"] == 3
    assert retransmits.data["values"]["TcpRetransSegs"] == {"before": 3, "after": 6}
    assert retransmits.data["interval_s"] == 30.0
    cards = {e["id"]: e for e in client.get(f"/api/incidents/{incident.pk}/evidence/").json()}
    assert cards[before.pk]["pairing"]["role"] == "before" and cards[after.pk]["pairing"]["role"] == "after"
    assert cards[after.pk]["pairing"]["other_filename"] == "nstat-2.txt"
    # The pairing changed: the timeline says the findings across the evidence were recomputed (open pages refresh).
    summaries = [e["summary"] for e in client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]]
    assert any(s.startswith("Findings across the evidence recomputed") for s in summaries)
    assert cards[after.pk]["pairing"]["interval_s"] == 30.0 and cards[after.pk]["pairing"]["ordered_by"] == "time"


@pytest.mark.django_db
def test_a_teammate_changes_the_bbr_candidate_settings_and_the_file_is_read_again(
    owner: User, teammate: User, incident: Any
) -> None:
    evidence = upload_and_analyse(incident, owner, DATA / "loopback" / "ss-tinmoe-timeseries.txt")
    first = Finding.objects.get(evidence=evidence, kind="sockets.bbr_candidates")
    assert first.data["params"]["min_bytes"] == 100_000 and first.data["intervals"] == 8
    client = client_for(teammate)
    url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
    assert client.get(url).json()["settings"]["bbr"]["bottom_share"] == 0.2
    refused = client.patch(url, {"bbr": {"bottom_share": 2}}, format="json")
    assert refused.status_code == 400 and "bottom_share" in refused.json()["bbr"]
    # The form sends every setting; the timeline names the one that changed.
    everything = {**client.get(url).json()["settings"]["bbr"], "min_bytes": 1000}
    response = client.patch(url, {"bbr": everything}, format="json")
    assert response.status_code == 200
    card = response.json()
    assert card["settings"]["bbr"]["min_bytes"] == 1000 and card["settings"]["bbr"]["bottom_share"] == 0.2
    assert card["analysis"]["status"] == "queued"
    services.execute_run(run_id=card["analysis"]["id"])
    # The new run supersedes the first one's findings: the checklist shows one answer, not two.
    again = Finding.objects.get(incident=incident, kind="sockets.bbr_candidates")
    assert again.run_id == card["analysis"]["id"]
    # Flows of 1 KB and more now count: every snapshot with the slow reader has data.
    assert again.data["params"]["min_bytes"] == 1000 and again.data["intervals"] == 12
    summaries = [e["summary"] for e in client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]]
    assert "ss-tinmoe-timeseries.txt: BBR-candidate settings min_bytes 1000; analysing it again" in summaries


@pytest.mark.django_db
def test_interface_limits_given_on_the_card_decide_whether_a_link_is_near_its_limit(
    owner: User, teammate: User, incident: Any
) -> None:
    before = upload_and_analyse(incident, owner, DATA / "loopback" / "ip-s-link-lo-before.txt")
    after = upload_and_analyse(incident, owner, DATA / "loopback" / "ip-s-link-lo-after.txt")
    client = client_for(teammate)
    for evidence, taken in ((before, "2026-11-20T10:00:00Z"), (after, "2026-11-20T10:00:10Z")):
        url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
        assert client.patch(url, {"taken_at": taken}, format="json").status_code == 200
    url = f"/api/incidents/{incident.pk}/evidence/{after.pk}/"
    refused = client.patch(url, {"link_limits_bps": {"lo; rm -rf": 1e9}}, format="json")
    assert refused.status_code == 400 and "not an interface name" in refused.json()["link_limits_bps"][0]
    assert client.patch(url, {"link_limits_bps": {"lo": -5}}, format="json").status_code == 400
    response = client.patch(url, {"link_limits_bps": {"lo": 300_000}}, format="json")
    assert response.status_code == 200 and response.json()["settings"] == {"link_limits_bps": {"lo": 300_000.0}}
    services.execute_run(run_id=response.json()["analysis"]["id"])
    services.correlate(incident_id=incident.pk)
    usage = Finding.objects.get(incident=incident, correlation__isnull=False, kind="neighbours.link_usage")
    (row,) = usage.data["interfaces"]
    # 323,244 bytes in 10 s is 259 kbit/s: 86 % of the 300 kbit/s limit given on the card.
    assert (row["interface"], row["limit_bps"], row["limit_source"]) == ("lo", 300_000, "given limit")
    assert round(row["utilisation"], 2) == 0.86 and usage.data["near_limit"] == ["lo"]
    summaries = [e["summary"] for e in client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]]
    assert "ip-s-link-lo-after.txt: interface limits lo 300 kbit/s; analysing it again" in summaries


@pytest.mark.django_db
def test_one_snapshot_is_reported_once_as_totals_since_boot(owner: User, incident: Any) -> None:
    upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-after.txt")
    services.correlate(incident_id=incident.pk)
    steps = client_for(owner).get(f"/api/incidents/{incident.pk}/checklist/").json()
    network = next(s for s in steps if s["layer"] == "network")
    (retransmits,) = [f for f in network["findings"] if f["kind"] == "host.retransmits"]
    assert "since boot (one snapshot)" in retransmits["title"]


@pytest.mark.django_db
def test_a_run_that_finishes_after_a_newer_one_does_not_bring_back_old_findings(owner: User, incident: Any) -> None:
    evidence = upload_and_analyse(incident, owner, DATA / "loopback" / "ss-tinmoe-timeseries.txt")
    older = AnalysisRun.objects.create(evidence=evidence)
    newer = AnalysisRun.objects.create(evidence=evidence)
    services.execute_run(run_id=newer.pk)
    services.execute_run(run_id=older.pk)
    older.refresh_from_db()
    assert older.status == "done"
    kinds = list(Finding.objects.filter(incident=incident).values_list("kind", "run_id"))
    assert sorted(kinds) == [("sockets.bbr_candidates", newer.pk), ("sockets.summary", newer.pk)]


@pytest.mark.django_db
def test_a_partial_change_keeps_the_other_settings_and_a_rate_map_replaces_the_old_one(
    owner: User, incident: Any
) -> None:
    sockets = upload_and_analyse(incident, owner, DATA / "loopback" / "ss-tinmoe-timeseries.txt")
    counters = upload_and_analyse(incident, owner, DATA / "loopback" / "ip-s-link-lo-after.txt")
    client = client_for(owner)
    base = f"/api/incidents/{incident.pk}/evidence/"
    assert client.patch(f"{base}{sockets.pk}/", {"bbr": {"min_duty": 0.7}}, format="json").status_code == 200
    card = client.patch(f"{base}{sockets.pk}/", {"bbr": {"v4_prefix": 16}}, format="json").json()
    assert (card["settings"]["bbr"]["min_duty"], card["settings"]["bbr"]["v4_prefix"]) == (0.7, 16)
    assert list(card["settings"]) == ["bbr"]  # only the groups of its own kind
    client.patch(f"{base}{counters.pk}/", {"link_limits_bps": {"lo": 1e9, "eth0": 1e10}}, format="json")
    card = client.patch(f"{base}{counters.pk}/", {"link_limits_bps": {"eth0": 2e10}}, format="json").json()
    assert card["settings"] == {"link_limits_bps": {"eth0": 2e10}}
    refused = client.patch(f"{base}{counters.pk}/", {"kind": "vmstat"}, format="json")
    assert refused.status_code == 400 and "not an evidence kind" in refused.json()["kind"][0]


@pytest.mark.django_db
def test_it_serves_every_evidence_kind_with_its_settings_and_how_its_findings_are_shown(owner: User) -> None:
    catalogue = client_for(owner).get("/api/evidence-kinds/").json()
    kinds = {k["name"]: k for k in catalogue["kinds"]}
    assert list(kinds) == list(EVIDENCE_KINDS)
    (bbr,) = kinds["sockets"]["settings"]
    assert bbr["shape"] == "numbers" and bbr["title"] == "BBR-candidate settings"
    share = next(n for n in bbr["numbers"] if n["name"] == "bottom_share")
    assert (share["label"], share["default"], share["display"]) == (
        "Bad group (% of prefixes)",
        0.2,
        {"unit": "%", "factor": 0.01},
    )
    (limits,) = kinds["counters"]["settings"]
    assert limits["rates"]["keys_from"] == "interfaces" and kinds["counters"]["snapshot"]
    specs = {f["kind"]: f for f in catalogue["findings"]}
    assert specs["tcp.receive_window_limited"]["evidence_kind"] == "capture"
    window = next(k for k in kinds["capture"]["keys"] if k["key"] == "window")
    assert window == {"key": "window", "label": "Window", "unit": "bytes_exact"}
    assert specs["kernel.known_change_in_range"]["view"] == "known_changes"


@pytest.mark.django_db
def test_a_person_says_where_a_file_comes_from_over_what_its_name_says(
    owner: User, teammate: User, incident: Any
) -> None:
    evidence = upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-after.txt", "client-nstat-after.txt")
    client = client_for(teammate)
    url = f"/api/incidents/{incident.pk}/evidence/{evidence.pk}/"
    card = client.get(url).json()
    assert card["provenance"]["host"] == {"value": "client", "source": "filename"}
    assert card["provenance"]["role"] == {"value": "client", "source": "filename"}

    assert client.patch(url, {"role": "router"}, format="json").status_code == 400
    response = client.patch(
        url, {"host": " db-1 ", "role": "server", "taken_at": "2026-11-20T10:00:30Z"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["provenance"] == {
        "host": {"value": "db-1", "source": "user"},
        "role": {"value": "server", "source": "user"},
        "taken_at": {"value": "2026-11-20T10:00:30Z", "source": "user"},
    }
    summaries = [e["summary"] for e in client.get(f"/api/incidents/{incident.pk}/timeline/").json()["events"]]
    assert "client-nstat-after.txt: host db-1, role server, taken at 2026-11-20T10:00:30+00:00" in summaries
    # The correlation was queued by the change; it hands the engine the person's values.
    services.correlate(incident_id=incident.pk)
    given = incident.correlation.__class__.objects.get(incident=incident).provenance[str(evidence.pk)]
    assert (given["host"], given["role"], given["source"]["host"]) == ("db-1", "server", "user")

    # Unset: the file's name speaks again.
    cleared = client.patch(url, {"host": "", "role": None}, format="json").json()
    assert cleared["provenance"]["host"] == {"value": "client", "source": "filename"}
    assert cleared["provenance"]["role"] == {"value": "client", "source": "filename"}


@pytest.mark.django_db
def test_it_does_not_recompute_the_correlation_when_nothing_it_reads_changed(owner: User, incident: Any) -> None:
    from analysis.models import Correlation

    upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-before.txt", "client-nstat-before.txt")
    upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-after.txt", "client-nstat-after.txt")
    services.correlate(incident_id=incident.pk)
    first = Correlation.objects.get(incident=incident)
    services.correlate(incident_id=incident.pk)
    again = Correlation.objects.get(incident=incident)
    assert again.computed_at == first.computed_at and again.inputs == first.inputs
    assert Finding.objects.filter(correlation=again, kind="host.retransmits").count() == 1


@pytest.mark.django_db
def test_a_correlation_computed_from_inputs_that_changed_meanwhile_is_not_written(
    owner: User, incident: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analysis.models import Correlation
    from evidence.services import set_provenance

    first = upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-before.txt", "nstat-1.txt")
    upload_and_analyse(incident, owner, DATA / "loopback" / "nstat-after.txt", "nstat-2.txt")
    real = services._combine

    def a_person_changes_a_host_meanwhile(*args: Any) -> Any:
        answer = real(*args)
        set_provenance(user=owner, evidence=first, changes={"host": "vm-a"})
        return answer

    monkeypatch.setattr(services, "_combine", a_person_changes_a_host_meanwhile)
    services.correlate(incident_id=incident.pk)
    assert not Correlation.objects.filter(incident=incident).exclude(inputs="").exists()
    monkeypatch.setattr(services, "_combine", real)
    services.correlate(incident_id=incident.pk)  # the one the change queued
    assert Correlation.objects.get(incident=incident).provenance[str(first.pk)]["host"] == "vm-a"


@pytest.mark.django_db
def test_a_captures_stored_connection_table_is_the_engines_own(owner: User, incident: Any) -> None:
    from whodunnet.capture import analyze_capture
    from whodunnet.limits import DEFAULT_LIMITS

    evidence = upload_and_analyse(incident, owner, DATA / "loopback-scenarios.pcap")
    run = AnalysisRun.objects.get(evidence=evidence)
    stored = services.StoredConnections(run.pk)
    fresh, _ = analyze_capture(0, evidence.path, limits=DEFAULT_LIMITS)
    assert len(stored) > 1 and tuple(stored) == tuple(fresh.connections)


@pytest.mark.django_db
def test_what_matching_reads_of_stored_connections_is_what_it_reads_of_the_engines_table(
    owner: User, incident: Any
) -> None:
    # The console matches two captures from their stored tables' columns, without reading the rows back.
    from whodunnet.capture import analyze_capture
    from whodunnet.capture_pairs import Ends
    from whodunnet.limits import DEFAULT_LIMITS

    evidence = upload_and_analyse(incident, owner, DATA / "loopback-scenarios.pcap")
    stored = services.StoredConnections(AnalysisRun.objects.get(evidence=evidence).pk)
    fresh, _ = analyze_capture(0, evidence.path, limits=DEFAULT_LIMITS)
    from_columns, from_table = Ends.of(stored), Ends.of(fresh.connections)
    assert from_columns.names is not None and len(from_columns.ids) == len(fresh.connections) > 1
    assert -1 in from_columns.isn[1]  # a connection whose server sent no SYN-ACK: no ISN, as the engine says
    fields = ("ids", "packets", "isn", "base", "span")
    assert [getattr(from_columns, f) for f in fields] == [getattr(from_table, f) for f in fields]
    every = list(range(len(fresh.connections)))
    assert (
        from_columns.endpoints(every)
        == from_table.endpoints(every)
        == [(c.client, c.server) for c in fresh.connections]
    )
