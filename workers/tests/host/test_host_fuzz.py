"""A short bounded run of every host-evidence fuzz target (the long runs are in their docstrings)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from host_testdata import HOST_DATA

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
TARGETS = ("strace", "counters", "sockets", "latency", "kernel", "appconfig", "sniff")


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
@pytest.mark.parametrize("name", TARGETS)
def test_it_survives_a_short_fuzz_run(name: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for seed in ("telegraf_tcp_traffic.txt", "insights_netstat_s.txt", "netperf_tcp_rr_histogram.txt"):
        (corpus / seed).write_bytes((HOST_DATA / seed).read_bytes()[:8192])
    (corpus / "strace").write_bytes((HOST_DATA / "loopback" / "client-synretrans.strace").read_bytes())
    proc = subprocess.run(
        [sys.executable, str(FUZZ / f"fuzz_{name}.py"), str(corpus), "-max_total_time=2", "-rss_limit_mb=1024",
         "-max_len=8192"],
        capture_output=True, text=True, timeout=90, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Done" in proc.stderr
