"""Counter snapshots → deltas → ``host.*`` and ``neighbours.link_usage`` findings.

Snapshots are paired by ``whodunnet.snapshots`` (same formats; by time when every one
has a time, else in the order given); the first and the last of a group are diffed.
A group of one is reported as totals since boot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from whodunnet.kinds.firewall.combine import diff_rules
from whodunnet.kinds.firewall.parser import DROPPING
from whodunnet.kinds.sysctl.parser import Setting, get_int, get_ints
from whodunnet.kinds.sysctl.parser import settings as sysctl_settings
from whodunnet.model import EvidenceResult, Finding, Ref, Severity
from whodunnet.snapshots import diff_counts, diffs, per_interval, taken_at
from whodunnet.stats import percent

KIND = "counters"

RETRANS_COUNTERS = ("TcpRetransSegs", "TcpExtTCPSynRetrans", "TcpExtTCPTimeouts", "TcpExtTCPLostRetransmit")
LISTEN_COUNTERS = ("TcpExtListenOverflows", "TcpExtListenDrops")
DROP_KEYS = ("rx_dropped", "tx_dropped", "rx_overrun", "rx_missed", "rx_fifo_errors", "tx_fifo_errors")
VIRTUAL = re.compile(r"^(macvtap|tap|veth|vnet|tun|cali|flannel|cni|docker|br-|virbr|lxc|eni|gke|azv)", re.I)
#: An interface at or above this share of its limit is "near its limit".
NEAR_LIMIT = 0.8


@dataclass
class Delta:
    """What changed between two snapshots of one host (or, for one snapshot, the totals)."""

    before: int | None
    after: int
    interval_s: float | None
    counters: dict[str, int] = field(default_factory=dict)
    interfaces: dict[str, dict[str, int]] = field(default_factory=dict)
    conntrack: dict[str, int] = field(default_factory=dict)
    resets: list[str] = field(default_factory=list)
    #: The snapshots' file names, for titles ("nstat-1.txt → nstat-2.txt").
    names: tuple[str, ...] = ()
    host: str | None = None
    role: str | None = None
    ordered_by: str = "time"
    #: When the pair was taken (None unknown): drops and retransmits must overlap in time.
    start: float | None = None
    end: float | None = None
    #: Every snapshot of the host's group, earliest first (three or more: the intervals between them).
    members: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.before}-{self.after}" if self.before is not None else f"{self.after}"

    @property
    def evidence(self) -> list[int]:
        return [i for i in (self.before, self.after) if i is not None]

    def refs(self, label: str, lines: dict[int, int | None]) -> tuple[Ref, ...]:
        out = []
        for idx in (self.before, self.after):
            if idx is None:
                continue
            ln = lines.get(idx)
            out.append(Ref(evidence=idx, label=label, lines=(ln, ln) if ln else None))
        return tuple(out)

    def pair_data(self) -> dict[str, Any]:
        """The keys every counters finding's data starts with: the pair, its host, what ordered it."""
        return {"delta": self.before is not None, "interval_s": self.interval_s, "evidence": self.evidence,
                "host": self.host, "hosts": [self.host] if self.host else [], "role": self.role,
                "ordered_by": self.ordered_by, "pair": list(self.names)}  # fmt: skip


def deltas(evidence: Sequence[EvidenceResult]) -> list[Delta]:
    """One Delta per host and format group (``whodunnet.snapshots.diffs``)."""
    out = []
    for diff in diffs(evidence, KIND):
        last = evidence[diff.after].summary
        role = evidence[diff.after].provenance.role
        if diff.before is None:
            out.append(
                Delta(None, diff.after, None, dict(last["counters"]), dict(last["interfaces"]),
                      dict(last["conntrack"]), names=(evidence[diff.after].name,), host=diff.host, role=role,
                      ordered_by=diff.ordered_by, members=diff.members)
            )  # fmt: skip
            continue
        first = evidence[diff.before].summary
        resets: list[str] = []
        d = Delta(diff.before, diff.after, diff.interval_s, resets=resets, host=diff.host, role=role,
                  ordered_by=diff.ordered_by, start=taken_at(evidence[diff.before]),
                  end=taken_at(evidence[diff.after]), members=diff.members)  # fmt: skip
        d.names = (evidence[diff.before].name, evidence[diff.after].name)
        d.counters = diff_counts(first["counters"], last["counters"], resets)
        for name, stats in last["interfaces"].items():
            if name in first["interfaces"]:
                d.interfaces[name] = diff_counts(first["interfaces"][name], stats, resets, name + ".")
        d.conntrack = diff_counts(first["conntrack"], last["conntrack"], resets)
        for gauge in ("count", "max", "entries"):
            if gauge in last["conntrack"]:
                d.conntrack[gauge] = last["conntrack"][gauge]
        out.append(d)
    return out


def _when(d: Delta, *, host: bool = True) -> str:
    on = f"on {d.host} " if d.host and host else ""
    if d.before is None:
        return on + "since boot (one snapshot)"
    first, last = (d.names[0], d.names[-1]) if d.names else (f"evidence {d.before}", f"evidence {d.after}")
    if d.interval_s is not None:
        return f"{on}over {d.interval_s:.1f} s ({first} → {last})"
    return f"{on}between {first} and {last} (interval unknown)"


def counter_findings(evidence: Sequence[EvidenceResult], findings: Sequence[Finding] = ()) -> list[Finding]:
    """The counter findings of every snapshot group (``findings`` is not needed: counters are enough)."""
    out: list[Finding] = []
    ds = deltas(evidence)
    retrans: list[tuple[Delta, int]] = []
    for d in ds:
        lines = {i: None for i in (d.before, d.after) if i is not None}
        if any(k in d.counters for k in RETRANS_COUNTERS):
            out.append(_retrans(evidence, d))
            if "TcpRetransSegs" in d.counters and d.before is not None:
                retrans.append((d, d.counters["TcpRetransSegs"]))
        if any(d.counters.get(k, 0) > 0 for k in LISTEN_COUNTERS):
            out.append(_listen(evidence, d))
        for name, stats in sorted(d.interfaces.items()):
            if any(stats.get(k, 0) > 0 for k in DROP_KEYS):
                out.append(_drops(evidence, d, name, stats))
        if any(("rx_bytes" in s or "tx_bytes" in s) for s in d.interfaces.values()) and d.before is not None:
            out.append(_link_usage(evidence, d))
        del lines
    sources = _drop_sources(evidence, ds)
    for d, r in retrans:
        if r <= 0:
            continue
        for src in sources:
            if _same_path(d, src):
                out.append(_match(d, r, src))
    out.extend(_conntrack_findings(evidence, ds))
    return out


def _line(evidence: Sequence[EvidenceResult], idx: int | None, name: str, table: str = "counter_lines") -> int | None:
    if idx is None:
        return None
    value = evidence[idx].summary.get(table, {}).get(name)
    return int(value) if isinstance(value, int) else None


def _name_refs(
    evidence: Sequence[EvidenceResult], d: Delta, names: Sequence[str], table: str = "counter_lines"
) -> tuple[Ref, ...]:
    refs = []
    for name in names:
        for idx in (d.before, d.after):
            ln = _line(evidence, idx, name, table)
            if idx is not None and ln is not None:
                refs.append(Ref(evidence=idx, label=name, lines=(ln, ln)))
    return tuple(refs)


def _before_after(
    evidence: Sequence[EvidenceResult], d: Delta, names: Sequence[str], table: str = "counters"
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in names:
        b = evidence[d.before].summary[table].get(n) if d.before is not None else None
        a = evidence[d.after].summary[table].get(n)
        out[n] = {"before": b, "after": a}
    return out


def _retrans(evidence: Sequence[EvidenceResult], d: Delta) -> Finding:
    c = d.counters
    present = [k for k in RETRANS_COUNTERS if k in c]
    segs = c.get("TcpRetransSegs", 0)
    out_segs = c.get("TcpOutSegs")
    rate = segs / out_segs if out_segs else None
    per_s = {k: c[k] / d.interval_s for k in present} if d.interval_s else {}
    sev = "info" if d.before is None else ("medium" if (rate or 0) > 0.01 else "low" if segs else "info")
    parts = ", ".join(f"{k} {c[k]:+,}" if d.before is not None else f"{k} {c[k]:,}" for k in present)
    return Finding(
        kind="host.retransmits",
        layer="network",
        severity=sev,  # type: ignore[arg-type]
        title=f"{segs:,} TCP segments retransmitted {_when(d)}"
        + (f" ({rate:.2%} of {out_segs:,} sent)" if rate is not None else ""),
        explanation=(
            f"Retransmission counters {_when(d)}: {parts}."
            + (f" That is {rate:.3%} of the {out_segs:,} segments sent." if rate is not None else "")
            + (
                " Timeouts (TCPTimeouts) are RTO expiries: each costs at least 200 ms."
                if c.get("TcpExtTCPTimeouts")
                else ""
            )
            + (f" Counter resets seen for {', '.join(d.resets[:5])}." if d.resets else "")
        ),
        refs=_name_refs(evidence, d, present + (["TcpOutSegs"] if out_segs is not None else [])),
        key=f"counters-{d.key}",
        data={
            **d.pair_data(),
            "counters": {k: c[k] for k in [*present, "TcpOutSegs"] if k in c},
            "per_second": per_s,
            "retrans_rate": rate,
            "values": _before_after(evidence, d, present),
            "resets": d.resets,
            "per_interval": per_interval(
                evidence, d.members, lambda s: {k: v for k, v in s["counters"].items() if k in RETRANS_COUNTERS}
            ),
        },
    )


def _listen(evidence: Sequence[EvidenceResult], d: Delta) -> Finding:
    c = d.counters
    ov, dr = c.get("TcpExtListenOverflows", 0), c.get("TcpExtListenDrops", 0)
    return Finding(
        kind="host.listen_overflows",
        layer="application",
        severity="medium" if d.before is not None else "low",
        title=f"listen queue overflowed {ov:,} times, {dr:,} SYNs dropped {_when(d)}",
        explanation=(
            f"ListenOverflows {ov:,} and ListenDrops {dr:,} {_when(d)}: a listening socket's accept queue was full "
            "(the application accepts too slowly or its backlog is too small), so SYNs were dropped and clients "
            "retransmitted them (1 s, then backoff) — connection setup delays that look like network loss."
        ),
        refs=_name_refs(evidence, d, LISTEN_COUNTERS),
        key=f"counters-{d.key}",
        data={**d.pair_data(), "listen_overflows": ov, "listen_drops": dr,
              "values": _before_after(evidence, d, [k for k in LISTEN_COUNTERS if k in c])},
    )  # fmt: skip


def _drops(evidence: Sequence[EvidenceResult], d: Delta, name: str, stats: dict[str, int]) -> Finding:
    shown = {k: stats[k] for k in DROP_KEYS if stats.get(k)}
    virtual = bool(VIRTUAL.match(name))
    refs = []
    for idx in (d.before, d.after):
        if idx is not None:
            ln = evidence[idx].summary.get("interface_lines", {}).get(name)
            refs.append(Ref(evidence=idx, label=f"interface {name}", lines=(ln, ln) if ln else None))
    return Finding(
        kind="host.interface_drops",
        layer="neighbours" if virtual else "network",
        severity="medium" if d.before is not None else "low",
        title=f"{name}: " + ", ".join(f"{k} {v:,}" for k, v in shown.items()) + f" {_when(d)}",
        explanation=(
            f"Interface {name} {'(a virtual/container interface) ' if virtual else ''}counted "
            + ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in shown.items())
            + f" {_when(d)}. Every dropped packet of a TCP flow is retransmitted after at least 200 ms (RTO-min) "
            "unless fast retransmit catches it."
        ),
        refs=tuple(refs),
        key=f"{name}-{d.key}",
        data={**d.pair_data(), "interface": name, "virtual": virtual,
              "drops": shown, "stats": stats, "values": _iface_values(evidence, d, name),
              "per_interval": per_interval(evidence, d.members, lambda s: {
                  k: v for k, v in s["interfaces"].get(name, {}).items() if k in DROP_KEYS})},
    )  # fmt: skip


def _iface_values(evidence: Sequence[EvidenceResult], d: Delta, name: str) -> dict[str, Any]:
    b = evidence[d.before].summary["interfaces"].get(name) if d.before is not None else None
    return {"before": b, "after": evidence[d.after].summary["interfaces"].get(name)}


#: The name a host's firewall rules go by as a source of drops.
FIREWALL = "the firewall rules"


@dataclass
class DropSource:
    """Packets dropped over a pair of snapshots of one host: an interface's RX/TX drops, or the
    packets its firewall rules dropped (nftables/iptables counters)."""

    name: str  # "tap0", "nftables rules"
    host: str | None
    role: str | None
    rx: int
    tx: int
    evidence: list[int]
    start: float | None
    end: float | None
    when: str
    virtual: bool
    key: str


def _drop_sources(evidence: Sequence[EvidenceResult], ds: Sequence[Delta]) -> list[DropSource]:
    out = []
    for d in ds:
        if d.before is None:
            continue
        for name, stats in sorted(d.interfaces.items()):
            rx, tx = stats.get("rx_dropped", 0), stats.get("tx_dropped", 0)
            if rx + tx > 0:
                out.append(DropSource(name, d.host, d.role, rx, tx, d.evidence, d.start, d.end,
                                      _when(d, host=False), bool(VIRTUAL.match(name)), f"{name}-{d.key}"))  # fmt: skip
    for fd in diffs(evidence, "firewall"):
        if fd.before is None:
            continue
        rows = diff_rules(evidence[fd.before].summary.get("rules", []), evidence[fd.after].summary.get("rules", []), [])
        dropped = sum(r["packets"] for r in rows if r["verdict"] in DROPPING and r["packets"] > 0)
        if dropped > 0:
            role = evidence[fd.after].provenance.role
            out.append(DropSource(FIREWALL, fd.host, role, dropped, 0, fd.evidence,
                                  taken_at(evidence[fd.before]), taken_at(evidence[fd.after]),
                                  fd.when(evidence).removeprefix(f"on {fd.host} ") if fd.host else fd.when(evidence),
                                  False, f"firewall-{fd.key}"))  # fmt: skip
    return out


def _same_path(d: Delta, src: DropSource) -> bool:
    """Whether drops counted in ``src`` can be packets of the retransmitting host ``d``'s traffic.

    The same host, or two hosts of the incident's path (a guest and its hypervisor, a client
    and a middlebox); when hosts are unknown, snapshots of one incident are taken to share it.
    Intervals that do not overlap (both timed) cannot explain each other.
    """
    if d.before is None:
        return False
    if d.start is None or d.end is None or src.start is None or src.end is None:
        return True
    return not (d.end < src.start or src.end < d.start)


def _match(d: Delta, r: int, src: DropSource) -> Finding:
    """Drops on a host of the path beside a host's retransmissions, with the arithmetic that links them.

    Each dropped data segment is retransmitted once; a dropped pure ACK, or an ACK-bearing segment
    whose loss a later cumulative ACK covers, is never retransmitted. So drops ≥ retransmissions
    means the drops can explain every retransmission (the rest were such packets), and fewer
    drops explain that many of them; no tolerance is assumed.
    """
    rx, tx = src.rx, src.tx
    drops = rx + tx
    explained = min(r, drops)
    rest = drops - r
    firewall = src.name == FIREWALL
    where = (f"{src.name} of {src.host}" if firewall else f"{src.name} on {src.host}") if src.host else src.name
    on = "by" if firewall else "on"
    who = d.host or "this host"
    same = d.host is not None and d.host == src.host
    direction = "RX" if rx and not tx else "TX" if tx and not rx else "RX+TX"
    if firewall:
        direction = "firewall"
    if rest >= 0:
        severity: Severity = "high"
        arithmetic = (
            f"{drops:,} {direction} drops ≥ {r:,} retransmissions: every retransmission can be one of these drops, "
            f"and the other {rest:,} drop{'s' if rest != 1 else ''} needed no retransmission — pure ACKs (a later "
            "ACK covers them) and ACK-bearing segments whose loss a cumulative ACK repaired"
        )
        title = f"{drops:,} drops {on} {where} explain the {r:,} TCP retransmissions of {who}"
    else:
        severity = "medium" if explained * 2 >= r else "low"
        arithmetic = (
            f"{drops:,} {direction} drops < {r:,} retransmissions: these drops explain at most {explained:,} of them "
            f"({explained / r:.0%}); the other {r - drops:,} were lost elsewhere on the path (or were spurious)"
        )
        title = f"{drops:,} drops {on} {where} explain at most {explained:,} of the {r:,} TCP retransmissions of {who}"
    refs = (*d.refs("TcpRetransSegs", {}), *(Ref(evidence=i, label=f"drops: {src.name}") for i in src.evidence))
    return Finding(
        kind="host.drops_match_retransmits",
        layer="neighbours" if src.virtual or src.role == "hypervisor" else "network",
        severity=severity,
        title=title,
        explanation=(
            f"{who} retransmitted {r:,} TCP segments (TcpRetransSegs) {_when(d, host=False)}; {where} dropped "
            + (f"{rx:,} packets" if direction == "firewall" else f"{rx:,} received and {tx:,} sent packets")
            + f" {src.when}. {arithmetic}. "
            + ("Drops on a host's own interface" if same else "Drops on another host of the path")
            + " cost the sender at least one retransmission timeout (200 ms minimum) when fast retransmit cannot "
            "repair them, as in one-request-per-round-trip traffic."
        ),
        refs=refs,
        key=f"{src.key}-{d.key}",
        data={"interface": src.name, "interface_host": src.host, "retransmit_host": d.host,
              "hosts": [h for h in dict.fromkeys((d.host, src.host)) if h],
              "drops": drops, "rx_dropped": rx, "tx_dropped": tx, "retransmits": r, "difference": drops - r,
              "explained": explained, "explains_all": rest >= 0, "arithmetic": arithmetic,
              "evidence": [*d.evidence, *src.evidence],
              "retransmit_evidence": [d.before, d.after], "interface_evidence": src.evidence},
    )  # fmt: skip


def _limit(evidence: Sequence[EvidenceResult], d: Delta, name: str) -> tuple[float | None, str]:
    for idx in (d.after, d.before):
        if idx is None:
            continue
        s = evidence[idx].summary
        if name in s.get("limits_bps", {}):
            return float(s["limits_bps"][name]), "given limit"
        if name in s.get("speeds_mbps", {}):
            return float(s["speeds_mbps"][name]) * 1e6, f"NIC speed ({evidence[idx].name})"
    for ev in evidence:  # another file of the same host: a given limit, or its NIC speed
        if ev.kind != KIND or ev.provenance.host != d.host:
            continue
        if name in ev.summary.get("limits_bps", {}):
            return float(ev.summary["limits_bps"][name]), "given limit"
        if name in ev.summary.get("speeds_mbps", {}):
            return float(ev.summary["speeds_mbps"][name]) * 1e6, f"NIC speed ({ev.name})"
    return None, ""


def _link_usage(evidence: Sequence[EvidenceResult], d: Delta) -> Finding:
    rows = []
    near = []
    for name, stats in sorted(d.interfaces.items()):
        limit, source = _limit(evidence, d, name)
        rx, tx = stats.get("rx_bytes"), stats.get("tx_bytes")
        row: dict[str, Any] = {
            "interface": name,
            "rx_bytes": rx,
            "tx_bytes": tx,
            "limit_bps": limit,
            "limit_source": source,
        }
        if d.interval_s:
            row["rx_bps"] = (rx or 0) * 8 / d.interval_s
            row["tx_bps"] = (tx or 0) * 8 / d.interval_s
            if limit:
                row["utilisation"] = max(row["rx_bps"], row["tx_bps"]) / limit
                if row["utilisation"] >= NEAR_LIMIT:
                    near.append(name)
        rows.append(row)
    limited = [r for r in rows if r.get("utilisation") is not None]
    clears = bool(limited) and not near
    if not d.interval_s:
        reason = "the snapshots carry no timestamps, so no rate can be computed"
    elif not limited:
        reason = "no interface has a limit (add '# limit IFACE RATE' to a snapshot, or an ethtool Speed line)"
    elif near:
        reason = f"{', '.join(near)} at ≥ {NEAR_LIMIT:.0%} of the limit"
    else:
        reason = f"every interface with a limit stays under {NEAR_LIMIT:.0%} of it"
    return Finding(
        kind="neighbours.link_usage",
        layer="neighbours",
        severity="medium" if near else "info",
        title=(f"{', '.join(near)} near its limit" if near else "no interface near its limit" if clears else "interface throughput")  # noqa: E501
        + f" {_when(d)}",
        explanation=f"Per-interface throughput {_when(d)} against its limit: {reason}.",
        refs=d.refs("interfaces", {}),
        key=f"counters-{d.key}",
        data={**d.pair_data(), "interfaces": rows, "near_limit": near, "clears_layer": clears,
              "reason": reason, "threshold": NEAR_LIMIT},
    )  # fmt: skip


def _server_ports(evidence: Sequence[EvidenceResult], values: dict[str, str]) -> tuple[int | None, str]:
    """How many server ports the clients connect to: a person's setting, else the captures' and strace's."""
    given = get_int(values, "whodunnet.server_ports")
    if given is not None:
        return given, "given (whodunnet.server_ports)"
    ports: set[str] = set()
    sources = []
    for ev in evidence:
        if ev.kind == "capture" and ev.summary.get("server_ports"):
            ports.update(str(p) for p in ev.summary["server_ports"])
            sources.append(f"capture {ev.name}")
        if ev.kind == "strace":
            found = False
            for s in ev.summary.get("sockets", []):
                peer = s.get("peer") or ""
                if s.get("connect_line") and ":" in peer:
                    ports.add(peer.rsplit(":", 1)[1])
                    found = True
            if found:
                sources.append(f"strace {ev.name}")
    if ports:
        return len(ports), "distinct server ports in " + ", ".join(sources)
    return None, ""


def _host_settings(evidence: Sequence[EvidenceResult], host: str | None) -> dict[str, Setting]:
    """The sysctl settings of ``host``'s files first, then every other host's (all files are read)."""
    mine = [ev if ev.provenance.host == host else _blank(ev) for ev in evidence]
    found = sysctl_settings(mine)
    for k, v in sysctl_settings(evidence).items():
        found.setdefault(k, v)
    return found


def _blank(ev: EvidenceResult) -> EvidenceResult:
    return EvidenceResult(path=ev.path, kind="other", summary={})


def _conntrack_findings(evidence: Sequence[EvidenceResult], ds: list[Delta]) -> list[Finding]:
    """One ``host.conntrack_pressure`` per host whose snapshots carry conntrack counters (the
    middlebox's table), or one from the sysctl files alone when no snapshot does."""
    with_ct = [d for d in ds if d.conntrack]
    by_host: dict[str | None, Delta] = {}
    for d in with_ct:  # per host: the pair (or the snapshot) with the most conntrack counters
        if d.host not in by_host or (d.before is not None, len(d.conntrack)) > (
            by_host[d.host].before is not None,
            len(by_host[d.host].conntrack),
        ):
            by_host[d.host] = d
    out = []
    for host, d in by_host.items():
        for other in with_ct:  # the table's size and fill may come in another file of the host (sysctl-style)
            if other.host == host and other is not d:
                for gauge in ("count", "max", "entries"):
                    if gauge in other.conntrack and gauge not in d.conntrack:
                        d.conntrack[gauge] = other.conntrack[gauge]
        f = _conntrack(evidence, d, host)
        if f is not None:
            out.append(f)
    if not by_host:
        f = _conntrack(evidence, None, None)
        if f is not None:
            out.append(f)
    return out


def _conntrack(evidence: Sequence[EvidenceResult], d: Delta | None, host: str | None) -> Finding | None:
    where = _host_settings(evidence, host)
    values = {k: s.value for k, s in where.items()}
    ct: dict[str, int] = dict(d.conntrack) if d is not None else {}
    count = ct.get("count", get_int(values, "net.netfilter.nf_conntrack_count") or ct.get("entries"))
    maximum = ct.get("max", get_int(values, "net.netfilter.nf_conntrack_max", "net.nf_conntrack_max"))
    failures = {k: ct[k] for k in ("insert_failed", "drop", "early_drop", "chaintoolong") if k in ct}
    port_range = get_ints(values, "net.ipv4.ip_local_port_range")
    if maximum is None and not any(failures.values()) and count is None:
        return None
    range_size = port_range[1] - port_range[0] + 1 if port_range and len(port_range) == 2 else None
    ports, ports_source = _server_ports(evidence, values)
    tuples = range_size * ports if range_size and ports else None
    usage = count / maximum if count is not None and maximum else None
    worst = max(usage or 0.0, (tuples / maximum) if tuples and maximum else 0.0)
    span = _when(d) if d is not None else ""
    on = f" on {host}" if host else ""
    parts = []
    if count is not None and maximum:
        parts.append(f"{count:,} of {maximum:,} conntrack entries in use{on} ({percent(count / maximum)})")
    if any(failures.values()):
        parts.append(", ".join(f"{k} {v:,}" for k, v in failures.items() if v) + (f" {span}" if span else ""))
    elif failures:
        parts.append(f"no conntrack insert failures or drops ({', '.join(failures)} all 0{' ' + span if span else ''})")
    if range_size:
        parts.append(
            f"the ephemeral port range holds {range_size:,} ports"
            + (f"; × {ports} server port{'s' if ports != 1 else ''} ({ports_source}) = {tuples:,} possible "
               "connections per client address"
               + (f", {tuples / maximum:.0%} of the {maximum:,}-entry table" if maximum else "") if tuples else "")
        )  # fmt: skip
    refs: list[Ref] = []
    for key in ("net.ipv4.ip_local_port_range", "net.netfilter.nf_conntrack_max", "net.netfilter.nf_conntrack_count"):
        if (setting := where.get(key)) is not None:
            ln = setting.line
            refs.append(Ref(evidence=setting.evidence, label=key, lines=(ln, ln) if ln else None))
    if d is not None:
        refs.extend(d.refs("conntrack", {}))
    exceeds = bool(tuples and maximum and tuples > maximum)
    explanation = "; ".join(parts) + "."
    if any(failures.values()):
        explanation += (
            " Each insert failure or drop is a new connection's packet the full table refused: the client "
            "retransmits its SYN (1 s, then doubling), so connection setup takes over a second."
        )
    if exceeds:
        explanation += (
            f" Connections kept through TIME-WAIT can fill the table: {tuples:,} possible connections per client "
            f"address exceed its {maximum:,} entries."
        )
    hosts = [host] if host else []
    return Finding(
        kind="host.conntrack_pressure",
        layer="network",
        severity="high" if any(failures.values()) or worst >= 0.9 else "medium" if worst >= 0.7 else "info",
        title="; ".join(parts[:2]) or "conntrack table",
        explanation=explanation,
        refs=tuple(refs),
        key=f"conntrack-{host}" if host else "conntrack",
        data={"count": count, "max": maximum, "usage": usage, "failures": failures, "port_range": port_range,
              "port_range_size": range_size, "server_ports": ports, "server_ports_source": ports_source,
              "possible_tuples": tuples, "tuples_share_of_max": (tuples / maximum) if tuples and maximum else None,
              "tuples_exceed_table": exceeds, "stats": ct, "host": host, "hosts": hosts,
              "delta": d.before is not None if d is not None else False,
              "evidence": d.evidence if d is not None else [], "interval_s": d.interval_s if d is not None else None},
    )  # fmt: skip
