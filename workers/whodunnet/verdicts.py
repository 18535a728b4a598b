"""The checklist's suggested verdicts: one rule per case, each with the chain of evidence behind it.

``checklist(evidence, findings)`` answers, for each step of blame the neighbours → the network → the
application → the kernel, a ``Suggestion`` (cleared / suspect / culprit, a readable paragraph saying why with
every number and where it came from, what would settle the step, and which findings the paragraph cites) or
None when the evidence says nothing about that step. The rules of a step are tried in order (``RULES``) and the
first that speaks wins, so a rule that proves more (a culprit, from a complete chain) comes first. The CLI
prints this after the findings; the console's checklist is a thin adapter over it (``backend/checklist``).

``settle(evidence, findings)`` says, per step, which file would settle it, from what the incident already holds
("upload `ip -s link` from the hypervisor of 10.0.0.5"): the console shows it when a step has no suggestion
and the rules add it to a suggestion that is not yet conclusive.

Every number in a reason comes from a finding's data (which came from the evidence or a person's setting); a
rule never brings a constant of its own into a reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from whodunnet.model import EvidenceResult, Finding

STEPS: tuple[str, ...] = ("neighbours", "network", "application", "kernel")  # Finding.layer values
SERIOUS = ("high", "medium")
#: How many findings a generic reason names before it stops listing.
NAMED = 3


@dataclass(frozen=True)
class Suggestion:
    """A verdict the findings suggest for one step, and the chain of evidence a person can check."""

    verdict: str  # "cleared" | "suspect" | "culprit"
    reason: str  # one readable paragraph: the chain of evidence, with numbers and their source
    needs: tuple[str, ...] = ()  # what would settle it: "upload `ip -s link` from the hypervisor of 10.0.0.5"
    findings: tuple[int, ...] = ()  # indexes into the findings list that the reason cites


@dataclass(frozen=True)
class Facts:
    """What the rules read: the incident's evidence (with provenance) and its findings, by index."""

    evidence: Sequence[EvidenceResult]
    findings: Sequence[Finding]

    def of(self, *kinds: str, layer: str | None = None) -> list[tuple[int, Finding]]:
        """The findings of these kinds (all kinds when none given), with their index, oldest first."""
        return [
            (i, f)
            for i, f in enumerate(self.findings)
            if (not kinds or f.kind in kinds) and (layer is None or f.layer == layer)
        ]

    def evidence_of(self, finding: Finding) -> list[int]:
        """The evidence a finding points at, by index, in order of first mention."""
        seen: list[int] = []
        for ref in finding.refs:
            if isinstance(ref.evidence, int) and 0 <= ref.evidence < len(self.evidence) and ref.evidence not in seen:
                seen.append(ref.evidence)
        return seen

    def hosts_of(self, finding: Finding) -> list[str]:
        """The hosts a finding speaks about: its ``data.hosts``, else the hosts of the evidence it points at."""
        named = finding.data.get("hosts")
        if isinstance(named, list | tuple) and named:
            return [str(h) for h in named if h]
        out: list[str] = []
        for i in self.evidence_of(finding):
            host = self.evidence[i].provenance.host
            if host and host not in out:
                out.append(host)
        return out

    def file(self, index: int) -> str:
        """One evidence as a reason names it: "client.strace (client-1)"."""
        ev = self.evidence[index]
        host = ev.provenance.host
        return f"{ev.name} ({host})" if host and host not in ev.name else ev.name

    def files_of(self, finding: Finding) -> str:
        return ", ".join(self.file(i) for i in self.evidence_of(finding)) or "the evidence"

    def hosts(self, role: str | None = None) -> list[str]:
        """The hosts the evidence comes from (of one role), in upload order."""
        out: list[str] = []
        for ev in self.evidence:
            host = ev.provenance.host
            if host and (role is None or ev.provenance.role == role) and host not in out:
                out.append(host)
        return out

    def kinds(self, host: str | None = None) -> set[str]:
        return {ev.kind for ev in self.evidence if host is None or ev.provenance.host == host}


Rule = Callable[[Facts], Suggestion | None]


# --- helpers: numbers as a person reads them ------------------------------------------------------------------


def _n(value: Any) -> str:
    """A count with thousands separators; a float with at most one decimal."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    return f"{value:,.1f}"


def _count(value: Any, noun: str) -> str:
    return f"{_n(value)} {noun}{'' if value == 1 else 's'}"


def _rate(bps: float) -> str:
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:,.2f} {unit}"
    return f"{bps:,.0f} bit/s"


def _seconds(s: float) -> str:
    return f"{s * 1000:,.1f} ms" if s < 1 else f"{s:,.1f} s"


def _on(hosts: Sequence[str]) -> str:
    return f" on {' and '.join(hosts)}" if hosts else ""


def _titles(facts: Facts, found: Sequence[tuple[int, Finding]]) -> str:
    return "; ".join(f.title for _, f in found[:NAMED])


def _ids(found: Iterable[tuple[int, Finding]]) -> tuple[int, ...]:
    return tuple(sorted({i for i, _ in found}))


def _num(data: Mapping[str, Any], *keys: str) -> float | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


# --- neighbours -----------------------------------------------------------------------------------------------


def _busiest(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    limited = [r for r in rows if isinstance(r.get("utilisation"), int | float)]
    return max(limited, key=lambda r: r["utilisation"]) if limited else None


def _usage_words(row: Mapping[str, Any], interval: float | None) -> str:
    peak = max(row.get("rx_bps") or 0.0, row.get("tx_bps") or 0.0)
    source = row.get("limit_source") or "its limit"
    over = f" over the {_n(interval)} s between the snapshots" if interval else ""
    return (
        f"{row['interface']} ran at {_rate(peak)}{over}, {row['utilisation']:.0%} of its "
        f"{_rate(float(row['limit_bps']))} link ({source})"
    )


def a_neighbour_near_its_link_limit_is_suspect(facts: Facts) -> Suggestion | None:
    """An interface whose rate between two snapshots reaches its link speed (from ethtool, /sys/class/net/*/speed,
    ``ip -d link`` or a speed a person gave): a neighbour on the host may be taking the bandwidth."""
    found = [(i, f) for i, f in facts.of("neighbours.link_usage") if f.data.get("near_limit")]
    if not found:
        return None
    parts: list[str] = []
    for _, f in found:
        near = set(f.data["near_limit"])
        rows = [r for r in f.data.get("interfaces", []) if r.get("interface") in near and r.get("utilisation")]
        hosts = facts.hosts_of(f)
        parts.extend(f"{_usage_words(r, f.data.get('interval_s'))}{_on(hosts)}" for r in rows)
    return Suggestion(
        verdict="suspect",
        reason="; ".join(parts) + ". Whoever else sends through that link competes with this traffic.",
        needs=("upload per-container or per-VM interface counters (`ip -s link`) from the same host at the same "
               "two moments, to see which neighbour uses the link",),
        findings=_ids(found),
    )  # fmt: skip


def every_interface_under_its_link_speed_clears_the_neighbours(facts: Facts) -> Suggestion | None:
    """Every interface with a known link speed stayed well under it between two snapshots (no neighbour could
    have crowded this traffic out); the reason names the busiest one with its rate, speed and their sources."""
    found = [(i, f) for i, f in facts.of("neighbours.link_usage") if f.data.get("clears_layer")]
    if not found:
        return None
    parts = []
    for _, f in found:
        row = _busiest(f.data.get("interfaces", []))
        if row is None:
            continue
        threshold = _num(f.data, "threshold")
        under = f" (under the {threshold:.0%} this check calls near)" if threshold else ""
        parts.append(f"{_usage_words(row, f.data.get('interval_s'))}{_on(facts.hosts_of(f))}{under}")
    if not parts:
        return None
    return Suggestion(
        verdict="cleared",
        reason="No interface was near its link speed: the busiest, " + "; ".join(parts) + ".",
        findings=_ids(found),
    )


# --- network --------------------------------------------------------------------------------------------------


def _latency_tails(facts: Facts, *signatures: str) -> tuple[list[tuple[int, Finding]], list[str]]:
    """Latency findings whose samples stand out at one of these timer signatures, and the words for them."""
    found: list[tuple[int, Finding]] = []
    words: list[str] = []
    for i, f in facts.of("latency.timer_signature"):
        matched = [s for s in f.data.get("signatures", []) if s.get("name") in signatures and s.get("mode")]
        if matched and any(s["name"] in (f.data.get("matches") or []) for s in matched):
            found.append((i, f))
            for s in matched:
                words.append(f"{_n(s.get('count'))} samples in {facts.files_of(f)} at {s.get('meaning')}")
    return found, words


def drops_on_a_hosts_interface_explain_the_guests_retransmissions(facts: Facts) -> Suggestion | None:
    """An interface's drops (a hypervisor's tap/macvtap, a NIC) over the same interval as a host's TCP
    retransmissions, with the arithmetic that joins them: when the drops explain every retransmission, the
    network between them is the culprit (200 ms tails in the latency samples are their retransmission
    timeouts); when they explain only part, it is suspect."""
    found = facts.of("host.drops_match_retransmits")
    if not found:
        return None
    # The guest's side first (a client's retransmissions), then the others over the same drops, in a few words.
    roles = {ev.provenance.host: ev.provenance.role for ev in facts.evidence}
    found = sorted(found, key=lambda pair: roles.get(pair[1].data.get("retransmit_host")) != "client")
    parts = []
    complete = False
    for n, (_, f) in enumerate(found):
        d = f.data
        hosts = facts.hosts_of(f)
        dropper = d.get("interface_host") or (hosts[-1] if hosts else None)
        sender = d.get("retransmit_host") or (hosts[0] if hosts else None)
        complete = complete or bool(d.get("explains_all", f.severity == "high"))
        if n:
            parts.append(
                f"TCP on {sender or 'another host'} retransmitted {_n(d.get('retransmits'))} segments over "
                f"the same interval ({'all' if d.get('explains_all') else 'some'} explained by the same drops)"
            )
            continue  # fmt: skip
        where = f" on {dropper}" if dropper else ""
        guest = f" on {sender}" if sender and sender != dropper else ""
        text = (
            f"{d.get('interface')}{where} dropped {_n(d.get('drops'))} packets while TCP{guest} retransmitted "
            f"{_n(d.get('retransmits'))} segments over the same interval ({facts.files_of(f)})"
        )
        arithmetic = d.get("arithmetic") or d.get("explanation")
        if d.get("drops") is not None and d.get("drops") == d.get("retransmits"):
            text += ": one retransmission for every drop"
        elif isinstance(arithmetic, str) and arithmetic:
            text += f": {arithmetic.rstrip('.')}"
        parts.append(text)
    tails, words = _latency_tails(facts, "rto_min_200ms")
    rto = facts.of("tcp.rto_retransmit")
    reason = "; ".join(parts) + (
        ". The retransmissions are these drops" if complete else ". These drops explain part of the retransmissions"
    )
    if words:
        reason += f", and the {'; '.join(words)} are their retransmission timeouts"
    elif rto:
        reason += f", and the captures show them as timeouts ({_titles(facts, rto)})"
    needs = () if complete else (
        "upload `ip -s link` before and after from every host on the path (the hypervisor's tap or macvtap, the "
        "routers), to find the rest of the drops",
    )  # fmt: skip
    return Suggestion(
        verdict="culprit" if complete else "suspect",
        reason=reason + ".",
        needs=needs,
        findings=_ids([*found, *tails, *rto]),
    )


def _failures(data: Mapping[str, Any]) -> dict[str, int]:
    raw = data.get("failures") or {}
    return {k: int(v) for k, v in raw.items() if isinstance(v, int | float) and v}


#: conntrack -S counters in words.
FAILURE_WORDS = {"drop": "dropped", "insert_failed": "failed inserts", "early_drop": "early drops",
                 "chaintoolong": "chains too long"}  # fmt: skip


def _syn_retransmits(counters: Mapping[str, Any]) -> Any:
    return counters.get("TcpExtTCPSynRetrans", counters.get("TCPSynRetrans"))


def conntrack_table_full_is_the_culprit(facts: Facts) -> Suggestion | None:
    """A connection-tracking table that is full (entries at the maximum, or insert failures and drops counted):
    new connections' SYNs are dropped, which shows as SYN retransmissions and 1 s connect tails; when the
    ephemeral port range × server ports exceeds the table, the reason says so with the numbers."""
    found = []
    for i, f in facts.of("host.conntrack_pressure"):
        d = f.data
        count, maximum = _num(d, "count"), _num(d, "max")
        if _failures(d) or (count is not None and maximum and count >= maximum) or d.get("tuples_exceed_table"):
            found.append((i, f))
    if not found:
        return None
    parts = []
    for _, f in found:
        d = f.data
        count, maximum = _num(d, "count"), _num(d, "max")
        said = [f"the conntrack table{_on(facts.hosts_of(f))}"]
        if count is not None and maximum:
            said.append(f"held {_n(count)} of {_n(maximum)} entries")
        failures = _failures(d)
        if failures:
            said.append("and counted " + ", ".join(f"{_n(v)} {FAILURE_WORDS.get(k, k)}" for k, v in failures.items()))
        elif not (count is not None and maximum and count >= maximum):
            said.append("has room now")
        text = " ".join(said) + f" ({facts.files_of(f)})"
        tuples, share = _num(d, "possible_tuples"), _num(d, "tuples_share_of_max")
        if tuples and maximum and d.get("port_range_size") and d.get("server_ports"):
            text += (
                f"; its {_n(d['port_range_size'])} ephemeral ports × {_n(d['server_ports'])} server ports "
                f"({d.get('server_ports_source') or 'from the evidence'}) make {_n(tuples)} possible connections "
                f"per client address, {share:.1f}× the table"
                if share
                else ""
            )
        parts.append(text)
    chain: list[tuple[int, Finding]] = list(found)
    syn = facts.of("tcp.syn_retransmit", "tcp.synack_retransmit")
    syn_counters = [(i, f) for i, f in facts.of("host.retransmits") if _syn_retransmits(f.data.get("counters") or {})]
    effects = []
    if syn:
        effects.append(f"the captures show handshakes retried ({_titles(facts, syn)})")
        chain.extend(syn)
    for _, f in syn_counters:
        effects.append(f"{_n(_syn_retransmits(f.data['counters']))} SYN retransmissions{_on(facts.hosts_of(f))}")
    chain.extend(syn_counters)
    tails, words = _latency_tails(facts, "syn_timeout_1s", "syn_linear_2s", "syn_timeout_3s", "syn_1_2_4s")
    effects.extend(words)
    chain.extend(tails)
    reason = "; ".join(parts) + ". A full table drops the SYNs of new connections"
    if effects:
        reason += ": " + "; ".join(effects)
    needs = () if effects else (
        "upload the client's `nstat` before and after (TCPSynRetrans) or its connect latencies, to see the "
        "dropped SYNs on the clients",
    )  # fmt: skip
    return Suggestion(verdict="culprit", reason=reason + ".", needs=needs, findings=_ids(chain))


def loss_between_the_captures_is_suspect(facts: Facts) -> Suggestion | None:
    """Two captures of the same traffic (matched by sequence numbers, through NAT) disagree: segments sent past
    one capture point never reached the other, so the path between them lost them."""
    found = facts.of("path.loss_between_captures")
    if not found:
        return None
    parts = []
    for _, f in found:
        d = f.data
        parts.append(
            f"{_n(d.get('lost_segments'))} of {_n(d.get('segments_compared'))} segments on "
            f"{_count(d.get('matched_connections'), 'matched connection')} between {facts.files_of(f)} never reached "
            f"the other capture{_nat(d)}" + (f": {_by_type(d)}" if _by_type(d) else "")
        )
    hosts = [h for _, f in found for h in facts.hosts_of(f)]
    between = f" between {' and '.join(dict.fromkeys(hosts))}" if hosts else ""
    return Suggestion(
        verdict="suspect",
        reason="; ".join(parts) + ".",
        needs=(f"upload interface counters (`ip -s link` before and after) from the hosts{between} to see which "
               "one dropped them",),
        findings=_ids(found),
    )  # fmt: skip


def _by_type(data: Mapping[str, Any]) -> str:
    """What each side never saw, by type ("in b: data 3, pure ACK 2"), when the finding says."""
    said = []
    for key, where in (("missing_in_b", "the second"), ("missing_in_a", "the first")):
        rows = [r for r in data.get(key) or [] if r.get("count")]
        if rows:
            listed = ", ".join(f"{_n(r['count'])} {r.get('type')} from the {r.get('sender')}" for r in rows)
            said.append(f"{where} capture never saw {listed}")
    return "; ".join(said)


def _nat(data: Mapping[str, Any]) -> str:
    for row in data.get("nat") or []:
        a = f"{row.get('a_client')} → {row.get('a_server')}"
        b = f"{row.get('b_client')} → {row.get('b_server')}"
        if a != b:
            return f", through a NAT ({a} on one side is {b} on the other)"
    return ""


def both_sides_of_the_nat_saw_every_segment_clears_the_network(facts: Facts) -> Suggestion | None:
    """Two captures of the same traffic, one on each side of the path (through a NAT when the addresses
    differ), saw the same sequence space, handshakes, FINs and ACKs: nothing was lost between them, so the
    network is cleared."""
    found = facts.of("path.no_loss_between_captures")
    if not found or facts.of("path.loss_between_captures", "host.drops_match_retransmits"):
        return None
    parts = []
    for _, f in found:
        d = f.data
        size = f"{_n(d['bytes_compared'])} bytes of sequence space" if d.get("bytes_compared") else "the traffic"
        segments = d.get("segments") or []
        counted = f", {_n(segments[0])} and {_n(segments[1])} segments" if len(segments) == 2 else ""
        parts.append(
            f"{facts.files_of(f)} saw the same {size} on {_count(d.get('matched_connections'), 'connection')}"
            f"{counted}{_nat(d)}, every handshake, FIN and acknowledgement included"
        )
    others = [(i, f) for i, f in facts.of(layer="network") if f.severity in SERIOUS]
    reason = "Nothing was lost between the two capture points: " + "; ".join(parts) + "."
    if others:
        reason += f" What the network step also lists happened on both sides alike: {_titles(facts, others)}."
    return Suggestion(verdict="cleared", reason=reason, findings=_ids(found))


# --- application ----------------------------------------------------------------------------------------------


def _deadline(facts: Facts) -> tuple[str, list[tuple[int, Finding]]]:
    """The application's deadline in words, from strace, a capture's close age or Kafka settings."""
    # The strace's deadline joined with a capture's close first, then the strace's alone, then a capture's.
    ordered = [
        found for kind in ("app.deadline_close", "app.timeout", "tcp.app_timeout_close") for found in facts.of(kind)
    ]
    for i, f in ordered:
        seconds = _num(f.data, "deadline_s", "close_age_s", "round_age", "age_s")
        ms = _num(f.data, "deadline_ms") or (_num(f.data, "timeout_ms") if f.data.get("closes_after") else None)
        if seconds is None and ms is not None:
            seconds = ms / 1000
        if seconds is not None and seconds >= 1:
            source = f.data.get("deadline_source") or facts.files_of(f)
            return f"the application gives up after {_seconds(seconds)} ({source})", [(i, f)]
    for i, f in facts.of("app.kafka_settings"):
        ms = (f.data.get("settings") or f.data.get("properties") or {}).get("request.timeout.ms")
        if ms:
            return f"request.timeout.ms is {_n(int(ms))} ms ({facts.files_of(f)})", [(i, f)]
    return "", []


def _measured_window(facts: Facts) -> tuple[int | None, float | None, list[tuple[int, Finding]]]:
    """The receive window and RTT a capture measured (median over the transfers it limited)."""
    for i, f in facts.of("tcp.receive_window_limited"):
        window = _num(f.data, "window")
        if window:
            return int(window), _num(f.data, "rtt"), [(i, f)]
    return None, None, []


def so_rcvbuf_pins_the_window_is_suspect(facts: Facts) -> Suggestion | None:
    """The application sets SO_RCVBUF (strace) or Kafka's receive.buffer.bytes: the kernel turns off receive
    autotuning for the socket and the window stays at what that buffer allows, whatever the path could carry."""
    found = facts.of("app.rcvbuf_pinned")
    kafka = [
        (i, f) for i, f in facts.of("app.kafka_settings")
        if str((f.data.get("settings") or f.data.get("properties") or {}).get("receive.buffer.bytes", "-1")).strip()
        not in ("-1", "")
    ]  # fmt: skip
    if not found and not kafka:
        return None
    parts = []
    for _, f in found:
        lines = f.data.get("lines") or []
        at = f" at line {_n(lines[0])}" if lines else ""
        parts.append(f"{facts.files_of(f)} sets SO_RCVBUF {_n(f.data.get('so_rcvbuf'))}{at}")
    for _, f in kafka:
        value = (f.data.get("settings") or f.data.get("properties") or {})["receive.buffer.bytes"]
        parts.append(f"{facts.files_of(f)} sets receive.buffer.bytes {value}")
    reason = "; ".join(parts) + ": the kernel turns off receive autotuning, so the window cannot grow past what "
    reason += "that buffer allows"
    window, rtt, measured = _measured_window(facts)
    if window:
        reason += f"; the capture measured a {_n(window)}-byte window" + (f" at a {_seconds(rtt)} RTT" if rtt else "")
    deadline, cited = _deadline(facts)
    if deadline:
        reason += f"; {deadline}"
    reason += (
        ". Leaving SO_RCVBUF unset"
        + (" (receive.buffer.bytes -1)" if kafka else "")
        + " lets the kernel size the window."
    )
    needs = () if window else (
        "upload a capture of a slow transfer on the receiving host to measure the window it advertised",
    )  # fmt: skip
    return Suggestion(verdict="suspect", reason=reason, needs=needs, findings=_ids([*found, *kafka, *measured, *cited]))


# --- kernel ---------------------------------------------------------------------------------------------------


def _regressions(
    facts: Facts, *, unfixed_only: bool = True
) -> tuple[list[Mapping[str, Any]], list[tuple[int, Finding]]]:
    """The regressions the new kernel gained (by default only those it has no fix for), and their findings."""
    rows, found = [], []
    for i, f in facts.of("kernel.known_change_in_range"):
        mine = [
            r
            for r in f.data.get("changes", [])
            if r.get("regression")
            and r.get("direction") == "gained"
            and (r.get("unfixed_in_after", True) or not unfixed_only)
        ]
        if mine:
            rows.extend(mine)
            found.append((i, f))
    return rows, found


def _agrees(row: Mapping[str, Any], measured: float) -> bool:
    """Whether the model's prediction for this kernel agrees with the measured window (the model says so)."""
    said = row.get("agrees_with_measured")
    if isinstance(said, bool):
        return said
    predicted = float(row["window"])
    return abs(predicted - measured) <= 0.15 * predicted


def _given(data: Mapping[str, Any], key: str, source: str) -> float | None:
    """A model input the evidence or a person gave; None when the model had to assume it."""
    said = str(data.get(source) or "")
    return None if "default" in said or "assum" in said else _num(data, key)


def a_kernel_change_that_predicts_the_measured_window_is_the_culprit(facts: Facts) -> Suggestion | None:
    """A known kernel change between the two versions (from the knowledge base) predicts the receive window at
    the application's SO_RCVBUF, a capture measured that window, and at the measured RTT the transfer misses the
    application's deadline on the new kernel while it fit on the old one: the kernel upgrade is the culprit.
    Any missing link makes the step suspect, with the file that would supply it."""
    models = facts.of("kernel.receive_window_model")
    changes, in_range = _regressions(facts)
    if not models or not changes:
        return None
    mi, model = models[0]
    d = model.data
    kernels = d.get("kernels") or []
    if len(kernels) < 2:
        return None
    old, new = kernels[0], kernels[-1]
    if not (isinstance(new.get("window"), int | float) and isinstance(old.get("window"), int | float)):
        return None
    if new["window"] >= old["window"]:
        return None
    change = changes[0]
    chain = [(mi, model), *in_range]
    reason = (
        f'{change["id"]} ("{change.get("title", "")}", first in {change.get("first_release")}) lies between '
        f"{old.get('kernel')} and {new.get('kernel')}{_on(facts.hosts_of(in_range[0][1]))}; at SO_RCVBUF "
        f"{_n(d.get('so_rcvbuf'))} ({d.get('so_rcvbuf_source')}) it predicts a {_n(new['window'])}-byte window "
        f"where {old.get('kernel')} gave {_n(old['window'])}"
    )
    needs: list[str] = []
    measured = _num(d, "measured_window")
    window, _rtt, cited = _measured_window(facts)
    if measured is None and window is not None:
        measured = float(window)
    chain.extend(cited)
    if measured is None:
        needs.append("upload a capture of a slow transfer on the receiving host to measure the window it advertised")
    elif _agrees(new, measured):
        reason += f"; the capture measured {_n(int(measured))} bytes"
    else:
        reason += f"; but the capture measured {_n(int(measured))} bytes, which the change does not explain"
        return Suggestion(verdict="suspect", reason=reason + ".", needs=tuple(needs), findings=_ids(chain))
    rtt_ms = _given(d, "rtt_ms", "rtt_source")
    seconds = _num(new, "transfer_s")
    timeout_ms = _given(d, "timeout_ms", "timeout_source") or _given(d, "deadline_ms", "deadline_source")
    fits = new.get("fits_timeout")
    if rtt_ms is not None and seconds is not None and timeout_ms is not None and fits is not None:
        size = _num(d, "transfer_bytes")
        what = f"{_n(int(size))} bytes" if size else "the transfer"
        reason += (
            f"; at the {rtt_ms:,.1f} ms RTT ({d.get('rtt_source')}) {what} ({d.get('transfer_source')}) needs "
            f"{_seconds(seconds)} against a {_seconds(timeout_ms / 1000)} deadline ({d.get('timeout_source')})"
        )
        old_s = _num(old, "transfer_s")
        if old_s is not None and old.get("fits_timeout"):
            reason += f", where {old.get('kernel')} needed {_seconds(old_s)}"
    else:
        said_missing = [str(m) for m in d.get("missing") or []]
        needs.extend(said_missing)
        if not said_missing:
            for missing, words in (
                (rtt_ms, "upload a capture with the connection's handshake to measure the RTT"),
                (timeout_ms, "upload an strace of the client (`strace -f -tt -T -y`) to read its deadline"),
                (
                    _given(d, "transfer_bytes", "transfer_source"),
                    "upload a capture of a whole transfer to read its size",
                ),
            ):
                if missing is None:
                    needs.append(words)
    complete = not needs and fits is False and bool(old.get("fits_timeout"))
    if not needs and not complete:
        reason += "; the transfer fits the deadline on both kernels, so the window alone does not explain it"
    return Suggestion(
        verdict="culprit" if complete else "suspect", reason=reason + ".", needs=tuple(needs), findings=_ids(chain)
    )


def a_new_kernel_that_gives_no_smaller_window_clears_the_kernel(facts: Facts) -> Suggestion | None:
    """The receive-window model gives the new kernel a window no smaller than the old one's at the application's
    SO_RCVBUF, and every regression the knowledge base lists between them is fixed in the new kernel: the
    kernel change did not shrink the window, so the kernel is cleared."""
    models = facts.of("kernel.receive_window_model")
    ranges = facts.of("kernel.known_change_in_range")
    if not models:
        return None
    mi, model = models[0]
    kernels = model.data.get("kernels") or []
    if len(kernels) < 2:
        return None
    old, new = kernels[0], kernels[-1]
    if not all(isinstance(k.get("window"), int | float) for k in (old, new)) or new["window"] < old["window"]:
        return None
    regressions, _ = _regressions(facts, unfixed_only=False)
    if any(r.get("unfixed_in_after", True) for r in regressions):
        return None
    reason = (
        f"With SO_RCVBUF {_n(model.data.get('so_rcvbuf'))}, read from {model.data.get('so_rcvbuf_source')}, "
        f"{new.get('kernel')} advertises up to {_n(new['window'])} bytes where {old.get('kernel')} gave "
        f"{_n(old['window'])}"
    )
    measured = _num(model.data, "measured_window")
    if measured is not None:
        reason += f"; the capture measured {_n(int(measured))} bytes ({model.data.get('measured_window_source')})"
    if regressions:
        fixes = sorted({fix.get("id") for r in regressions for fix in r.get("fixed_by", []) if fix.get("id")})
        reason += (
            f"; the regression{'s' if len(regressions) != 1 else ''} between them "
            f"({', '.join(str(r.get('id')) for r in regressions)}) "
            + (f"{'are' if len(regressions) != 1 else 'is'} fixed in {new.get('kernel')} ({', '.join(fixes)})" if fixes
               else f"{'are' if len(regressions) != 1 else 'is'} fixed in {new.get('kernel')}")
        )  # fmt: skip
    return Suggestion(
        verdict="cleared",
        reason=reason + ": the kernel change did not shrink the window.",
        findings=_ids([(mi, model), *ranges]),
    )


# --- every step -----------------------------------------------------------------------------------------------


def notable_findings_make_the_step_suspect(facts: Facts, step: str) -> Suggestion | None:
    """A high or medium finding in this step's layer is reason enough to suspect it; the reason names them."""
    serious = [(i, f) for i, f in facts.of(layer=step) if f.severity in SERIOUS]
    if not serious:
        return None
    return Suggestion(
        verdict="suspect",
        reason=f"{len(serious)} notable finding{'s' if len(serious) != 1 else ''}: {_titles(facts, serious)}.",
        findings=_ids(serious),
    )


def a_clearing_finding_clears_the_step(facts: Facts, step: str) -> Suggestion | None:
    """An analyzer that checked this layer and found it fine (``data.clears_layer``) clears it. Only reached
    when nothing serious was found: a clearing finding never outweighs a suspicious one."""
    clearing = [(i, f) for i, f in facts.of(layer=step) if f.data.get("clears_layer")]
    if not clearing:
        return None
    return Suggestion(verdict="cleared", reason=_titles(facts, clearing) + ".", findings=_ids(clearing))


def _generic(rule: Callable[[Facts, str], Suggestion | None], step: str) -> Rule:
    def apply(facts: Facts) -> Suggestion | None:
        return rule(facts, step)

    apply.__name__ = rule.__name__
    apply.__doc__ = rule.__doc__
    return apply


def _every_step(step: str) -> tuple[Rule, ...]:
    return (_generic(notable_findings_make_the_step_suspect, step), _generic(a_clearing_finding_clears_the_step, step))


#: Each step's rules, most conclusive first; the first that speaks wins.
RULES: Mapping[str, tuple[Rule, ...]] = {
    "neighbours": (
        a_neighbour_near_its_link_limit_is_suspect,
        every_interface_under_its_link_speed_clears_the_neighbours,
        *_every_step("neighbours"),
    ),
    "network": (
        drops_on_a_hosts_interface_explain_the_guests_retransmissions,
        conntrack_table_full_is_the_culprit,
        loss_between_the_captures_is_suspect,
        both_sides_of_the_nat_saw_every_segment_clears_the_network,
        *_every_step("network"),
    ),
    "application": (so_rcvbuf_pins_the_window_is_suspect, *_every_step("application")),
    "kernel": (
        a_kernel_change_that_predicts_the_measured_window_is_the_culprit,
        a_new_kernel_that_gives_no_smaller_window_clears_the_kernel,
        *_every_step("kernel"),
    ),
}


def checklist(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> dict[str, Suggestion | None]:
    """Each step's suggestion (None when the evidence says nothing about it), in checklist order."""
    facts = Facts(evidence=evidence, findings=findings)
    missing = settle(evidence, findings)
    out: dict[str, Suggestion | None] = {}
    for step in STEPS:
        said = next((s for rule in RULES[step] if (s := rule(facts)) is not None), None)
        if said is not None and said.verdict == "suspect" and not said.needs and missing[step]:
            # Suspicion without a complete chain: say which file would settle it.
            said = replace(said, needs=missing[step])
        out[step] = said
    return out


# --- what would settle a step ---------------------------------------------------------------------------------


def _of_host(host: str | None, role: str) -> str:
    return f"the {role} {host}" if host else f"the {role}"


def settle(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> dict[str, tuple[str, ...]]:
    """Per step, the files that would settle it, from what the incident already holds (empty: nothing to add)."""
    facts = Facts(evidence=evidence, findings=findings)
    out: dict[str, list[str]] = {step: [] for step in STEPS}
    captures = [ev for ev in evidence if ev.kind == "capture"]
    # Neighbours: rates need two snapshots and a link speed.
    usage = facts.of("neighbours.link_usage")
    if not usage:
        out["neighbours"].append(
            "upload `ip -s link` from each host at two moments (before and after the slow transfer), with "
            "`ethtool IFACE` for the link speed"
        )
    for _, f in usage:
        host = next(iter(facts.hosts_of(f)), None)
        if not any(r.get("limit_bps") for r in f.data.get("interfaces", [])):
            out["neighbours"].append(
                f"upload `ethtool IFACE` or `cat /sys/class/net/*/speed` from {host or 'the same host'}, or give the "
                "link speed on the counters card"
            )
        if not f.data.get("interval_s"):
            out["neighbours"].append(
                f"say on the counters cards{' of ' + host if host else ''} when each snapshot was taken (or take them "
                "with a timestamp: `date +%s; ip -s link`), so rates can be computed"
            )
    # Network: two sides of the path, and the hypervisor under a guest that retransmits.
    if len(captures) == 1:
        ev = captures[0]
        other = "server" if ev.provenance.role != "server" else "client"
        out["network"].append(
            f"upload a capture from the {other} side of the same traffic (the other capture is "
            f"{ev.name}{' on ' + ev.provenance.host if ev.provenance.host else ''}) to check for loss on the path"
        )
    elif not captures:
        out["network"].append("upload a client-side and a server-side capture of the same traffic")
    hypervisors = {ev.provenance.host for ev in evidence if ev.provenance.role == "hypervisor"}
    for _, f in facts.of("host.retransmits"):
        if facts.of("host.drops_match_retransmits"):
            break
        retrans = (f.data.get("counters") or {}).get("TcpRetransSegs")
        if retrans and not hypervisors:
            host = next(iter(facts.hosts_of(f)), None)
            out["network"].append(
                f"upload `ip -s link` before and after from the hypervisor of {host or 'the guest'}, to see whether "
                f"its tap/macvtap drops explain the {_n(retrans)} retransmissions"
            )
    # Application: its socket options and deadline.
    if not any(ev.kind in ("strace", "app_config") for ev in evidence):
        client = next(iter(facts.hosts("client")), None)
        on = f" on {client}" if client and client != "client" else ""
        out["application"].append(
            f"upload an strace of the client{on} (`strace -f -tt -T -y`) or its "
            "client configuration, to read the socket options and the deadline it sets"
        )
    # Kernel: versions before and after, and the settings that size the window.
    if not any(ev.kind == "kernel_versions" for ev in evidence):
        out["kernel"].append("upload `uname -r` from before and after the change on the receiving host")
    elif not any(ev.kind == "sysctl" for ev in evidence):
        out["kernel"].append("upload `sysctl net.ipv4.tcp_rmem net.core.rmem_max net.ipv4.tcp_adv_win_scale`")
    return {step: tuple(dict.fromkeys(needs)) for step, needs in out.items()}


def render(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> str:
    """The checklist as the CLI prints it after the findings."""
    lines = ["", "checklist"]
    suggestions = checklist(evidence, findings)
    missing = settle(evidence, findings)
    for step in STEPS:
        s = suggestions[step]
        if s is None:
            lines.append(f"  {step}: no suggestion")
            needs = missing[step]
        else:
            lines.append(f"  {step}: {s.verdict} — {s.reason}")
            needs = s.needs
        lines.extend(f"    would settle it: {need}" for need in needs)
    return "\n".join(lines)
