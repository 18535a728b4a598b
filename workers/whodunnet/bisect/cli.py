"""``whodunnet bisect``: a whole bisect on this machine, printed as JSON.

Exit status: 0 when the first bad commit was found, 3 when only skipped commits were left
(the JSON lists the candidates), 1 on an error (a step error, or git refusing the range).
Progress goes to stderr, one line per step; stdout holds only the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whodunnet.bisect.errors import SpecError
from whodunnet.bisect.spec import (
    DIRECTIONS,
    BisectSpec,
    ExitCodeRule,
    MetricRule,
    VerdictRule,
)

if TYPE_CHECKING:
    from whodunnet.bisect.session import BisectSession
    from whodunnet.bisect.step import StepResult

EXIT_FOUND, EXIT_ERROR, EXIT_AMBIGUOUS = 0, 1, 3


def default_cache_dir() -> Path:
    base = os.environ.get("WHODUNNET_BISECT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "whodunnet",
        "git",
    )
    return Path(base)


def register(subparsers: Any) -> None:
    """Add the ``bisect`` subcommand to the ``whodunnet`` parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "bisect",
        help="find the commit that introduced a regression, with real git bisect",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("repo", help="repository: a URL or a local path")
    p.add_argument("--good", required=True, help="a ref or commit without the regression")
    p.add_argument("--bad", required=True, help="a ref or commit with the regression")
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of the reproducer per step (default 1)",
    )
    p.add_argument(
        "--min-agreement",
        type=float,
        default=0.8,
        help="share of the runs that must agree for good/bad (default 0.8; 4 of 5)",
    )
    p.add_argument("--path", help="only consider commits touching this path (e.g. net/ipv4)")
    p.add_argument(
        "--timeout",
        type=float,
        default=3600.0,
        help="wall-time limit of one run, seconds",
    )
    p.add_argument("--memory-mb", type=int, help="address-space limit of the reproducer, MiB")
    p.add_argument(
        "--metric",
        help="judge by NAME=VALUE printed on stdout instead of the exit code",
    )
    p.add_argument("--threshold", type=float, help="with --metric: the value where bad starts")
    p.add_argument("--direction", choices=DIRECTIONS, default="above_is_bad", help="with --metric")
    p.add_argument(
        "--on-inconclusive",
        choices=("retry_then_skip", "skip"),
        default="retry_then_skip",
        help="when the runs of a step do not agree (default: retry once, then skip)",
    )
    p.add_argument(
        "--on-error",
        choices=("stop", "skip"),
        default="stop",
        help="when a step errors (default: stop)",
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        help="where cached clones live (default ~/.cache/whodunnet/git)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="run the reproducer as the console does: under bubblewrap, in fresh namespaces, with no network, "
        "only the worktree and a scratch directory writable, and only --env variables (default: as you, "
        "with your environment, like git bisect run)",
    )
    p.add_argument("--network", action="store_true", help="with --sandbox: give the reproducer the network")
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable for the reproducer (repeatable); with --sandbox the only ones it gets",
    )
    p.add_argument(
        "command",
        nargs="+",
        help="the reproducer, after '--': exit 0 good, 125 skip, 1-127 bad (or prints the metric)",
    )
    p.set_defaults(handler=handle)


def spec_from_args(args: argparse.Namespace) -> BisectSpec:
    rule: VerdictRule = ExitCodeRule()
    if args.metric:
        if args.threshold is None:
            raise SpecError("--metric needs --threshold")
        rule = MetricRule(metric=args.metric, threshold=args.threshold, direction=args.direction)
    return BisectSpec(
        repo=args.repo,
        good=args.good,
        bad=args.bad,
        command=tuple(args.command),
        path=args.path,
        repeats=args.repeats,
        rule=rule,
        step_timeout=args.timeout,
        memory_limit_mb=args.memory_mb,
        min_agreement=args.min_agreement,
        on_inconclusive=args.on_inconclusive,
        on_error=args.on_error,
        env=tuple(sorted(_env_pairs(args.env).items())),
        network=args.network,
    )


def _env_pairs(items: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise SpecError(f"--env takes NAME=VALUE, not {item!r}")
        pairs[name] = value
    return pairs


def handle(args: argparse.Namespace) -> int:
    # Imported here, not with the parser: every `whodunnet analyze` builds the parser, and the git driver, the runners
    # and the sandbox (yaml among them) were 20-25 ms of its start.
    from whodunnet.bisect.driver import run_bisect
    from whodunnet.bisect.repo import RepoCache
    from whodunnet.bisect.runner import LocalRunner
    from whodunnet.bisect.sandbox import Sandbox, SandboxError
    from whodunnet.bisect.session import Candidate

    try:
        spec = spec_from_args(args)
    except SpecError as exc:
        print(f"whodunnet bisect: {exc}", file=sys.stderr)
        return 2

    if args.network and not args.sandbox:
        print("whodunnet bisect: --network only applies with --sandbox", file=sys.stderr)
        return 2
    try:
        runner = LocalRunner(sandbox=Sandbox.for_worker()) if args.sandbox else LocalRunner(inherit_env=True)
    except SandboxError as exc:
        print(f"whodunnet bisect: {exc}", file=sys.stderr)
        return 2

    def progress(result: StepResult, session: BisectSession) -> None:
        nxt = session.next_candidate()
        left = f"{nxt.revisions_left} left, ~{nxt.steps_left} steps" if isinstance(nxt, Candidate) else "done"
        print(
            f"step {result.commit[:12]} {result.verdict:<12} {result.duration:7.2f}s  {left}  ({result.reason})",
            file=sys.stderr,
        )

    report = run_bisect(
        spec,
        cache=RepoCache(args.cache_dir or default_cache_dir()),
        runner=runner,
        on_step=None if args.quiet else progress,
    )
    json.dump(report.to_json(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    if report.status == "found":
        return EXIT_FOUND
    if report.status == "ambiguous":
        return EXIT_AMBIGUOUS
    if report.error and not args.quiet:
        print(f"whodunnet bisect: {report.error}", file=sys.stderr)
    return EXIT_ERROR
