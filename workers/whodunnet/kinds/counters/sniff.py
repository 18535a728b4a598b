"""Is it a counters snapshot? One line that only a counters format has, or nstat-like ``Name value`` lines."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines, share

_COUNTER_MARKERS = re.compile(
    r"^(#kernel$|TcpExt: |IpExt: |Ip: Forwarding|Tcp: RtoAlgorithm|\d+: \S+: <.*> mtu|\S+: flags=\d+<|\S+\s+Link encap:|"  # noqa: E501
    r"Inter-\|\s+Receive|NIC statistics:|cpu=\d+\s+found=|entries\s+(?:searched|clashres)\s+found|(Ip|Tcp|Udp|TcpExt|Icmp):$|"  # noqa: E501
    r"Kernel Interface table$|Iface\s+MTU\s+(?:Met\s+)?RX-OK\s|/sys/class/net/[^/\s]+/speed:-?\d+$|Settings for \S+:$)"
)
_CT = re.compile(r"^(/proc/sys/net/netfilter/|net\.netfilter\.)?nf_conntrack_(count|max)\s*[:= ]\s*\d+$")
_NSTAT = re.compile(r"^[A-Z][A-Za-z0-9]+\s+-?\d+(\s+[\d.]+)?$")


def is_counters(text: str) -> bool:
    lines = first_lines(text, 60)
    if not lines:
        return False
    if any(_COUNTER_MARKERS.match(ln.strip()) for ln in lines):
        return True
    if all(_CT.match(ln.strip()) for ln in lines):
        return True
    return len(lines) >= 3 and share([ln.strip() for ln in lines], _NSTAT) >= 0.9
