"""What a bisect worker works with: its clone cache, job worktrees, scratch folders, the runner, the heartbeat.

Shared by the step service (``bisects.services.steps``) and the watch check (``bisects.services.schedules``):
both run a reproducer in a worktree of this worker's clone cache while a thread keeps their row's heartbeat
fresh. How a reproducer is run (``runner``) is decided here and nowhere else.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import logging
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from whodunnet.bisect.repo import RepoCache
from whodunnet.bisect.runner import LocalRunner, RunOutcome
from whodunnet.bisect.sandbox import Sandbox, SandboxError

logger = logging.getLogger(__name__)


def cache() -> RepoCache:
    """This worker's bare clones of the repositories it bisects (a kernel clone is gigabytes: kept)."""
    return RepoCache(Path(settings.BISECT_CACHE_DIR) / "clones")


def worktree_path(name: str) -> Path:
    return Path(settings.BISECT_CACHE_DIR) / "worktrees" / name


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    """A fresh folder for one step's (or one run's) scratch files, removed afterwards."""
    parent = worktree_path("scratch")
    parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="scratch-", dir=parent))
    path.chmod(0o711)  # the sandbox user must reach the run's own folder inside it, and list nothing
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def runner(*, cancel: threading.Event | None = None) -> LocalRunner:
    """The runner every reproducer on this worker runs under; ``cancel`` stops a run early.

    Sandboxed (``whodunnet.bisect.sandbox``) unless the operator set ``WHODUNNET_BISECT_SANDBOX=off``;
    raises ``SandboxError`` (the step fails with its message) when the sandbox cannot start here.
    """
    if not settings.BISECT_SANDBOX:
        return LocalRunner(cancel=cancel)
    return LocalRunner(cancel=cancel, sandbox=sandbox())


@functools.cache
def sandbox() -> Sandbox:
    """This worker's sandbox, checked once: a sandboxed ``true`` must run."""
    box = Sandbox.for_worker(
        bwrap=settings.BISECT_BWRAP or None,
        user=settings.BISECT_SANDBOX_USER,
        read_only=settings.BISECT_SANDBOX_READ_ONLY,
        devices=settings.BISECT_SANDBOX_DEVICES,
    )
    problem = box.check()
    if problem:
        raise SandboxError(f"the bisect sandbox cannot start on this worker: {problem}")
    return box


def stale_before() -> dt.datetime:
    """A running row whose heartbeat is older than this was left by a dead worker."""
    return timezone.now() - dt.timedelta(seconds=settings.RUN_STALE_SECONDS)


@contextlib.contextmanager
def heartbeat(beat: Callable[[], None]) -> Iterator[None]:
    """Call ``beat`` every third of the stale time while the block runs (a step may take hours)."""
    stop = threading.Event()
    interval = max(0.2, settings.RUN_STALE_SECONDS / 3)

    def loop() -> None:
        try:
            while not stop.wait(interval):
                try:
                    beat()
                except Exception:
                    logger.exception("heartbeat failed")
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=loop, name="bisect-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def runs_json(runs: Sequence[RunOutcome]) -> list[dict[str, Any]]:
    """The runs of a reproducer as stored in the database, their output cut to the configured tail."""
    limit = settings.BISECT_OUTPUT_TAIL_BYTES
    out = []
    for run in runs:
        data = run.to_json()
        for key in ("stdout_tail", "stderr_tail"):
            text: str = data.get(key) or ""
            if len(text) > limit:
                data[key] = text[-limit:]
        out.append(data)
    return out
