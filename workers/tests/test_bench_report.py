"""What ``make bench`` prints from its rows, worked out by hand: the gzip form against its parts timed apart."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_shapes
from bench_shapes import ISAL_ROW, ONE_CORE_ROW, WORKER_ROW, Timing


def _rows(worker: tuple[float, float], one_core: float, isal: tuple[float, float] | None = None) -> list[Timing]:
    rows = [
        Timing("whodunnet analyze --json > out.json", 9.0, 100.0),
        Timing(WORKER_ROW, worker[0], 100.0, cpu=worker[1]),
        Timing(ONE_CORE_ROW, one_core, 100.0, cpu=one_core),
    ]
    if isal is not None:
        rows.append(Timing(ISAL_ROW, isal[0], 20.0, cpu=isal[1]))
    return rows


@pytest.mark.parametrize(
    ("pcap", "gzipped", "said"),
    [
        # A many-connection capture: its analysis (3.5 s on two cores for 5.3 CPU s, 5.5 s on one) is slower than the
        # inflating (1.8 s, 0.05 s of which is isal's start). One core: 7.0 s against 5.5 + 1.75 s, 0.97x. Two cores:
        # the CPU is the bound, (5.3 + 1.75) / 2 = 3.525 s, above the pcap's 3.5 s.
        pytest.param(
            _rows(worker=(3.5, 5.3), one_core=5.5),
            _rows(worker=(4.23, 7.0), one_core=7.0, isal=(1.8, 1.8)),
            [
                "isal's inflating alone, 0.05 s of process start taken off",
                "on one core 7.00 s, 0.97x their sum (5.50 + 1.75 s)",
                "on 2 cores 4.23 s, 1.20x the least they allow (3.52 s: the slowest of 3.50 s, 1.75 s and their CPU",
            ],
            id="many: the CPU over two cores is the bound",
        ),
        # A bulk capture: its analysis 0.25 s, the inflating 0.36 s. On two cores the gzip at 0.36 s is at the
        # decompressor's own speed: 1.00x.
        pytest.param(
            _rows(worker=(0.33, 0.33), one_core=0.25),
            _rows(worker=(0.36, 0.6), one_core=0.61, isal=(0.41, 0.41)),
            [
                "on one core 0.61 s, 1.00x their sum (0.25 + 0.36 s)",
                "on 2 cores 0.36 s, 1.00x the least they allow (0.36 s: the slowest of 0.33 s, 0.36 s",
            ],
            id="bulk: the inflating is the bound",
        ),
    ],
)
def test_the_gzip_form_is_set_against_the_sum_of_its_parts_on_one_core_and_the_least_they_allow_on_two(
    pcap: list[Timing], gzipped: list[Timing], said: list[str]
) -> None:
    line = bench_shapes.gzip_against_its_parts({"pcap": (10, pcap), "gzip": (10, gzipped)}, start=0.05, cores=2)
    for words in said:
        assert words in line, line


def test_without_the_inflating_timed_nothing_is_said() -> None:
    """isal not timed (or a form missing): no line, rather than a ratio against nothing."""
    out = {
        "pcap": (10, _rows(worker=(0.33, 0.33), one_core=0.25)),
        "gzip": (10, _rows(worker=(0.36, 0.6), one_core=0.6)),
    }
    assert bench_shapes.gzip_against_its_parts(out, start=0.05, cores=2) == ""
    assert bench_shapes.gzip_against_its_parts({"gzip": out["gzip"]}, start=0.05, cores=2) == ""


def test_ours_is_timed_on_every_form_before_any_other_tool_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other tools take gigabytes (tshark and tcptrace 6-8 GB of the many capture), and on a virtual machine
    that hands freed memory back to its host, the process after them pays a host fault for each page it touches:
    ours on the pcapng and gzip forms must not be timed after the pcap form's tools. The table still shows each
    form's rows together, ours first."""
    made = [(form, tmp_path / f"capture.{form}") for form in ("pcap", "pcapng", "gzip")]
    for _, file in made:
        file.write_bytes(b"\0" * 64)
    runs: list[tuple[str, str]] = []

    def ours(path: Path, tmp: Path) -> tuple[int, list[Timing]]:
        runs.append(("ours", path.suffix))
        return 1000, _rows(worker=(0.5, 0.5), one_core=0.5)

    def others(path: Path, tmp: Path) -> list[Timing]:
        runs.append(("others", path.suffix))
        return [Timing("tshark -q -z conv,tcp", 30.0, 6000.0, cpu=30.0)]

    monkeypatch.setattr(bench_shapes, "forms", lambda path, tmp: made)
    monkeypatch.setattr(bench_shapes, "time_ours", ours)
    monkeypatch.setattr(bench_shapes, "time_others", others)
    monkeypatch.setattr(bench_shapes, "capture_shows", lambda out: "no retransmissions")
    shape = bench_shapes.SHAPES["bulk"]
    table = bench_shapes.report(shape, made[0][1], "")
    assert runs == [(who, form) for who in ("ours", "others") for form in (".pcap", ".pcapng", ".gzip")]
    assert [r.what for r in table["pcapng"][1]] == [
        "whodunnet analyze --json > out.json",
        WORKER_ROW,
        ONE_CORE_ROW,
        "tshark -q -z conv,tcp",
    ]
    printed = capsys.readouterr().out
    assert "pcapng  tshark -q -z conv,tcp" in printed
