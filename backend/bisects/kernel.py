"""Map a running kernel's release string (``uname -r``) to the upstream tag to bisect from.

Upstream tags are ``vX.Y`` (a mainline release, never ``vX.Y.0``), ``vX.Y.Z`` (a stable
release) and ``vX.Y-rcN``. Distributions append their own suffix: ``6.6.10-1-aws`` is
upstream 6.6.10 plus the distribution's patches, so ``v6.6.10`` is exact. Ubuntu, Debian and
RHEL keep ``X.Y.0`` and count their own ABI (``5.15.0-91-generic``): the stable patch level
is theirs, not upstream's, so only ``v5.15`` can be named and the result says it is a base.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RELEASE = re.compile(r"(?<![\w.])(\d+)\.(\d+)(?:\.(\d+))?(-rc\d+)?([-+~_][\w.+~-]*)?(?![\w.])")


@dataclass(frozen=True)
class KernelTag:
    """The upstream tag for one kernel release, and whether it is the exact source or only a base."""

    input: str
    release: str
    tag: str
    exact: bool
    note: str


def upstream_tag(text: str) -> KernelTag | None:
    """The upstream tag of a ``uname -r`` value (or a ``uname -a`` line); None when none is found."""
    match = _RELEASE.search(text.strip())
    if match is None:
        return None
    major, minor, patch, rc, suffix = match.groups()
    release = match.group(0)
    base = f"v{major}.{minor}"
    if rc:
        return KernelTag(text, release, f"{base}{rc}", True, "a mainline release candidate")
    if patch is None or patch == "0":
        if suffix and patch == "0" and re.match(r"^-\d+", suffix):
            note = (
                f"a distribution kernel that keeps {major}.{minor}.0 and counts its own patch level "
                f"({suffix.lstrip('-')}); upstream base {base}, its stable fixes are the distribution's"
            )
            return KernelTag(text, release, base, False, note)
        return KernelTag(text, release, base, True, "a mainline release")
    note = "a stable release" + (f" with the distribution suffix {suffix}" if suffix else "")
    return KernelTag(text, release, f"{base}.{patch}", True, note)
