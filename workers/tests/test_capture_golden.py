"""The capture engine's whole output, byte for byte, against golden files.

For every corpus capture and the lab captures (slices of real kernel traffic made in
namespaces: parallel downloads and short request/response connections through a delay line
with loss), the summary, every connection row and every finding must be exactly what the
engine gave when the golden files were recorded. A change to the engine's speed or memory
layout must not change a single field; a change meant to change the output re-records them:

    cd workers && PYTHONPATH=. ../.venv/bin/python tests/test_capture_golden.py --record
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import orjson
import pytest
from capture_testdata import CAPTURES

from whodunnet.capture.analyzer import analyze_capture
from whodunnet.capture.constants import DEFAULT_AGEING, Ageing
from whodunnet.limits import DEFAULT_LIMITS
from whodunnet.model import json_bytes

GOLDEN = Path(__file__).parent / "data" / "golden"
LAB = Path(__file__).parent / "data" / "lab"
SUFFIXES = (".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz")


def captures() -> list[Path]:
    found = [p for d in (CAPTURES, LAB) for p in sorted(d.iterdir()) if p.name.endswith(SUFFIXES)]
    return found


def output(path: Path, ageing: Ageing | None = DEFAULT_AGEING) -> bytes:
    """The summary, connection table and findings of one capture, as indented JSON."""
    evidence, findings = analyze_capture(0, path, limits=DEFAULT_LIMITS, ageing=ageing)
    doc = {
        "summary": evidence.summary,
        "error": evidence.error,
        "connections": evidence.connections,
        "findings": findings,
    }
    return json_bytes(doc, indent=True)


def golden_path(path: Path) -> Path:
    return GOLDEN / f"{path.parent.name}-{path.name}.json.gz"


def test_every_capture_has_a_golden_file() -> None:
    names = {golden_path(p).name for p in captures()}
    assert len(names) >= 40
    assert names == {p.name for p in GOLDEN.glob("*.json.gz")}


@pytest.mark.parametrize("path", captures(), ids=lambda p: p.name)
def test_output_is_the_golden_one(path: Path) -> None:
    want = gzip.decompress(golden_path(path).read_bytes())
    got = output(path)
    if got != want:
        # Show the first field that differs, not two multi-megabyte documents.
        w, g = orjson.loads(want), orjson.loads(got)
        for key in ("summary", "error", "findings", "connections"):
            if w[key] != g[key]:
                if isinstance(w[key], list):
                    assert len(g[key]) == len(w[key]), key
                    for i, (a, b) in enumerate(zip(w[key], g[key], strict=True)):
                        assert b == a, f"{key}[{i}]"
                assert g[key] == w[key], key
        assert got == want


def record() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.glob("*.json.gz"):
        old.unlink()
    for path in captures():
        golden_path(path).write_bytes(gzip.compress(output(path), 9, mtime=0))
        print(golden_path(path).name)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    record()
