"""Is it a kernel-versions file? Few lines, a kernel each (``uname -r``/``-a``, ``/proc/version``, ``before: X``)."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines

_KERNEL = re.compile(
    r"^(?:(?:[\w.\-]+\s*:?\s+)?(?:before|after|old|new|good|bad|from|to)\s*[:=]\s*)?"
    r"(?:Linux\s+\S+\s+\d+\.\d+\S*(?:\s+#.*|\s+\w+(?:\s+GNU/Linux)?)?|Linux version \d+\.\d+\S*.*"
    r"|\d\.\d{1,2}(?:\.\d+)?[-+.~_\w]*)$",
    re.IGNORECASE,
)


def is_kernel_versions(text: str) -> bool:
    lines = first_lines(text, 20)
    return bool(lines) and len(lines) <= 20 and all(_KERNEL.match(ln.strip()) for ln in lines)
