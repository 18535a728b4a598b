"""Atheris fuzz target for the sockets text parser: any text in, a result or bad lines out, never a crash.

Short run (the test suite does ~2 s)::

    .venv/bin/python workers/fuzz/fuzz_sockets.py -max_total_time=10

Long run: add a corpus directory (e.g. workers/tests/host/data) and -max_total_time=3600.
"""

from __future__ import annotations

import sys

import atheris  # type: ignore[import-untyped]

with atheris.instrument_imports():
    from whodunnet.sockets.parser import SsParser, parse_csv, parse_json, rows_to_samples
    from whodunnet.textkinds import LineLog


def test_one_input(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    lines = list(enumerate(text.split("\n"), start=1))
    log = LineLog()
    s = SsParser(log)
    for n, line in lines:
        s.feed(n, line)
    rows_to_samples(parse_json(text, log), log)
    rows_to_samples(parse_csv(text, 1, log), log)
    assert log.count >= 0


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
