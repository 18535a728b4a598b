"""Host counters' one line on their card: what changed since the earlier snapshot of the same host, or the
totals of a lone snapshot (``nstat: +84 retransmitted segments of 1,596 sent``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import count, listing, numbers, plural, signed, size

#: Counters worth a word on the card when they moved, in the order said.
SAID = (
    ("TcpExtTCPSynRetrans", "SYN retransmissions"),
    ("TcpExtTCPTimeouts", "retransmission timeouts"),
    ("TcpExtListenOverflows", "listen queue overflows"),
    ("TcpExtListenDrops", "listen drops"),
)
DROPS = ("rx_dropped", "tx_dropped", "rx_missed", "rx_overrun", "rx_fifo_errors", "tx_fifo_errors")
CONNTRACK = (("insert_failed", "conntrack insert failures"), ("drop", "conntrack drops"),
             ("early_drop", "conntrack early drops"))  # fmt: skip


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """What the snapshot (or the change from ``earlier``) says, led by the formats it was read from."""
    said = (
        _tcp(summary, earlier)
        + _interfaces(summary, earlier)
        + _ethtool(summary, earlier)
        + _conntrack(summary, earlier)
        + _speeds(summary)
    )
    if not said:
        return None
    formats = [str(f) for f in summary.get("formats") or ()]
    lead = f"{', '.join(formats)}: " if formats else ""
    return f"{lead}{'; '.join(said)}"


def _moved(n: float, earlier: Mapping[str, Any] | None) -> str:
    """A counter's change since the earlier snapshot (``+84``), or its total since boot for a lone one."""
    return signed(n) if earlier is not None else count(n)


#: Said after a lone snapshot's totals: a counter counts from the host's boot.
SINCE_BOOT = " since boot"


def _change(key: str, now: Mapping[str, float], then: Mapping[str, float] | None) -> float | None:
    if key not in now:
        return None
    if then is None:
        return now[key]
    return now[key] - then[key] if key in then else None


def _tcp(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None) -> list[str]:
    now = numbers(summary.get("counters"))
    then = numbers(earlier.get("counters")) if earlier is not None else None
    out = []
    retrans, sent = _change("TcpRetransSegs", now, then), _change("TcpOutSegs", now, then)
    if retrans is not None:
        out.append(
            f"{_moved(retrans, earlier)} retransmitted segments"
            + (f" of {count(sent)} sent" if sent is not None else "")
        )
    for key, words in SAID:
        n = _change(key, now, then)
        if n:
            out.append(f"{_moved(n, earlier)} {words}")
    if out and earlier is None:
        out[-1] += SINCE_BOOT
    return out


def _interfaces(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None) -> list[str]:
    interfaces = summary.get("interfaces")
    if not isinstance(interfaces, Mapping):
        return []
    before = earlier.get("interfaces") if earlier is not None else None
    dropping, quiet = [], []
    for name, row in interfaces.items():
        now = numbers(row)
        then = numbers(before.get(name)) if isinstance(before, Mapping) else None
        drops = sum(n for key in DROPS if (n := _change(key, now, then)))
        if drops:
            dropping.append(f"{name} {_moved(drops, earlier)} drops")
        else:
            rx, tx = _change("rx_bytes", now, then), _change("tx_bytes", now, then)
            if rx is not None and tx is not None:
                quiet.append(f"{name} received {size(rx)}, sent {size(tx)}, no drops")
    if dropping:
        return [listing(dropping) + ("" if earlier is not None else SINCE_BOOT)]
    if len(quiet) == 1:
        return quiet
    return [f"{plural(len(quiet), 'interface')}, no drops"] if quiet else []


def _conntrack(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None) -> list[str]:
    now = numbers(summary.get("conntrack"))
    then = numbers(earlier.get("conntrack")) if earlier is not None else None
    out = []
    if "count" in now and "max" in now:
        out.append(f"conntrack table {count(now['count'])} of {count(now['max'])} entries")
    elif "max" in now:
        out.append(f"conntrack table size {count(now['max'])}")
    for key, words in CONNTRACK:
        n = _change(key, now, then)
        if n:
            out.append(f"{_moved(n, earlier)} {words}" + ("" if earlier is not None else SINCE_BOOT))
    return out


def _ethtool(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None) -> list[str]:
    """A NIC's drop, miss and discard counters (``ethtool -S`` names them per driver)."""
    nics = summary.get("ethtool")
    if not isinstance(nics, Mapping):
        return []
    before = earlier.get("ethtool") if earlier is not None else None
    out = []
    for name, row in nics.items():
        now = numbers(row)
        then = numbers(before.get(name)) if isinstance(before, Mapping) else None
        keys = [k for k in now if any(w in k for w in ("drop", "miss", "discard", "fifo", "no_buf"))]
        drops = sum(n for k in keys if (n := _change(k, now, then)))
        out.append(
            f"{name} {_moved(drops, earlier)} NIC drops" + ("" if earlier is not None else SINCE_BOOT)
            if drops
            else f"{name}: {plural(len(now), 'NIC counter')}, no drops"
        )
    return out


def _speeds(summary: Mapping[str, Any]) -> list[str]:
    """The links' speeds the file gives (``eth0 link 1,000 Mbit/s``)."""
    speeds = numbers(summary.get("speeds_mbps"))
    return [f"{iface} link {count(mbps)} Mbit/s" for iface, mbps in sorted(speeds.items())]
