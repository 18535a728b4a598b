"""Analyzers for kernel-versions files and sysctl files.

Both only read and summarize: their findings (``kernel.known_change_in_range``,
``kernel.receive_window_model``) need the other evidence of the incident (two
single-version files are before/after; SO_RCVBUF comes from strace), so they are
made by ``whodunnet.correlate`` from these summaries.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from whodunnet.errors import MalformedInput
from whodunnet.kernel.sysctl import Sysctl
from whodunnet.kernel.versions import KernelVersion, parse_line
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding
from whodunnet.textkinds import LineLog, iter_lines, text_result

KERNEL_KIND = "kernel_versions"
SYSCTL_KIND = "sysctl"


def read_versions(lines: list[tuple[int, str]], log: LineLog) -> list[KernelVersion]:
    out = []
    for number, text in lines:
        s = text.strip()
        if not s or s.startswith("#") or s.startswith("$ uname"):
            continue
        v = parse_line(s)
        if v is None:
            log.bad(number, "no kernel version on this line", text)
            continue
        out.append(KernelVersion(v.raw, v.upstream, v.distro, v.build, v.approximate, v.host, v.role, number))
    return out


def analyze_kernel_versions(
    index: int, path: Path, *, limits: Limits = DEFAULT_LIMITS, progress: Callable[[float], None] | None = None
) -> tuple[EvidenceResult, list[Finding]]:
    """The versions in the file, each with host, role (before/after) and line."""
    log = LineLog()
    lines: list[tuple[int, str]] = []
    error: MalformedInput | None = None
    try:
        lines = list(iter_lines(path, limits=limits, on_progress=progress))
    except MalformedInput as exc:
        error = exc
    versions = read_versions(lines, log)
    if len(versions) == 2 and all(v.role is None for v in versions):
        versions = [_with_role(versions[0], "before"), _with_role(versions[1], "after")]
    summary: dict[str, Any] = {"lines": len(lines), "versions": [v.to_json() for v in versions]}
    return text_result(path, KERNEL_KIND, summary, log, error), []


def _with_role(v: KernelVersion, role: str) -> KernelVersion:
    return KernelVersion(v.raw, v.upstream, v.distro, v.build, v.approximate, v.host, role, v.line)


def analyze_sysctl(
    index: int, path: Path, *, limits: Limits = DEFAULT_LIMITS, progress: Callable[[float], None] | None = None
) -> tuple[EvidenceResult, list[Finding]]:
    """Every ``name = value`` with its line (values as text: ``tcp_rmem`` has three numbers)."""
    log = LineLog()
    sysctl = Sysctl()
    error: MalformedInput | None = None
    count = 0
    try:
        for number, text in iter_lines(path, limits=limits, on_progress=progress):
            count = number
            sysctl.feed(number, text, log)
    except MalformedInput as exc:
        error = exc
    summary: dict[str, Any] = {
        "lines": count,
        "settings": len(sysctl.values),
        "values": sysctl.values,
        "value_lines": sysctl.lines,
        "notes": sysctl.notes[:20],
    }
    return text_result(path, SYSCTL_KIND, summary, log, error), []
