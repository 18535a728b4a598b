"""Short bounded runs of the one atheris fuzz target, for every kind (the long run is ``make fuzz``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from whodunnet import registry

FUZZ_TARGET = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_kind.py"
#: The capture reader gets longer: its decoders have the most paths.
SECONDS = {"capture": 10}


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
@pytest.mark.parametrize("target", ["sniff", *registry.names()])
def test_it_survives_a_short_fuzz_run(target: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seconds = SECONDS.get(target, 2)
    max_len = 65536 if target == "capture" else 8192
    proc = subprocess.run(
        [sys.executable, str(FUZZ_TARGET), target, str(corpus), f"-max_total_time={seconds}", "-rss_limit_mb=1024",
         f"-max_len={max_len}"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Done" in proc.stderr
    assert "seed corpus: files:" in proc.stderr  # started from the kinds' seeds


def test_it_says_which_kinds_there_are_when_asked_for_an_unknown_one() -> None:
    proc = subprocess.run(
        [sys.executable, str(FUZZ_TARGET), "vmstat"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode != 0 and "strace" in proc.stderr and "capture" in proc.stderr
