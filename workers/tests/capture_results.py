"""A capture analysed to plain data: summary, error, connection rows and findings.

``results`` runs the kernel in this process (compiled). ``without_jit`` runs the same
analysis in a child process with ``NUMBA_DISABLE_JIT=1``, where numba leaves every kernel
function plain Python: run as a script (``python capture_results.py DIR``), this module
analyses each ``*.cap`` file in DIR (with the caplen limit in a ``.caplen`` file beside it,
if any) and writes ``results.pickle`` there.
"""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from whodunnet.capture import CaptureAnalysis
from whodunnet.capture.analyzer import summary_finding
from whodunnet.capture.findings import tcp_findings
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS

#: (summary, (error type, message, offset) or None, connection rows, findings, summary finding)
Result = tuple[dict[str, Any], tuple[str, str, int | None] | None, list[Any], list[Any], dict[str, Any]]


def results(data: bytes, *, max_caplen: int | None = None) -> Result:
    """Everything the engine says about one capture, as plain data."""
    limits = DEFAULT_LIMITS if max_caplen is None else replace(DEFAULT_LIMITS, max_caplen=max_caplen)
    analysis = CaptureAnalysis(limits=limits)
    error = None
    try:
        summary = analysis.run(io.BytesIO(data))
    except MalformedInput as exc:
        summary = exc.partial
        error = (type(exc).__name__, exc.message, exc.offset)
    assert isinstance(summary, dict)
    conns = analysis.connections()
    findings = tcp_findings(0, conns)
    return (
        summary,
        error,
        [asdict(c) for c in conns],
        [asdict(f) for f in findings],
        asdict(summary_finding(0, summary, None)),
    )


def without_jit(inputs: dict[str, tuple[bytes, int | None]], workdir: Path) -> dict[str, Result]:
    """``results`` of every input (data, caplen limit) with the kernel run as plain Python."""
    workdir.mkdir(parents=True, exist_ok=True)
    for i, (data, caplen) in enumerate(inputs.values()):
        (workdir / f"{i}.cap").write_bytes(data)
        if caplen is not None:
            (workdir / f"{i}.caplen").write_text(str(caplen))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    subprocess.run([sys.executable, __file__, str(workdir)], check=True, env=env, timeout=600)
    got: dict[str, Result] = pickle.loads((workdir / "results.pickle").read_bytes())
    return {name: got[str(i)] for i, name in enumerate(inputs)}


def _main(workdir: Path) -> None:
    from whodunnet.capture.kernel import jit_disabled

    assert jit_disabled(), "run with NUMBA_DISABLE_JIT=1"
    out = {}
    for cap in sorted(workdir.glob("*.cap")):
        caplen = cap.with_suffix(".caplen")
        limit = int(caplen.read_text()) if caplen.exists() else None
        out[cap.stem] = results(cap.read_bytes(), max_caplen=limit)
    (workdir / "results.pickle").write_bytes(pickle.dumps(out))


if __name__ == "__main__":
    _main(Path(sys.argv[1]))
