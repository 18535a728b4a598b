"""The ``whodunnet`` command line: the same engine the Celery workers run, offline."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whodunnet", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    from whodunnet.analyze_cli import register as register_analyze

    register_analyze(sub)
    try:
        from whodunnet.bisect.cli import register as register_bisect
    except ImportError:
        pass
    else:
        register_bisect(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; from the command line (``argv`` None) the process ends here (``_leave``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # What start-up made (numpy's, numba's and the engine's modules and objects) lives as long as the process: out
    # of the collector's reach, so that its full collections, which the objects an analysis makes set off, do not
    # walk all of it each time (0.3-0.45 s of the 1 M-connection capture's 4 s). The workers do the same.
    gc.freeze()
    try:
        code: int = args.handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # `whodunnet analyze x.pcap --json | head`: the reader left; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    if argv is None and not _working_threads():
        _leave(code)
    return code


def _working_threads() -> list[threading.Thread]:
    """Threads the interpreter's teardown would wait for (alive, not daemons, not this one)."""
    return [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon and t.is_alive()]


def _leave(code: int) -> NoReturn:
    """End the process without the interpreter's teardown, which frees every object one at a time (numba's
    compiler state, the analysis's arrays): 0.13 s of a 0.6 s `whodunnet analyze` of a small capture. The system
    takes the memory back at once. Only when nothing is left pending: the output and the log are flushed here,
    every command has closed its files and removed its temporary folders before it returned (the capture's spill
    file was unlinked when it was made), and no thread is still working (``main`` checks; with one, the process
    ends the usual way, waiting for it)."""
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
