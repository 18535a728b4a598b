"""Kernel version strings → upstream version + distro build.

Reads ``uname -r`` (``6.6.10-1-aws``), ``uname -a`` (``Linux web-1 5.15.0-91-generic #101-Ubuntu ...``),
``/proc/version`` (``Linux version 6.1.0-13-amd64 (...) ... Debian 6.1.55-1``), and
``before:``/``after:`` lines optionally prefixed by a host name (``web-1 before: 6.5.13``).

The upstream version of a distro kernel is what its release string says, with two
known corrections: Debian's ABI name ``6.1.0-13`` hides the real stable version, which
``uname -v``/``/proc/version`` show as ``Debian 6.1.55-1``; Ubuntu's ``5.15.0-91``
likewise only names the base release. When the patch level is not known, the
version is marked ``approximate`` and range checks say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_RELEASE = re.compile(r"^(?P<maj>\d+)\.(?P<min>\d+)(?:\.(?P<patch>\d+))?(?P<rest>[-+.~_\w]*)$")
_UNAME_A = re.compile(r"^Linux\s+(?P<host>\S+)\s+(?P<release>\d+\.\d+\S*)\s+(?P<version>#.*)$")
#: ``uname -snr`` (``Linux web-1 6.5.13-1-aws``), optionally with the machine (``-m``) and OS (``-o``).
_UNAME_SNR = re.compile(
    r"^Linux\s+(?P<host>\S+)\s+(?P<release>\d+\.\d+\S*)"
    r"(?:\s+(?:x86_64|aarch64|arm64|armv\w+|i[3-6]86|ppc64le|ppc64|s390x|riscv64|mips\w*)(?:\s+GNU/Linux)?)?$"
)
_PROC_VERSION = re.compile(r"^Linux version (?P<release>\d+\.\d+\S*)\s+(?P<version>.*)$")
_ROLE = re.compile(
    r"^(?:(?P<host>[\w.\-]+)\s*[:]?\s+)?(?P<role>before|after|old|new|good|bad|from|to)\s*[:=]\s*(?P<value>.+)$",
    re.IGNORECASE,
)
_DEBIAN_REAL = re.compile(r"Debian (?P<v>\d+\.\d+\.\d+)")
ROLE_NAMES = {
    "before": "before",
    "old": "before",
    "good": "before",
    "from": "before",
    "after": "after",
    "new": "after",
    "bad": "after",
    "to": "after",
}

Version = tuple[int, int, int]


@dataclass(frozen=True)
class KernelVersion:
    """One kernel: the string as given, the upstream version it is built from, and the distro build."""

    raw: str
    upstream: Version
    distro: str
    build: str
    approximate: bool = False
    host: str | None = None
    role: str | None = None
    line: int | None = None

    @property
    def label(self) -> str:
        return "{}.{}.{}".format(*self.upstream)

    def to_json(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "upstream": self.label,
            "distro": self.distro,
            "build": self.build,
            "approximate": self.approximate,
            "host": self.host,
            "role": self.role,
            "line": self.line,
        }


def parse_release(release: str, *, uname_version: str = "") -> KernelVersion | None:
    """``6.6.10-1-aws`` → upstream 6.6.10, build ``-1-aws``; ``None`` if it is not a kernel release."""
    release = release.strip()
    m = _RELEASE.match(release)
    if m is None:
        return None
    major, minor = int(m.group("maj")), int(m.group("min"))
    if not (2 <= major <= 9) or minor > 99:
        return None
    patch_text = m.group("patch")
    patch = int(patch_text) if patch_text is not None else 0
    rest = m.group("rest")
    distro, approximate = _distro(release, rest)
    if distro == "Debian" and (real := _DEBIAN_REAL.search(uname_version)) is not None:
        rm = _RELEASE.match(real.group("v"))
        if rm is not None and int(rm.group("maj")) == major and int(rm.group("min")) == minor:
            patch = int(rm.group("patch") or 0)
            approximate = False
    if patch_text is None:
        approximate = True
    return KernelVersion(
        raw=release, upstream=(major, minor, patch), distro=distro, build=rest, approximate=approximate
    )


def _distro(release: str, rest: str) -> tuple[str, bool]:
    low = release.lower()
    if ".amzn" in low:
        return "Amazon Linux", False
    if re.search(r"\.el\d+", low):
        return "RHEL", True  # RHEL backports heavily onto its base version
    if ".cm2" in low or ".azl" in low or "microsoft" in low:
        return "Azure Linux", False
    if re.search(r"^\d+\.\d+\.0-\d+-(generic|lowlatency|aws|azure|gcp|gke|gkeop|kvm|oracle|raspi|ibm|nvidia)", low):
        return "Ubuntu", True
    if re.search(r"^\d+\.\d+\.\d+-\d+(-cloud)?-(amd64|arm64|686(-pae)?|rt-amd64)$", low):
        return "Debian", True
    if rest.endswith("+") and re.fullmatch(r"\+", rest):
        return "GKE (Container-Optimized OS)", False
    if "-gke" in low:
        return "GKE", False
    if "-aws" in low:
        return "AWS", False
    if "-azure" in low:
        return "Azure", False
    if ".fc" in low:
        return "Fedora", False
    return ("upstream" if not rest else "unknown"), False


def parse_line(text: str) -> KernelVersion | None:
    """One line of a kernel-versions file, or ``None`` if it holds no kernel version."""
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    host = role = None
    rm = _ROLE.match(text)
    if rm is not None:
        host = rm.group("host")
        role = ROLE_NAMES[rm.group("role").lower()]
        text = rm.group("value").strip()
    uname_version = ""
    if (m := _UNAME_A.match(text)) is not None:
        host = host or m.group("host")
        release, uname_version = m.group("release"), m.group("version")
    elif (p := _PROC_VERSION.match(text)) is not None:
        release, uname_version = p.group("release"), p.group("version")
    elif (snr := _UNAME_SNR.match(text)) is not None and snr.group("host") != "version":
        host = host or snr.group("host")
        release = snr.group("release")
    else:
        release = text.split()[0] if text.split() else ""
        if len(text.split()) > 1 and not text.split()[1].startswith("#"):
            return None
    v = parse_release(release, uname_version=uname_version)
    if v is None:
        return None
    return KernelVersion(
        raw=v.raw,
        upstream=v.upstream,
        distro=v.distro,
        build=v.build,
        approximate=v.approximate,
        host=host,
        role=role,
    )


def version_tuple(text: str) -> Version:
    """``6.6`` → (6, 6, 0); ``6.6.33`` → (6, 6, 33)."""
    parts = [int(p) for p in text.lstrip("v").split(".")[:3]]
    while len(parts) < 3:
        parts.append(0)
    return (parts[0], parts[1], parts[2])
