"""``whodunnet analyze FILE...``: the engine offline, the same result the worker stores."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any, BinaryIO, TextIO

from whodunnet import registry, verdicts
from whodunnet.engine import analyze
from whodunnet.limits import Limits
from whodunnet.model import ROLES, AnalysisResult, Provenance
from whodunnet.provenance import check_role, parse_time, read_manifest
from whodunnet.tuning import Tuning


def register(subparsers: Any) -> None:
    """Add the ``analyze`` sub-command to the ``whodunnet`` parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "analyze",
        help="analyze evidence files (captures, ...) and print the findings",
        description="Analyze evidence files together and print what they hold and the findings.",
    )
    p.add_argument("files", metavar="FILE", nargs="*", help="evidence files; the kind is detected from content")
    p.add_argument(
        "--host",
        nargs="+",
        action="append",
        default=[],
        metavar=("NAME", "FILE"),
        help="the files that follow were taken on host NAME (they are analysed too)",
    )
    p.add_argument(
        "--role",
        nargs="+",
        action="append",
        default=[],
        metavar=("ROLE", "FILE"),
        help=f"the files that follow come from a host that is the {'/'.join(ROLES)} (router and nat: middlebox)",
    )
    p.add_argument(
        "--taken-at",
        nargs="+",
        action="append",
        default=[],
        metavar=("TIME", "FILE"),
        help="the snapshot files that follow were taken at TIME (unix seconds or ISO 8601)",
    )
    p.add_argument(
        "--manifest",
        action="append",
        default=[],
        metavar="FILE",
        help="a JSON list (or TOML [[evidence]] tables) of {file, host, role, taken_at}; its files are analysed too",
    )
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
    try:
        files, given = provenance_from_args(args)
    except (OSError, ValueError) as exc:
        print(f"whodunnet analyze: error: {exc}", file=sys.stderr)
        return 2
    if not files:
        print("whodunnet analyze: error: no evidence files given", file=sys.stderr)
        return 2
    missing = [f for f in files if not os.path.isfile(f)]
    for f in missing:
        print(f"whodunnet analyze: error: no such file: {f}", file=sys.stderr)
    if missing:
        return 2
    try:
        tuning = Tuning.from_json({name: g.from_cli(args) for name, g in registry.settings_groups().items()})
    except ValueError as exc:
        print(f"whodunnet analyze: error: {exc}", file=sys.stderr)
        return 2
    result = analyze(files, limits=Limits(max_input_bytes=args.max_input_bytes), tuning=tuning, provenance=given)
    if args.json:
        # ``result`` is kept as it is until the command returns: the process then ends without freeing it
        # (``cli._leave``), where dropping its connection tables here took 0.05 s of the 1 M-connection capture.
        shown = result
        if not args.connections:  # the table can be most of the output: asked for, not by default
            shown = dataclasses.replace(
                result, evidence=tuple(dataclasses.replace(ev, connections=()) for ev in result.evidence)
            )
        sys.stdout.flush()
        write_all(sys.stdout.buffer, shown.to_json_bytes())
        sys.stdout.buffer.write(b"\n")
    else:
        print_report(result, sys.stdout)
    return 0


def write_all(out: BinaryIO, data: bytes) -> None:
    """All of ``data`` to ``out``. One buffered write of more than 2 GiB (the connection table of a million
    connections) writes 2 GiB - 4 KiB, Linux's most per write, and says so only in the count it returns."""
    view = memoryview(data)
    while view:
        view = view[out.write(view) :]


def provenance_from_args(args: argparse.Namespace) -> tuple[list[str], dict[str, Provenance]]:
    """Every file named (positional, after --host/--role/--taken-at, in a manifest), in the order
    given and each once, with what the flags said about it (later flags win per field)."""
    files: list[str] = list(args.files)
    given: dict[str, dict[str, Any]] = {}
    for manifest in args.manifest:
        for f, p in read_manifest(manifest).items():
            files.append(f)
            given.setdefault(f, {}).update({k: v for k, v in (("host", p.host), ("role", p.role),
                                                              ("taken_at", p.taken_at)) if v is not None})  # fmt: skip
    for flag, field_name, convert in (
        ("host", "host", str),
        ("role", "role", check_role),
        ("taken_at", "taken_at", parse_time),
    ):
        for group in getattr(args, flag):
            if len(group) < 2:
                raise ValueError(f"--{flag.replace('_', '-')} {group[0]} names no file")
            value = convert(group[0])
            for f in group[1:]:
                files.append(f)
                given.setdefault(f, {})[field_name] = value
    unique = list(dict.fromkeys(files))
    return unique, {f: Provenance(**v) for f, v in given.items()}


def print_report(result: AnalysisResult, out: TextIO) -> None:
    """A readable text version of ``result``."""
    out.write(f"whodunnet {result.engine_version}\n\n")
    for i, ev in enumerate(result.evidence):
        out.write(f"[{i}] {ev.path}: {ev.kind}{_where(ev.provenance)}\n")
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
    out.write(verdicts.render(result.evidence, result.findings) + "\n")


def _where(p: Provenance) -> str:
    """`` (host client, client, taken 1795294294.2 [content])`` — what is known of where a file is from."""
    parts = []
    if p.host is not None:
        parts.append(f"host {p.host} [{p.source.get('host', '?')}]")
    if p.role is not None:
        parts.append(f"{p.role} [{p.source.get('role', '?')}]")
    if p.taken_at is not None:
        parts.append(f"taken at {p.taken_at:.3f} [{p.source.get('taken_at', '?')}]")
    return f" ({', '.join(parts)})" if parts else ""


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
