"""A short bounded run of the atheris fuzz target (the long run is in its docstring)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ_TARGET = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_capture.py"
SEEDS = Path(__file__).parent / "data" / "captures"


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
def test_it_survives_ten_seconds_of_fuzzing(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for seed in ("pptp.pcap", "tcp-handshake-nano.pcap", "retransmit-timeout.pcapng", "iso-download.pcap.gz"):
        (corpus / seed).write_bytes((SEEDS / seed).read_bytes())
    proc = subprocess.run(
        [sys.executable, str(FUZZ_TARGET), str(corpus), "-max_total_time=10", "-rss_limit_mb=1024", "-max_len=65536"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Done" in proc.stderr
