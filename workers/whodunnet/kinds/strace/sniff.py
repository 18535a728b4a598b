"""Is it strace output? Most of the first lines look like ``name(args) = ret`` or its relatives."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines, share

_STRACE = re.compile(
    r"^\s*(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+|\d+\.\d+\s+)?"
    r"(?:[a-z_][a-z0-9_]*\(.*(?:\)\s+=\s+|<unfinished \.\.\.>)|<\.\.\. [a-z_0-9]+ resumed>|--- SIG|\+\+\+ (?:exited|killed))"  # noqa: E501
)


def is_strace(text: str) -> bool:
    lines = first_lines(text)
    return bool(lines) and share(lines, _STRACE) >= 0.6
