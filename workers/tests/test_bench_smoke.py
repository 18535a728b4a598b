"""``make bench`` cannot rot: its smallest shape is made and timed here, every tool beside ours.

The figures are not judged (timing thresholds belong in the benchmark, not in tests); what is
checked is that the benchmark still makes real traffic, that every form of the capture is read
by our analysis and by each tool it is compared with, and that our end-to-end run wrote its JSON.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_shapes

TOOLS = ("tshark", "editcap", "tcptrace", "argus")
missing = [t for t in TOOLS if shutil.which(t) is None]
pytestmark = [
    pytest.mark.skipif(bench_shapes.lab_unavailable() is not None, reason=str(bench_shapes.lab_unavailable())),
    pytest.mark.skipif(bool(missing), reason=f"the benchmark compares with {', '.join(missing)}: not installed"),
]


def test_the_smoke_benchmark_times_every_form_with_every_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    smoke, pair = bench_shapes.main(["--smoke", "--dir", str(tmp_path), "--no-cold"]).values()
    printed = capsys.readouterr().out.splitlines()
    # What the traffic came out as, beside the drop the shape set: from our analysis's retransmission findings.
    shows = next(line for line in printed if line.startswith("the traffic as captured (whodunnet's findings): "))
    assert "Retransmission rate" in shows or shows.endswith("no retransmissions"), shows
    graph = next(line for line in printed if line.startswith("Stevens graph"))
    assert "largest connection (" in graph and " points drawn" in graph, graph
    assert sorted(smoke) == ["gzip", "pcap", "pcapng"]
    packets = {form: n for form, (n, _) in smoke.items()}
    assert packets["pcap"] > 50_000, packets  # real traffic was captured
    assert len(set(packets.values())) == 1, packets  # every form holds the same packets, and we read them all
    for form, (_, rows) in smoke.items():
        # On the gzip form, the inflating alone too: the floor of its analysis.
        inflating = ["gzip", "isal's"] if form == "gzip" else []
        assert [r.what.split()[0].strip(",") for r in rows] == [
            "whodunnet",
            "whodunnet",
            "whodunnet",
            "tshark",
            "tcptrace",
            "argus",
            *inflating,
            *(["plain"] if form == "pcap" else []),  # the machine's ceiling: a C loop (it reads pcap only)
        ]
        for row in rows:
            if form == "gzip" and row.what.startswith("argus"):  # argus cannot open a gzip file: said, not timed
                assert row.note.startswith("cannot read this form"), row
                continue
            if row.what == bench_shapes.CEILING_ROW and bench_shapes.c_compiler() is None:
                assert row.note.startswith("no C compiler"), row  # said, not timed
                continue
            # (the C loop's note would say that its count of connections is not ours)
            assert row.seconds > 0 and not row.note, (form, row)
        # Ours is the median of several runs, whose fastest and slowest are printed beside it.
        runs = rows[0].runs
        assert len(runs) == bench_shapes.OURS_RUNS and rows[0].seconds == runs[len(runs) // 2], rows[0]
        line = next(line for line in printed if line.startswith(f"{form:7} whodunnet analyze --json"))
        assert line.endswith(f"(runs {runs[0]:.2f}-{runs[-1]:.2f} s)"), line
    # Under the table, the gzip form against its parts timed apart (test_bench_report.py works one out by hand).
    parts = next(line for line in printed if line.startswith("gzip against its parts timed apart"))
    assert "x their sum (" in parts and "x the least they allow (" in parts, parts
    # The same traffic captured at both ends: our comparison of the two, and tshark exporting both, each timed.
    (_, rows) = pair["pcap"]
    assert [r.what for r in rows] == [
        "whodunnet analyze CLIENT SERVER --json",
        "whodunnet analyze CLIENT alone",
        "whodunnet analyze SERVER alone",
        "tshark -T fields, both captures",
    ]
    assert all(row.seconds > 0 and not row.note for row in rows), rows
    assert any(line.startswith("smoke, captured at both ends") for line in printed), printed
