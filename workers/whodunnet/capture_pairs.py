"""Two captures of the same traffic (client side and server side, maybe across a NAT).

Connections are matched by raw TCP sequence numbers, never by addresses or ports, so a NAT
between the capture points does not matter: first by the pair of initial sequence numbers
(client's and server's SYN), then, for connections whose handshake one capture missed, by
the client's ISN or overlapping sequence ranges both ways. Matched connections are then
compared segment by segment (raw sequence number and length, retransmissions counted) over
the sequence range both captures cover, by re-scanning both files for those connections
only: a segment sent on one side and never seen on the other was lost between the capture
points. Findings: ``path.loss_between_captures`` or ``path.no_loss_between_captures``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whodunnet.capture.connections import Connection, Direction, client_sides
from whodunnet.capture.constants import HALF, M32, SEG_RESET, WRAP
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref

#: Distinct segments kept per capture while comparing; past it the comparison is partial.
MAX_SEGMENT_KEYS = 2_000_000
MAX_EXAMPLES = 20
MAX_REFS = 20


@dataclass(frozen=True)
class MissingSegment:
    """A segment one capture saw (``times`` times) that the other saw fewer times."""

    sender: str
    seq: int
    length: int
    packet: int
    missing: int


@dataclass(frozen=True)
class MatchedConnection:
    """One connection seen in both captures, with what each saw of the other's segments."""

    a: int
    b: int
    a_client: str
    a_server: str
    b_client: str
    b_server: str
    matched_by: str
    #: Segments compared (over the range both captures cover), and those seen only in one.
    segments_compared: int
    only_in_a: int
    only_in_b: int
    examples: tuple[MissingSegment, ...]


@dataclass(frozen=True)
class CapturePair:
    """Capture ``a`` and capture ``b`` (evidence indexes) matched connection by connection."""

    a: int
    b: int
    connections: tuple[MatchedConnection, ...]
    #: Address translations seen: (client as seen in a, client as seen in b, server in a, in b).
    nat: tuple[tuple[str, str, str, str], ...]
    unmatched_a: int
    unmatched_b: int
    partial: bool


def _signed(x: int) -> int:
    x &= M32
    return x - WRAP if x >= HALF else x


def match_connections(a: Sequence[Connection], b: Sequence[Connection]) -> list[tuple[Connection, Connection, str]]:
    """Pairs of the same connection in two tables, by sequence numbers only."""
    out: list[tuple[Connection, Connection, str]] = []
    used: set[int] = set()
    by_isns = {(c.c2s.isn, c.s2c.isn): c for c in b if c.c2s.isn is not None and c.s2c.isn is not None}
    by_client_isn = {c.c2s.isn: c for c in b if c.c2s.isn is not None}
    rest = []
    for c in a:
        m = by_isns.get((c.c2s.isn, c.s2c.isn)) if c.c2s.isn is not None and c.s2c.isn is not None else None
        how = "initial sequence numbers"
        if m is None and c.c2s.isn is not None:
            m = by_client_isn.get(c.c2s.isn)
            how = "client's initial sequence number"
        if m is not None and m.id not in used:
            used.add(m.id)
            out.append((c, m, how))
        else:
            rest.append(c)
    # Handshake missing in one capture: both directions' sequence ranges must overlap.
    spare = [c for c in b if c.id not in used]
    if rest and spare and len(rest) * len(spare) <= 4_000_000:
        for c in rest:
            for m in spare:
                if m.id not in used and _overlaps(c.c2s, m.c2s) and _overlaps(c.s2c, m.s2c):
                    used.add(m.id)
                    out.append((c, m, "sequence ranges"))
                    break
    return out


def _overlaps(x: Direction, y: Direction) -> bool:
    if not x.seq_span or not y.seq_span:
        return False
    off = _signed(y.base_seq - x.base_seq)
    return off < x.seq_span and off + y.seq_span > 0 and abs(off) < HALF // 2


def _scan_segments(
    path: str, wanted: dict[int, Connection], limits: Limits
) -> tuple[dict[tuple[int, str], Counter[tuple[int, int]]], dict[tuple[int, str, int, int], int], bool]:
    """Per (connection id, sender role): Counter of (raw seq, length) of the segments seen."""
    from whodunnet.capture.scanner import trace

    by_side: dict[tuple[int, int], Counter[tuple[int, int]]] = {}
    first_packet: dict[tuple[int, int, int, int], int] = {}
    keys = [0]
    partial = [False]
    names = ("conn", "side", "frame", "seq", "seglen", "kind")

    def on_rows(rows: Any) -> None:
        for i, d, frame, seq, length, kind in zip(*(rows[n].tolist() for n in names), strict=True):
            if not length or kind == SEG_RESET:
                continue
            c = by_side.get((i, d))
            if c is None:
                c = by_side[(i, d)] = Counter()
            k = (seq, length)
            if k not in c:
                if keys[0] >= MAX_SEGMENT_KEYS:
                    partial[0] = True
                    continue
                keys[0] += 1
                first_packet[(i, d, seq, length)] = frame
            c[k] += 1

    state, error = trace(path, set(wanted), on_rows, limits=limits)
    n = state.n
    client = client_sides(state.conns[:n], state.sides[: 2 * n])[0].tolist()

    def role(i: int, d: int) -> str:
        return "client" if d == client[i] else "server"

    counts = {(i, role(i, d)): c for (i, d), c in by_side.items()}
    packets = {(i, role(i, d), seq, length): f for (i, d, seq, length), f in first_packet.items()}
    return counts, packets, partial[0] or error is not None


def _window(x: Direction, y: Direction) -> tuple[int, int, int]:
    """(x's base, start, end) of the sequence range both saw, relative to x's base."""
    off = _signed(y.base_seq - x.base_seq)
    return x.base_seq, max(0, off), min(x.seq_span, off + y.seq_span)


def compare_pair(
    ia: int, ea: EvidenceResult, ib: int, eb: EvidenceResult, *, limits: Limits = DEFAULT_LIMITS
) -> CapturePair:
    """Match two captures' connections and compare their segments."""
    pairs = match_connections(ea.connections, eb.connections)
    ca, fa, pa = _scan_segments(ea.path, {x.id: x for x, _, _ in pairs}, limits)
    cb, _, pb = _scan_segments(eb.path, {y.id: y for _, y, _ in pairs}, limits)
    matched = []
    nat: dict[tuple[str, str, str, str], None] = {}
    for x, y, how in pairs:
        compared = only_a = only_b = 0
        examples: list[MissingSegment] = []
        for role in ("client", "server"):
            dx, dy = (x.c2s, y.c2s) if role == "client" else (x.s2c, y.s2c)
            base, lo, hi = _window(dx, dy)
            sa = ca.get((x.id, role), Counter())
            sb = cb.get((y.id, role), Counter())
            for (seq, n), k in sa.items():
                rel = (seq - base) & M32
                if lo <= rel and rel + n <= hi:
                    compared += k
                    miss = k - sb.get((seq, n), 0)
                    if miss > 0:
                        only_a += miss
                        if len(examples) < MAX_EXAMPLES:
                            examples.append(MissingSegment(role, rel, n, fa.get((x.id, role, seq, n), 0), miss))
            for (seq, n), k in sb.items():
                rel = (seq - base) & M32
                if lo <= rel and rel + n <= hi:
                    miss = k - sa.get((seq, n), 0)
                    if miss > 0:
                        only_b += miss
        if (x.client, x.server) != (y.client, y.server):
            nat[(x.client, y.client, x.server, y.server)] = None
        matched.append(
            MatchedConnection(
                a=x.id,
                b=y.id,
                a_client=x.client,
                a_server=x.server,
                b_client=y.client,
                b_server=y.server,
                matched_by=how,
                segments_compared=compared,
                only_in_a=only_a,
                only_in_b=only_b,
                examples=tuple(examples),
            )
        )
    return CapturePair(
        a=ia,
        b=ib,
        connections=tuple(matched),
        nat=tuple(nat),
        unmatched_a=len(ea.connections) - len(pairs),
        unmatched_b=len(eb.connections) - len(pairs),
        partial=pa or pb,
    )


def pair_finding(pair: CapturePair) -> Finding | None:
    """``path.loss_between_captures`` / ``path.no_loss_between_captures`` for one pair."""
    conns = pair.connections
    if not conns:
        return None
    compared = sum(m.segments_compared for m in conns)
    lost = sum(m.only_in_a + m.only_in_b for m in conns)
    nat_rows = [{"a_client": n[0], "b_client": n[1], "a_server": n[2], "b_server": n[3]} for n in pair.nat]
    nat_text = (
        f" Through address translation: {pair.nat[0][0]} → {pair.nat[0][2]} in capture {pair.a} is "
        f"{pair.nat[0][1]} → {pair.nat[0][3]} in capture {pair.b}"
        + (f" (and {len(pair.nat) - 1:,} more)." if len(pair.nat) > 1 else ".")
        if pair.nat
        else ""
    )
    key = f"evidence-{pair.a}-{pair.b}"
    lossy = [m for m in conns if m.only_in_a or m.only_in_b]
    refs: list[Ref] = []
    for m in (lossy or list(conns))[:MAX_REFS]:
        first = next((e.packet for e in m.examples if e.packet), None)
        refs.append(
            Ref(
                evidence=pair.a,
                label=f"connection {m.a} ({m.a_client} → {m.a_server})",
                connection=str(m.a),
                packets=(first, first) if first else None,
            )
        )
        refs.append(Ref(evidence=pair.b, label=f"connection {m.b} ({m.b_client} → {m.b_server})", connection=str(m.b)))
    data: dict[str, Any] = {
        "captures": [pair.a, pair.b],
        "matched_connections": len(conns),
        "unmatched": [pair.unmatched_a, pair.unmatched_b],
        "segments_compared": compared,
        "lost_segments": lost,
        "nat": nat_rows[:100],
        "partial": pair.partial,
        "rows": [
            {"a": m.a, "b": m.b, "only_in_a": m.only_in_a, "only_in_b": m.only_in_b, "compared": m.segments_compared}
            for m in (lossy or list(conns))[:100]
        ],
    }
    if lost:
        a_side = sum(m.only_in_a for m in conns)
        rate = lost / compared if compared else 0.0
        return Finding(
            kind="path.loss_between_captures",
            layer="network",
            severity="high" if rate >= 0.01 else "medium",
            title=(
                f"{lost:,} of {compared:,} segments ({rate:.2%}) sent on one side never seen on the other, "
                f"on {len(lossy):,} of {len(conns):,} matched connections"
            ),
            explanation=(
                f"{len(conns):,} connections appear in both captures (matched by TCP sequence numbers).{nat_text} "
                f"Comparing every segment in the sequence range both captures cover, {a_side:,} seen in capture "
                f"{pair.a} never showed up in capture {pair.b} and {lost - a_side:,} the other way: they were lost "
                "between the two capture points (or dropped by a capture that could not keep up)."
            ),
            refs=tuple(refs),
            key=key,
            data={**data, "rate": rate, "only_in_a": a_side, "only_in_b": lost - a_side},
        )
    return Finding(
        kind="path.no_loss_between_captures",
        layer="network",
        severity="info",
        title=f"Every one of {compared:,} segments on {len(conns):,} matched connections arrived at the other side",
        explanation=(
            f"{len(conns):,} connections appear in both captures (matched by TCP sequence numbers).{nat_text} "
            f"All {compared:,} segments in the sequence range both captures cover were seen at both capture points, "
            "retransmissions included: nothing was lost between them, so the network path between the captures "
            "is cleared."
        ),
        refs=tuple(refs),
        key=key,
        data={**data, "clears_layer": True},
    )


def compare_captures(
    evidence: Sequence[EvidenceResult], *, limits: Limits = DEFAULT_LIMITS
) -> tuple[list[CapturePair], list[Finding]]:
    """Every pair of captures with connections in common, and their findings."""
    caps = [(i, e) for i, e in enumerate(evidence) if e.kind == "capture" and e.connections]
    pairs: list[CapturePair] = []
    findings: list[Finding] = []
    for n, (ia, ea) in enumerate(caps):
        for ib, eb in caps[n + 1 :]:
            if not Path(ea.path).exists() or not Path(eb.path).exists():
                continue
            pair = compare_pair(ia, ea, ib, eb, limits=limits)
            if not pair.connections:
                continue
            pairs.append(pair)
            f = pair_finding(pair)
            if f is not None:
                findings.append(f)
    return pairs, findings
