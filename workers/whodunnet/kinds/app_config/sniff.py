"""Is it a Kafka client's properties? ``key=value`` lines, at least one of them a Kafka client setting."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines, share

_PROPERTY = re.compile(r"^[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)+\s*[=:]\s*.*$")
_KAFKA = re.compile(
    r"^(bootstrap\.servers|receive\.buffer\.bytes|send\.buffer\.bytes|request\.timeout\.ms|group\.id|"
    r"key\.(de)?serializer|value\.(de)?serializer|fetch\.max\.bytes|max\.poll\.records)\s*[=:]"
)


def is_app_config(text: str) -> bool:
    lines = [ln.strip() for ln in first_lines(text) if not ln.strip().startswith(("#", "!"))]
    return bool(lines) and share(lines, _PROPERTY) >= 0.8 and any(_KAFKA.match(ln) for ln in lines)
