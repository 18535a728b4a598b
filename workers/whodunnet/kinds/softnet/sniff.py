"""Is it ``/proc/net/softnet_stat``? Every line is one CPU's row of 8-digit hex counters (timestamp lines aside)."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines
from whodunnet.snapshots import timestamp_line

_ROW = re.compile(r"^[0-9a-f]{8}(?: [0-9a-f]{8}){8,}$")


def is_softnet(text: str) -> bool:
    lines = [ln.strip() for ln in first_lines(text, 64) if timestamp_line(ln) is None]
    return bool(lines) and all(_ROW.match(ln) for ln in lines)
