"""Two captures of the same traffic (client side and server side, maybe across a NAT).

Connections are matched by raw TCP sequence numbers, never by addresses or ports, so a NAT
between the capture points does not matter: first by the pair of initial sequence numbers
(client's and server's SYN), then, for connections whose handshake one capture missed, by
the client's ISN or overlapping sequence ranges both ways. Matched connections are then
compared segment by segment (raw sequence number and length, retransmissions counted) over
the sequence range both captures cover, by re-scanning both files for those connections
only: a segment sent on one side and never seen on the other was lost between the capture
points. Findings: ``path.loss_between_captures`` or ``path.no_loss_between_captures``.

A capture is read from its path, or from a ``Source`` (``engine.Source``: an object in a store, read as a stream)
when the caller gives one for it: the console's workers match captures straight from an S3 store.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whodunnet.capture.connections import Connection, Direction, client_sides
from whodunnet.capture.constants import HALF, M32, SEG_RESET, TH_ACK, TH_FIN, TH_RST, TH_SYN, WRAP
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref

if TYPE_CHECKING:
    from whodunnet.engine import Source

#: Distinct segments kept per capture while comparing; past it the comparison is partial.
MAX_SEGMENT_KEYS = 2_000_000
MAX_EXAMPLES = 20
MAX_REFS = 20
#: Copies both captures hold, on each side of a moment, whose departures from the clock shift give the spread there
#: (``_while_both_ran``).
NEIGHBOURS = 8


#: What a segment is, as the findings name it (``segment_type``).
SEGMENT_TYPES = ("data", "SYN", "SYN-ACK", "FIN", "pure ACK")


@dataclass(frozen=True)
class MissingSegment:
    """Sequence space (or a pure ACK) one capture saw more often than the other."""

    sender: str
    seq: int
    length: int
    packet: int
    missing: int
    type: str = "data"


@dataclass(frozen=True)
class MatchedConnection:
    """One connection seen in both captures, with what each saw that the other never did."""

    a: int
    b: int
    a_client: str
    a_server: str
    b_client: str
    b_server: str
    matched_by: str
    #: Segments compared (over the range both captures cover, as each capture holds them), and
    #: the pieces of sequence space (or pure ACKs) seen in one capture only.
    segments_compared: int
    only_in_a: int
    only_in_b: int
    examples: tuple[MissingSegment, ...]
    #: Per type (SEGMENT_TYPES) and sender: what one capture saw and the other never did.
    missing_a: tuple[tuple[str, str, int], ...] = ()
    missing_b: tuple[tuple[str, str, int], ...] = ()
    #: Bytes of sequence space both captures cover, both directions; segments each capture holds there.
    bytes_compared: int = 0
    segments_a: int = 0
    segments_b: int = 0
    #: Largest segment each capture holds (TSO/GSO/GRO super-segments are larger than the MTU).
    largest_a: int = 0
    largest_b: int = 0


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
    # ``b`` is walked three times: a capture's table builds its rows each time it is walked (0.8 s for 20,000).
    b = list(b)
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


#: One traced segment: (raw seq, sequence space it covers, TCP flags, raw ack, frame, payload bytes,
#: IPv4 identification or -1, time).
Segment = tuple[int, int, int, int, int, int, int, float]
#: A capture's first and last packet time (its own clock), None when it holds none.
Span = tuple[float, float] | None


def _scan_segments(
    file: str | Source, wanted: dict[int, Connection], limits: Limits
) -> tuple[dict[tuple[int, str], list[Segment]], bool, Span]:
    """Per (connection id, sender role): every segment of the connection but RSTs, in capture order; whether the
    reading stopped early; and the capture's span (first and last packet of any kind)."""
    from whodunnet.capture.scanner import trace

    by_side: dict[tuple[int, int], list[Segment]] = {}
    kept = [0]
    partial = [False]
    names = ("conn", "side", "frame", "seq", "seglen", "kind", "tcp_flags", "ack", "payload", "ip_id", "ts")

    def on_rows(rows: Any) -> None:
        columns = zip(*(rows[n].tolist() for n in names), strict=True)
        for i, d, frame, seq, length, kind, flags, ack, payload, ip_id, ts in columns:
            if kind == SEG_RESET or flags & TH_RST:
                continue
            if kept[0] >= MAX_SEGMENT_KEYS:
                partial[0] = True
                continue
            kept[0] += 1
            by_side.setdefault((i, d), []).append((seq, length, flags, ack, frame, payload, ip_id, ts))

    if isinstance(file, str):
        state, error = trace(file, set(wanted), on_rows, limits=limits)
    else:
        with file.open() as stream:
            state, error = trace(stream, set(wanted), on_rows, limits=limits)
    n = state.n
    client = client_sides(state.conns[:n], state.sides[: 2 * n])[0].tolist()

    def role(i: int, d: int) -> str:
        return "client" if d == client[i] else "server"

    g = state.g
    span = (float(g.tmin), float(g.tmax)) if g.tmin <= g.tmax else None
    return {(i, role(i, d)): segs for (i, d), segs in by_side.items()}, partial[0] or error is not None, span


def _while_both_ran(
    mine: Sequence[Segment], theirs: Sequence[Segment], my_span: Span, their_span: Span
) -> tuple[list[Segment], list[Segment]]:
    """The segments of one direction that are compared: every copy both captures hold, and a copy one capture lacks
    only when that capture was surely running as it passed.

    The two captures keep different clocks and the segments take time between them; the copies both hold (one
    segment, the same seq, length, flags, ack and IPv4 identification, in each) give the shift from one clock to
    the other (the median) and, around any moment, its spread: the largest departure from it among the
    ``NEIGHBOURS`` copies both hold before that moment and as many after it. A copy only one capture holds is kept
    when, shifted, it falls inside the other capture's span with the spread around it to spare: else the other
    capture may not have been running when it passed (sent before it started, or after it stopped, or on its way
    at either end), and its absence there is not a loss. A retransmission or a resent FIN after one capture
    stopped, and the last pure ACKs, were otherwise counted lost. The spread is the one around the copy, not the
    largest of the whole transfer: one segment held up in a queue, anywhere, left every lone copy within that delay
    of either end out (decision 0013; ``test_capture_pairs_edges``). Without a copy in common, nothing is left out.
    """

    def key(s: Segment) -> tuple[int, ...]:
        return (s[0], s[1], s[2], s[3], s[6])

    if my_span is None or their_span is None:
        return list(mine), list(theirs)
    # Each segment's key made once (millions of segments in a large pair: most of this function's time).
    keys_mine, keys_theirs = list(map(key, mine)), list(map(key, theirs))
    count_mine, count_theirs = Counter(keys_mine), Counter(keys_theirs)
    first = {k: s[7] for k, s in zip(keys_mine, mine, strict=True) if count_mine[k] == 1}
    both = [(first[k], s[7]) for k, s in zip(keys_theirs, theirs, strict=True) if k in first and count_theirs[k] == 1]
    if not both:
        return list(mine), list(theirs)
    shifts = sorted(t - m for m, t in both)
    shift = shifts[len(shifts) // 2]
    near_mine = _Spread([(m, abs(t - m - shift)) for m, t in both])
    near_theirs = _Spread([(t, abs(t - m - shift)) for m, t in both])

    def compared(
        segs: Sequence[Segment],
        keys: list[tuple[int, ...]],
        other: Counter[tuple[int, ...]],
        spread: _Spread,
        lo: float,
        hi: float,
    ) -> list[Segment]:
        """Copies the other capture holds as many of (the first ones), and the rest when
        ``lo + spread <= time <= hi - spread`` (the spread around that time)."""
        seen: Counter[tuple[int, ...]] = Counter()
        out = []
        for k, s in zip(keys, segs, strict=True):
            seen[k] += 1
            if seen[k] > other[k]:
                margin = spread.at(s[7])
                if not lo + margin <= s[7] <= hi - margin:
                    continue
            out.append(s)
        return out

    (my_first, my_last), (their_first, their_last) = my_span, their_span
    kept_mine = compared(mine, keys_mine, count_theirs, near_mine, their_first - shift, their_last - shift)
    kept_theirs = compared(theirs, keys_theirs, count_mine, near_theirs, my_first + shift, my_last + shift)
    return kept_mine, kept_theirs


class _Spread:
    """The spread of the clock shift around a moment: the largest departure from the shift among the ``NEIGHBOURS``
    copies both captures hold just before it and as many just after (times in one capture's clock)."""

    def __init__(self, departures: list[tuple[float, float]]) -> None:
        """``departures``: (time a copy both hold was seen, its departure from the shift)."""
        ordered = sorted(departures)
        self._times = [t for t, _ in ordered]
        self._departures = [d for _, d in ordered]

    def at(self, t: float) -> float:
        i = bisect_right(self._times, t)
        return max(self._departures[max(0, i - NEIGHBOURS) : i + NEIGHBOURS]) + 1e-6


def segment_type(flags: int, payload: int) -> str:
    """SYN, SYN-ACK, FIN, data or pure ACK (a FIN that carries data is counted as a FIN)."""
    if flags & TH_SYN:
        return "SYN-ACK" if flags & TH_ACK else "SYN"
    if flags & TH_FIN:
        return "FIN"
    return "data" if payload > 0 else "pure ACK"


def _window(x: Direction, y: Direction) -> tuple[int, int, int]:
    """(x's base, start, end) of the sequence range both saw, relative to x's base."""
    off = _signed(y.base_seq - x.base_seq)
    return x.base_seq, max(0, off), min(x.seq_span, off + y.seq_span)


def _intervals(segs: Sequence[Segment], base: int, lo: int, hi: int) -> list[tuple[int, int, Segment]]:
    """The sequence-space segments as [start, end) relative to ``base``, clipped to [lo, hi)."""
    out = []
    for seg in segs:
        seq, length = seg[0], seg[1]
        if length <= 0:
            continue
        start = (seq - base) & M32
        if start >= HALF:  # before the base (the other capture's earlier data): outside the window
            continue
        a, b = max(lo, start), min(hi, start + length)
        if a < b:
            out.append((a, b, seg))
    return out


def _excess(mine: list[tuple[int, int, Segment]], theirs: list[tuple[int, int, Segment]]) -> list[tuple[int, int, int]]:
    """Maximal [start, end) where this capture's copies outnumber the other's, with by how many.

    Copies are counted per byte, so one 64 KiB TSO super-segment on one side and 45 MTU-sized
    segments on the other cover the same bytes once each: nothing is missing.
    """
    events: dict[int, int] = {}
    for a, b, _ in mine:
        events[a] = events.get(a, 0) + 1
        events[b] = events.get(b, 0) - 1
    for a, b, _ in theirs:
        events[a] = events.get(a, 0) - 1
        events[b] = events.get(b, 0) + 1
    out: list[tuple[int, int, int]] = []
    level = 0
    points = sorted(events)
    starts = {a for a, _, _ in mine}  # two lost segments side by side are two, not one
    for here, nxt in pairwise(points):
        level += events[here]
        if level > 0:
            if out and out[-1][1] == here and out[-1][2] == level and here not in starts:
                out[-1] = (out[-1][0], nxt, level)
            else:
                out.append((here, nxt, level))
    return out


def _missing_space(
    sender: str, mine: list[tuple[int, int, Segment]], theirs: list[tuple[int, int, Segment]]
) -> list[MissingSegment]:
    """Each stretch of sequence space this side saw more often than the other, named by its segment's type."""
    out: list[MissingSegment] = []
    if not mine:
        return out
    starts = sorted(mine, key=lambda t: t[0])
    for a, b, extra in _excess(mine, theirs):
        covering = [seg for s0, s1, seg in starts if s0 < b and s1 > a]
        seg = covering[-1] if covering else (0, 0, 0, 0, 0, 0, -1, 0.0)
        kind = segment_type(seg[2], seg[5])
        if kind in ("SYN", "SYN-ACK") and a > min(s0 for s0, _, _ in starts):
            kind = "data"
        if kind == "FIN" and b < max(s1 for _, s1, _ in starts):
            kind = "data"  # the data of a FIN segment, not the FIN's own sequence number
        out.append(MissingSegment(sender, a, b - a, seg[4], extra, kind))
    return out


def _missing_acks(
    sender: str, mine: Sequence[Segment], theirs: Sequence[Segment], ack_base: int, ack_lo: int, ack_hi: int
) -> tuple[list[MissingSegment], list[MissingSegment]]:
    """Pure ACKs one side saw more often than the other, among those acking the range both cover: (those only
    ``mine`` holds, those only ``theirs`` holds).

    Copies of one ACK are told apart by their IPv4 identification, which the sender numbers per
    packet and address translation keeps: a repeated ACK (the same seq and ack, sent again for a
    resent FIN) that only one capture holds must not cancel an earlier copy the other lost. Where
    the identifications do not correspond (IPv6, a sender that leaves them 0, a middlebox that
    rewrites them), the ACKs are matched by (seq, ack) alone, as copies.
    """

    def acks(segs: Sequence[Segment]) -> Counter[tuple[int, int, int]]:
        c: Counter[tuple[int, int, int]] = Counter()
        for seq, length, flags, ack, _, payload, ip_id, _ in segs:
            if length == 0 and payload == 0 and flags & TH_ACK and not flags & (TH_SYN | TH_FIN):
                rel = (ack - ack_base) & M32
                if ack_lo < rel <= ack_hi:
                    c[(seq, ack, ip_id)] += 1
        return c

    def without_id(c: Counter[tuple[int, int, int]]) -> Counter[tuple[int, int, int]]:
        out: Counter[tuple[int, int, int]] = Counter()
        for (seq, ack, _), k in c.items():
            out[(seq, ack, -1)] += k
        return out

    def only_in(
        segs: Sequence[Segment], ours: Counter[tuple[int, int, int]], other: Counter[tuple[int, int, int]]
    ) -> list[MissingSegment]:
        extras = [(key, k - other.get(key, 0)) for key, k in ours.items() if k > other.get(key, 0)]
        if not extras:
            return []
        frames: dict[tuple[int, int, int], int] = {}  # only when something is missing: a walk over every segment
        for seg in segs:
            frames[(seg[0], seg[3], seg[6])] = frames[(seg[0], seg[3], -1)] = seg[4]
        return [
            MissingSegment(sender, (key[1] - ack_base) & M32, 0, frames.get(key, 0), extra, "pure ACK")
            for key, extra in extras
        ]

    ours, other = acks(mine), acks(theirs)
    loose_ours, loose_other = without_id(ours), without_id(other)
    if sum((ours & other).values()) < 0.9 * sum((loose_ours & loose_other).values()):
        ours, other = loose_ours, loose_other
    return only_in(mine, ours, other), only_in(theirs, other, ours)


def compare_pair(
    ia: int,
    ea: EvidenceResult,
    ib: int,
    eb: EvidenceResult,
    *,
    limits: Limits = DEFAULT_LIMITS,
    files: tuple[str | Source, str | Source] | None = None,
) -> CapturePair:
    """Match two captures' connections and compare the sequence space (and pure ACKs) each saw.

    The captures are read from ``files`` (a path or a ``Source`` each) when given, else from the results' paths."""
    fa, fb = files if files is not None else (ea.path, eb.path)
    pairs = match_connections(ea.connections, eb.connections)
    ca, pa, span_a = _scan_segments(fa, {x.id: x for x, _, _ in pairs}, limits)
    cb, pb, span_b = _scan_segments(fb, {y.id: y for _, y, _ in pairs}, limits)
    matched = []
    nat: dict[tuple[str, str, str, str], None] = {}
    for x, y, how in pairs:
        compared = covered = 0
        largest = [0, 0]
        count = [0, 0]
        gone_a: list[MissingSegment] = []
        gone_b: list[MissingSegment] = []
        for role in ("client", "server"):
            dx, dy = (x.c2s, y.c2s) if role == "client" else (x.s2c, y.s2c)
            px, py = (x.s2c, y.s2c) if role == "client" else (x.c2s, y.c2s)
            base, lo, hi = _window(dx, dy)
            ack_base, ack_lo, ack_hi = _window(px, py)
            all_a, all_b = ca.get((x.id, role), []), cb.get((y.id, role), [])
            sa, sb = _while_both_ran(all_a, all_b, span_a, span_b)
            ia_, ib_ = _intervals(sa, base, lo, hi), _intervals(sb, base, lo, hi)
            compared += max(len(ia_), len(ib_))
            count[0] += len(ia_)
            count[1] += len(ib_)
            covered += max(0, hi - lo)
            largest[0] = max([largest[0], *(seg[5] for seg in all_a)])
            largest[1] = max([largest[1], *(seg[5] for seg in all_b)])
            acks_a, acks_b = _missing_acks(role, sa, sb, ack_base, ack_lo, ack_hi)
            gone_a += _missing_space(role, ia_, ib_) + acks_a
            gone_b += _missing_space(role, ib_, ia_) + acks_b
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
                only_in_a=sum(m.missing for m in gone_a),
                only_in_b=sum(m.missing for m in gone_b),
                examples=tuple((gone_a + gone_b)[:MAX_EXAMPLES]),
                missing_a=_by_type(gone_a),
                missing_b=_by_type(gone_b),
                bytes_compared=covered,
                segments_a=count[0],
                segments_b=count[1],
                largest_a=largest[0],
                largest_b=largest[1],
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


def _by_type(gone: Sequence[MissingSegment]) -> tuple[tuple[str, str, int], ...]:
    counts: Counter[tuple[str, str]] = Counter()
    for m in gone:
        counts[(m.sender, m.type)] += m.missing
    return tuple((sender, kind, n) for (sender, kind), n in sorted(counts.items()))


def _missing_text(rows: Sequence[tuple[str, str, int]]) -> str:
    """``3 data segments and 1 pure ACK from the server`` (or ``nothing``)."""
    if not rows:
        return "nothing"
    parts = []
    for sender, kind, n in rows:
        noun = kind if kind in ("SYN", "SYN-ACK", "FIN") else f"{kind} segment" if kind == "data" else kind
        parts.append(f"{n:,} {noun}{'s' if n != 1 else ''} from the {sender}")
    return ", ".join(parts)


def pair_finding(pair: CapturePair, evidence: Sequence[EvidenceResult] | None = None) -> Finding | None:
    """``path.loss_between_captures`` / ``path.no_loss_between_captures`` for one pair."""
    conns = pair.connections
    if not conns:
        return None

    def name(i: int) -> str:
        return evidence[i].name if evidence is not None and i < len(evidence) else f"capture {i}"

    def host(i: int) -> str | None:
        return evidence[i].provenance.host if evidence is not None and i < len(evidence) else None

    na, nb = name(pair.a), name(pair.b)
    compared = sum(m.segments_compared for m in conns)
    seg_a, seg_b = sum(m.segments_a for m in conns), sum(m.segments_b for m in conns)
    covered = sum(m.bytes_compared for m in conns)
    largest_a, largest_b = max(m.largest_a for m in conns), max(m.largest_b for m in conns)
    only_a, only_b = sum(m.only_in_a for m in conns), sum(m.only_in_b for m in conns)
    lost = only_a + only_b
    missing_a = _by_type([MissingSegment(s_, 0, 0, 0, n, k) for m in conns for s_, k, n in m.missing_a])
    missing_b = _by_type([MissingSegment(s_, 0, 0, 0, n, k) for m in conns for s_, k, n in m.missing_b])
    nat_rows = [{"a_client": n[0], "b_client": n[1], "a_server": n[2], "b_server": n[3]} for n in pair.nat]
    nat_text = (
        f" Address translation between them: {pair.nat[0][0]} → {pair.nat[0][2]} in {na} is "
        f"{pair.nat[0][1]} → {pair.nat[0][3]} in {nb}"
        + (f" (and {len(pair.nat) - 1:,} more)." if len(pair.nat) > 1 else ".")
        if pair.nat
        else " Both captures show the same addresses and ports (no address translation between them)."
    )
    sizes = (
        f" {na} holds {seg_a:,} segments there (largest {largest_a:,} bytes) and {nb} {seg_b:,} "
        f"(largest {largest_b:,} bytes)"
        + (
            ": segmentation offload (TSO/GSO/GRO) makes segments larger than the MTU on one side, so the "
            "sequence ranges are compared, not the segments."
            if max(largest_a, largest_b) > 1500
            else "."
        )
    )
    hosts = [h for h in dict.fromkeys((host(pair.a), host(pair.b))) if h]
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
        "evidence": [pair.a, pair.b],
        "hosts": hosts,
        "matched_connections": len(conns),
        "unmatched": [pair.unmatched_a, pair.unmatched_b],
        "segments_compared": compared,
        "segments": [seg_a, seg_b],
        "largest_segment": [largest_a, largest_b],
        "bytes_compared": covered,
        "lost_segments": lost,
        "missing_in_b": [{"sender": s_, "type": k, "count": n} for s_, k, n in missing_a],
        "missing_in_a": [{"sender": s_, "type": k, "count": n} for s_, k, n in missing_b],
        "nat": nat_rows[:100],
        "partial": pair.partial,
        "rows": [
            {"a": m.a, "b": m.b, "only_in_a": m.only_in_a, "only_in_b": m.only_in_b, "compared": m.segments_compared}
            for m in (lossy or list(conns))[:100]
        ],
    }
    matched_text = (
        f"{len(conns):,} connection{'s appear' if len(conns) != 1 else ' appears'} in both {na} and {nb} "
        "(matched by TCP sequence numbers)."
    )
    if lost:
        rate = lost / compared if compared else 0.0
        return Finding(
            kind="path.loss_between_captures",
            layer="network",
            severity="high" if rate >= 0.01 else "medium",
            title=(
                f"{lost:,} segment{'s' if lost != 1 else ''} ({rate:.2%} of {compared:,}) seen at one capture point "
                f"never reached the other, on {len(lossy):,} of {len(conns):,} matched "
                f"connection{'s' if len(conns) != 1 else ''}"
            ),
            explanation=(
                f"{matched_text}{nat_text}{sizes} Over the {covered:,} bytes of sequence space both cover, "
                f"seen in {na} and never in {nb}: {_missing_text(missing_a)}; seen in {nb} and never in {na}: "
                f"{_missing_text(missing_b)}. They were lost between the two capture points (or dropped by a "
                "capture that could not keep up)."
            ),
            refs=tuple(refs),
            key=key,
            data={**data, "rate": rate, "only_in_a": only_a, "only_in_b": only_b},
        )
    return Finding(
        kind="path.no_loss_between_captures",
        layer="network",
        severity="info",
        title=(
            f"Every segment on {len(conns):,} matched connection{'s' if len(conns) != 1 else ''} reached the other "
            f"capture point ({covered:,} bytes of sequence space, {seg_a:,} and {seg_b:,} segments)"
        ),
        explanation=(
            f"{matched_text}{nat_text}{sizes} Every byte of the {covered:,} bytes of sequence space both captures "
            "cover, every SYN, SYN-ACK and FIN, and every pure ACK acknowledging it was seen at both capture points, "
            "retransmissions as often on both sides: nothing was lost between them, so the network path between "
            "the captures is cleared."
        ),
        refs=tuple(refs),
        key=key,
        data={**data, "only_in_a": 0, "only_in_b": 0, "clears_layer": True},
    )


def compare_captures(
    evidence: Sequence[EvidenceResult],
    *,
    limits: Limits = DEFAULT_LIMITS,
    sources: Mapping[int, Source] | None = None,
) -> tuple[list[CapturePair], list[Finding]]:
    """Every pair of captures with connections in common, and their findings.

    Only captures whose file can be read take part (the comparison re-reads them): the file at the result's path,
    or ``sources[i]`` (by index into ``evidence``) for one with no path of its own. One whose result came without
    its connection table (the console stores it apart) has it read again.
    """
    caps = []
    files: dict[int, str | Source] = {}
    for i, e in enumerate(evidence):
        if e.kind != "capture":
            continue
        given = (sources or {}).get(i)
        if given is None and not Path(e.path).is_file():
            continue
        file: str | Source = e.path if given is None else given
        files[i] = file
        if not e.connections:
            e = _with_connections(i, e, file, limits)
        if e.connections:
            caps.append((i, e))
    # The same pairs, each the same way round, whatever order the files came in: the client's end first.
    caps.sort(key=lambda c: (c[1].provenance.role != "client", c[1].provenance.role == "server", c[1].name, c[0]))
    pairs: list[CapturePair] = []
    findings: list[Finding] = []
    for n, (ia, ea) in enumerate(caps):
        for ib, eb in caps[n + 1 :]:
            pair = _compare_cached(ia, ea, ib, eb, (files[ia], files[ib]), limits)
            if not pair.connections:
                continue
            pairs.append(pair)
            f = pair_finding(pair, evidence)
            if f is not None:
                findings.append(f)
    return pairs, findings


#: Recent results by the files' identity (real path, size, modification time; a source's name and size) and the
#: limits: the console's worker matches the same two captures again each time another file of the incident arrives.
_CACHE: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
CACHE_SIZE = 16


def _identity(file: str | Source) -> tuple[str, int, int]:
    """A path by what is at it now; a source by its name and size (a stored object is never rewritten in place)."""
    if not isinstance(file, str):
        return f"source:{file.name}", file.size, 0
    st = os.stat(file)
    return os.path.realpath(file), st.st_size, st.st_mtime_ns


def _cached(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    value = make()
    _CACHE[key] = value
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return value


def _compare_cached(
    ia: int, ea: EvidenceResult, ib: int, eb: EvidenceResult, files: tuple[str | Source, str | Source], limits: Limits
) -> CapturePair:
    key = ("pair", _identity(files[0]), _identity(files[1]), limits)
    pair: CapturePair = _cached(key, lambda: compare_pair(ia, ea, ib, eb, limits=limits, files=files))
    return replace(pair, a=ia, b=ib)


def _with_connections(index: int, ev: EvidenceResult, file: str | Source, limits: Limits) -> EvidenceResult:
    from whodunnet.capture import analyze_capture

    def read() -> Sequence[Any]:
        if isinstance(file, str):
            again, _ = analyze_capture(index, Path(file), limits=limits)
        else:
            with file.open() as stream:
                again, _ = analyze_capture(index, stream, limits=limits)
        return again.connections

    connections: Sequence[Any] = _cached(("connections", _identity(file), limits), read)
    return replace(ev, connections=connections)
