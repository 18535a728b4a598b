"""``sysctl -a`` (or a subset) and ``grep . /proc/sys/...`` output → ``{name: value}`` with line numbers."""

from __future__ import annotations

import re

from whodunnet.kinds.text import LineLog

_LINE = re.compile(r"^(?P<key>[A-Za-z0-9_][\w\-/.*@:]*?)\s*=\s*(?P<value>.*)$")
_PROC = re.compile(r"^/proc/sys/(?P<key>[\w\-/.]+):\s*(?P<value>.*)$")


class Sysctl:
    """Values as strings (``tcp_rmem`` is ``"4096 131072 6291456"``) and the line each came from."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.values: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.notes: list[str] = []

    def feed(self, number: int, text: str) -> None:
        s = text.strip()
        if not s or s.startswith(("#", ";")):
            return
        if s.startswith("sysctl: "):  # "permission denied on key ..." printed by sysctl -a
            self.notes.append(s)
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
