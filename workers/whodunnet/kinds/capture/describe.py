"""A capture's one line on its card: packets, bytes, duration and TCP connections."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import plural, seconds, size

#: Link types worth saying (an Ethernet capture is the usual case).
LINK_WORDS = {"linux_sll": "Linux cooked (tcpdump -i any)", "linux_sll2": "Linux cooked v2 (tcpdump -i any)",
              "raw": "raw IP", "ipv4": "raw IP", "ipv6": "raw IP", "loop": "loopback", "null": "loopback",
              "ppp": "PPP"}  # fmt: skip


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``4,904 packets, 4.87 MiB over 10.3 s, 1 TCP connection``."""
    packets = summary.get("packets")
    if not isinstance(packets, int):
        return None
    text = plural(packets, "packet")
    if isinstance(summary.get("bytes"), (int, float)):
        text += f", {size(summary['bytes'])}"
    if isinstance(summary.get("duration"), (int, float)):
        text += f" over {seconds(summary['duration'])}"
    if isinstance(summary.get("tcp_connections"), int):
        text += f", {plural(summary['tcp_connections'], 'TCP connection')}"
    links = [LINK_WORDS[t] for t in summary.get("link_types") or () if t in LINK_WORDS]
    if links:
        text += f" · {', '.join(dict.fromkeys(links))}"
    return text
