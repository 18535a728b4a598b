"""/proc/net/softnet_stat: per-CPU backlog counters read like node_exporter and insights-core read them,
and the drops of a CPU that could not keep up, recorded on the development VM (see data/softnet/README.md)."""

from __future__ import annotations

from pathlib import Path

from host_testdata import HOST_DATA

from whodunnet.detect import sniff
from whodunnet.engine import analyze, snapshot_pairing
from whodunnet.model import Finding

SOFTNET = HOST_DATA / "softnet"


def cpus(path: Path) -> list[dict[str, int]]:
    (ev,) = analyze([path], combine_evidence=False).evidence
    assert ev.kind == "softnet" and ev.error is None, ev.error
    return list(ev.summary["cpus"])


def column(rows: list[dict[str, int]], name: str) -> list[int | None]:
    return [r.get(name) for r in rows]


def test_it_reads_softnet_stat_like_insights_core() -> None:
    # insights-core tests/parsers/test_softnet_stat.py: SOFTNET_STAT (RHEL 6/7, 10 columns)
    rows = cpus(HOST_DATA / "insights_softnet_stat.txt")
    assert column(rows, "dropped") == [18, 255, 0, 1]
    assert column(rows, "time_squeeze") == [1, 2, 3, 4]
    assert column(rows, "cpu_collision") == [117, 196, 73, 33]
    assert column(rows, "received_rps") == [5, 6, 7, 8]
    assert column(rows, "flow_limit_count") == [None, None, None, None]
    # SOFTNET_STAT_3 (RHEL 9, 13 columns: backlog length and the CPU's id)
    rows = cpus(HOST_DATA / "insights_softnet_stat_3.txt")
    assert column(rows, "time_squeeze") == [0, 177, 0, 123, 1]
    assert column(rows, "dropped") == [25219, 1094, 19399, 32302, 187284]
    assert column(rows, "received_rps") == [546300, 9366426, 36865171, 36179273, 9365818]
    assert column(rows, "flow_limit_count") == [118, 43, 0, 189, 0]
    assert column(rows, "backlog_len") == [0, 220, 10, 0, 140]
    assert column(rows, "cpu") == [0, 1, 2, 3, 0]


def test_it_reads_softnet_stat_like_node_exporter() -> None:
    # node_exporter collector/fixtures/e2e-output.txt: node_softnet_* (11 columns, no newline at the end)
    rows = cpus(HOST_DATA / "node_exporter_softnet_stat")
    assert column(rows, "processed") == [299641, 916354, 5577791, 3113785]
    assert column(rows, "dropped") == [0, 41, 0, 0]
    assert column(rows, "time_squeeze") == [1, 10, 85, 50]
    assert column(rows, "received_rps") == [0, 0, 0, 0] and column(rows, "cpu") == [0, 1, 2, 3]


def test_it_recognises_softnet_stat_from_its_content() -> None:
    upstream = [HOST_DATA / "node_exporter_softnet_stat", HOST_DATA / "insights_softnet_stat.txt"]
    for path in (*SOFTNET.glob("*.txt"), *upstream):
        assert sniff(path.read_bytes()) == "softnet", path
    assert sniff(b"00001234 00000000\n") != "softnet"  # two columns is not a softnet_stat row


def backlog(paths: list[Path]) -> Finding:
    (f,) = [f for f in analyze(paths).findings if f.kind == "host.softnet_backlog"]
    return f


def test_it_finds_the_drops_of_a_cpu_that_could_not_keep_up() -> None:
    f = backlog([SOFTNET / "netns-flood-before.txt", SOFTNET / "netns-flood-after.txt"])
    assert f.severity == "high" and f.layer == "network"
    assert f.data["delta"] and f.data["interval_s"] == 6.0  # dated by their '# <time>' lines
    assert (f.data["dropped"], f.data["time_squeeze"], f.data["received_rps"]) == (2472, 0, 270012)
    flooded = next(c for c in f.data["cpus"] if c["cpu"] == 1)
    assert (flooded["processed"], flooded["dropped"]) == (1008569, 2472)
    assert f.title.startswith("2,472 packets dropped in CPU backlogs") and "not on the path" in f.explanation
    assert {(r.evidence, r.label, r.lines) for r in f.refs} == {(0, "cpu 1", (3, 3)), (1, "cpu 1", (3, 3))}


def test_it_says_when_every_cpu_kept_up(tmp_path: Path) -> None:
    f = backlog([SOFTNET / "vm-idle.txt", SOFTNET / "netns-flood-before.txt"])
    assert f.severity == "info" and f.title.startswith("no CPU dropped a packet")
    assert f.data["interval_s"] is None and "interval unknown" in f.title  # one of them is not dated


def test_one_snapshot_gives_its_totals_since_boot() -> None:
    f = backlog([HOST_DATA / "node_exporter_softnet_stat"])
    assert not f.data["delta"] and f.severity == "low" and "since boot" in f.title
    assert (f.data["dropped"], f.data["time_squeeze"]) == (41, 146)


def test_its_snapshots_are_paired_like_counters() -> None:
    result = analyze([SOFTNET / "netns-flood-after.txt", SOFTNET / "netns-flood-before.txt"])
    pairs = {p["evidence"]: p for p in snapshot_pairing(result.evidence)}
    assert (pairs[1]["role"], pairs[0]["role"], pairs[0]["ordered_by"]) == ("before", "after", "time")
    assert backlog([SOFTNET / "netns-flood-after.txt", SOFTNET / "netns-flood-before.txt"]).data["dropped"] == 2472


def test_a_row_that_is_not_hex_counters_is_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "softnet_stat"
    rows = (SOFTNET / "vm-idle.txt").read_text().splitlines()
    path.write_text("\n".join([rows[0], "cpu1 is busy", rows[1]]) + "\n")
    (ev,) = analyze([path], kinds=["softnet"]).evidence
    assert len(ev.summary["cpus"]) == 2 and ev.summary["bad_line_count"] == 1
    assert ev.error is not None and ev.error.line == 2
