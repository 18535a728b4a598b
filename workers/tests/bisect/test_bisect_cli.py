"""``whodunnet bisect`` end to end: arguments in, JSON out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from bisect_testrepo import PlantedRepo

from whodunnet.bisect.cli import register


def run_cli(argv: list[str]) -> int:
    # The same wiring as whodunnet.cli.build_parser, without the other subcommands.
    parser = argparse.ArgumentParser(prog="whodunnet")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_the_cli_prints_the_first_bad_commit_steps_and_log_as_json(
    planted_repo: PlantedRepo,
    shared_cache: Path,
    scripts: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run_cli(
        [
            "bisect",
            str(planted_repo.path),
            "--good",
            planted_repo.good,
            "--bad",
            planted_repo.bad,
            "--path",
            "net/ipv4",
            "--cache-dir",
            str(shared_cache),
            "--",
            str(scripts["plain"]),
        ]
    )

    out, err = capsys.readouterr()
    result = json.loads(out)
    assert code == 0
    assert result["status"] == "found"
    assert result["first_bad"]["id"] == planted_repo.planted
    assert result["first_bad"]["title"] == "tcp: shrink the default send buffer"
    assert result["first_bad"]["touches_path"] is True
    assert "net/ipv4/value.txt" in result["first_bad"]["files"]
    assert result["steps"] and {"commit", "verdict", "duration", "runs"} <= set(result["steps"][0])
    assert "git bisect start" in result["log"]
    assert err.count("step ") == len(result["steps"])


def test_the_cli_judges_by_a_metric_and_exits_1_when_a_step_errors(
    planted_repo: PlantedRepo,
    shared_cache: Path,
    scripts: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    common = [
        "bisect",
        str(planted_repo.path),
        "--good",
        "v1.0",
        "--bad",
        "v2.0",
        "--cache-dir",
        str(shared_cache),
    ]
    metric = [
        "--metric",
        "transfer_seconds",
        "--threshold",
        "15",
        "--direction",
        "above_is_bad",
        "--quiet",
    ]

    found = run_cli([*common, *metric, "--", str(scripts["metric"])])
    found_json = json.loads(capsys.readouterr().out)
    failed = run_cli([*common, "--timeout", "0.3", "--quiet", "--", "sleep", "5"])
    failed_json = json.loads(capsys.readouterr().out)

    assert found == 0 and found_json["first_bad"]["id"] == planted_repo.planted
    assert failed == 1 and failed_json["status"] == "error"
    assert "timed out" in failed_json["error"]
