"""Is it sysctl output? Most lines are ``net.ipv4.tcp_rmem = 4096 131072 6291456``, or it is one bare value."""

from __future__ import annotations

import re

from whodunnet.kinds.sysctl.parser import BARE
from whodunnet.kinds.text import first_lines, share

_SYSCTL = re.compile(r"^(?:net|kernel|vm|fs|dev|abi|debug|user|crypto|sunrpc|whodunnet)\.[\w.\-/*@:]+\s*=\s*.*$")


def is_sysctl(text: str) -> bool:
    lines = [ln for ln in first_lines(text) if not ln.startswith("sysctl: ")]
    if len(lines) == 1 and BARE.match(lines[0].strip()):
        return True  # cat /proc/sys/net/netfilter/nf_conntrack_max: the file's name says which setting
    return bool(lines) and share([ln.strip() for ln in lines], _SYSCTL) >= 0.8
