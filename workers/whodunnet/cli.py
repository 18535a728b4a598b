"""The ``whodunnet`` command line: the same engine the Celery workers run, offline."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


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
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:
        # `whodunnet analyze x.pcap --json | head`: the reader left; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
