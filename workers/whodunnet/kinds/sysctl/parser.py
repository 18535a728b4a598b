"""``sysctl -a`` (or a subset) and ``grep . /proc/sys/...`` output → ``{name: value}`` with line numbers.

A file that holds one bare value (``cat /proc/sys/net/netfilter/nf_conntrack_max`` → ``262144``) names
its setting only in its file name: the value is kept as ``bare_value`` and ``settings`` reads it under
the setting its file is named after (``nf_conntrack_max`` → ``net.netfilter.nf_conntrack_max``), from
the name the file was uploaded or given under.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from whodunnet.kinds.text import LineLog
from whodunnet.model import EvidenceResult

_LINE = re.compile(r"^(?P<key>[A-Za-z0-9_][\w\-/.*@:]*?)\s*=\s*(?P<value>.*)$")
_PROC = re.compile(r"^/proc/sys/(?P<key>[\w\-/.]+):\s*(?P<value>.*)$")
#: What ``cat`` of one /proc/sys file prints: one to four numbers (``tcp_rmem`` has three).
BARE = re.compile(r"^-?\d+(?:\s+-?\d+){0,3}$")
#: The settings the engine reads, by the last part of their /proc/sys path (what a bare file is called).
KNOWN = {
    name.rsplit(".", 1)[1]: name
    for name in (
        "net.netfilter.nf_conntrack_count", "net.netfilter.nf_conntrack_max",
        "net.netfilter.nf_conntrack_buckets", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem", "net.ipv4.tcp_adv_win_scale", "net.ipv4.tcp_ecn", "net.ipv4.tcp_syn_retries",
        "net.ipv4.tcp_synack_retries", "net.ipv4.tcp_syn_linear_timeouts", "net.ipv4.tcp_max_syn_backlog",
        "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_timestamps",
        "net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default", "net.core.somaxconn",
        "net.core.netdev_max_backlog", "net.core.netdev_budget",
    )
}  # fmt: skip


class Sysctl:
    """Values as strings (``tcp_rmem`` is ``"4096 131072 6291456"``) and the line each came from."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.values: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.notes: list[str] = []
        #: Lines that are only numbers: one alone is a bare value; several, or beside named values, are bad.
        self._bare: list[tuple[int, str]] = []

    @property
    def bare(self) -> tuple[int, str] | None:
        """The file's one bare value and its line, when that is all it holds."""
        return self._bare[0] if len(self._bare) == 1 and not self.values else None

    def finish(self) -> None:
        if self.bare is None:
            for number, text in self._bare[:50]:
                self.log.bad(number, "a number without a setting's name", text)

    def feed(self, number: int, text: str) -> None:
        s = text.strip()
        if not s or s.startswith(("#", ";")):
            return
        if s.startswith("sysctl: "):  # "permission denied on key ..." printed by sysctl -a
            self.notes.append(s)
            return
        if BARE.match(s):
            self._bare.append((number, " ".join(s.split())))
            return
        m = _PROC.match(s)
        if m is not None:
            key = m.group("key").replace("/", ".")
        elif (m := _LINE.match(s)) is not None:
            key = m.group("key")
        else:
            self.log.bad(number, "not a 'name = value' line", text)
            return
        self.values[key] = " ".join(m.group("value").split())
        self.lines[key] = number


def get_int(values: dict[str, str], *names: str) -> int | None:
    """The first of ``names`` present, as an int (the first field of a multi-value setting)."""
    for name in names:
        raw = values.get(name)
        if raw is None:
            continue
        first = raw.split()[0] if raw.split() else ""
        if re.fullmatch(r"-?\d+", first):
            return int(first)
    return None


def get_ints(values: dict[str, str], name: str) -> list[int] | None:
    raw = values.get(name)
    if raw is None:
        return None
    parts = raw.split()
    if not parts or not all(re.fullmatch(r"-?\d+", p) for p in parts):
        return None
    return [int(p) for p in parts]


def bare_name(file_name: str) -> str | None:
    """The setting a bare-value file holds, from its name (None when the name does not say).

    ``/proc/sys/net/netfilter/nf_conntrack_max`` and ``net.netfilter.nf_conntrack_max`` say it whole;
    ``nf_conntrack_max``, ``nf_conntrack_max.txt`` or ``lb-1-nf_conntrack_max.txt`` name a setting the
    engine knows.
    """
    path = file_name.replace("\\", "/")
    if (m := re.search(r"(?:^|/)proc/sys/(?P<key>[\w\-/.]+?)(?:\.txt|\.out)?$", path)) is not None:
        return m.group("key").replace("/", ".")
    leaf = path.rsplit("/", 1)[-1]
    if (m := re.fullmatch(r"(?P<key>(?:net|kernel|vm|fs)\.[\w.\-]+?)(?:\.txt|\.out)?", leaf)) is not None:
        return m.group("key")
    found = [k for k in KNOWN if re.search(rf"(?:^|[^a-z0-9_]){k}(?:$|[^a-z0-9_])", leaf)]
    return KNOWN[max(found, key=len)] if found else None


@dataclass(frozen=True)
class Setting:
    """One sysctl value, the evidence it is in and its line there."""

    value: str
    evidence: int
    line: int | None


def settings(evidence: Sequence[EvidenceResult]) -> dict[str, Setting]:
    """Every sysctl value of an incident's sysctl evidence (the first file to give a setting wins).

    A bare-value file gives the setting its name says (``bare_name``); one whose name says nothing gives none.
    """
    out: dict[str, Setting] = {}
    for i, ev in enumerate(evidence):
        if ev.kind != "sysctl":
            continue
        lines = ev.summary.get("value_lines", {})
        for key, value in ev.summary.get("values", {}).items():
            out.setdefault(key, Setting(str(value), i, lines.get(key)))
        bare = ev.summary.get("bare_value")
        if bare is not None and (key := bare_name(ev.path)) is not None:
            out.setdefault(key, Setting(str(bare), i, ev.summary.get("bare_line")))
    return out


def values_of(evidence: Sequence[EvidenceResult]) -> dict[str, str]:
    """``settings`` as ``{name: value}``, for ``get_int``/``get_ints``."""
    return {k: s.value for k, s in settings(evidence).items()}
