"""Where a piece of evidence comes from: its host, that host's role, when a snapshot was taken.

``infer`` reads what one file says about itself: the content first (``kernel.hostname`` in a
sysctl dump, the host in ``uname -a``, the timestamp line of a snapshot), then the file name
(``client-nstat.txt``, ``db1-ss.txt``, ``hypervisor-ip-s-link.txt``). ``merge`` lays what a
person gave (the CLI's ``--host``/``--role``/``--taken-at``/``--manifest``, the console's
evidence card) over it: a given field always wins and is marked ``"user"``.
``across`` then fills what one file alone cannot say from the others of the incident (a
capture's host is the host whose ``ss`` output lists the capture's connections from its side).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from whodunnet.model import ROLES, EvidenceResult, Provenance

#: File-name words that say the host's role (matched as whole words of the name).
ROLE_WORDS: Mapping[str, str] = {
    "client": "client",
    "clients": "client",
    "cli": "client",
    "consumer": "client",
    "producer": "client",
    "server": "server",
    "srv": "server",
    "broker": "server",
    "router": "middlebox",
    "nat": "middlebox",
    "middlebox": "middlebox",
    "firewall": "middlebox",
    "fw": "middlebox",
    "gw": "middlebox",
    "gateway": "middlebox",
    "lb": "middlebox",
    "hypervisor": "hypervisor",
    "hv": "hypervisor",
    "host": "hypervisor",
    "kvm": "hypervisor",
    "dom0": "hypervisor",
}
#: File-name words that say WHEN a snapshot was taken relative to its pair (``order_hint``).
ORDER_WORDS: Mapping[str, int] = {"before": 0, "start": 0, "begin": 0, "pre": 0, "after": 1, "end": 1, "post": 1}
#: File-name words that name a tool, a format or a file type, never a host.
TOOL_WORDS = frozenset(
    {
        "nstat",
        "netstat",
        "ss",
        "ip",
        "link",
        "addr",
        "route",
        "s",
        "a",
        "d",
        "n",
        "i",
        "e",
        "t",
        "u",
        "p",
        "m",
        "ti",
        "tn",
        "tan",
        "tanp",
        "tnp",
        "stat",
        "stats",
        "softnet",
        "sysctl",
        "strace",
        "capture",
        "pcap",
        "pcapng",
        "cap",
        "dump",
        "tcpdump",
        "trace",
        "conntrack",
        "ct",
        "uname",
        "kernel",
        "kernels",
        "version",
        "versions",
        "ethtool",
        "tc",
        "qdisc",
        "nft",
        "iptables",
        "ruleset",
        "rules",
        "txt",
        "log",
        "out",
        "json",
        "toml",
        "gz",
        "snapshot",
        "counters",
        "counter",
        "snmp",
        "proc",
        "net",
        "dev",
        "interfaces",
        "interface",
        "sockets",
        "socket",
        "latency",
        "kafka",
        "config",
        "conf",
        "properties",
        "cfg",
        "sys",
        "class",
        "speed",
        "rx",
        "tx",
        "drops",
        "drop",
        "nf",
        "netfilter",
        "app",
        "summary",
        "file",
        "evidence",
        "data",
        "tap",
        "vnet",
        "eth0",
        "eth1",
        "lo",
    }
)

#: File-name extensions: not a hint of anything.
EXTENSIONS = frozenset({"txt", "log", "out", "json", "toml", "gz", "csv", "pcap", "pcapng", "cap", "dump"})

_WORD_SPLIT = re.compile(r"[-_.\s]+")
_HOSTLIKE = re.compile(r"^[a-z][a-z0-9]*\d+[a-z0-9]*$|^[a-z][a-z0-9]{2,}$", re.IGNORECASE)
_IP_PREFIX = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){3})(?:[-_]|$)")
_DATE_LIKE = re.compile(r"^\d{6,}$")


def infer(path: str | Path, kind: str, summary: Mapping[str, Any]) -> Provenance:
    """What one file says about where it comes from: its content first, then its name."""
    host, role, taken_at, source = None, None, None, {}
    content_host = _host_from_content(kind, summary)
    if content_host is not None:
        host, source["host"] = content_host, "content"
    when = summary.get("timestamp")
    if isinstance(when, int | float):
        taken_at, source["taken_at"] = float(when), "content"
    name_host, name_role = from_filename(path)
    if name_role is not None:
        role, source["role"] = name_role, "filename"
    if host is None and name_host is not None:
        host, source["host"] = name_host, "filename"
    return Provenance(host=host, role=role, taken_at=taken_at, source=source)


def merge(inferred: Provenance, given: Provenance | None) -> Provenance:
    """``inferred`` with every field ``given`` knows replaced; those fields are marked ``"user"``."""
    if given is None:
        return inferred
    source = dict(inferred.source)
    host, role, taken_at = inferred.host, inferred.role, inferred.taken_at
    if given.host is not None:
        host, source["host"] = given.host, "user"
    if given.role is not None:
        role, source["role"] = given.role, "user"
    if given.taken_at is not None:
        taken_at, source["taken_at"] = given.taken_at, "user"
    return Provenance(host=host, role=role, taken_at=taken_at, source=source)


def fill(ev: EvidenceResult, name: str | None = None, given: Provenance | None = None) -> EvidenceResult:
    """``ev`` with its provenance inferred from its content and ``name`` (the name a person gave the
    file; default its path) and what ``given`` says laid over it. For results the engine did not
    just make, such as the backend's stored ones (then ``across`` over the incident's list)."""
    inferred = infer(name if name is not None else ev.path, ev.kind, ev.summary)
    return replace(ev, provenance=merge(inferred, given))


def from_filename(path: str | Path) -> tuple[str | None, str | None]:
    """(host, role) a file name hints at: ``client-nstat.txt`` → ("client", "client"),
    ``db1-nstat-before.txt`` → ("db1", None), ``10.0.0.5_ss.txt`` → ("10.0.0.5", None).

    A first word is a host name only when a tool's name follows it (``db1-nstat``, not
    ``netns-flood-before``).

    A role word with no other host name is the host's name too, so ``client-*`` and
    ``server-*`` files are two hosts.
    """
    name = Path(str(path).replace("\\", "/")).name.lower()
    if (m := _IP_PREFIX.match(name)) is not None and _is_ip(m.group(1)):
        words = [w for w in _WORD_SPLIT.split(name[m.end() :]) if w]
        return m.group(1), _role_in(words)
    words = [w for w in _WORD_SPLIT.split(name) if w]
    role = _role_in(words)
    host = None
    if words:
        first = words[0]
        if first in ROLE_WORDS or (
            len(words) > 1
            and first not in TOOL_WORDS
            and first not in ORDER_WORDS
            and not _DATE_LIKE.match(first)
            and _HOSTLIKE.match(first)
            and any(w in TOOL_WORDS and w not in EXTENSIONS for w in words[1:])
        ):
            host = first
    return host, role


def order_hint(path: str | Path) -> int | None:
    """0 when the file name says "before" (or start, pre), 1 for "after" (end, post); None otherwise."""
    name = Path(str(path).replace("\\", "/")).name.lower()
    hints = {ORDER_WORDS[w] for w in _WORD_SPLIT.split(name) if w in ORDER_WORDS}
    return hints.pop() if len(hints) == 1 else None


def across(evidence: Sequence[EvidenceResult]) -> list[EvidenceResult]:
    """Each evidence with the host it could not name alone filled from the others.

    A capture with no host is from the host whose ``ss`` output lists one of the capture's
    connections from that host's side (its local address and port, and the peer's): when the
    connections point at exactly one named host. Through a NAT each end's ``ss`` sees only its
    own side, so a client's and a server's capture are told apart.
    """
    owners: dict[tuple[str, str], set[str]] = {}
    for ev in evidence:
        if ev.provenance.host is None:
            continue
        for pair in _socket_pairs(ev):
            owners.setdefault(pair, set()).add(ev.provenance.host)
    if not owners:
        return list(evidence)
    out = []
    for ev in evidence:
        if ev.provenance.host is None and ev.kind == "capture":
            votes: dict[str, int] = {}
            for client, server in _capture_pairs(ev):
                for pair in ((client, server), (server, client)):
                    for host in owners.get(pair, ()):
                        votes[host] = votes.get(host, 0) + 1
            if len(votes) == 1:
                source = {**ev.provenance.source, "host": "content"}
                ev = replace(ev, provenance=replace(ev.provenance, host=next(iter(votes)), source=source))
        out.append(ev)
    return out


def parse_time(text: str) -> float:
    """Unix seconds from ``1795294294.15`` or an ISO 8601 time (``2026-11-25T02:00:00Z``)."""
    s = text.strip()
    try:
        return float(s)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise ValueError(f"not a time (unix seconds or ISO 8601): {text!r}") from None


def check_role(role: str) -> str:
    """``role`` when it is one of ROLES (``router`` and ``nat`` are read as middlebox)."""
    r = ROLE_WORDS.get(role.lower(), role.lower()) if role.lower() not in ROLES else role.lower()
    if r not in ROLES:
        raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
    return r


def read_manifest(path: str | Path) -> dict[str, Provenance]:
    """A manifest file: a JSON list (or TOML ``[[evidence]]`` tables) of {file, host, role, taken_at}.

    Files are relative to the manifest's folder; the result is keyed by the path as the
    manifest resolves it.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    data: Any
    if p.suffix.lower() == ".toml":
        import tomllib

        data = tomllib.loads(text)
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            import tomllib

            data = tomllib.loads(text)
    if isinstance(data, dict):
        data = data.get("evidence", data.get("files"))
    if not isinstance(data, list):
        raise ValueError(f"{p}: a manifest is a list of {{file, host, role, taken_at}} entries")
    out: dict[str, Provenance] = {}
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise ValueError(f"{p}: entry {n} has no 'file'")
        taken = entry.get("taken_at")
        role = entry.get("role")
        host = entry.get("host")
        out[str(p.parent / entry["file"])] = Provenance(
            host=str(host) if host is not None else None,
            role=check_role(str(role)) if role is not None else None,
            taken_at=parse_time(str(taken)) if taken is not None else None,
        )
    return out


def _role_in(words: Sequence[str]) -> str | None:
    roles = {ROLE_WORDS[w] for w in words if w in ROLE_WORDS}
    return roles.pop() if len(roles) == 1 else None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _host_from_content(kind: str, summary: Mapping[str, Any]) -> str | None:
    if kind == "sysctl":
        values = summary.get("values") or {}
        name = values.get("kernel.hostname") if isinstance(values, Mapping) else None
        if isinstance(name, str) and name.strip() and name.strip() not in ("(none)", "localhost"):
            return name.strip()
    if kind == "kernel_versions":
        hosts = {v.get("host") for v in summary.get("versions") or () if isinstance(v, Mapping)}
        hosts.discard(None)
        if len(hosts) == 1:
            return str(hosts.pop())
    name = summary.get("hostname")
    if isinstance(name, str) and name:
        return name
    return None


def _endpoint(text: str) -> str:
    """``10.0.0.5:443``, ``[::ffff:10.0.0.5]:443`` and ``::ffff:10.0.0.5:443`` alike as ``10.0.0.5:443``."""
    t = text.strip()
    if ":" not in t:
        return t
    host, port = t.rsplit(":", 1)
    host = host.strip("[]").removeprefix("::ffff:")
    return f"{host}:{port}"


def _socket_pairs(ev: EvidenceResult) -> set[tuple[str, str]]:
    """(local, peer) of the sockets an ``ss`` output lists."""
    out = set()
    for s in ev.summary.get("socket_list") or () if ev.kind == "sockets" else ():
        if isinstance(s, Mapping) and s.get("local") and s.get("peer"):
            out.add((_endpoint(str(s["local"])), _endpoint(str(s["peer"]))))
    return out


def _capture_pairs(ev: EvidenceResult) -> set[tuple[str, str]]:
    out = set()
    for c in ev.connections:
        client, server = getattr(c, "client", None), getattr(c, "server", None)
        if isinstance(client, str) and isinstance(server, str):
            out.add((_endpoint(client), _endpoint(server)))
    return out
