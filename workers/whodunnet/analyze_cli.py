"""``whodunnet analyze FILE...``: the engine offline, the same result the worker stores."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any, TextIO

from whodunnet import registry
from whodunnet.engine import analyze
from whodunnet.limits import Limits
from whodunnet.model import AnalysisResult
from whodunnet.tuning import Tuning


def register(subparsers: Any) -> None:
    """Add the ``analyze`` sub-command to the ``whodunnet`` parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "analyze",
        help="analyze evidence files (captures, ...) and print the findings",
        description="Analyze evidence files together and print what they hold and the findings.",
    )
    p.add_argument("files", metavar="FILE", nargs="+", help="evidence files; the kind is detected from content")
    p.add_argument("--json", action="store_true", help="print one JSON object (evidence + findings)")
    p.add_argument(
        "--connections",
        action="store_true",
        help="with --json: also every capture's whole connection table (one row per TCP connection)",
    )
    p.add_argument(
        "--max-input-bytes",
        type=_positive_int,
        default=Limits().max_input_bytes,
        metavar="N",
        help="stop reading a file after N (decompressed) bytes; default 10 GiB",
    )
    for group in registry.settings_groups().values():  # each kind's settings, from its schema
        group.add_cli(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every file was analysed (even with errors in them), 2 for missing files."""
    missing = [f for f in args.files if not os.path.isfile(f)]
    for f in missing:
        print(f"whodunnet analyze: error: no such file: {f}", file=sys.stderr)
    if missing:
        return 2
    try:
        tuning = Tuning.from_json({name: g.from_cli(args) for name, g in registry.settings_groups().items()})
    except ValueError as exc:
        print(f"whodunnet analyze: error: {exc}", file=sys.stderr)
        return 2
    result = analyze(args.files, limits=Limits(max_input_bytes=args.max_input_bytes), tuning=tuning)
    if args.json:
        if not args.connections:  # the table can be most of the output: asked for, not by default
            result = dataclasses.replace(
                result, evidence=tuple(dataclasses.replace(ev, connections=()) for ev in result.evidence)
            )
        sys.stdout.flush()
        sys.stdout.buffer.write(result.to_json_bytes() + b"\n")
    else:
        print_report(result, sys.stdout)
    return 0


def print_report(result: AnalysisResult, out: TextIO) -> None:
    """A readable text version of ``result``."""
    out.write(f"whodunnet {result.engine_version}\n\n")
    for i, ev in enumerate(result.evidence):
        out.write(f"[{i}] {ev.path}: {ev.kind}\n")
        s = ev.summary
        if ev.kind == "capture" and s:
            fmt = s["format"] + (" (gzip)" if s["compressed"] else "")
            out.write(f"    format       {fmt}, link types: {', '.join(s['link_types']) or '-'}\n")
            out.write(f"    packets      {s['packets']:,} ({s['bytes']:,} bytes, {s['captured_bytes']:,} captured)\n")
            out.write(f"    time         {_ts(s['first_ts'])} .. {_ts(s['last_ts'])} ({s['duration']:.6f} s)\n")
            out.write(f"    tcp          {s['tcp_packets']:,} packets, {s['tcp_connections']:,} connections\n")
            if s["truncated_packets"] or s["ip_fragments"]:
                out.write(f"    truncated    {s['truncated_packets']:,}, IP fragments {s['ip_fragments']:,}\n")
        if ev.error is not None:
            where = f" (byte {ev.error.offset:,})" if ev.error.offset is not None else ""
            out.write(f"    ERROR{where}: {ev.error.message}\n")
        out.write("\n")
    out.write(f"{len(result.findings)} finding{'s' if len(result.findings) != 1 else ''}\n")
    for f in result.findings:
        out.write(f"- [{f.severity}] {f.layer}: {f.title}  ({f.kind})\n")
        out.write(f"    {f.explanation}\n")


def _ts(value: float | None) -> str:
    return "-" if value is None else f"{value:.6f}"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive number of bytes")
    return value
