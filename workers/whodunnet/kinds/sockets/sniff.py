"""Is it socket statistics? An ``ss`` or ``netstat -tan`` header, or a tcp_info export (CSV or JSON) with rtt/cwnd/rate
columns."""

from __future__ import annotations

import re

from whodunnet.kinds.text import first_lines

_SS_HEADER = re.compile(r"^(?:Netid\s+)?(?:State\s+Recv-Q\s+Send-Q|Recv-Q\s+Send-Q\s+Local\s+Address:Port)")
_NETSTAT = re.compile(r"^(?:Active Internet connections|(?:Tcpcb\s+)?Proto\s+Recv-Q\s+Send-Q\s+Local\s+Address)")
_TCPINFO_COLS = re.compile(r"(^|[,\"])\s*(tcpi_rtt|rtt|rtt_ms|rtt_us|snd_cwnd|cwnd|delivery_rate\w*)\s*([,\"]|$)", re.I)
_TCPINFO_JSON = re.compile(r'"(tcpi_rtt|rtt_ms|rtt|snd_cwnd|delivery_rate|tcpi_delivery_rate)"\s*:')


def is_sockets(text: str) -> bool:
    lines = first_lines(text, 10)
    if not lines:
        return False
    if any(_SS_HEADER.match(ln) or _NETSTAT.match(ln) for ln in lines):
        return True
    first = lines[0].strip()
    if first.startswith(("{", "[")):
        return bool(_TCPINFO_JSON.search(text[:4096]))
    return "," in first and len(_TCPINFO_COLS.findall(first)) >= 2
