"""Is it latency samples? A netperf report, a table with a latency column, or a column of numbers."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines

_NETPERF = re.compile(
    r"(^netperf |^\$ netperf |REQUEST/RESPONSE TEST|Connect/Request/Response|^MIGRATED TCP|Histogram of request/response)"  # noqa: E501
)
_LAT_HEADER = re.compile(
    r"latenc|elapsed|duration|response.?time|resp.?time|(^|[,;|\t ])rtt|time.?\(?ms|time.?total|total.?time", re.I
)


def is_latency(text: str) -> bool:
    lines = first_lines(text, 30)
    if not lines:
        return False
    if any(_NETPERF.search(ln.strip()) for ln in lines):
        return True
    first = lines[0]
    if _LAT_HEADER.search(first) and any(sep in first for sep in (",", "|", "\t", ";")):
        return len(lines) >= 2 and any(re.search(r"\d", ln) for ln in lines[1:])
    return len(lines) >= 3 and all(re.fullmatch(r"\s*\d+(\.\d+)?\s*", ln) for ln in lines)
