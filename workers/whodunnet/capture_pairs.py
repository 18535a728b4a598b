"""Two captures of the same traffic (client side and server side, maybe across a NAT).

Connections are matched by raw TCP sequence numbers, never by addresses or ports, so a NAT
between the capture points does not matter: first by the pair of initial sequence numbers
(client's and server's SYN), then, for connections whose handshake one capture missed, by
the client's ISN or overlapping sequence ranges both ways. Matched connections are then
compared segment by segment (raw sequence number and length, retransmissions counted) over
the sequence range both captures cover, by re-scanning both files for those connections
only: a segment sent on one side and never seen on the other was lost between the capture
points. Findings: ``path.loss_between_captures`` or ``path.no_loss_between_captures``.

The comparison works on columns (``Segments``: every matched connection's segments, a group per direction), all
connections at once, not segment by segment in Python; a pair of captures with more segments than one reading holds
(``PASS_SEGMENTS``) is read again for the next connections, so every connection is compared whole (decision 0025).

A capture is read from its path, or from a ``Source`` (``engine.Source``: an object in a store, read as a stream)
when the caller gives one for it: the console's workers match captures straight from an S3 store.
"""

from __future__ import annotations

import os
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from whodunnet.capture.connections import Connection, ConnectionTable, client_sides
from whodunnet.capture.constants import HALF, M32, SEG_RESET, TH_ACK, TH_FIN, TH_RST, TH_SYN, WRAP
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref

if TYPE_CHECKING:
    from whodunnet.engine import Source

#: Packets of matched connections one reading of the two captures compares (each capture's segments of them are
#: held as columns, ``Segments``): a larger pair of captures is read again for the next ones (``_passes``). At 2 M a
#: mixed pair captured at both ends took 6.8 s and 1.28 GB; at 4 M 7.6 s and 1.88 GB (decision 0025).
PASS_SEGMENTS = 2_000_000
#: Segments kept per capture in one reading; a connection with more is compared over its first ones only (partial).
MAX_SEGMENT_KEYS = 8_000_000
MAX_EXAMPLES = 20
MAX_REFS = 20
#: Copies both captures hold, on each side of a moment, whose departures from the clock shift give the spread there
#: (``_while_both_ran``).
NEIGHBOURS = 8


#: The sender of a group's segments (``Segments``), by the group's number's parity.
ROLES = ("client", "server")
#: What a segment is, as the findings name it: a SYN, SYN-ACK or FIN by its flags (a FIN that carries data is a FIN),
#: else data when it carries payload, else a pure ACK (``_missing_space``).
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


@dataclass(frozen=True)
class Ends:
    """What matching reads of each connection of one capture's table, in the table's order: its id, its packets
    (both directions), and per direction (the client's, then the server's) the ISN (-1: none), the raw sequence
    number its sequence space is counted from, and the span of that space; the client's and server's
    ``address:port`` when the table gave them as columns (``names``)."""

    table: Sequence[Connection]
    ids: list[int]
    packets: list[int]
    isn: tuple[list[int], list[int]]
    base: tuple[list[int], list[int]]
    span: tuple[list[int], list[int]]
    names: list[tuple[str, str]] | None = None

    @classmethod
    def of(cls, table: Sequence[Connection]) -> Ends:
        """Read as columns from a capture's own table (no row is built), or from a table of stored rows that gives
        them itself (``match_columns()``: the console's, from its database's columns); else row by row."""
        if isinstance(table, ConnectionTable):

            def both(name: str, low: int | None) -> tuple[list[int], list[int]]:
                c, s = table.side("client", name), table.side("server", name)
                if low is not None:
                    c, s = np.maximum(c, low), np.maximum(s, low)
                return c.tolist(), s.tolist()

            # As the rows show them: ``isn`` None (here -1) where negative, ``base_seq`` at least 0, ``seq_span``.
            packets = (table.side("client", "pkts") + table.side("server", "pkts")).tolist()
            return cls(
                table, list(range(len(table))), packets, both("isn", -1), both("seq_base", 0), both("max_end", None)
            )
        if callable(given := getattr(table, "match_columns", None)):
            c: dict[str, list[Any]] = given()
            return cls(
                table,
                c["ids"],
                c["packets"],
                (c["client_isn"], c["server_isn"]),
                (c["client_base"], c["server_base"]),
                (c["client_span"], c["server_span"]),
                list(zip(c["client"], c["server"], strict=True)),
            )
        rows = list(table)
        sides = ([c.c2s for c in rows], [c.s2c for c in rows])
        return cls(
            rows,
            [c.id for c in rows],
            [c.c2s.packets + c.s2c.packets for c in rows],
            ([-1 if d.isn is None else d.isn for d in sides[0]], [-1 if d.isn is None else d.isn for d in sides[1]]),
            ([d.base_seq for d in sides[0]], [d.base_seq for d in sides[1]]),
            ([d.seq_span for d in sides[0]], [d.seq_span for d in sides[1]]),
        )

    def window(self, i: int, other: Ends, j: int, role: int) -> tuple[int, int, int]:
        """(base, start, end) of the sequence range connection ``i`` and the other capture's ``j`` both cover, sent
        by ``role`` (0: the client), relative to this capture's base."""
        off = _signed(other.base[role][j] - self.base[role][i])
        return self.base[role][i], max(0, off), min(self.span[role][i], off + other.span[role][j])

    def overlaps(self, i: int, other: Ends, j: int) -> bool:
        """Whether both directions' sequence ranges of ``i`` and the other capture's ``j`` overlap."""
        for role in (0, 1):
            mine, theirs = self.span[role][i], other.span[role][j]
            if not mine or not theirs:
                return False
            off = _signed(other.base[role][j] - self.base[role][i])
            if not (off < mine and off + theirs > 0 and abs(off) < HALF // 2):
                return False
        return True

    def endpoints(self, at: list[int]) -> list[tuple[str, str]]:
        """(client, server) as ``address:port`` of the connections at places ``at``."""
        if self.names is not None:
            return [self.names[i] for i in at]
        if isinstance(self.table, ConnectionTable):
            return self.table.endpoints(at)
        return [(self.table[i].client, self.table[i].server) for i in at]


def match_connections(a: Ends, b: Ends) -> list[tuple[int, int, str]]:
    """Pairs of the same connection in two tables (places in each), by sequence numbers only."""
    out: list[tuple[int, int, str]] = []
    used: set[int] = set()
    (a_client, a_server), (b_client, b_server) = a.isn, b.isn
    by_isns = {(c, s): j for j, (c, s) in enumerate(zip(b_client, b_server, strict=True)) if c >= 0 and s >= 0}
    by_client_isn = {c: j for j, c in enumerate(b_client) if c >= 0}
    rest = []
    for i, (c, s) in enumerate(zip(a_client, a_server, strict=True)):
        m = by_isns.get((c, s)) if c >= 0 and s >= 0 else None
        how = "initial sequence numbers"
        if m is None and c >= 0:
            m = by_client_isn.get(c)
            how = "client's initial sequence number"
        if m is not None and m not in used:
            used.add(m)
            out.append((i, m, how))
        else:
            rest.append(i)
    # Handshake missing in one capture: both directions' sequence ranges must overlap.
    spare = [j for j in range(len(b.ids)) if j not in used]
    if rest and spare and len(rest) * len(spare) <= 4_000_000:
        for i in rest:
            for j in spare:
                if j not in used and a.overlaps(i, b, j):
                    used.add(j)
                    out.append((i, j, "sequence ranges"))
                    break
    return out


#: The columns kept of each traced segment (``Segments``), and their types.
SEGMENT_FIELDS = (
    ("seq", np.int64),
    ("seglen", np.int32),
    ("tcp_flags", np.int32),
    ("ack", np.int64),
    ("frame", np.int64),
    ("payload", np.int32),
    ("ip_id", np.int32),
    ("ts", np.float64),
)
#: A capture's first and last packet time (its own clock), None when it holds none.
Span = tuple[float, float] | None


@dataclass
class Segments:
    """Traced segments as columns (every segment but RSTs), in capture order within each group.

    A group is one direction of one matched connection: ``g`` is 2 × the pair's index, + 1 for the server's side.
    The other columns are the segment's raw sequence number, the sequence space it covers, its TCP flags, raw ack,
    packet number, payload bytes, IPv4 identification (-1 for IPv6) and time. Rows are sorted by ``g``.
    """

    g: Any
    seq: Any
    seglen: Any
    tcp_flags: Any
    ack: Any
    frame: Any
    payload: Any
    ip_id: Any
    ts: Any

    def __len__(self) -> int:
        return len(self.g)

    def take(self, rows: Any) -> Segments:
        """The rows ``rows`` (indexes or a mask) picks, in that order."""
        return Segments(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})


def _scan_segments(file: str | Source, pair_of: dict[int, int], limits: Limits) -> tuple[Segments, bool, Span]:
    """The segments of the connections ``pair_of`` names (connection id → the pair's index), grouped by direction;
    whether the reading stopped early; and the capture's span (first and last packet of any kind)."""
    from whodunnet.capture.scanner import trace

    parts: dict[str, list[Any]] = {name: [] for name in ("conn", "side", *(n for n, _ in SEGMENT_FIELDS))}
    kept = [0]
    partial = [False]

    def on_rows(rows: Any) -> None:
        take = np.flatnonzero((rows["kind"] != SEG_RESET) & (rows["tcp_flags"] & TH_RST == 0))
        room = MAX_SEGMENT_KEYS - kept[0]
        if len(take) > room:
            partial[0] = True
            take = take[:room]
        kept[0] += len(take)
        for name, dtype in (("conn", np.int64), ("side", np.int8), *SEGMENT_FIELDS):
            parts[name].append(rows[name][take].astype(dtype))

    wanted = set(pair_of)
    if isinstance(file, str):
        state, error = trace(file, wanted, on_rows, limits=limits)
    else:
        with file.open() as stream:
            state, error = trace(stream, wanted, on_rows, limits=limits)
    n = state.n
    client = client_sides(state.conns[:n], state.sides[: 2 * n])[0]
    pair = np.full(n, -1, np.int64)
    seen = [i for i in pair_of if i < n]  # a reading stopped by bad input may end before a connection's start
    pair[seen] = [pair_of[i] for i in seen]
    column = {name: np.concatenate(p) if p else np.empty(0, np.int64) for name, p in parts.items()}
    conn = column.pop("conn")
    g = 2 * pair[conn] + (column.pop("side") != client[conn])
    order = _grouped(g, np.arange(len(g)))
    segs = Segments(g=g[order], **{name: column[name][order] for name, _ in SEGMENT_FIELDS})
    st = state.g
    span = (float(st.tmin), float(st.tmax)) if st.tmin <= st.tmax else None
    return segs, partial[0] or error is not None, span


def _grouped(g: Any, rank: Any) -> Any:
    """Each row's ``rank`` (distinct numbers from 0), in order of the rows' group ``g`` and, within a group, of rank
    (with ``rank`` the row numbers: the rows in that order). Sorted as plain numbers, the rank in the low bits."""
    bits = max(1, (len(g) - 1).bit_length())
    return np.sort((g.astype(np.int64) << bits) | rank) & ((1 << bits) - 1)


def _same(*columns: Any) -> tuple[Any, Any, Any]:
    """Rows equal in every column (integer columns of one length), as (each row's key number, the rows in key order
    with a key's rows in row order, each key's first place in that order).

    The rows are sorted by a hash of their columns with the row's number in its low bits, as plain numbers (a sort
    of values, several times faster than an ``argsort``): a key's rows come out together and in row order. Where
    two keys share the bits of the hash left, that run is sorted again by the columns themselves."""
    n = len(columns[0])
    bits = max(1, (n - 1).bit_length())
    low = np.uint64((1 << bits) - 1)
    v = (_hashed(*columns) & ~low) | np.arange(n, dtype=np.uint64)
    v.sort()
    order = (v & low).astype(np.int64)
    new = np.ones(n, bool)
    np.not_equal(v[1:] >> np.uint64(bits), v[:-1] >> np.uint64(bits), out=new[1:])
    differ = np.zeros(n, bool)
    for c in columns:
        in_order = c[order]
        differ[1:] |= in_order[1:] != in_order[:-1]
    if (shared := differ & ~new).any():  # a run of one hash holding two keys
        run_starts = np.flatnonzero(new)
        for run in np.unique(np.searchsorted(run_starts, np.flatnonzero(shared), "right") - 1).tolist():
            lo = run_starts[run]
            hi = run_starts[run + 1] if run + 1 < len(run_starts) else n
            rows = order[lo:hi]
            rows = rows[np.lexsort([c[rows] for c in columns[::-1]])]  # stable: a key's rows stay in row order
            order[lo:hi] = rows
            for c in columns:
                new[lo + 1 : hi] |= c[rows][1:] != c[rows][:-1]
    ids = np.empty(n, np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, order, np.flatnonzero(new)


def _differing(a: Segments, b: Segments, groups: int) -> Any:
    """Per group: whether the two captures hold anything but the same segments (seq, length, flags, ack, IPv4
    identification) in the same order."""
    held_a, held_b = np.bincount(a.g, minlength=groups), np.bincount(b.g, minlength=groups)
    differ = held_a != held_b
    rows = np.flatnonzero(~differ[a.g])
    g = a.g[rows]
    there = (np.cumsum(held_b) - held_b)[g] + rows - (np.cumsum(held_a) - held_a)[g]  # the same place in ``b``
    unlike = np.zeros(len(rows), bool)
    for name in ("seq", "seglen", "tcp_flags", "ack", "ip_id"):
        unlike |= getattr(a, name)[rows] != getattr(b, name)[there]
    differ[g[unlike]] = True
    return differ


def _while_both_ran(a: Segments, b: Segments, span_a: Span, span_b: Span, groups: int) -> tuple[Any, Any]:
    """Which rows of ``a`` and ``b`` are compared (two masks): every copy both captures hold, and a copy one capture
    lacks only when that capture was surely running as it passed.

    The two captures keep different clocks and the segments take time between them; the copies both hold (one
    segment, the same seq, length, flags, ack and IPv4 identification, in each) give the shift from one clock to
    the other (the median, per direction of a connection) and, around any moment, its spread: the largest departure
    from it among the ``NEIGHBOURS`` copies both hold before that moment and as many after it. A copy only one
    capture holds is kept when, shifted, it falls inside the other capture's span with the spread around it to
    spare: else the other capture may not have been running when it passed (sent before it started, or after it
    stopped, or on its way at either end), and its absence there is not a loss. A retransmission or a resent FIN
    after one capture stopped, and the last pure ACKs, were otherwise counted lost. The spread is the one around the
    copy, not the largest of the whole transfer: one segment held up in a queue, anywhere, left every lone copy
    within that delay of either end out (decision 0013; ``test_capture_pairs_edges``). In a direction without a copy
    in common, nothing is left out.
    """
    keep_a, keep_b = np.ones(len(a), bool), np.ones(len(b), bool)
    if span_a is None or span_b is None or not len(a) or not len(b):
        return keep_a, keep_b
    na = len(a)
    ids, order, firsts = _same(
        *(np.concatenate((getattr(a, f), getattr(b, f))) for f in ("g", "seq", "seglen", "tcp_flags", "ack", "ip_id"))
    )
    id_a, id_b = ids[:na], ids[na:]
    count_a = np.bincount(id_a, minlength=len(firsts))
    count_b = np.bincount(id_b, minlength=len(firsts))
    # Each row's place among its own capture's copies of its key (0 for the first): ``a``'s rows come first in a key.
    place = np.empty(len(ids), np.int64)
    place[order] = np.arange(len(ids)) - np.repeat(firsts, np.diff(np.append(firsts, len(ids))))
    place[na:] -= count_a[id_b]
    # The copies each capture holds once: the clock shift between them, per group.
    once = (count_a == 1) & (count_b == 1)
    in_a, in_b = np.flatnonzero(once[id_a]), np.flatnonzero(once[id_b])
    seen_at = np.empty(len(firsts))
    seen_at[id_a[in_a]] = a.ts[in_a]
    both_g, mine, theirs = b.g[in_b], seen_at[id_b[in_b]], b.ts[in_b]
    diff = theirs - mine
    held = np.bincount(both_g, minlength=groups)
    has = held > 0
    by_diff = np.argsort(diff)
    rank = np.empty(len(diff), np.int64)
    rank[by_diff] = np.arange(len(diff))
    shift = np.zeros(groups)
    shift[has] = diff[by_diff[_grouped(both_g, rank)][(np.cumsum(held) - held)[has] + held[has] // 2]]
    # A copy past the other capture's count of its key is compared only while the other capture surely ran.
    ask_a = np.flatnonzero((place[:na] >= count_b[id_a]) & has[a.g])
    ask_b = np.flatnonzero((place[na:] >= count_a[id_b]) & has[b.g])
    departure = np.abs(diff - shift[both_g])
    for s, ask, keep, at, (first, last), sign in (
        (a, ask_a, keep_a, mine, span_b, -1.0),
        (b, ask_b, keep_b, theirs, span_a, 1.0),
    ):
        if not len(ask):
            continue
        g, t = s.g[ask], s.ts[ask]
        asked = np.zeros(groups, bool)
        asked[g] = True
        refs = asked[both_g]
        margin = _margins(both_g[refs], at[refs], departure[refs], g, t)
        lo, hi = first + sign * shift[g], last + sign * shift[g]
        keep[ask] = (lo + margin <= t) & (t <= hi - margin)
    return keep_a, keep_b


def _margins(ref_g: Any, ref_t: Any, ref_d: Any, g: Any, t: Any) -> Any:
    """For each moment (``g``, ``t``): the largest departure ``ref_d`` among the ``NEIGHBOURS`` copies of group ``g``
    seen just before ``t`` (``ref_t``, at it included) and as many just after, plus a microsecond.

    Times become their rank among every time here, so (group, time) is one number: the copies sort by it (a stable
    sort of numbers already almost in order; copies of one group and time then by departure), and a moment's place
    among them is one ``searchsorted``."""
    times = np.unique(np.concatenate((ref_t, t)))
    ref_key = (ref_g.astype(np.int64) << 32) | np.searchsorted(times, ref_t)
    key = (g.astype(np.int64) << 32) | np.searchsorted(times, t)
    o = np.argsort(ref_key, kind="stable")
    if (ref_key[o][1:] == ref_key[o][:-1]).any():  # the same group and time: by departure
        o = np.lexsort((ref_d, ref_key))
    rk, rd = ref_key[o], ref_d[o]
    n = len(rk)
    at = np.searchsorted(rk, key, "right")  # copies of earlier groups, and of this one up to ``t``
    lo, hi = np.searchsorted(rk, key >> 32 << 32, "left"), np.searchsorted(rk, ((key >> 32) + 1) << 32, "left")
    best = np.full(len(g), -np.inf)
    for step in range(-NEIGHBOURS, NEIGHBOURS):
        j = at + step
        inside = (j >= lo) & (j < hi)
        best = np.where(inside, np.maximum(best, rd[np.clip(j, 0, n - 1)]), best)
    return best + 1e-6


@dataclass(frozen=True)
class _Intervals:
    """Segments as the sequence space they cover, [start, end) relative to their group's base and clipped to the
    range both captures cover; ``rows`` are theirs in the ``Segments`` they came from."""

    rows: Any
    g: Any
    start: Any
    end: Any

    def take(self, rows: Any) -> _Intervals:
        return _Intervals(self.rows[rows], self.g[rows], self.start[rows], self.end[rows])


def _intervals(s: Segments, base: Any, lo: Any, hi: Any) -> _Intervals:
    """The segments that cover sequence space, per group's (``base``, ``lo``, ``hi``) (arrays by group)."""
    start = (s.seq - base[s.g]) & M32
    a, b = np.maximum(lo[s.g], start), np.minimum(hi[s.g], start + s.seglen)
    # Before the base (the other capture's earlier data), or past the range: outside the window.
    rows = np.flatnonzero((s.seglen > 0) & (start < HALF) & (a < b))
    return _Intervals(rows, s.g[rows], a[rows], b[rows])


def _excess(x: _Intervals, y: _Intervals) -> tuple[tuple[Any, Any, Any, Any], tuple[Any, Any, Any, Any]]:
    """Maximal [start, end) where one capture's copies outnumber the other's, with by how many: (group, start, end,
    by how many) where ``x``'s do, and the same where ``y``'s do.

    Copies are counted per byte, so one 64 KiB TSO super-segment on one side and 45 MTU-sized
    segments on the other cover the same bytes once each: nothing is missing. Two lost segments side by side are
    two, not one.
    """
    # Every start and end as one number, (group, point, which: x's start (+1 copy), end (-1), y's start (-1), end
    # (+1)), sorted as plain numbers.
    marks = np.sort(
        np.concatenate(
            [
                ((ivs.g << 32) | getattr(ivs, end)) << 2 | code
                for code, (ivs, end) in enumerate(((x, "start"), (x, "end"), (y, "start"), (y, "end")))
            ]
        )
    )
    if not len(marks):
        nothing = np.zeros(0, np.int64)
        return (nothing,) * 4, (nothing,) * 4
    code, key = marks & 3, marks >> 2
    last = np.append(np.flatnonzero(key[1:] != key[:-1]), len(key) - 1)  # each point's last mark
    # Each group's copies add up to none, so one running sum over every group's points is each group's own.
    level = np.cumsum(np.where((code == 0) | (code == 3), 1, -1))[last]
    starts_x, starts_y = (np.diff(np.cumsum(code == c)[last], prepend=0) > 0 for c in (0, 2))
    points = key[last]
    group, point = points >> 32, points & M32
    onward = group[:-1] == group[1:]  # a point and the next are one stretch of a group's sequence space

    def stretches(sign: int, starts: Any) -> tuple[Any, Any, Any, Any]:
        """Runs of the points where ``sign`` × the level is above 0, the same level on, and no copy of this side
        starting inside."""
        more = onward & (sign * level[:-1] > 0)
        joined = np.zeros(len(more), bool)  # the stretch before goes on here
        joined[1:] = more[:-1] & (level[:-2] == level[1:-1]) & ~starts[1:-1]
        places = np.flatnonzero(more)
        first = places[~joined[places]]
        final = np.append(places[np.flatnonzero(~joined[places])[1:] - 1], places[-1:])
        return group[first], point[first], point[final + 1], sign * level[first]

    return stretches(1, starts_x), stretches(-1, starts_y)


@dataclass(frozen=True)
class _Missing:
    """What one capture saw more often than the other, as columns, one item a row: its group, type (an index into
    ``SEGMENT_TYPES``), sequence number (relative: a stretch's start, or the sequence number a pure ACK
    acknowledged), length, by how many copies, and the packet that names it (0: none found, or not looked up)."""

    g: Any
    kind: Any
    seq: Any
    length: Any
    missing: Any
    frame: Any

    @staticmethod
    def none() -> _Missing:
        nothing = np.zeros(0, np.int64)
        return _Missing(nothing, nothing, nothing, nothing, nothing, nothing)


#: ``SEGMENT_TYPES`` indexes in the order of their names (how a connection's counts by type are listed).
BY_NAME = sorted(range(len(SEGMENT_TYPES)), key=lambda k: SEGMENT_TYPES[k])


def _missing_space(mine: _Intervals, runs: tuple[Any, Any, Any, Any], s: Segments) -> _Missing:
    """Each stretch of sequence space (``runs``, from ``_excess``) this capture saw more often than the other, named
    by the last segment of it (by start) that covers it: that segment's type and packet."""
    g, lo, hi, extra = runs
    if not len(g):
        return _Missing.none()
    key = (mine.g << 32) | mine.start
    o = np.argsort(key, kind="stable")
    key, end, rows = key[o], mine.end[o], mine.rows[o]
    first = np.searchsorted(key, g << 32, "left")
    past = np.searchsorted(key, (g + 1) << 32, "left")
    _, one, back = np.unique(g, return_index=True, return_inverse=True)  # each group once: its furthest end
    widest = np.array([end[first[i] : past[i]].max() for i in one.tolist()], np.int64)[back]
    cover = np.searchsorted(key, (g << 32) | hi, "left") - 1
    while (behind := (cover >= first) & (end[np.maximum(cover, 0)] <= lo)).any():
        cover[behind] -= 1
    found = cover >= first
    row = rows[np.maximum(cover, 0)]
    flags, payload = np.where(found, s.tcp_flags[row], 0), np.where(found, s.payload[row], 0)
    # Its type (``SEGMENT_TYPES``), a column at a time (none found: a pure ACK, as a segment of no flags and no
    # payload reads)
    syn, fin = flags & TH_SYN != 0, flags & TH_FIN != 0
    kind = np.where(syn, np.where(flags & TH_ACK != 0, 2, 1), np.where(fin, 3, np.where(payload > 0, 0, 4)))
    # A SYN's or SYN-ACK's stretch past its first byte, and a FIN's before its last, is the data it carried.
    kind = np.where(syn & (lo > key[first] & M32), 0, kind)
    kind = np.where((kind == 3) & (hi < widest), 0, kind)
    return _Missing(g, kind, lo, hi - lo, extra, np.where(found, s.frame[row], 0))


def _hashed(*columns: Any) -> Any:
    """A 64-bit hash of each row of integer columns (``_same`` tells equal rows apart exactly)."""
    h = np.zeros(len(columns[0]), np.uint64)
    for c in columns:
        h = (h ^ c.astype(np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


def _missing_acks(
    a: Segments, b: Segments, ack_base: Any, ack_lo: Any, ack_hi: Any, groups: int
) -> tuple[_Missing, _Missing]:
    """Per group, the pure ACKs one capture saw more often than the other, among those acking the range both cover
    (``ack_base``, ``ack_lo``, ``ack_hi`` by group): (those only ``a`` holds, those only ``b`` holds).

    Copies of one ACK are told apart by their IPv4 identification, which the sender numbers per
    packet and address translation keeps: a repeated ACK (the same seq and ack, sent again for a
    resent FIN) that only one capture holds must not cancel an earlier copy the other lost. Where
    the identifications do not correspond (IPv6, a sender that leaves them 0, a middlebox that
    rewrites them), the ACKs are matched by (seq, ack) alone, as copies.
    """

    def acks(s: Segments) -> Any:
        flags, rel = s.tcp_flags, (s.ack - ack_base[s.g]) & M32
        pure = (s.seglen == 0) & (s.payload == 0) & (flags & TH_ACK != 0) & (flags & (TH_SYN | TH_FIN) == 0)
        return np.flatnonzero(pure & (ack_lo[s.g] < rel) & (rel <= ack_hi[s.g]))

    ra, rb = acks(a), acks(b)
    n = len(ra)
    g, seq, ack = (np.concatenate((getattr(a, f)[ra], getattr(b, f)[rb])) for f in ("g", "seq", "ack"))
    ip_id = np.concatenate((a.ip_id[ra], b.ip_id[rb]))
    if not len(g):
        return _Missing.none(), _Missing.none()

    def held(ids: Any, keys: int) -> tuple[Any, Any, Any]:
        """Copies of each key in ``a`` and in ``b``, and per group how many copies both hold."""
        in_a, in_b = np.bincount(ids[:n], minlength=keys), np.bincount(ids[n:], minlength=keys)
        group = np.zeros(keys, np.int64)
        group[ids] = g
        return in_a, in_b, np.bincount(group, weights=np.minimum(in_a, in_b), minlength=groups)

    strict, _, firsts = _same(g, seq, ack, ip_id)
    loose, _, loose_firsts = _same(g, seq, ack)
    _, _, common = held(strict, len(firsts))
    _, _, loose_common = held(loose, len(loose_firsts))
    by_copies = common < 0.9 * loose_common
    ids = np.where(by_copies[g], loose + len(firsts), strict)
    in_a, in_b, _ = held(ids, len(firsts) + len(loose_firsts))
    key_ip = np.where(by_copies[g], -1, ip_id)
    return (
        _only_in(a, ra, ids[:n], in_a - in_b, key_ip[:n], ack_base),
        _only_in(b, rb, ids[n:], in_b - in_a, key_ip[n:], ack_base),
    )


def _only_in(s: Segments, rows: Any, ids: Any, extra: Any, key_ip: Any, ack_base: Any) -> _Missing:
    """The ACKs (rows ``rows`` of ``s``, key numbers ``ids``) whose key this capture holds ``extra`` more copies of,
    in the order each key first comes. The first ``MAX_EXAMPLES`` of a group (all a connection can show) are named
    by the packet of the last segment (of any type) with its seq, ack and identification (-1: any)."""
    keys, first = np.unique(ids, return_index=True)
    more = extra[keys] > 0
    if not more.any():
        return _Missing.none()
    first = np.sort(first[more])
    lone = rows[first]
    g, seq, ack, ip = s.g[lone], s.seq[lone], s.ack[lone], key_ip[first]
    shown = np.arange(len(g)) - np.searchsorted(g, g, "left") < MAX_EXAMPLES
    # The segments that may carry a shown ACK's numbers, walked in capture order.
    wanted = {(int(x), int(y), int(z)) for x, y, z in zip(g[shown], seq[shown], ack[shown], strict=True)}
    maybe = np.flatnonzero(np.isin(_hashed(s.g, s.seq, s.ack), _hashed(g[shown], seq[shown], ack[shown])))
    frames: dict[tuple[int, int, int, int], int] = {}
    walked = (c[maybe].tolist() for c in (s.g, s.seq, s.ack, s.ip_id, s.frame))
    for grp, sq, ak, ident, frame in zip(*walked, strict=True):
        if (grp, sq, ak) in wanted:
            frames[(grp, sq, ak, ident)] = frames[(grp, sq, ak, -1)] = frame
    named = zip(g.tolist(), seq.tolist(), ack.tolist(), ip.tolist(), strict=True)
    frame = np.array([frames.get(key, 0) for key in named], np.int64)
    pure_ack = np.full(len(g), SEGMENT_TYPES.index("pure ACK"))
    return _Missing(g, pure_ack, (ack - ack_base[g]) & M32, np.zeros(len(g), np.int64), extra[ids[first]], frame)


def _largest(s: Segments, groups: int) -> Any:
    """Per group, the largest payload of any of its segments (0 without one)."""
    out = np.zeros(groups, np.int64)
    if len(s):
        starts = np.flatnonzero(np.diff(s.g, prepend=-1))
        out[s.g[starts]] = np.maximum(np.maximum.reduceat(s.payload, starts), 0)
    return out


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

    The captures are read from ``files`` (a path or a ``Source`` each) when given, else from the results' paths.
    Every step after the reading works on all matched connections at once, as columns (a group per direction of a
    connection: ``Segments``)."""
    fa, fb = files if files is not None else (ea.path, eb.path)
    ends_a, ends_b = Ends.of(ea.connections), Ends.of(eb.connections)
    pairs = match_connections(ends_a, ends_b)
    matched: list[MatchedConnection] = []
    nat: dict[tuple[str, str, str, str], None] = {}
    partial = False
    for batch in _passes([max(ends_a.packets[i], ends_b.packets[j]) for i, j, _ in pairs]):
        partial |= _compare_pass([pairs[k] for k in batch], ends_a, ends_b, (fa, fb), limits, matched, nat)
    return CapturePair(
        a=ia,
        b=ib,
        connections=tuple(matched),
        nat=tuple(nat),
        unmatched_a=len(ea.connections) - len(pairs),
        unmatched_b=len(eb.connections) - len(pairs),
        partial=partial,
    )


def _passes(sizes: list[int]) -> list[range]:
    """The matched connections (by their packets, ``sizes``) in runs that one reading of the two captures compares:
    ``PASS_SEGMENTS`` packets at most, or one connection that alone has more."""
    out: list[range] = []
    start = held = 0
    for k, n in enumerate(sizes):
        if held and held + n > PASS_SEGMENTS:
            out.append(range(start, k))
            start, held = k, 0
        held += n
    if start < len(sizes):
        out.append(range(start, len(sizes)))
    return out


def _compare_pass(
    pairs: list[tuple[int, int, str]],
    ends_a: Ends,
    ends_b: Ends,
    files: tuple[str | Source, str | Source],
    limits: Limits,
    matched: list[MatchedConnection],
    nat: dict[tuple[str, str, str, str], None],
) -> bool:
    """Compare the connections ``pairs`` (places in ``ends_a`` and ``ends_b``), reading both captures once: adds each
    to ``matched`` and the address translations to ``nat``; whether the reading stopped early."""
    groups = 2 * len(pairs)
    id_a, id_b = [ends_a.ids[i] for i, _, _ in pairs], [ends_b.ids[j] for _, j, _ in pairs]
    # The two captures are read at once, one on another thread (the kernel's scan lets go of the interpreter).
    with ThreadPoolExecutor(1, thread_name_prefix="capture-pair") as other:
        second = other.submit(_scan_segments, files[1], {y: k for k, y in enumerate(id_b)}, limits)
        a, pa, span_a = _scan_segments(files[0], {x: k for k, x in enumerate(id_a)}, limits)
        b, pb, span_b = second.result()
    # Per group: the sequence range both captures cover (base, start, end) and the one its ACKs acknowledge.
    windows = np.zeros((groups, 6), np.int64)
    for k, (i, j, _) in enumerate(pairs):
        client, server = ends_a.window(i, ends_b, j, 0), ends_a.window(i, ends_b, j, 1)
        windows[2 * k], windows[2 * k + 1] = (*client, *server), (*server, *client)
    base, lo, hi, ack_base, ack_lo, ack_hi = windows.T.copy()
    # Where both captures hold the same segments in the same order, nothing is missing from either: the steps that
    # look for what is take only the other groups.
    differ = _differing(a, b, groups)
    keep_a, keep_b = np.ones(len(a), bool), np.ones(len(b), bool)
    keep_a[differ[a.g]], keep_b[differ[b.g]] = _while_both_ran(
        a.take(differ[a.g]), b.take(differ[b.g]), span_a, span_b, groups
    )
    sa, sb = a.take(keep_a), b.take(keep_b)
    in_a, in_b = _intervals(sa, base, lo, hi), _intervals(sb, base, lo, hi)
    da, db = in_a.take(differ[in_a.g]), in_b.take(differ[in_b.g])
    more_a, more_b = _excess(da, db)
    space_a, space_b = _missing_space(da, more_a, sa), _missing_space(db, more_b, sb)
    acks_a, acks_b = _missing_acks(sa.take(differ[sa.g]), sb.take(differ[sb.g]), ack_base, ack_lo, ack_hi, groups)
    count_a = np.bincount(in_a.g, minlength=groups).reshape(-1, 2)
    count_b = np.bincount(in_b.g, minlength=groups).reshape(-1, 2)
    compared = np.maximum(count_a, count_b).sum(axis=1).tolist()
    covered = np.maximum(hi - lo, 0).reshape(-1, 2).sum(axis=1).tolist()
    largest_a = _largest(a, groups).reshape(-1, 2).max(axis=1).tolist()
    largest_b = _largest(b, groups).reshape(-1, 2).max(axis=1).tolist()
    segments_a, segments_b = count_a.sum(axis=1).tolist(), count_b.sum(axis=1).tolist()
    gone = _gone(len(pairs), (space_a, acks_a), (space_b, acks_b))
    seen_a, seen_b = ends_a.endpoints([i for i, _, _ in pairs]), ends_b.endpoints([j for _, j, _ in pairs])
    for k, ((_, _, how), (a_client, a_server), (b_client, b_server)) in enumerate(
        zip(pairs, seen_a, seen_b, strict=True)
    ):
        if (a_client, a_server) != (b_client, b_server):
            nat[(a_client, b_client, a_server, b_server)] = None
        only_in_a, only_in_b, examples, missing_a, missing_b = gone.get(k, (0, 0, (), (), ()))
        matched.append(
            MatchedConnection(
                a=id_a[k],
                b=id_b[k],
                a_client=a_client,
                a_server=a_server,
                b_client=b_client,
                b_server=b_server,
                matched_by=how,
                segments_compared=compared[k],
                only_in_a=only_in_a,
                only_in_b=only_in_b,
                examples=examples,
                missing_a=missing_a,
                missing_b=missing_b,
                bytes_compared=covered[k],
                segments_a=segments_a[k],
                segments_b=segments_b[k],
                largest_a=largest_a[k],
                largest_b=largest_b[k],
            )
        )
    return pa or pb


def _gone(
    pairs: int, *sides: tuple[_Missing, _Missing]
) -> dict[
    int, tuple[int, int, tuple[MissingSegment, ...], tuple[tuple[str, str, int], ...], tuple[tuple[str, str, int], ...]]
]:
    """Per matched pair (by index) with anything missing: how many copies only ``a`` holds and only ``b``; the first
    ``MAX_EXAMPLES`` items (``a``'s, then ``b``'s; within each the client's side, then the server's; within a side
    the stretches of sequence space, then the pure ACKs); and per side the counts by (sender, type) with any, in
    order of their names. ``sides``: ``a``'s (stretches, ACKs), then ``b``'s."""
    parts = [(side, part, m) for side, both in enumerate(sides) for part, m in enumerate(both) if len(m.g)]
    if not parts:
        return {}
    column = {f.name: np.concatenate([getattr(m, f.name) for _, _, m in parts]) for f in fields(_Missing)}
    side = np.concatenate([np.full(len(m.g), side) for side, _, m in parts])
    part = np.concatenate([np.full(len(m.g), part) for _, part, m in parts])
    g, kind, missing = column["g"], column["kind"], column["missing"]
    pair, role = g >> 1, g & 1
    order = np.argsort((((pair * 2 + side) * 2 + role) * 2 + part), kind="stable")  # items keep their order within
    at = np.arange(len(order)) - np.searchsorted(pair[order], pair[order], "left")
    shown = order[at < MAX_EXAMPLES]
    only = np.bincount(pair * 2 + side, weights=missing, minlength=2 * pairs).astype(np.int64).reshape(-1, 2)
    counted = (
        np.bincount(
            ((pair * 2 + side) * 2 + role) * len(SEGMENT_TYPES) + kind,
            weights=missing,
            minlength=4 * pairs * len(SEGMENT_TYPES),
        )
        .astype(np.int64)
        .reshape(pairs, 2, 2, len(SEGMENT_TYPES))
    )
    examples: dict[int, list[MissingSegment]] = {}
    for k, r, t, sq, n, ln, fr in zip(
        *(c[shown].tolist() for c in (pair, role, kind, column["seq"], missing, column["length"], column["frame"])),
        strict=True,
    ):
        examples.setdefault(k, []).append(MissingSegment(ROLES[r], sq, ln, fr, n, SEGMENT_TYPES[t]))

    def by_type(k: int, side: int) -> tuple[tuple[str, str, int], ...]:
        return tuple(
            (ROLES[r], SEGMENT_TYPES[t], n) for r in (0, 1) for t in BY_NAME if (n := int(counted[k, side, r, t]))
        )

    return {
        k: (int(only[k, 0]), int(only[k, 1]), tuple(examples[k]), by_type(k, 0), by_type(k, 1))
        for k in np.unique(pair).tolist()
    }


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
    ) + (
        " The comparison is incomplete: a capture could not be read to its end, or a connection had more segments "
        f"than one comparison holds ({MAX_SEGMENT_KEYS:,}, the engine's limit) and only its first ones were compared."
        if pair.partial
        else ""
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
