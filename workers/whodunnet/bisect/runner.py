"""Runners: how one run of the reproducer happens at one commit.

A runner gets the spec, the candidate commit, the job's worktree (already checked out at
that commit, clean) and an empty scratch directory, and returns a :class:`RunOutcome`. It
does not judge the outcome; ``whodunnet.bisect.step`` does, with the spec's rule.

:class:`LocalRunner` runs the reproducer here. A later ``SshRunner`` (build and boot a
kernel on a lab host) implements the same ``run``: it would push ``commit`` (or have the
host fetch it), run the command there under the same time limit and fill the same
``RunOutcome`` (use :func:`parse_metric` on the captured stdout); nothing else changes.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import resource
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from whodunnet.bisect.sandbox import DEFAULT_PATH, Sandbox, SandboxError, read_gitfile, restore_gitfile
from whodunnet.bisect.spec import BisectSpec, MetricRule

TAIL_BYTES = 64 * 1024
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class RunOutcome:
    """What one run of the reproducer did.

    ``exit_code`` is the process's exit status, negative for a signal (as ``subprocess``
    reports it), None when it timed out or could not be started (``error`` says why).
    ``stdout_tail``/``stderr_tail`` are the last ``TAIL_BYTES`` of each stream;
    ``metric_value`` is the last value printed for the spec's metric, if it has one.
    """

    exit_code: int | None
    timed_out: bool
    duration: float
    stdout_tail: str
    stderr_tail: str
    metric_value: float | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Runner(Protocol):
    """Runs the reproducer once at ``commit``; ``run_index`` numbers the runs of a job's commit."""

    def run(
        self,
        spec: BisectSpec,
        commit: str,
        worktree: Path,
        scratch_dir: Path,
        *,
        run_index: int = 0,
    ) -> RunOutcome: ...


def parse_metric(text: str, name: str) -> float | None:
    """The last ``name=value`` in ``text`` (a whole whitespace/comma-separated token)."""
    pattern = re.compile(rf"(?:^|[\s,;]){re.escape(name)}=({_NUMBER})(?=$|[\s,;])", re.MULTILINE)
    value: float | None = None
    for m in pattern.finditer(text):
        value = float(m.group(1))
    return value if value is not None and math.isfinite(value) else None


def _tail(f: IO[bytes], limit: int = TAIL_BYTES) -> str:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(max(0, size - limit))
    data = f.read()
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        # Drop the partial first line so the tail starts at a line boundary.
        text = text.split("\n", 1)[-1]
    return text


def _scan_metric(f: IO[bytes], name: str) -> float | None:
    # Streamed line by line: a kernel build can print megabytes before the value.
    f.seek(0)
    value: float | None = None
    for raw in f:
        if name.encode() in raw:
            found = parse_metric(raw.decode("utf-8", errors="replace"), name)
            if found is not None:
                value = found
    return value


def _limit_memory(limit_mb: int | None) -> Callable[[], None] | None:
    if limit_mb is None:
        return None
    limit = limit_mb * 1024 * 1024

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _poll_interval() -> float:
    return 0.2


class LocalRunner:
    """Runs the reproducer on this machine, in the worktree, in its own process group.

    With a ``sandbox`` (what the console's bisect workers always use, unless the operator
    turned it off) every run happens inside it: see :mod:`whodunnet.bisect.sandbox`.
    Environment: ``PATH``, ``HOME`` and ``TMPDIR`` (the run's scratch directory), ``LANG``,
    the job's declared ``spec.env``, and ``WHODUNNET_COMMIT`` (the
    candidate id), ``WHODUNNET_SCRATCH`` (an empty directory for this run),
    ``WHODUNNET_WORKTREE`` and ``WHODUNNET_RUN`` (0, 1, ... across all runs of this commit in
    the job). Only ``inherit_env`` (the CLI, run by a person in their own shell, like ``git
    bisect run``) starts from the caller's environment instead. On timeout the whole process
    group gets SIGTERM, then SIGKILL after ``kill_grace`` seconds; whatever is left of the
    group after a normal exit is killed too, so no run outlives its step (in a sandbox, its
    PID namespace ends with it). ``spec.memory_limit_mb`` caps the address space
    (RLIMIT_AS) of every process it starts.
    """

    def __init__(
        self,
        *,
        kill_grace: float = 2.0,
        extra_env: dict[str, str] | None = None,
        cancel: threading.Event | None = None,
        sandbox: Sandbox | None = None,
        inherit_env: bool = False,
    ) -> None:
        self.kill_grace = kill_grace
        self.extra_env = dict(extra_env or {})
        self.sandbox = sandbox
        self.inherit_env = inherit_env
        # Set by another thread (the worker's heartbeat, when the job is cancelled): the
        # running reproducer's process group is stopped at once instead of running to its end.
        self.cancel = cancel or threading.Event()

    def environment(
        self, spec: BisectSpec, commit: str, worktree: Path, scratch_dir: Path, run_index: int
    ) -> dict[str, str]:
        """The reproducer's whole environment for one run."""
        if self.inherit_env:
            env = dict(os.environ)
        else:
            env = {"PATH": DEFAULT_PATH, "HOME": str(scratch_dir), "TMPDIR": str(scratch_dir), "LANG": "C.UTF-8"}
        env.update(self.extra_env)
        env.update(dict(spec.env))
        env.update(
            WHODUNNET_COMMIT=commit,
            WHODUNNET_SCRATCH=str(scratch_dir),
            WHODUNNET_WORKTREE=str(worktree),
            WHODUNNET_RUN=str(run_index),
        )
        return env

    def _wait(self, proc: subprocess.Popen[bytes], timeout: float) -> int | None:
        """The exit code; None when cancelled; TimeoutExpired past ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            if self.cancel.is_set():
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            try:
                return proc.wait(timeout=min(left, _poll_interval()))
            except subprocess.TimeoutExpired:
                continue

    def run(
        self,
        spec: BisectSpec,
        commit: str,
        worktree: Path,
        scratch_dir: Path,
        *,
        run_index: int = 0,
    ) -> RunOutcome:
        env = self.environment(spec, commit, worktree, scratch_dir, run_index)
        shell = isinstance(spec.command, str)
        argv: str | list[str] = spec.command if isinstance(spec.command, str) else list(spec.command)
        popen: dict[str, Any] = {}
        worktree_cwd = worktree
        gitfile = None
        started = time.monotonic()
        if self.sandbox is not None:
            inner = ["/bin/sh", "-c", argv] if isinstance(argv, str) else argv
            argv = self.sandbox.command(inner, worktree=worktree, scratch=scratch_dir, env=env, network=spec.network)
            shell = False
            env = {"PATH": DEFAULT_PATH}
            popen = self.sandbox.popen_user()
            worktree_cwd = Path("/")  # bwrap changes into the worktree inside the sandbox
            gitfile = read_gitfile(worktree)
            try:
                self.sandbox.prepare(worktree, scratch_dir)
            except (SandboxError, OSError) as exc:
                return RunOutcome(
                    exit_code=None,
                    timed_out=False,
                    duration=time.monotonic() - started,
                    stdout_tail="",
                    stderr_tail="",
                    error=f"could not prepare the sandbox: {exc}",
                )
        try:
            return self._run(spec, argv, shell, worktree_cwd, env, popen, started)
        finally:
            if self.sandbox is not None:
                restore_gitfile(worktree, gitfile)

    def _run(
        self,
        spec: BisectSpec,
        argv: str | list[str],
        shell: bool,
        cwd: Path,
        env: dict[str, str],
        popen: dict[str, Any],
        started: float,
    ) -> RunOutcome:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    argv,
                    shell=shell,
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    # RLIMIT_AS must be set in the child before exec, or the reproducer could
                    # allocate (and fork) before the limit lands; only set with a limit, and
                    # the Celery prefork workers and the CLI are single-threaded here.
                    preexec_fn=_limit_memory(spec.memory_limit_mb),
                    **popen,
                )
            except OSError as exc:
                return RunOutcome(
                    exit_code=None,
                    timed_out=False,
                    duration=time.monotonic() - started,
                    stdout_tail="",
                    stderr_tail="",
                    error=f"could not start the reproducer: {exc}",
                )
            timed_out = False
            cancelled = False
            try:
                code: int | None = self._wait(proc, spec.step_timeout)
                cancelled = code is None
                if cancelled:
                    raise subprocess.TimeoutExpired(argv, spec.step_timeout)
            except subprocess.TimeoutExpired:
                timed_out = not cancelled
                _kill_group(proc.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=self.kill_grace)
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
                code = None
            finally:
                _kill_group(proc.pid, signal.SIGKILL)
            duration = time.monotonic() - started
            metric = _scan_metric(out, spec.rule.metric) if isinstance(spec.rule, MetricRule) else None
            if cancelled:
                return RunOutcome(
                    exit_code=None,
                    timed_out=False,
                    duration=duration,
                    stdout_tail=_tail(out),
                    stderr_tail=_tail(err),
                    error="cancelled",
                )
            return RunOutcome(
                exit_code=code,
                timed_out=timed_out,
                duration=duration,
                stdout_tail=_tail(out),
                stderr_tail=_tail(err),
                metric_value=metric,
                error=f"timed out after {spec.step_timeout:g} s" if timed_out else None,
            )
