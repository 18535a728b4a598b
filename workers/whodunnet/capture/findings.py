"""TCP findings from one capture's connection table.

Each ``*_finding`` function looks at the whole table and returns one finding (or None):
the numbers, the connections behind it (refs, at most ``MAX_REFS``) and a ``data`` dict
the backend and UI can use without parsing text. Kinds are stable: stored findings and the UI name them.

The table is columns (``connections.ConnectionTable``): a finding counts and adds up whole
columns, and builds ``Connection`` rows only for the connections it looks at one by one (those
with a window limit, a close at a deadline...) or cites. Handshake retries are read from the
kept SYN and SYN-ACK events directly, as columns (``ConnectionTable.handshake_kept``): a capture
of a million connections has tens of thousands of them, and a finding lists a hundred. Sums of float columns are
Python's ``sum`` over the values in table order, so the numbers are the ones a loop over rows
gives.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whodunnet.capture.connections import Connection, ConnectionTable, Direction, KeptEvents, Role
from whodunnet.capture.constants import EV_RTO
from whodunnet.model import Finding, Layer, Ref, Severity

MAX_REFS = 20
#: Connections listed in a finding's ``data``.
MAX_DATA_ROWS = 100

#: Share of a transfer's data packets with bytes in flight at the window to call it pinned.
PINNED_SHARE_MIN = 0.5
#: Throughput at or above this share of window / RTT counts as window-bound (receiver view).
WINDOW_RATE_SHARE = 0.6
#: Bytes in flight must have reached this share of the window at least once for the rate to count.
PINNED_REACHED = 0.85
#: Several connections closing at one age: at least this many, within this spread.
TIMEOUT_MIN_CONNECTIONS = 3
TIMEOUT_SPREAD = 0.2
#: At most this much data after a FIN, in at most CLOSE_CHATTER_PACKETS packets, is the ordinary
#: chatter of a close (a TLS close_notify or alert, an SMTP or FTP goodbye line), not a transfer:
#: a RST answering it discards nothing anyone waits for. (The corpus's closes carry up to 348 bytes.)
CLOSE_CHATTER_BYTES = 512
CLOSE_CHATTER_PACKETS = 3
#: A retransmission rate worth a finding.
RETRANS_RATE_MIN = 0.005
RETRANS_COUNT_MIN = 3

ROLES: tuple[Role, Role] = ("client", "server")


def _other(role: Role) -> Role:
    return "server" if role == "client" else "client"


def fmt_bytes(n: float) -> str:
    return f"{n:,.0f} bytes"


def fmt_rate(bytes_per_s: float) -> str:
    """Bytes per second in the unit people read: ``215 KB/s (1.7 Mbit/s)``."""
    bits = bytes_per_s * 8
    if bytes_per_s >= 1e9:
        human = f"{bytes_per_s / 1e9:.2f} GB/s"
    elif bytes_per_s >= 1e6:
        human = f"{bytes_per_s / 1e6:.2f} MB/s"
    else:
        human = f"{bytes_per_s / 1e3:.1f} KB/s"
    mbit = f"{bits / 1e6:.2f} Mbit/s" if bits < 1e9 else f"{bits / 1e9:.2f} Gbit/s"
    return f"{human} ({mbit})"


def fmt_s(seconds: float) -> str:
    if seconds >= 10:
        return f"{seconds:.1f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.2f} ms"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _ref(index: int, c: Connection, label: str, packets: tuple[int, int] | None = None, time: Any = None) -> Ref:
    return Ref(
        evidence=index,
        label=label,
        connection=str(c.id),
        packets=packets if packets is not None else (c.first_packet, c.last_packet),
        time=time if time is not None else (c.first_time, c.last_time),
    )


def _finding(
    kind: str, layer: Layer, severity: Severity, title: str, explanation: str, refs: list[Ref], index: int, **data: Any
) -> Finding:
    return Finding(
        kind=kind,
        layer=layer,
        severity=severity,
        title=title,
        explanation=explanation,
        refs=tuple(refs[:MAX_REFS]),
        key=f"evidence-{index}",
        data=data,
    )


# ---------------------------------------------------------------------------------------
# handshakes


#: A gap between SYNs of about this long is a 1 s retry (the initial RTO of RFC 6298).
ONE_S = (0.8, 1.5)


def _about(gap: float, seconds: float) -> bool:
    return ONE_S[0] * seconds <= gap <= ONE_S[1] * seconds


def syn_stack(gaps: Sequence[float]) -> str:
    """Which SYN retry schedule the gaps between SYNs fit."""
    if not gaps:
        return "unknown"
    first = gaps[0]
    if _about(first, 1):
        if len(gaps) == 1:
            return "1s-initial"  # Linux's classic and linear schedules and macOS all start so
        if _about(gaps[1], 1):
            return "linear"  # 1 s retries, then doubling: Linux ≥ 6.5's tcp_syn_linear_timeouts, macOS
        if _about(gaps[1], 2):
            return "linux"  # initial RTO 1 s, doubling: 1, 2, 4 ... s
        return "other"
    if 2.5 <= first <= 3.6:
        if len(gaps) < 2 or 5.0 <= gaps[1] <= 7.0:
            return "windows"  # initial RTO 3 s, then 6 s (two retries by default)
        return "3s-initial"
    return "other"


STACK_TEXT = {
    "linux": "Linux's classic schedule (1 s, then doubling: 1-2-4 s)",
    "linear": "1 s retries before doubling (Linux ≥ 6.5's tcp_syn_linear_timeouts: 1 s × 4, then doubling; or macOS)",
    "1s-initial": "a 1 s initial timeout (Linux, macOS; one retry does not tell the schedule)",
    "windows": "Windows' schedule (3 s, then 6 s)",
    "3s-initial": "a 3 s initial timeout (older stacks)",
    "other": "no common stack's schedule",
    "unknown": "an unknown schedule",
}


def _gaps(times: Sequence[float]) -> list[float]:
    return [round(b - a, 6) for a, b in itertools.pairwise(times)]


def _sum_text(gaps: Sequence[float]) -> str:
    """``1+1+1+1+1+2 s``: the gaps as a person adds them up (whole seconds when they are)."""
    whole = all(abs(g - round(g)) <= 0.1 * max(1, round(g)) and round(g) for g in gaps)
    return "+".join(f"{round(g)}" if whole else f"{g:.2f}" for g in gaps) + " s"


def _example(rows: _RetriedSyns, stack: str) -> str:
    """``4: 1+1+1+1+1+2 s``: the longest-waiting connection of a schedule and its gaps."""
    r = rows.row(rows.stack.index(stack))
    return f"{r.id}: {_sum_text(r.gaps)}"


@dataclass(frozen=True, slots=True)
class _Retried:
    """A connection whose client sent its SYN more than once: what the SYN finding says of it."""

    delay: float
    id: int
    gaps: list[float]
    answered: bool
    stack: str
    #: A SYN-ACK was sent before the SYN came again: the SYN arrived, its answer did not.
    back: bool
    syn_count: int
    #: Its SYNs: (packet, time, ECN flags), first to last.
    syns: list[tuple[int, float, float]]


@dataclass(frozen=True)
class _RetriedSyns:
    """Every connection with a SYN retry, the longest delay first (then the lowest id), as columns (``_retried_syns``):
    a capture of a million connections has tens of thousands of them, and the finding looks at a hundred one by one
    (``row``)."""

    ids: Any
    delay: Any
    answered: Any
    back: Any
    syn_count: Any
    stack: list[str]
    #: Each one's SYNs, and where each one's are in them (``syns.of(at[k])``: the ``k``-th's).
    syns: KeptEvents
    at: Any

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, k: int) -> _Retried:
        """The ``k``-th (0: the longest delay)."""
        syns = self.syns.of(int(self.at[k]))
        return _Retried(
            float(self.delay[k]),
            int(self.ids[k]),
            _gaps([t for _, t, _ in syns]),
            bool(self.answered[k]),
            self.stack[k],
            bool(self.back[k]),
            int(self.syn_count[k]),
            syns,
        )


def _handshake_ref(index: int, cid: int, events: Sequence[tuple[int, float, float]], what: str) -> Ref:
    """Connection ``cid`` cited for its handshake packets (``events``: its SYNs or SYN-ACKs, first to last, as
    ``KeptEvents.of`` gives them)."""
    return Ref(
        evidence=index,
        label=f"connection {cid}: {what}",
        connection=str(cid),
        packets=(events[0][0], events[-1][0]),
        time=(events[0][1], events[-1][1]),
    )


def _retried_syns(conns: ConnectionTable) -> _RetriedSyns:
    """Every connection with a SYN retry, read from the table's columns and kept events, over all of them at once.

    A connection's delay is the time up to the last SYN sent before the handshake completed (or, at the client,
    before the first SYN-ACK): measured the same way at either end. Its SYN-ACKs came back lost (``back``) when one
    was sent before the SYN came again."""
    counts = conns.side("client", "syn_count")
    ids = np.flatnonzero(counts >= 2)
    syns, synacks = conns.handshake_kept(ids, "client"), conns.handshake_kept(ids, "server")
    answered = conns.side("server", "synack_count")[ids] > 0
    hs_ack = conns.conn("hs_ack_ts")[ids]
    starts, ends = syns.starts, syns.ends
    sizes = ends - starts
    times = syns["time"]
    has = sizes > 0
    first = syns.time_at(starts, has)
    # The first SYN-ACK (kept) of each, where there is one.
    a_starts = synacks.starts
    a_has = synacks.ends > a_starts
    first_synack = synacks.time_at(a_starts, a_has)
    done = np.where(hs_ack >= 0, hs_ack, np.where(answered & a_has, first_synack, np.inf))
    before = times <= np.repeat(done, sizes)
    counted = np.concatenate([[0], np.cumsum(before)])
    n_before = counted[ends] - counted[starts]
    # The last SYN at or before ``done`` (each one's SYNs are in the order the capture saw them).
    last_before = np.full(len(ids), -1, np.int64)
    nonempty = np.flatnonzero(has)
    if len(nonempty):
        last_before[nonempty] = np.maximum.reduceat(np.where(before, np.arange(len(times)), -1), starts[nonempty])
    last = np.where(n_before > 0, last_before, ends - 1)
    last_time = syns.time_at(last, has)
    delay = last_time - first
    back = answered & a_has & (n_before > 1) & (first_synack < last_time)
    # The schedule is told by the first two gaps (``syn_stack``).
    at = times.tolist()
    stack = [
        syn_stack(_gaps(at[k : k + min(size, 3)])) for k, size in zip(starts.tolist(), sizes.tolist(), strict=True)
    ]
    order = np.lexsort((ids, -delay))
    return _RetriedSyns(
        ids[order],
        delay[order],
        answered[order],
        back[order],
        counts[ids][order],
        [stack[k] for k in order.tolist()],
        syns,
        order,
    )


def syn_retransmit_finding(index: int, conns: ConnectionTable) -> Finding | None:
    rows = _retried_syns(conns)
    if not len(rows):
        return None
    delays = rows.delay.tolist()
    stacks: dict[str, int] = {}
    for stack in rows.stack:
        stacks[stack] = stacks.get(stack, 0) + 1
    main_stack = max(stacks, key=lambda k: stacks[k])
    unanswered = int(np.count_nonzero(~rows.answered))
    lost_back = int(np.count_nonzero(rows.back))
    retries = int((rows.syn_count - 1).sum())
    # The connections the finding lists, as rows (the first MAX_REFS are also cited): the worst first.
    listed = [rows.row(k) for k in range(min(len(rows), max(MAX_REFS, MAX_DATA_ROWS)))]
    worst = listed[0]
    answered_delays = rows.delay[rows.answered].tolist()
    waited = rows.delay[~rows.answered].tolist()
    stack_name = STACK_TEXT[main_stack].split(" (")[0]
    if answered_delays:
        title = (
            f"SYN retransmitted on {_plural(len(rows), 'connection')}: up to {fmt_s(max(answered_delays))} added "
            f"to connect ({stack_name})" + (f", {unanswered:,} never answered" if unanswered else "")
        )
    else:
        title = (
            f"SYN retransmitted on {_plural(len(rows), 'connection')}, never answered: SYNs sent for up to "
            f"{fmt_s(max(waited))} ({stack_name})"
        )
    gap_text = ", ".join(f"+{g:.2f} s" for g in worst.gaps)
    if worst.answered:
        fate = f"lost {fmt_s(worst.delay)} before the handshake"
        if worst.back:
            fate += ", every SYN answered here but the SYN-ACKs lost on the way back"
        else:
            fate += " completed"
    else:
        fate = f"was never answered ({worst.syn_count} SYNs over {fmt_s(worst.delay)})"
    shown = conns.rows([worst.id])[0]
    parts = [
        f"{_plural(retries, 'SYN retransmission')} on {_plural(len(rows), 'connection')} "
        f"(of {len(conns):,} in the capture).",
        f"The retry gaps fit {STACK_TEXT[main_stack]}"
        + (f" on {stacks[main_stack]:,} of them" if len(stacks) > 1 else "")
        + f" (connection {_example(rows, main_stack)})."
        + "".join(
            f" {stacks[k]:,} fit {STACK_TEXT[k].split(' (')[0]} (connection {_example(rows, k)})."
            for k in sorted(stacks)
            if k != main_stack
        ),
        f"The worst, connection {worst.id} ({shown.client} → {shown.server}), retried at {gap_text} and {fate}.",
        f"Median delay added: {fmt_s(statistics.median(delays))}.",
    ]
    if unanswered:
        parts.append(f"{_plural(unanswered, 'connection')} never got a SYN-ACK in the capture.")
    if lost_back:
        parts.append(
            f"On {_plural(lost_back, 'connection')} a SYN-ACK was sent before the SYN came again: the SYNs "
            "arrived, and the SYN-ACKs (or the client's ACKs) were lost between here and the client, as a "
            "middlebox dropping handshakes or a full connection table does."
        )
        if lost_back == len(rows):
            parts.append("Seen from here the loss is downstream: the capture point is past it, on the server's side.")
    else:
        parts.append("Lost SYNs (or lost SYN-ACKs) on the path, a full listen queue or a firewall dropping them.")
    severity: Severity = "high" if max(delays) >= 3 else "medium" if max(delays) >= 1 else "low"
    refs = [
        _handshake_ref(
            index,
            r.id,
            r.syns,
            f"{r.syn_count} SYNs, {fmt_s(r.delay)} lost" + ("" if r.answered else ", never answered"),
        )
        for r in listed[:MAX_REFS]
    ]
    return _finding(
        "tcp.syn_retransmit",
        "network",
        severity,
        title,
        " ".join(parts),
        refs,
        index,
        connections=len(rows),
        retransmissions=retries,
        stack=main_stack,
        stacks=stacks,
        max_delay=max(delays),
        median_delay=statistics.median(delays),
        total_delay=sum(delays),
        unanswered=unanswered,
        synacks_lost_downstream=lost_back,
        rows=[
            {
                "connection": r.id,
                "gaps": r.gaps,
                "delay": r.delay,
                "answered": r.answered,
                "stack": r.stack,
                "synack_lost_downstream": r.back,
            }
            for r in listed[:MAX_DATA_ROWS]
        ],
    )


def ecn_syn_blackhole_finding(index: int, conns: ConnectionTable) -> Finding | None:
    fallback = []  # ECN SYNs unanswered, then a SYN without ECN flags answered
    never = []  # only ECN SYNs, never answered
    ecn_answered = 0  # an ECN SYN answered directly
    # Connections whose SYNs carried no ECN flags and were answered (a SYN before the first SYN-ACK).
    h = conns.handshake
    answered = conns.side("server", "synack_count") > 0
    plain_answered = int(np.count_nonzero((h.syns > 0) & answered & (h.syns_before > 0) & ~h.syn_ecn))
    for c in conns.rows(np.flatnonzero(h.syn_ecn)):  # the connections that tried ECN, one by one
        if c.synack_count:
            first_synack = c.synack_times[0].time
            before = [e for e in c.syn_times if e.time <= first_synack]
            if not before:
                continue
            if not before[-1].ecn and any(e.ecn for e in before):
                fallback.append((c, [e for e in before if e.ecn]))
            elif before[-1].ecn:
                ecn_answered += 1
        elif all(e.ecn for e in c.syn_times):
            never.append((c, list(c.syn_times)))
    if not fallback and not (never and plain_answered):
        return None
    if len(fallback) < 2 and ecn_answered and not never:
        return None  # one lost SYN that happened to carry ECN flags, with others answered
    ecn_conns = len(fallback) + len(never) + ecn_answered
    lost = sum(len(x[1]) for x in fallback + never)
    title = (
        f"SYNs with ECN setup flags (ECE+CWR) unanswered on {_plural(len(fallback) + len(never), 'connection')}"
        f" while SYNs without them get through"
    )
    parts = [
        f"{_plural(lost, 'SYN')} carrying ECE+CWR went unanswered on "
        f"{_plural(len(fallback) + len(never), 'connection')} (of {ecn_conns:,} that tried ECN).",
    ]
    if fallback:
        delays = [c.syn_times[len(ev)].time - c.syn_times[0].time for c, ev in fallback if len(c.syn_times) > len(ev)]
        parts.append(
            f"On {_plural(len(fallback), 'connection')} the retry without ECN flags was answered"
            + (f", after {fmt_s(statistics.median(delays))} (median) of waiting." if delays else ".")
        )
    if never:
        parts.append(
            f"{_plural(len(never), 'connection')} sent only ECN SYNs and never got an answer, while "
            f"{_plural(plain_answered, 'connection')} without ECN flags did."
        )
    if ecn_answered:
        parts.append(f"{_plural(ecn_answered, 'ECN SYN')} did get through (a path-dependent drop).")
    parts.append(
        "Something on the path drops SYNs with ECN setup flags (an ECN black hole); turning ECN off "
        "on the client (net.ipv4.tcp_ecn=0, netsh ecncapability=disabled) works around it."
    )
    rows = fallback + never
    refs = [
        _ref(
            index,
            c,
            f"connection {c.id}: {_plural(len(ev), 'ECN SYN')} unanswered",
            packets=(ev[0].packet, ev[-1].packet),
            time=(ev[0].time, ev[-1].time),
        )
        for c, ev in rows
    ]
    share = (len(fallback) + len(never)) / max(1, ecn_conns)
    return _finding(
        "tcp.ecn_syn_blackhole",
        "network",
        "high" if share >= 0.5 else "medium",
        title,
        " ".join(parts),
        refs,
        index,
        fallback_connections=len(fallback),
        never_answered_connections=len(never),
        ecn_answered_connections=ecn_answered,
        plain_answered_connections=plain_answered,
        ecn_syns_unanswered=lost,
        connection_ids=[c.id for c, _ in rows[:MAX_DATA_ROWS]],
    )


def synack_retransmit_finding(index: int, conns: ConnectionTable) -> Finding | None:
    counts = conns.side("server", "synack_count")
    retried = np.flatnonzero(counts > 1)
    if not len(retried):
        return None
    synacks = conns.handshake_kept(retried, "server")
    ids, counts = retried.tolist(), counts[retried].tolist()
    retries = sum(n - 1 for n in counts)
    # Each one's first gap (a gap list for the few listed only).
    at = synacks.starts[synacks.ends - synacks.starts >= 2]
    times = synacks["time"]
    firsts = [_gaps(pair)[0] for pair in zip(times[at].tolist(), times[at + 1].tolist(), strict=True)]
    first_gap = statistics.median(firsts) if firsts else 0.0
    completed = int(np.count_nonzero(conns.conn("hs_ack_ts")[retried] >= 0))
    title = f"SYN-ACK retransmitted on {_plural(len(ids), 'connection')} ({_plural(retries, 'retry')})"
    title = title.replace("retrys", "retries")
    parts = [
        f"The server sent its SYN-ACK more than once on {_plural(len(ids), 'connection')} "
        f"({retries:,} retransmissions; median first retry after {fmt_s(first_gap)}).",
        f"{completed:,} of them completed the handshake only after the retry.",
        "The SYN-ACK (or the client's ACK of it) was lost between the server and the client: "
        "a lossy path or a middlebox dropping handshake packets (a full connection-tracking table, for one).",
    ]
    refs = [
        _handshake_ref(index, cid, synacks.of(k), f"{count} SYN-ACKs")
        for k, (cid, count) in enumerate(zip(ids[:MAX_REFS], counts, strict=False))
    ]
    return _finding(
        "tcp.synack_retransmit",
        "network",
        "medium" if first_gap >= 0.5 or len(ids) > 1 else "low",
        title,
        " ".join(parts),
        refs,
        index,
        connections=len(ids),
        retransmissions=retries,
        median_first_gap=first_gap,
        completed_after_retry=completed,
        rows=[
            {"connection": cid, "gaps": _gaps([t for _, t, _ in synacks.of(k)])}
            for k, cid in enumerate(ids[:MAX_DATA_ROWS])
        ],
    )


# ---------------------------------------------------------------------------------------
# data transfer


def _per_side(conns: ConnectionTable, name: str) -> Any:
    """A ``fields.Side`` field of every (connection, role) in table order: connection 0's client,
    its server, connection 1's client... (position ``k`` is connection ``k // 2``, role ``ROLES[k % 2]``)."""
    return np.stack([conns.side("client", name), conns.side("server", name)], axis=1).reshape(-1)


def _zero_window_seconds(conns: ConnectionTable) -> Any:
    """``Direction.zero_window_seconds`` of every (connection, role), in ``_per_side``'s order."""
    return np.stack([conns.zero_window_seconds(r) for r in ROLES], axis=1).reshape(-1)


def _sides(conns: ConnectionTable, picks: Any) -> list[tuple[Connection, Role, Direction]]:
    """(connection, role, what it sent) at the ``_per_side`` positions ``picks``, in the order given."""
    ids = np.unique(picks // 2)
    built = dict(zip(ids.tolist(), conns.rows(ids), strict=True))
    out = []
    for k in picks.tolist():
        c, role = built[k // 2], ROLES[k % 2]
        out.append((c, role, c.side(role)))
    return out


def _top(keys: Any, picks: Any, n: int = MAX_DATA_ROWS) -> Any:
    """The first ``n`` of ``picks`` sorted by ``keys`` (their sort keys, ascending), ties in table order."""
    return picks[np.argsort(keys, kind="stable")[:n]]


def _by_role(picks: Any, weights: Any = None) -> dict[Role, int]:
    """How many of the ``_per_side`` positions ``picks`` each role has (or the sum of their ``weights``)."""
    roles = picks % 2
    return {
        r: int(np.count_nonzero(roles == i) if weights is None else weights[roles == i].sum())
        for i, r in enumerate(ROLES)
    }


def rto_retransmit_finding(index: int, conns: ConnectionTable) -> Finding | None:
    """Retransmissions a timer set off: RTOs (after ≥ 200 ms of silence) and tail loss probes."""
    rto_s, tlp_s = _per_side(conns, "rto"), _per_side(conns, "tlp")
    picks = np.flatnonzero((rto_s != 0) | (tlp_s != 0))
    if not len(picks):
        return None
    rto = int(rto_s[picks].sum())
    tlp = int(tlp_s[picks].sum())
    fast = int(sum(conns.fast_retransmissions(r).sum() for r in ROLES))
    acked = int(_per_side(conns, "resent_acked").sum())
    waits, tlp_waits = _per_side(conns, "rto_wait")[picks], _per_side(conns, "tlp_wait")[picks]
    wait = sum(waits.tolist())
    tlp_wait = sum(tlp_waits.tolist())
    idles = conns.event_values(EV_RTO)  # every kept RTO example belongs to a side counted here
    by_role = _by_role(picks, (rto_s + tlp_s)[picks])
    sides = _sides(conns, _top(-(waits + tlp_waits), picks))
    n_conns = len(np.unique(picks // 2))
    if rto:
        title = (
            f"{_plural(rto, 'retransmission')} after ≥ 200 ms of silence (RTO) on {_plural(n_conns, 'connection')}, "
            f"{fmt_s(wait)} of waiting" + (f"; {_plural(tlp, 'tail loss probe')} besides" if tlp else "")
        )
    else:
        title = (
            f"{_plural(tlp, 'tail loss probe')} on {_plural(n_conns, 'connection')}: the last segment sent again "
            f"after {fmt_s(tlp_wait / tlp)} (mean) without an ACK"
        )
    parts = [
        f"{rto + tlp:,} retransmissions were set off by a timer ({by_role['client']:,} sent by clients, "
        f"{by_role['server']:,} by servers).",
    ]
    if tlp:
        parts.append(
            f"{_plural(tlp, 'tail loss probe')}: the last segment sent, sent again once no ACK had come for two "
            f"round trips or more (mean {fmt_s(tlp_wait / tlp)} after the segment before, {fmt_s(tlp_wait)} in all); "
            "Linux counts these in TCPLossProbes. A lost request or answer at the tail of a burst waits this long, "
            "however little data is in flight."
        )
    if rto:
        parts.append(
            f"{_plural(rto, 'retransmission')} came after the connection had been silent for at least 200 ms "
            f"(Linux's minimum retransmission timeout): {fmt_s(wait)} of waiting"
            + (f" (median {fmt_s(statistics.median(idles))}, longest {fmt_s(max(idles))} each)" if idles else "")
            + "; Linux counts these in TCPTimeouts. Each adds at least 200 ms to a request, the RTO-min tail in "
            "latency percentiles."
        )
    parts.append(f"For comparison, {fast:,} retransmissions were fast (set off by the peer's duplicate ACKs or SACKs).")
    if acked:
        parts.append(
            f"{_plural(acked, 'segment')} re-sent bytes the peer had already acknowledged (its ACK was lost past "
            "the capture point); they are not counted as waiting."
        )
    refs = []
    for c, r, d in sides:
        first = d.rto_examples[0] if d.rto_examples else None
        refs.append(
            _ref(
                index,
                c,
                f"connection {c.id}: {d.rto_retransmissions} RTO retransmissions, {d.tail_loss_probes} tail loss "
                f"probes by the {r}",
                packets=(first[0], d.rto_examples[-1][0]) if first else None,
                time=(first[1] - first[2], d.rto_examples[-1][1]) if first else None,
            )
        )
    return _finding(
        "tcp.rto_retransmit",
        "network",
        "medium" if rto >= 3 or wait + tlp_wait >= 1 else "low",
        title,
        " ".join(parts),
        refs,
        index,
        rto_retransmissions=rto,
        tail_loss_probes=tlp,
        fast_retransmissions=fast,
        resent_acknowledged=acked,
        wait_seconds=wait,
        tlp_wait_seconds=tlp_wait,
        by_sender=by_role,
        rows=[
            {
                "connection": c.id,
                "sender": r,
                "rto": d.rto_retransmissions,
                "wait": d.rto_wait,
                "tlp": d.tail_loss_probes,
                "tlp_wait": d.tlp_wait,
            }
            for c, r, d in sides[:MAX_DATA_ROWS]
        ],
    )


def zero_window_finding(index: int, conns: ConnectionTable) -> Finding | None:
    counts = _per_side(conns, "zero_count")
    picks = np.flatnonzero(counts)
    if not len(picks):
        return None
    count = int(counts[picks].sum())
    seconds = _zero_window_seconds(conns)[picks]
    total = sum(seconds.tolist())
    by_role = _by_role(picks)
    reader = max(ROLES, key=lambda r: by_role[r])
    sides = _sides(conns, _top(-seconds, picks))
    n_sides = len(picks)
    title = (
        f"Receive window hit zero on {_plural(n_sides, 'connection')} ({fmt_s(total)} in total): "
        f"a slow reader on the {reader} side"
    )
    parts = [
        f"{_plural(count, 'zero-window advertisement')} on {_plural(n_sides, 'connection')}: "
        f"the {reader} advertised no room on {by_role[reader]:,} of them"
        + (f" (the {_other(reader)} on {by_role[_other(reader)]:,})" if by_role[_other(reader)] else "")
        + f", for {fmt_s(total)} in total (longest {fmt_s(sides[0][2].zero_window_seconds)}, connection "
        f"{sides[0][0].id}).",
        "A zero window means the receiving application is not reading its socket fast enough: "
        "the sender has to stop until it does. Look at the reader, not the network.",
    ]
    refs = [
        _ref(
            index,
            c,
            f"connection {c.id}: the {r} advertised a zero window {_plural(d.zero_windows, 'time')}",
            packets=(d.first_zero_window_packet or c.first_packet, c.last_packet),
        )
        for c, r, d in sides
    ]
    return _finding(
        "tcp.zero_window",
        "application",
        "medium" if total >= 1 else "low",
        title,
        " ".join(parts),
        refs,
        index,
        advertisements=count,
        seconds=total,
        connections=n_sides,
        by_receiver=by_role,
        rows=[
            {"connection": c.id, "receiver": r, "count": d.zero_windows, "seconds": d.zero_window_seconds}
            for c, r, d in sides[:MAX_DATA_ROWS]
        ],
    )


def window_limit(c: Connection, sender: Role) -> dict[str, Any] | None:
    """How ``sender``'s data flow was bound by the receiver's window, or None if it was not."""
    d = c.side(sender)
    rcv = c.side(_other(sender))
    window = rcv.window_median
    if not window or not d.throughput or d.payload_bytes < max(65536, 8 * window):
        return None
    rtts = [x for x in (c.initial_rtt, d.rtt_median) if x]
    if not rtts:
        return None
    rtt = max(rtts)
    cap = window / rtt
    pinned = d.window_pinned_packets / d.window_checked_packets if d.window_checked_packets >= 20 else 0.0
    share = d.throughput / cap
    if pinned < PINNED_SHARE_MIN and not (WINDOW_RATE_SHARE <= share <= 1.5):
        return None
    # The rate alone is no proof: the bytes in flight must have reached the window at least once.
    reached = d.max_in_flight >= PINNED_REACHED * window
    if pinned < PINNED_SHARE_MIN and not reached:
        return None
    return {
        "connection": c.id,
        "sender": sender,
        "window": window,
        "window_max": rcv.window_max,
        "window_scaled": rcv.window_scaled,
        "rtt": rtt,
        "cap": cap,
        "throughput": d.throughput,
        "throughput_share_of_cap": share,
        "pinned_share": pinned,
        "bytes": d.payload_bytes,
        "flat": bool(rcv.window_max and rcv.window_max <= 1.1 * window),
        "max_in_flight": d.max_in_flight,
    }


def _window_limited(conns: ConnectionTable) -> tuple[list[dict[str, Any]], dict[int, Connection]]:
    """``window_limit`` of every (connection, sender) it holds for, in table order, and those connections.

    Only transfers of at least 64 KiB under a known window can be window-bound: the rest are not built."""
    may = np.zeros(len(conns), np.bool_)
    for sender in ROLES:
        may |= (conns.side(sender, "payload") >= 65536) & (conns.window_median(_other(sender)) > 0)
    by_id = {c.id: c for c in conns.rows(np.flatnonzero(may))}
    rows = [r for c in by_id.values() for sender in ROLES if (r := window_limit(c, sender)) is not None]
    return rows, by_id


def receive_window_limited_finding(index: int, conns: ConnectionTable) -> Finding | None:
    rows: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    limited, by_id = _window_limited(conns)
    for r in limited:
        (rows if r["window_scaled"] else unknown).append(r)
    if not rows:
        return window_scale_unknown_note(index, unknown, by_id) if unknown else None
    window = int(statistics.median(r["window"] for r in rows))
    rtt = statistics.median(r["rtt"] for r in rows)
    cap = window / rtt
    tput = statistics.median(r["throughput"] for r in rows)
    flat = sum(1 for r in rows if r["flat"])
    receiver = _other(statistics.mode(r["sender"] for r in rows))
    scaled = all(r["window_scaled"] for r in rows)
    title = (
        f"Throughput capped by a {window:,}-byte receive window on {_plural(len(rows), 'transfer')}: "
        f"{fmt_rate(cap).split(' (')[0]} at {fmt_s(rtt)} RTT"
    )
    pinned_rows = [r for r in rows if r["pinned_share"] >= PINNED_SHARE_MIN]
    parts = [
        f"The {receiver} advertised a receive window of {window:,} bytes (median"
        + ("" if scaled else ", raw: the handshake was not captured so the scale is unknown")
        + f"); at a round trip of {fmt_s(rtt)} that allows at most {fmt_rate(cap)}, "
        f"and the transfers ran at {fmt_rate(tput)} (median).",
    ]
    if pinned_rows:
        parts.append(
            f"On {_plural(len(pinned_rows), 'transfer')} the bytes in flight sat at the window for "
            f"{statistics.median(r['pinned_share'] for r in pinned_rows):.0%} of data packets (seen at the sender)."
        )
    else:
        parts.append("Throughput per round trip matches the advertised window (seen at the receiver).")
    if flat:
        parts.append(
            f"The window stayed flat on {flat:,} of them: the receive buffer did not grow, as when the "
            "application sets SO_RCVBUF (which turns off receive autotuning). The window a given SO_RCVBUF "
            "yields depends on the kernel: for 64 KiB about 65,536 bytes before Linux 6.6, 32,768 with 6.6's "
            "initial scaling_ratio."
        )
    biggest = max(rows, key=lambda r: r["bytes"])
    parts.append(
        f"At this rate the largest of these transfers ({biggest['bytes']:,} bytes, connection "
        f"{biggest['connection']}) needs {biggest['bytes'] / cap:,.1f} s."
    )
    layer: Layer = "application" if flat * 2 >= len(rows) else "kernel"
    refs = [
        _ref(index, by_id[r["connection"]], f"connection {r['connection']}: {r['window']:,}-byte window") for r in rows
    ]
    return _finding(
        "tcp.receive_window_limited",
        layer,
        "high" if len(rows) > 1 else "medium",
        title,
        " ".join(parts),
        refs,
        index,
        window=window,
        rtt=rtt,
        cap=cap,
        throughput=tput,
        receiver=receiver,
        window_scaled=scaled,
        transfers=len(rows),
        rows=rows[:MAX_DATA_ROWS],
    )


def window_scale_unknown_note(index: int, rows: list[dict[str, Any]], by_id: dict[int, Connection]) -> Finding:
    """The window looked like a limit, but the handshake (and so the window scale) was not captured."""
    raw = int(statistics.median(r["window"] for r in rows))
    title = (
        f"Receive window not judged on {_plural(len(rows), 'transfer')}: the window scale is unknown "
        "(the handshake was not captured)"
    )
    parts = [
        f"The receiver advertised {raw:,} (median, raw) on {_plural(len(rows), 'transfer')} whose handshake is not in "
        "the capture, so the window scale is unknown: the real window may be that many bytes or up to 16,384 "
        "times more.",
        "Whether the window capped the throughput cannot be told from this capture; one that includes the "
        "connection's SYN and SYN-ACK can.",
    ]
    refs = [
        _ref(index, by_id[r["connection"]], f"connection {r['connection']}: raw window {r['window']:,}") for r in rows
    ]
    return _finding(
        "tcp.receive_window_limited",
        "network",
        "info",
        title,
        " ".join(parts),
        refs,
        index,
        window=raw,
        window_scaled=False,
        transfers=len(rows),
        rows=rows[:MAX_DATA_ROWS],
    )


def _closed_while_sending(conns: ConnectionTable) -> list[Connection]:
    """The connections that may have been closed by one side while the other still sent: a SYN,
    a FIN, and data after a FIN or unacknowledged at one (``app_timeout_close`` decides which)."""
    fin = (conns.side("client", "fin_ts") >= 0) | (conns.side("server", "fin_ts") >= 0)
    late = np.zeros(len(conns), np.bool_)
    for role in ROLES:
        late |= (conns.side(role, "dapf_pkts") != 0) | (conns.side(role, "peer_unacked_at_fin") != 0)
    return conns.rows(np.flatnonzero((conns.side("client", "syn_count") != 0) & fin & late))


def app_timeout_close_finding(index: int, conns: ConnectionTable) -> Finding | None:
    best: tuple[Role, list[tuple[float, Connection]]] | None = None
    candidates = _closed_while_sending(conns)
    for closer in ROLES:
        ages = []
        for c in candidates:
            if c.first_fin_by != closer or c.first_fin_time is None or not c.syn_count:
                continue
            mine, theirs = c.side(closer), c.side(_other(closer))
            if not (theirs.data_after_peer_fin_packets or mine.peer_unacked_at_fin):
                continue
            ages.append((c.first_fin_time - c.syn_times[0].time, c))
        ages.sort(key=lambda x: x[0])
        lo = 0
        for hi in range(len(ages)):
            while ages[hi][0] - ages[lo][0] > max(TIMEOUT_SPREAD, 0.01 * ages[hi][0]):
                lo += 1
            group = ages[lo : hi + 1]
            big = len(group) >= TIMEOUT_MIN_CONNECTIONS and group[0][0] >= 1.0
            if big and (best is None or len(group) > len(best[1])):
                best = (closer, group)
        if best is None:  # fewer connections: only a round age (10.0 s, 30.0 s ± 2 %) says "a timer"
            rounds: dict[float, list[tuple[float, Connection]]] = defaultdict(list)
            for age, c in ages:
                if (r := _round_close(age, c)) is not None:
                    rounds[r].append((age, c))
            if rounds:
                r = max(rounds, key=lambda k: (len(rounds[k]), k))
                best = (closer, rounds[r])
    if best is None:
        return None
    closer, group = best
    ages_only = [a for a, _ in group]
    mid = statistics.median(ages_only)
    spread = max(abs(a - mid) for a in ages_only)
    rounded = round_age(mid) or (_round_close(group[0][0], group[0][1]) if len(group) == 1 else None)
    peer = _other(closer)
    after = sum(c.side(peer).data_after_peer_fin_bytes for _, c in group)
    unacked = sum(c.side(closer).peer_unacked_at_fin for _, c in group)
    single = len(group) == 1
    title = (
        f"{_plural(len(group), 'connection')} closed by the {closer} at {mid:.1f} s"
        + ("" if single else f" ± {spread:.2f} s")
        + f" while the {peer} was still sending: an application timeout"
    )
    when = (
        f"{mid:.2f} s after its first SYN"
        if single
        else f"at nearly the same age, {mid:.2f} s after the first SYN (from {min(ages_only):.2f} to "
        f"{max(ages_only):.2f} s)"
    )
    parts = [
        f"The {closer} sent the first FIN on {_plural(len(group), 'connection')} {when}, while the {peer} "
        f"still had data in flight ({unacked:,} bytes unacknowledged at the FIN{'' if single else 's'}, "
        f"{after:,} bytes sent after {'it' if single else 'them'}).",
        (
            f"{mid:.2f} s is within {ROUND_AGE_TOLERANCE:.0%} of a round {rounded:g} s: "
            if rounded is not None and single
            else ""
        )
        + f"a connection ended by a clock, not by the data: look for a {rounded or mid:.0f} s timeout in the "
        f"{closer} application (a read or request timeout), and for why the transfer needed longer than that.",
    ]
    refs = [
        _ref(
            index,
            c,
            f"connection {c.id}: FIN by the {closer} at {age:.2f} s",
            packets=(c.first_packet, c.side(closer).fin_packet or c.last_packet),
            time=(c.first_time, c.first_fin_time),
        )
        for age, c in group
    ]
    return _finding(
        "tcp.app_timeout_close",
        "application",
        "medium" if single else "high",
        title,
        " ".join(parts),
        refs,
        index,
        closer=closer,
        age=mid,
        round_age=rounded,
        spread=spread,
        connections=len(group),
        peer_bytes_after_fin=after,
        peer_unacked_at_fin=unacked,
        connection_ids=[c.id for _, c in group][:MAX_DATA_ROWS],
    )


def rst_after_fin_finding(index: int, conns: ConnectionTable) -> Finding | None:
    picks = np.flatnonzero(_per_side(conns, "rst_after_fin_pkt"))
    if not len(picks):
        return None
    # What the peer sent after each closer's FIN (position k ^ 1 is the other side of the same connection).
    after_bytes, after_packets = _per_side(conns, "dapf_bytes"), _per_side(conns, "dapf_pkts")
    late_bytes = after_bytes[picks ^ 1]
    chatter = (late_bytes <= CLOSE_CHATTER_BYTES) & (after_packets[picks ^ 1] <= CLOSE_CHATTER_PACKETS)
    discarded_picks = picks[~chatter]
    by_role = _by_role(picks)
    closer = max(ROLES, key=lambda r: by_role[r])
    total = int(late_bytes.sum())
    most = int(late_bytes.max())
    n_rows, n_discarded = len(picks), len(discarded_picks)
    rows = _sides(conns, (discarded_picks if n_discarded else picks)[:MAX_REFS])  # the ones cited

    def late(c: Connection, r: Role) -> Direction:
        return c.side(_other(r))  # what the peer sent after r's FIN

    if n_discarded:
        lost = int(late_bytes[~chatter].sum())
        title = (
            f"Data after a FIN answered with RST on {_plural(n_discarded, 'connection')} "
            f"(by the {closer}): {fmt_bytes(lost)} discarded"
        )
        parts = [
            f"On {_plural(n_discarded, 'connection')} one side sent FIN, the other kept sending "
            f"({lost:,} bytes after the FINs, up to {most:,} on one connection), and the side that had closed "
            f"answered with RST (the {closer} on {by_role[closer]:,} of {_plural(n_rows, 'connection')}).",
            "The RSTs come from a socket the application already closed, not from the network: the data "
            "after the FIN was thrown away; see why the application closed while data was still coming.",
        ]
        if n_rows > n_discarded:
            parts.append(
                f"On {_plural(n_rows - n_discarded, 'other connection')} only a few bytes followed the FIN "
                f"(at most {CLOSE_CHATTER_BYTES:,} in {CLOSE_CHATTER_PACKETS} packets): an ordinary close."
            )
    else:
        title = (
            f"Ordinary close answered with RST on {_plural(n_rows, 'connection')}: "
            f"at most {fmt_bytes(most)} after the FIN"
        )
        parts = [
            f"On {_plural(n_rows, 'connection')} one side sent FIN and the other answered with a few bytes "
            f"({total:,} in all, at most {most:,} on one connection: a TLS close_notify or alert, a goodbye line), "
            f"which the side that had closed answered with RST (the {closer} on {by_role[closer]:,}).",
            "A socket closed with data still arriving resets; here the data is the close's own chatter, "
            "so nothing anyone waited for was lost.",
        ]
    refs = [
        _ref(
            index,
            c,
            f"connection {c.id}: RST by the {r} after its FIN, {fmt_bytes(late(c, r).data_after_peer_fin_bytes)} "
            "after it",
            packets=(d.fin_packet or c.first_packet, d.rst_after_fin_packet or c.last_packet),
            time=(d.fin_time, d.rst_after_fin_time),
        )
        for c, r, d in rows
    ]
    return _finding(
        "tcp.rst_after_fin",
        "application",
        "medium" if n_discarded else "info",
        title,
        " ".join(parts),
        refs,
        index,
        connections=n_rows,
        discarded_connections=n_discarded,
        by_closer=by_role,
        bytes_after_fin=total,
        max_bytes_after_fin=most,
        connection_ids=(picks[:MAX_DATA_ROWS] // 2).tolist(),
    )


def retransmissions_finding(index: int, conns: ConnectionTable) -> Finding | None:
    stats = {}
    for role in ROLES:
        data = int(conns.side(role, "data_pkts").sum())
        # Re-sends of bytes the peer had already acknowledged (at the capture point), ones the peer
        # reported receiving twice (D-SACK) and data sent again into a zero window (probing it) are
        # no sign of loss: counted apart, not in the rate.
        resent = conns.side(role, "resent_acked") + conns.side(role, "win_probes")
        data_rx = conns.side(role, "retrans_data")
        spurious = int(np.minimum(np.maximum(resent, conns.side(role, "dsacked")), data_rx).sum())
        rx = int(data_rx.sum()) - spurious
        rbytes = int(conns.side(role, "retrans_bytes").sum())
        stats[role] = {
            "data_packets": data,
            "retransmissions": rx,
            "already_acknowledged": spurious,
            "bytes": rbytes,
            "rate": rx / data if data else 0.0,
        }
    notable = [
        r for r in ROLES if stats[r]["retransmissions"] >= RETRANS_COUNT_MIN and stats[r]["rate"] >= RETRANS_RATE_MIN
    ]
    if not notable:
        return None
    worst = max(notable, key=lambda r: stats[r]["rate"])
    rate = stats[worst]["rate"]
    title = (
        f"Retransmission rate {stats['client']['rate']:.1%} client → server, "
        f"{stats['server']['rate']:.1%} server → client"
    )
    parts = [
        f"Clients retransmitted {stats['client']['retransmissions']:,} of {stats['client']['data_packets']:,} "
        f"data packets ({stats['client']['rate']:.2%}), servers {stats['server']['retransmissions']:,} of "
        f"{stats['server']['data_packets']:,} ({stats['server']['rate']:.2%}).",
        "Each retransmission is a segment the sender believed lost (or reordered); a rate above a few tenths "
        "of a percent slows loss-based congestion control noticeably.",
    ]
    not_counted = int(stats["client"]["already_acknowledged"] + stats["server"]["already_acknowledged"])
    if not_counted:
        parts.append(
            f"Not counted: {_plural(not_counted, 'data segment')} re-sent after the capture had seen the peer "
            "acknowledge them (the ACK was late or lost past the capture point), that the peer reported "
            "receiving twice (D-SACK: spurious retransmissions), or sent while the peer's window was zero "
            "(probing it)."
        )
    both = conns.side("client", "retrans") + conns.side("server", "retrans")
    retried = np.flatnonzero(both)
    top = conns.rows(_top(-both[retried], retried, MAX_REFS))
    refs = [
        _ref(index, c, f"connection {c.id}: {c.c2s.retransmissions} + {c.s2c.retransmissions} retransmissions")
        for c in top
    ]
    return _finding(
        "tcp.retransmissions",
        "network",
        "high" if rate >= 0.05 else "medium" if rate >= 0.02 else "low",
        title,
        " ".join(parts),
        refs,
        index,
        by_sender=stats,
    )


FINDERS: tuple[Callable[[int, ConnectionTable], Finding | None], ...] = (
    syn_retransmit_finding,
    ecn_syn_blackhole_finding,
    synack_retransmit_finding,
    rto_retransmit_finding,
    retransmissions_finding,
    zero_window_finding,
    receive_window_limited_finding,
    app_timeout_close_finding,
    rst_after_fin_finding,
)


#: Application deadlines that "round" close ages are compared with (seconds; ± ROUND_AGE_TOLERANCE).
ROUND_AGES = (1.0, 2.0, 3.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 300.0, 600.0)
ROUND_AGE_TOLERANCE = 0.02


def round_age(age: float) -> float | None:
    """The round deadline (10.0 s, 30.0 s ...) ``age`` is within 2 % of, or None."""
    for r in ROUND_AGES:
        if abs(age - r) <= ROUND_AGE_TOLERANCE * r:
            return r
    return None


def _round_close(age: float, c: Connection) -> float | None:
    """The round deadline a close at ``age`` (from the first SYN) is at, counted from the SYN or from
    the end of the handshake (an application's clock usually starts when connect returns)."""
    found = round_age(age)
    if found is None and c.initial_rtt:
        found = round_age(age - c.initial_rtt)
    return found


def deadline_closes(conns: ConnectionTable) -> list[dict[str, Any]]:
    """Connections an endpoint closed (first FIN) while its peer still had data in flight, with the age."""
    out = []
    for c in _closed_while_sending(conns):
        closer = c.first_fin_by
        if closer is None or c.first_fin_time is None or not c.syn_count:
            continue
        mine, theirs = c.side(closer), c.side(_other(closer))
        if not (theirs.data_after_peer_fin_packets or mine.peer_unacked_at_fin):
            continue
        age = c.first_fin_time - c.syn_times[0].time
        out.append({"connection": c.id, "closer": closer, "age_s": age, "round_s": _round_close(age, c),
                    "peer_bytes_after_fin": theirs.data_after_peer_fin_bytes,
                    "peer_unacked_at_fin": mine.peer_unacked_at_fin,
                    "client": c.client, "server": c.server})  # fmt: skip
    return out


def capture_facts(conns: ConnectionTable) -> dict[str, Any]:
    """What other evidence needs from a capture, kept in its summary (the console stores no rows for it):

    ``rtt``: the handshake RTT (median over connections whose handshake was captured) and the
    smallest data RTT, per connection too; ``largest_transfer``: the most payload one side of one
    connection sent; ``deadline_closes``: connections closed by an endpoint while the peer still
    had data in flight, with their age; ``receive_window``: the window that capped throughput, as
    ``tcp.receive_window_limited`` measured it (None when none did).
    """
    handshake = conns.handshake.initial_rtt  # -1: not captured
    lows = np.stack([conns.side(r, "rtt_min") for r in ROLES], axis=1)  # -1: no sample
    low = np.where(lows > 0, lows, -np.inf).max(axis=1)  # the larger of the two sides' smallest
    has_hs, has_low = handshake > 0, low > 0
    listed = np.flatnonzero(has_hs | has_low)[:MAX_DATA_ROWS]
    hs = handshake[has_hs]
    rtt = {
        # numpy's median: the same value as statistics.median's (the middle one, or the mean of the two), without
        # a Python float per connection.
        "handshake_s": float(np.median(hs)) if len(hs) else None,
        "handshake_connections": len(hs),
        "min_s": float(low[has_low].min()) if has_low.any() else None,
        "min_connections": int(np.count_nonzero(has_low)),
        "connections": [
            {"connection": i, "handshake_s": h if h >= 0 else None, "min_s": m if m > 0 else None}
            for i, h, m in zip(listed.tolist(), handshake[listed].tolist(), low[listed].tolist(), strict=True)
        ],
    }
    largest: dict[str, Any] | None = None
    payload = _per_side(conns, "payload")
    if len(payload) and payload.max() > 0:
        k = int(np.argmax(payload))  # the first of the largest, in table order
        [(c, role, d)] = _sides(conns, np.array([k]))
        span = (d.last_data_time - d.first_data_time) if d.first_data_time and d.last_data_time else None
        largest = {"bytes": d.payload_bytes, "connection": c.id, "sender": role, "seconds": span}
    rows, _ = _window_limited(conns)
    window = None
    if rows:
        window = {
            "window": int(statistics.median(r["window"] for r in rows)),
            "window_max": max(int(r["window_max"] or 0) for r in rows),
            "receiver": _other(statistics.mode(r["sender"] for r in rows)),
            "rtt_s": statistics.median(r["rtt"] for r in rows),
            "transfers": len(rows),
            "flat": sum(1 for r in rows if r["flat"]),
        }
    servers = np.where(conns.client == 0, conns.conn("b_port"), conns.conn("a_port"))[conns.roles_known]
    ports = np.unique(servers).tolist()
    return {
        "rtt": rtt,
        "server_ports": ports[:MAX_DATA_ROWS],
        "server_port_count": len(ports),
        "largest_transfer": largest,
        "deadline_closes": deadline_closes(conns)[:MAX_DATA_ROWS],
        "receive_window": window,
    }


def tcp_findings(index: int, conns: ConnectionTable) -> list[Finding]:
    """Every TCP finding the table supports, in checklist order."""
    out = []
    for finder in FINDERS:
        f = finder(index, conns)
        if f is not None:
            out.append(f)
    return out
