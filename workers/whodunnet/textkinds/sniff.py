"""Content sniffers of the host/application text kinds, in the order they are tried.

``whodunnet.detect`` registers these (first match wins, after any registered before).
Each looks at the first lines only, and most ask that nearly every line fit, so a
file of one kind is not taken for another that shares a few lines with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_STRACE = re.compile(
    r"^\s*(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+|\d+\.\d+\s+)?"
    r"(?:[a-z_][a-z0-9_]*\(.*(?:\)\s+=\s+|<unfinished \.\.\.>)|<\.\.\. [a-z_0-9]+ resumed>|--- SIG|\+\+\+ (?:exited|killed))"  # noqa: E501
)
_KERNEL = re.compile(
    r"^(?:(?:[\w.\-]+\s*:?\s+)?(?:before|after|old|new|good|bad|from|to)\s*[:=]\s*)?"
    r"(?:Linux\s+\S+\s+\d+\.\d+\S*\s+#.*|Linux version \d+\.\d+\S*.*|\d\.\d{1,2}(?:\.\d+)?[-+.~_\w]*)$",
    re.IGNORECASE,
)
_COUNTER_MARKERS = re.compile(
    r"^(#kernel$|TcpExt: |IpExt: |Ip: Forwarding|Tcp: RtoAlgorithm|\d+: \S+: <.*> mtu|\S+: flags=\d+<|\S+\s+Link encap:|"  # noqa: E501
    r"Inter-\|\s+Receive|NIC statistics:|cpu=\d+\s+found=|entries\s+searched\s+found|(Ip|Tcp|Udp|TcpExt|Icmp):$|"
    r"Kernel Interface table$|Iface\s+MTU\s+(?:Met\s+)?RX-OK\s)"
)
_CT = re.compile(r"^(/proc/sys/net/netfilter/|net\.netfilter\.)?nf_conntrack_(count|max)\s*[:= ]\s*\d+$")
_NSTAT = re.compile(r"^[A-Z][A-Za-z0-9]+\s+-?\d+(\s+[\d.]+)?$")
_SS_HEADER = re.compile(r"^(?:Netid\s+)?State\s+Recv-Q\s+Send-Q")
_TCPINFO_COLS = re.compile(r"(^|[,\"])\s*(tcpi_rtt|rtt|rtt_ms|rtt_us|snd_cwnd|cwnd|delivery_rate\w*)\s*([,\"]|$)", re.I)
_TCPINFO_JSON = re.compile(r'"(tcpi_rtt|rtt_ms|rtt|snd_cwnd|delivery_rate|tcpi_delivery_rate)"\s*:')
_NETPERF = re.compile(
    r"(^netperf |^\$ netperf |REQUEST/RESPONSE TEST|Connect/Request/Response|^MIGRATED TCP|Histogram of request/response)"  # noqa: E501
)
_LAT_HEADER = re.compile(r"latenc|elapsed|duration|response.?time|resp.?time|(^|[,;|\t ])rtt|time.?\(?ms", re.I)
_SYSCTL = re.compile(r"^(?:net|kernel|vm|fs|dev|abi|debug|user|crypto|sunrpc|whodunnet)\.[\w.\-/*@:]+\s*=\s*.*$")
_PROPERTY = re.compile(r"^[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)+\s*[=:]\s*.*$")
_KAFKA = re.compile(
    r"^(bootstrap\.servers|receive\.buffer\.bytes|send\.buffer\.bytes|request\.timeout\.ms|group\.id|"
    r"key\.(de)?serializer|value\.(de)?serializer|fetch\.max\.bytes|max\.poll\.records)\s*[=:]"
)


def _lines(text: str, limit: int = 40) -> list[str]:
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith(("# ", "//")) and s != "#":
            out.append(line.rstrip())
        if len(out) >= limit:
            break
    return out


def _share(lines: list[str], pattern: re.Pattern[str]) -> float:
    return sum(1 for ln in lines if pattern.search(ln)) / len(lines) if lines else 0.0


def is_strace(text: str) -> bool:
    lines = _lines(text)
    return bool(lines) and _share(lines, _STRACE) >= 0.6


def is_kernel_versions(text: str) -> bool:
    lines = _lines(text, 20)
    return bool(lines) and len(lines) <= 20 and all(_KERNEL.match(ln.strip()) for ln in lines)


def is_counters(text: str) -> bool:
    lines = _lines(text, 60)
    if not lines:
        return False
    if any(_COUNTER_MARKERS.match(ln.strip()) for ln in lines):
        return True
    if all(_CT.match(ln.strip()) for ln in lines):
        return True
    return len(lines) >= 3 and _share([ln.strip() for ln in lines], _NSTAT) >= 0.9


def is_sockets(text: str) -> bool:
    lines = _lines(text, 10)
    if not lines:
        return False
    if any(_SS_HEADER.match(ln) for ln in lines):
        return True
    first = lines[0].strip()
    if first.startswith(("{", "[")):
        return bool(_TCPINFO_JSON.search(text[:4096]))
    return "," in first and len(_TCPINFO_COLS.findall(first)) >= 2


def is_latency(text: str) -> bool:
    lines = _lines(text, 30)
    if not lines:
        return False
    if any(_NETPERF.search(ln.strip()) for ln in lines):
        return True
    first = lines[0]
    if _LAT_HEADER.search(first) and any(sep in first for sep in (",", "|", "\t", ";")):
        return len(lines) >= 2 and any(re.search(r"\d", ln) for ln in lines[1:])
    return len(lines) >= 3 and all(re.fullmatch(r"\s*\d+(\.\d+)?\s*", ln) for ln in lines)


def is_sysctl(text: str) -> bool:
    lines = [ln for ln in _lines(text) if not ln.startswith("sysctl: ")]
    return bool(lines) and _share([ln.strip() for ln in lines], _SYSCTL) >= 0.8


def is_app_config(text: str) -> bool:
    lines = [ln.strip() for ln in _lines(text) if not ln.strip().startswith(("#", "!"))]
    return bool(lines) and _share(lines, _PROPERTY) >= 0.8 and any(_KAFKA.match(ln) for ln in lines)


#: (kind, sniffer), tried in this order.
SNIFFERS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("strace", is_strace),
    ("kernel_versions", is_kernel_versions),
    ("counters", is_counters),
    ("sockets", is_sockets),
    ("latency", is_latency),
    ("sysctl", is_sysctl),
    ("app_config", is_app_config),
)
