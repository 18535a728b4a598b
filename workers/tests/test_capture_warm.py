"""The kernel is compiled once, at install time, never in front of a user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from capture_testdata import CAPTURES

LAB = Path(__file__).parent / "data" / "lab"
# numba's compile-time registries (its typing and lowering of numpy's linear algebra, typed containers, ...) and its
# reference-counting runtime are what a compile needs; code loaded from the cache does not, and a process that loads
# the kernel never imports the one nor compiles the other.
NO_COMPILER = (
    "from numba.core.runtime import rtsys; "
    "assert not {'numba.np.linalg', 'numba.typed.typeddict'} & set(sys.modules), 'numba loaded its compiler'; "
    "assert not rtsys._init, 'numba compiled its runtime'"
)
ANALYZE = "import sys; from whodunnet.engine import analyze; analyze(sys.argv[1:]); " + NO_COMPILER


def cache_files(cache: Path) -> dict[str, int]:
    return {str(p.relative_to(cache)): p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}


def test_after_the_warm_up_no_analysis_compiles_anything(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    warm = subprocess.run(
        [sys.executable, "-m", "whodunnet.capture.warm"], env=env, capture_output=True, text=True, check=True
    )
    assert warm.stdout.startswith("capture kernel ready in")
    compiled = cache_files(tmp_path)
    assert any(name.endswith(".nbc") for name in compiled)  # machine code on disk
    # Every input form, and a Stevens graph, in a fresh process: everything comes from the cache.
    inputs = [CAPTURES / n for n in ("retransmit-timeout.pcapng", "iso-download.pcap.gz", "twovlan.pcap")]
    subprocess.run([sys.executable, "-c", ANALYZE, *map(str, inputs)], env=env, check=True)
    graph = "from whodunnet.capture import time_sequence; import sys; time_sequence(sys.argv[1], 0); " + NO_COMPILER
    subprocess.run([sys.executable, "-c", graph, str(inputs[1])], env=env, check=True)
    # A capture of many connections retires them when the kernel's rows are full, and brings some back.
    subprocess.run([sys.executable, "-c", SWEEPS, str(LAB / "many-slice.pcap.gz")], env=env, check=True)
    assert cache_files(tmp_path) == compiled


SWEEPS = f"""
import sys
from whodunnet.capture.analyzer import CaptureAnalysis
from whodunnet.capture.constants import Ageing
analysis = CaptureAnalysis(ageing=Ageing(closed_after=0.05, idle_after=0.5, rows=8))
analysis.run(sys.argv[1])
analysis.connections()
assert analysis.state.retired and analysis.state.revived, (analysis.state.retired, analysis.state.revived)
{NO_COMPILER}
"""


def test_a_process_that_analyses_starts_no_linear_algebra_threads() -> None:
    # numpy's OpenBLAS starts a thread per core at import, spinning for 0.14 s of CPU; the engine has no use for it.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    threads = "import os, whodunnet.engine, numpy; print(len(os.listdir('/proc/self/task')))"
    out = subprocess.run([sys.executable, "-c", threads], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"
