"""Running git: one place that fixes the environment so its messages can be parsed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from whodunnet.bisect.errors import BisectError

# Messages are parsed (``Bisecting: ...``, ``... is the first bad commit``), so git must
# speak C; no prompt may ever wait for a password inside a worker; and the user's global
# config (hooks, pagers, advice) must not change what the engine sees.
_ENV_OVERRIDES = {
    "LC_ALL": "C",
    "LANGUAGE": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "GIT_ADVICE": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_SSH", "GIT_SSH_COMMAND")}
    env.update(_ENV_OVERRIDES)
    return env


def git(
    args: Sequence[str],
    *,
    cwd: Path | str,
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd``; raise :class:`BisectError` on failure when ``check``."""
    proc = subprocess.run(
        [
            "git",
            "-c",
            "advice.detachedHead=false",
            "-c",
            "core.hooksPath=/dev/null",
            # A sandboxed reproducer owns the files of its worktree (see bisect.sandbox); git
            # would refuse that worktree as "dubious". What git reads to find its repository,
            # the worktree's .git link, is put back by the worker after every run, and the git
            # directory itself is never writable from the sandbox.
            "-c",
            "safe.directory=*",
            *args,
        ],
        cwd=cwd,
        env=git_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        check=False,
    )
    if check and proc.returncode != 0:
        raise BisectError(
            f"git {' '.join(args[:3])} failed (exit {proc.returncode})",
            output=proc.stdout + proc.stderr,
        )
    return proc


def rev_parse(ref: str, *, cwd: Path | str) -> str | None:
    """The commit id ``ref`` names, or None when it names no commit here."""
    proc = git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        cwd=cwd,
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None
