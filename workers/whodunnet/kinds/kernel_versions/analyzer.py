"""The kernel-versions analyzer: the versions in a file, each with its host, role and line.

It only reads and summarizes: its findings (``kernel.known_change_in_range``,
``kernel.receive_window_model``) need the other evidence of the incident (two
single-version files are before/after; SO_RCVBUF comes from strace), so they are
made by this kind's combiners (``combine.py``) from the summaries.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kernel.versions import KernelVersion, parse_line
from whodunnet.kinds.text import LineLog, read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding

KIND = "kernel_versions"
#: Versions kept in the summary (a kernel-versions file names a few; a mislabelled log could name many).
MAX_VERSIONS = 1000


class VersionReader:
    """One kernel version per line; comments, blank lines and the ``$ uname`` prompt are skipped."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.versions: list[KernelVersion] = []
        self.count = 0

    def feed(self, number: int, text: str) -> None:
        s = text.strip()
        if not s or s.startswith("#") or s.startswith("$ uname"):
            return
        v = parse_line(s)
        if v is None:
            self.log.bad(number, "no kernel version on this line", text)
            return
        self.count += 1
        if len(self.versions) < MAX_VERSIONS:
            self.versions.append(
                KernelVersion(v.raw, v.upstream, v.distro, v.build, v.approximate, v.host, v.role, number)
            )


def analyze_kernel_versions(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """The versions in the file, each with host, role (before/after) and line."""
    reader, run = read_with(path, VersionReader, limits=limits, progress=progress)
    versions = reader.versions
    if len(versions) == 2 and all(v.role is None for v in versions):
        versions = [_with_role(versions[0], "before"), _with_role(versions[1], "after")]
    summary: dict[str, Any] = {"versions": [v.to_json() for v in versions]}
    return text_result(path, KIND, summary, run), []


def _with_role(v: KernelVersion, role: str) -> KernelVersion:
    return KernelVersion(v.raw, v.upstream, v.distro, v.build, v.approximate, v.host, role, v.line)
