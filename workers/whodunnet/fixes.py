"""The fix a finding points to: the exact setting or command, with the numbers it comes from.

Each rule reads one finding kind's data (what the analyzer measured, or the kernel-changes knowledge base for a
kernel range) and returns the change to make, or nothing when the evidence says there is nothing to fix (Kafka
already at ``receive.buffer.bytes=-1``, a kernel that already has the fix, a conntrack table with room). The
postmortem export lists them under "Fixes"; ``whodunnet analyze`` could print them the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from whodunnet.kernel.kb import change
from whodunnet.kernel.versions import version_tuple


@dataclass(frozen=True)
class Fix:
    """One change to make: what, the exact setting or command, and why (with the evidence's numbers)."""

    title: str
    command: str
    why: str


Rule = Callable[[Mapping[str, Any]], list[Fix]]


def _kafka(data: Mapping[str, Any]) -> list[Fix]:
    if not data.get("pins_rcvbuf"):
        return []
    value = data.get("receive_buffer_bytes")
    return [
        Fix(
            title="Let the kernel size the Kafka client's receive buffer",
            command="receive.buffer.bytes=-1",
            why=f"receive.buffer.bytes={value:,} is passed to the socket as SO_RCVBUF, which turns off receive "
            "buffer autotuning; -1 leaves the socket to the kernel.",
        )
    ]


def _rcvbuf(data: Mapping[str, Any]) -> list[Fix]:
    value = data.get("so_rcvbuf")
    if not isinstance(value, int):
        return []
    return [
        Fix(
            title="Stop setting SO_RCVBUF on the client's sockets",
            command="receive.buffer.bytes=-1",
            why=f"The client sets SO_RCVBUF to {value:,} B (the kernel reserves {2 * value:,} bytes) and so turns off "
            "receive autotuning; for a Kafka client, receive.buffer.bytes=-1 leaves it unset.",
        )
    ]


def _series_release(entry: Mapping[str, Any], after: tuple[int, int, int]) -> str:
    """The first release of the kernel's own series that carries the change: a stable backport, else mainline."""
    for backport in entry.get("stable_backports", ()):
        if version_tuple(backport)[:2] == after[:2]:
            return str(backport)
    return str(entry["first_release"])


def _kernel(data: Mapping[str, Any]) -> list[Fix]:
    after = data.get("after") or {}
    upstream = after.get("upstream")
    if not upstream:
        return []
    version = version_tuple(upstream)
    out = []
    for row in data.get("changes", ()):
        if not row.get("unfixed_in_after"):
            continue
        missing = [f["id"] for f in row.get("fixed_by", ()) if not f.get("after_has")]
        if not missing:
            continue
        entries = [change(fid) for fid in missing]
        releases = [(_series_release(e, version), e) for e in entries]
        newest = max(releases, key=lambda r: version_tuple(r[0]))[0]
        listed = "; ".join(f'{e["id"]} "{e["title"]}" (in {release})' for release, e in releases)
        out.append(
            Fix(
                title=f'Upgrade the kernel past the fixes for "{row["title"]}"',
                command=f"a kernel ≥ {newest}",
                why=f"{after.get('raw', upstream)} has {row['id']} but not {listed}.",
            )
        )
    return out


def _ecn(data: Mapping[str, Any]) -> list[Fix]:
    return [
        Fix(
            title="Stop sending ECN setup flags on Linux clients",
            command="sysctl -w net.ipv4.tcp_ecn=2",
            why="SYNs with ECE+CWR are dropped on the path; 2 keeps ECN for peers that ask for it but sends plain "
            "SYNs (persist it in /etc/sysctl.d/).",
        ),
        Fix(
            title="Stop sending ECN setup flags on Windows clients",
            command="netsh int tcp set global ecncapability=disabled",
            why="The same drop of SYNs with ECE+CWR: this turns ECN off for Windows clients.",
        ),
    ]


def _power_of_two_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _conntrack(data: Mapping[str, Any]) -> list[Fix]:
    maximum = data.get("max")
    count = data.get("count")
    failures = data.get("failures") or {}
    tuples = data.get("possible_tuples")
    host = data.get("host")
    on = f" on {host}" if host else ""
    if not isinstance(maximum, int) or maximum <= 0:
        return []
    if isinstance(tuples, int) and tuples > maximum:
        size = data.get("port_range_size")
        ports = data.get("server_ports")
        needed = _power_of_two_at_least(tuples)
        arithmetic = (
            f"{size:,} ephemeral ports × {ports} server port{'s' if ports != 1 else ''} = {tuples:,} possible "
            f"connections per client address, above the {maximum:,}-entry table{on}; the next power of two at or "
            f"above {tuples:,} is {needed:,} (per client address that connects through this table: multiply by "
            "their number)."
        )
    elif any(failures.values()) or (isinstance(count, int) and count >= 0.9 * maximum):
        needed = 2 * _power_of_two_at_least(maximum)
        used = f"{count:,} of {maximum:,} entries in use" if isinstance(count, int) else f"a {maximum:,}-entry table"
        lost = ", ".join(f"{k} {v:,}" for k, v in failures.items() if v)
        arithmetic = f"{used}{on}{' (' + lost + ')' if lost else ''}: twice the table is {needed:,} entries."
    else:
        return []
    return [
        Fix(
            title=f"Make the conntrack table{on} larger",
            command=f"sysctl -w net.netfilter.nf_conntrack_max={needed}",
            why=arithmetic + " Persist it in /etc/sysctl.d/.",
        )
    ]


RULES: dict[str, Rule] = {
    "app.kafka_settings": _kafka,
    "app.rcvbuf_pinned": _rcvbuf,
    "kernel.known_change_in_range": _kernel,
    "tcp.ecn_syn_blackhole": _ecn,
    "host.conntrack_pressure": _conntrack,
}


def fixes_for(kind: str, data: Mapping[str, Any]) -> list[Fix]:
    """The fixes a finding of this kind and data points to; [] for kinds with no known fix."""
    rule = RULES.get(kind)
    return rule(data) if rule else []


def collect(findings: list[tuple[str, Mapping[str, Any]]]) -> list[Fix]:
    """Every finding's fixes, each command once (the first finding that names it gives its reason)."""
    seen: dict[str, Fix] = {}
    for kind, data in findings:
        for fix in fixes_for(kind, data):
            seen.setdefault(fix.command, fix)
    return list(seen.values())
