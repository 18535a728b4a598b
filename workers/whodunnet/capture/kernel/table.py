"""The connection table: find each segment's connection and update its state.

Connections are rows of ``conns`` (``fields.Conn``), numbered in order of first packet like
Wireshark's ``tcp.stream``, found through an open-addressing hash table ``ht`` keyed by the
4-tuple (lower endpoint first). A SYN (without ACK) carrying another initial sequence number
than the one its side began with starts a new connection on the same 4-tuple: the
port-reuse rule Wireshark uses, so numbers and counts match tshark's. Each connection's two
sides are rows ``2 * id + side`` of ``sides`` (``fields.Side``).

``track_segment`` is the state machine, one step per concern: the handshake, a reset, what
the segment acknowledges of the peer's data (and the RTT sample that closes), the advertised
window, this side's data (new, retransmitted, reordered or a keep-alive) and the close.
"""

from __future__ import annotations

import numpy as np

from whodunnet.capture.constants import (
    DUP_RING,
    DUP_WINDOW,
    EV_RTO,
    EV_SYN,
    EV_SYNACK,
    HALF,
    M32,
    MAX_EXAMPLES,
    MAX_RTT_US,
    MAX_WSCALE,
    NO_ACK,
    PINNED_SHARE,
    RTO_IDLE,
    SACK_MIN_HEADER,
    SEG_CONTROL,
    SEG_DUPLICATE,
    SEG_KEEPALIVE,
    SEG_NEW,
    SEG_OUT_OF_ORDER,
    SEG_RESET,
    SEG_RETRANSMISSION,
    SEG_SYN_RETRY,
    SKETCH_RTT,
    SKETCH_WINDOW,
    TCP_HEADER,
    TCPOPT_TIMESTAMPS,
    TH_ACK,
    TH_CWR,
    TH_ECE,
    TH_FIN,
    TH_RST,
    TH_SYN,
    TLP_MIN,
    TLP_SLACK,
    WRAP,
)
from whodunnet.capture.fields import U64, Conn, Event, Ints, Key, Packet, Scan, Side
from whodunnet.capture.kernel import hot, jit
from whodunnet.capture.kernel.decode import first_sack_block, tcp_options
from whodunnet.capture.kernel.hashing import GOLDEN, mix, next_slot, slot_index
from whodunnet.capture.kernel.holes import fill_hole, forget_below, open_hole
from whodunnet.capture.kernel.sketch import add
from whodunnet.capture.kernel.types import Buffer, Rows

# ---- finding the connection ---------------------------------------------------------------


@jit
def key_hash(a_hi: U64, a_lo: U64, b_hi: U64, b_lo: U64, a_port: int, b_port: int, v6: bool) -> U64:
    h = mix(np.uint64(GOLDEN), a_hi)
    h = mix(h, a_lo)
    h = mix(h, b_hi)
    h = mix(h, b_lo)
    return mix(h, np.uint64((a_port << 17) | (b_port << 1) | (1 if v6 else 0)))


@jit
def same_key(k: Conn | Key, a_hi: U64, a_lo: U64, b_hi: U64, b_lo: U64, a_port: int, b_port: int, v6: bool) -> bool:
    return bool(
        k.a_ip_lo == a_lo
        and k.b_ip_lo == b_lo
        and k.a_port == a_port
        and k.b_port == b_port
        and k.a_ip_hi == a_hi
        and k.b_ip_hi == b_hi
        and k.v6 == v6
    )


@jit
def set_key(k: Conn | Key, a_hi: U64, a_lo: U64, b_hi: U64, b_lo: U64, a_port: int, b_port: int, v6: bool) -> None:
    k.a_ip_hi = a_hi
    k.a_ip_lo = a_lo
    k.b_ip_hi = b_hi
    k.b_ip_lo = b_lo
    k.a_port = a_port
    k.b_port = b_port
    k.v6 = v6


@jit
def lookup(
    ht: Ints, conns: Rows, keys: Rows, a_hi: U64, a_lo: U64, b_hi: U64, b_lo: U64, a_port: int, b_port: int, v6: bool
) -> tuple[int, int, int]:
    """(slot, row, retired id) of a 4-tuple's newest connection: its row when it is open, its id
    when it retired (the other one -1); (free slot, -1, -1) for a 4-tuple never seen.

    A slot holds an open connection's row + 1, or -(id + 1) of a retired one (its 4-tuple is in
    ``keys``): 0 is a free slot, so a fresh table is zeroed memory."""
    size = ht.shape[0]
    j = slot_index(key_hash(a_hi, a_lo, b_hi, b_lo, a_port, b_port, v6), size)
    while True:
        v = ht[j]
        if v == 0:
            return j, -1, -1
        if v > 0:
            if same_key(conns[v - 1], a_hi, a_lo, b_hi, b_lo, a_port, b_port, v6):
                return j, v - 1, -1
        elif same_key(keys[-v - 1], a_hi, a_lo, b_hi, b_lo, a_port, b_port, v6):
            return j, -1, -v - 1
        j = next_slot(j, size)


@jit
def rehash(ht: Ints, old: Ints, conns: Rows, keys: Rows) -> None:
    """Move every entry of the hash table ``old`` into the (larger, empty) ``ht``."""
    for i in range(old.shape[0]):
        v = old[i]
        if v == 0:
            continue
        if v > 0:
            k: Conn = conns[v - 1]
            j, _, _ = lookup(ht, conns, keys, k.a_ip_hi, k.a_ip_lo, k.b_ip_hi, k.b_ip_lo, k.a_port, k.b_port, k.v6)
        else:
            y: Key = keys[-v - 1]
            j, _, _ = lookup(ht, conns, keys, y.a_ip_hi, y.a_ip_lo, y.b_ip_hi, y.b_ip_lo, y.a_port, y.b_port, y.v6)
        ht[j] = v


@jit
def retire_rows(ht: Ints, conns: Rows, sides: Rows, keys: Rows, free: Ints, g: Scan, rows: Ints) -> None:
    """Free connection rows ``rows`` (their state is kept elsewhere): the hash table points at
    each one's id instead (unless a newer connection took its 4-tuple), its side bases are kept
    for the port-reuse rule, and the row goes on the ``free`` stack."""
    for i in range(rows.shape[0]):
        r = rows[i]
        k: Conn = conns[r]
        c = k.cid
        keys[c].seq_base[0] = sides[2 * r].seq_base
        keys[c].seq_base[1] = sides[2 * r + 1].seq_base
        j, row, _ = lookup(ht, conns, keys, k.a_ip_hi, k.a_ip_lo, k.b_ip_hi, k.b_ip_lo, k.a_port, k.b_port, k.v6)
        if row == r:
            ht[j] = -(c + 1)
        k.cid = -1
        free[g.n_free] = r
        g.n_free += 1


@jit
def silent_rows(
    conns: Rows, sides: Rows, slots: int, now: float, closed_after: float, idle_after: float, out: Ints
) -> int:
    """The rows of open connections silent for longer than they may be at time ``now``: ``closed_after`` once
    closed (a FIN each way, or a RST), ``idle_after`` otherwise. Into ``out`` in ascending order (room for
    ``slots``); returns how many. One pass over the rows in use, each read once."""
    n = 0
    for r in range(slots):
        k: Conn = conns[r]
        if k.cid < 0:
            continue
        s0: Side = sides[2 * r]
        s1: Side = sides[2 * r + 1]
        closed = (s0.fin_ts >= 0 and s1.fin_ts >= 0) or s0.rst_ts >= 0 or s1.rst_ts >= 0
        if now - k.last_ts > (closed_after if closed else idle_after):
            out[n] = r
            n += 1
    return n


@jit
def gather_columns(
    src: Buffer,
    src_words: Ints,
    at: Ints,
    dst: Buffer,
    dst_words: Ints,
    word_from: Ints,
    word_to: Ints,
    word_step: Ints,
    byte_from: Ints,
    byte_to: Ints,
    byte_step: Ints,
) -> None:
    """Fields of rows ``at`` of ``src`` (a record type's rows as bytes, one per line) as columns, by a plan
    (``scanner.Columns.of``): row ``i``'s 64-bit word ``word_from[j]`` goes to ``dst_words[word_to[j] + i *
    word_step[j]]``, and its byte ``byte_from[j]`` (fields not made of whole, aligned words) to ``dst[byte_to[j]
    + i * byte_step[j]]``. ``src_words`` and ``dst_words`` are the same memory as 64-bit words. One pass over
    each source row, one flat loop per row with nothing decided inside it: a loop per field, with the field's
    size and alignment tested for each row, cost 1.5 times as long."""
    for i in range(at.shape[0]):
        r = at[i]
        words = src_words[r]
        for j in range(word_from.shape[0]):
            dst_words[word_to[j] + i * word_step[j]] = words[word_from[j]]
        row = src[r]
        for j in range(byte_from.shape[0]):
            dst[byte_to[j] + i * byte_step[j]] = row[byte_from[j]]


@jit
def new_connection(
    conns: Rows,
    sides: Rows,
    conn0: Rows,
    side0: Rows,
    keys: Rows,
    free: Ints,
    g: Scan,
    pk: Packet,
    a_hi: U64,
    a_lo: U64,
    b_hi: U64,
    b_lo: U64,
    a_port: int,
    b_port: int,
) -> int:
    """A row for the next connection (a retired one's from ``free``, else the next unused), its
    two side rows started from the templates ``conn0[0]`` and ``side0[0]`` (unused rows are
    zeroed memory, see ``fields.MappedRows``), and its 4-tuple in ``keys``."""
    if g.n_free:
        g.n_free -= 1
        r = int(free[g.n_free])
    else:
        r = g.slots
        g.slots += 1
    c = g.conns
    g.conns += 1
    conns[r] = conn0[0]
    sides[2 * r] = side0[0]
    sides[2 * r + 1] = side0[0]
    k: Conn = conns[r]
    k.cid = c
    set_key(k, a_hi, a_lo, b_hi, b_lo, a_port, b_port, pk.v6)
    k.first_pkt = pk.frame
    k.last_pkt = pk.frame
    k.first_ts = pk.ts
    k.last_ts = pk.ts
    y: Key = keys[c]
    set_key(y, a_hi, a_lo, b_hi, b_lo, a_port, b_port, pk.v6)
    y.seq_base[0] = -1
    y.seq_base[1] = -1
    y.spill_at = -1
    return r


@hot
def find_connection(
    pk: Packet, conns: Rows, sides: Rows, conn0: Rows, side0: Rows, ht: Ints, keys: Rows, free: Ints, g: Scan
) -> bool:
    """The connection and side of the segment in ``pk`` (``Packet.conn``, ``.slot``, ``.side``),
    starting a new connection when it is one. False when it belongs to a retired connection:
    ``Scan.revive`` and ``Scan.revive_at`` say which, for Python to bring it back first."""
    src_first = pk.src_hi < pk.dst_hi or (
        pk.src_hi == pk.dst_hi and (pk.src_lo < pk.dst_lo or (pk.src_lo == pk.dst_lo and pk.sport <= pk.dport))
    )
    if src_first:
        d = 0
        a_hi, a_lo, a_port, b_hi, b_lo, b_port = pk.src_hi, pk.src_lo, pk.sport, pk.dst_hi, pk.dst_lo, pk.dport
    else:
        d = 1
        a_hi, a_lo, a_port, b_hi, b_lo, b_port = pk.dst_hi, pk.dst_lo, pk.dport, pk.src_hi, pk.src_lo, pk.sport
    j, r, retired = lookup(ht, conns, keys, a_hi, a_lo, b_hi, b_lo, a_port, b_port, pk.v6)
    syn = pk.tcp_flags & (TH_SYN | TH_ACK) == TH_SYN
    if retired >= 0:
        base = keys[retired].seq_base[d]
        if not (syn and base != -1 and base != pk.seq):
            g.revive = retired
            g.revive_at = j
            return False
    elif r >= 0 and syn:
        base = sides[2 * r + d].seq_base
        if base != -1 and base != pk.seq:
            r = -1  # port reuse: a new initial sequence number, a new connection
    if r < 0:
        if ht[j] == 0:
            g.ht_used += 1
        r = new_connection(conns, sides, conn0, side0, keys, free, g, pk, a_hi, a_lo, b_hi, b_lo, a_port, b_port)
        ht[j] = r + 1
    pk.slot = r
    pk.conn = conns[r].cid
    pk.side = d
    return True


# ---- updating it ----------------------------------------------------------------------------


@jit
def unwrap(rel32: int, near: int) -> int:
    """A 32-bit relative sequence number as the 64-bit one nearest ``near``."""
    diff = (rel32 - near) & M32
    if diff >= HALF:
        diff -= WRAP
    return near + diff


@jit
def keep_example(events: Rows, g: Scan, row: int, kind: int, n: int, ts: float, value: float, frame: int) -> int:
    """Keep one of a side's first MAX_EXAMPLES events of a kind in the event pool (the scan
    loop keeps a free row); ``n`` is how many it kept; returns the new count."""
    if n < MAX_EXAMPLES:
        e: Event = events[g.n_events]
        g.n_events += 1
        e.row = row
        e.kind = kind
        e.frame = frame
        e.time = ts
        e.value = value
        return n + 1
    return n


@jit
def start_side(s: Side, seq: int, syn: bool, ts: float) -> None:
    """A side's first segment: Wireshark's base is the SYN's own number, or one before it."""
    s.seq_base = seq if syn else (seq - 1) & M32
    s.max_end = 0 if syn else 1
    s.first_ts = ts


@jit
def track_syn(buf: Buffer, pk: Packet, k: Conn, s: Side, p: Side, d: int, row: int, events: Rows, g: Scan) -> None:
    """A SYN or SYN-ACK: who the client is, retries, ECN setup flags and handshake options."""
    ts = pk.ts
    flags = pk.tcp_flags
    if flags & TH_ACK:
        if k.client == -1:
            k.client = 1 - d
        s.synack_count += 1
        ecn = flags & (TH_ECE | TH_CWR) == TH_ECE  # ECN accepted
        s.n_synack_ev = keep_example(events, g, row, EV_SYNACK, s.n_synack_ev, ts, 1.0 if ecn else 0.0, pk.frame)
    else:
        if k.client == -1:
            k.client = d
        s.syn_count += 1
        ecn = flags & (TH_ECE | TH_CWR) == TH_ECE | TH_CWR  # ECN setup asked
        if not s.n_syn_ev:
            s.first_syn_ts = ts
        s.n_syn_ev = keep_example(events, g, row, EV_SYN, s.n_syn_ev, ts, 1.0 if ecn else 0.0, pk.frame)
    s.isn = pk.seq
    s.syn_win = pk.win
    mss, ws, sack, tsopt = tcp_options(buf, pk)
    if mss >= 0:
        s.mss = mss
    s.wscale = ws
    s.sack = s.sack or sack
    s.tsopt = s.tsopt or tsopt
    if flags & TH_ACK and p.syn_count and not k.scale_known:
        # RFC 7323: windows are scaled only when both the SYN and the SYN-ACK offered a scale.
        k.scale_known = True
        if ws >= 0 and p.wscale >= 0:
            k.scale[d] = min(ws, MAX_WSCALE)
            k.scale[1 - d] = min(p.wscale, MAX_WSCALE)


@jit
def track_handshake_ack(k: Conn, s: Side, p: Side, d: int, ts: float, frame: int) -> None:
    """The client's first ACK after a SYN-ACK completes the handshake and gives the initial
    RTT, which from then on tells reordering from retransmission (``Conn.ooo_thresh``)."""
    if k.hs_ack_ts < 0 and d == k.client and p.synack_count:
        k.hs_ack_ts = ts
        k.hs_ack_pkt = frame
        if s.n_syn_ev and ts > s.first_syn_ts:
            k.ooo_thresh = ts - s.first_syn_ts


@jit
def track_reset(s: Side, p: Side, ts: float, frame: int) -> None:
    """A RST: the first one, and whether it answers data the peer sent after this side's FIN."""
    if s.rst_ts < 0:
        s.rst_ts = ts
        s.rst_pkt = frame
    if s.fin_ts >= 0 and p.dapf_pkts and s.rst_after_fin_ts < 0:
        s.rst_after_fin_ts = ts
        s.rst_after_fin_pkt = frame


@jit
def take_rtt_sample(entries: Rows, g: Scan, p: Side, prow: int, sample: float) -> None:
    """One RTT sample of the peer's data (seconds), kept in µs in its sketch."""
    add(entries, g, p, prow, SKETCH_RTT, int(min(sample * 1e6, MAX_RTT_US)))
    p.rtt_n += 1
    if p.rtt_min < 0 or sample < p.rtt_min:
        p.rtt_min = sample
    p.rtt_max = max(p.rtt_max, sample)


@hot
def track_ack(entries: Rows, g: Scan, p: Side, prow: int, ack: int, ts: float) -> int:
    """What this segment acknowledges of the peer's data; returns it relative to the peer's base."""
    a = unwrap((ack - p.seq_base) & M32, p.max_end)
    if not p.ack_valid or a > p.acked:
        p.acked = a
        p.ack_valid = True
        if p.n_holes and p.holes[0, 0] < a:
            forget_below(p, a)
    if p.timed_end and a >= p.timed_end:
        sample = ts - p.timed_ts
        p.timed_end = 0
        if sample >= 0:
            take_rtt_sample(entries, g, p, prow, sample)
    return a


@jit
def track_window(
    entries: Rows, g: Scan, k: Conn, s: Side, row: int, d: int, win: int, fin: bool, ts: float, frame: int
) -> None:
    """The window this side advertised (scaled when known), and zero windows with their time."""
    w = win << k.scale[d]
    s.win_last = w
    add(entries, g, s, row, SKETCH_WINDOW, w)
    if s.win_min < 0 or w < s.win_min:
        s.win_min = w
    s.win_max = max(s.win_max, w)
    if win == 0 and not fin:
        s.zero_count += 1
        if s.zero_start < 0:
            s.zero_start = ts
            if not s.zero_first_pkt:
                s.zero_first_pkt = frame
    elif win and s.zero_start >= 0:
        s.zero_total += ts - s.zero_start
        s.zero_start = -1.0


@jit
def count_retransmission(
    k: Conn,
    s: Side,
    p: Side,
    payload: int,
    rel: int,
    seg_end: int,
    idle: float,
    ts: float,
    frame: int,
) -> None:
    """A retransmission, by what set it off: a re-send of bytes already acknowledged (the ACK was
    lost after the capture point: nothing waited on a loss), a tail loss probe, a timeout
    (RTO-style: after ≥ RTO_IDLE of silence) or else fast; no RTT from it (Karn)."""
    s.retrans += 1
    s.retrans_bytes += payload
    if payload:
        s.retrans_data += 1
    since = ts - s.last_send_ts if s.last_send_ts >= 0 else 0.0
    rtt_lo, rtt_hi = (s.rtt_min, s.rtt_max) if s.rtt_n else (k.ooo_thresh, k.ooo_thresh)
    probe_time = max(2 * rtt_lo, TLP_MIN) <= since <= 2 * rtt_hi + TLP_SLACK
    if s.ack_valid and seg_end <= s.acked:
        s.resent_acked += 1
    elif not payload:  # a FIN alone again: the close was not acknowledged, no request waits on it
        s.fin_resends += 1
    elif p.zero_start >= 0:  # the peer's window is zero: probing it (with data), not repairing a loss
        s.win_probes += 1
    elif seg_end == s.max_end and s.resent_end < seg_end and probe_time and (k.hs_ack_ts < 0 or (s.sack and p.sack)):
        s.tlp += 1
        s.tlp_wait += since
    elif idle >= RTO_IDLE:
        s.rto += 1
        s.rto_wait += idle
    s.resent_end = max(s.resent_end, seg_end)
    if s.timed_end and rel < s.timed_end:
        s.timed_end = 0
    s.max_end = max(s.max_end, seg_end)


@jit
def timestamps_only(buf: Buffer, pk: Packet) -> bool:
    """The usual options of an ACK, NOP NOP timestamps and nothing else: no SACK block to read."""
    p = pk.l4 + TCP_HEADER
    return pk.doff == TCP_HEADER + 12 and p + 3 <= pk.end and int(buf[p + 2]) == TCPOPT_TIMESTAMPS


@jit
def dsack(buf: Buffer, pk: Packet) -> bool:
    """Whether the segment's first SACK block lies at or below its cumulative ACK (RFC 2883's
    D-SACK: the sender of the segment received those bytes twice)."""
    left, right = first_sack_block(buf, pk)
    if left < 0 or left == right:
        return False
    below = (int(pk.ack) - int(right)) & M32
    return below < HALF


@jit
def fingerprint(pk: Packet) -> int:
    """A 62-bit hash of what two copies of one packet share (see DUP_RING)."""
    h = mix(np.uint64(GOLDEN), np.uint64(int(pk.seq)))
    h = mix(h, np.uint64(int(pk.ack)))
    h = mix(h, np.uint64(int(pk.payload) & M32))
    shape = (int(pk.tcp_flags) << 32) | ((int(pk.win) & 0xFFFF) << 16) | (int(pk.tcp_sum) & 0xFFFF)
    h = mix(h, np.uint64(shape))
    h = mix(h, np.uint64(int(pk.ip_id) & 0x1FFFF))
    return int(np.int64(h >> np.uint64(2)))  # int64 (numba compares an int64 with a uint64 as floats)


@hot
def captured_twice(buf: Buffer, k: Conn, s: Side, pk: Packet, g: Scan) -> bool:
    """Whether this segment is one of this side's recent segments seen again (a capture
    duplicate, see DUP_RING); otherwise it joins them."""
    ts = pk.ts
    fp = fingerprint(pk)
    for i in range(DUP_RING):
        if s.recent_fp[i] == fp:
            dt = ts - s.recent_ts[i]
            same = 0 <= dt <= DUP_WINDOW
            if same and pk.ip_id <= 0:
                # No identification: only the TCP timestamp (under the same checksum) tells a copy
                # from a resend (which carries a fresh one), and only for segments with sequence
                # space (identical pure ACKs are sent, as duplicate ACKs).
                seq_space = pk.payload > 0 or pk.tcp_flags & (TH_SYN | TH_FIN) != 0
                same = seq_space and dt < k.ooo_thresh and tcp_options(buf, pk)[3]
            if same:
                g.dup_packets += 1
                if s.recent_ttl[i] != pk.ttl:
                    g.dup_ttl += 1
                s.dups += 1
                s.recent_ts[i] = ts  # a third copy is measured from the second
                return True
    i = s.n_recent
    s.n_recent = (i + 1) % DUP_RING
    s.recent_fp[i] = fp
    s.recent_ttl[i] = pk.ttl
    s.recent_ts[i] = ts
    return False


@jit
def track_in_flight(s: Side, p: Side) -> None:
    """Bytes in flight when this side sent data, and whether they stood at the peer's window."""
    inflight = s.max_end - s.acked
    s.max_inflight = max(s.max_inflight, inflight)
    if p.win_last > 0:
        s.pinned_checked += 1
        if inflight >= PINNED_SHARE * p.win_last:
            s.pinned += 1


@hot
def track_data(
    k: Conn,
    s: Side,
    p: Side,
    rel: int,
    seglen: int,
    payload: int,
    syn: bool,
    fin: bool,
    ts: float,
    idle: float,
    frame: int,
) -> int:
    """This side's sequence space: new, a SYN retry, a keep-alive, reordered or retransmitted.

    Returns the SEG_* class.
    """
    if not seglen:
        if rel == s.max_end - 1 and s.ack_valid and s.acked >= s.max_end:
            s.keepalives += 1  # a zero-byte keep-alive (or window probe): snd_una - 1
            return SEG_KEEPALIVE
        return SEG_CONTROL
    if payload:
        s.data_pkts += 1
        if s.first_data_ts < 0:
            s.first_data_ts = ts
        s.last_data_ts = ts
        if p.fin_ts >= 0:
            s.dapf_pkts += 1
            s.dapf_bytes += payload
    seg_end = rel + seglen
    max_end = s.max_end
    if seg_end > max_end and rel >= max_end:
        kind = SEG_NEW
        if payload and not s.timed_end:
            s.timed_end = seg_end
            s.timed_ts = ts
        if rel > max_end and not syn:
            open_hole(s, max_end, rel)
        s.max_end = seg_end
        s.adv_ts = ts
    elif syn:
        kind = SEG_SYN_RETRY
    elif payload <= 1 and not fin and rel == max_end - 1 and s.ack_valid and s.acked >= max_end:
        # A keep-alive repeats the last byte the peer already acknowledged (seq = snd_una - 1);
        # the same byte unacknowledged is a retransmission (a one-byte request re-sent).
        s.keepalives += 1
        kind = SEG_KEEPALIVE
    elif fill_hole(s, rel, min(seg_end, max_end)) and ts - s.adv_ts < k.ooo_thresh and seg_end != max_end:
        # Space never seen here, soon after the highest segment: reordered (Wireshark's rule).
        # Space already seen is always a retransmission, however soon it comes.
        s.ooo += 1
        kind = SEG_OUT_OF_ORDER
    else:
        kind = SEG_RETRANSMISSION
        count_retransmission(k, s, p, payload, rel, seg_end, idle, ts, frame)
    if payload and s.ack_valid:
        track_in_flight(s, p)
    s.last_send_ts = ts
    return kind


@jit
def track_fin(s: Side, p: Side, ts: float, frame: int) -> None:
    """This side's first FIN, and how much of the peer's data it had not acknowledged."""
    s.fin_ts = ts
    s.fin_pkt = frame
    if p.ack_valid:
        s.peer_unacked_at_fin = max(0, p.max_end - p.acked)


@hot
def track_segment(buf: Buffer, pk: Packet, conns: Rows, sides: Rows, entries: Rows, events: Rows, g: Scan) -> None:
    """Update the segment's connection (``Packet.conn``) with it; the table's view of the
    segment (relative numbers, SEG_* class) goes back into ``pk``."""
    d = pk.side
    k: Conn = conns[pk.slot]
    row = 2 * pk.conn + d  # events and sketches name a side by its connection id
    s: Side = sides[2 * pk.slot + d]
    p: Side = sides[2 * pk.slot + (d ^ 1)]
    ts = pk.ts
    frame = pk.frame
    flags = pk.tcp_flags
    idle = ts - k.last_ts
    k.last_ts = ts
    k.last_pkt = frame
    s.pkts += 1
    s.payload += pk.payload
    s.flags_sent |= flags
    syn = flags & TH_SYN != 0
    fin = flags & TH_FIN != 0
    pk.seglen = pk.payload + (1 if syn else 0) + (1 if fin else 0)
    if s.seq_base == -1:
        start_side(s, pk.seq, syn, ts)
    rel = unwrap((pk.seq - s.seq_base) & M32, s.max_end)
    pk.rel_seq = rel
    pk.rel_ack = NO_ACK
    if captured_twice(buf, k, s, pk, g):
        pk.kind = SEG_DUPLICATE
        return
    if syn:
        track_syn(buf, pk, k, s, p, d, row, events, g)
    elif flags & TH_ACK:
        track_handshake_ack(k, s, p, d, ts, frame)
    if flags & TH_RST:
        track_reset(s, p, ts, frame)
        pk.kind = SEG_RESET
        return
    if flags & TH_ACK and p.seq_base != -1:
        pk.rel_ack = track_ack(entries, g, p, row ^ 1, pk.ack, ts)
        if pk.doff >= SACK_MIN_HEADER and not timestamps_only(buf, pk) and dsack(buf, pk):
            p.dsacked += 1  # RFC 2883: a first SACK block at or below the ACK reports a duplicate
    if not syn and pk.win >= 0:  # SYN windows are never scaled
        track_window(entries, g, k, s, row, d, pk.win, fin, ts, frame)
    rto = s.rto
    pk.kind = track_data(k, s, p, rel, pk.seglen, pk.payload, syn, fin, ts, idle, frame)
    if s.rto != rto:  # an RTO-style retransmission: keep it as an example (here, not in track_data,
        # whose every call would otherwise carry the event pool)
        s.n_rto_ex = keep_example(events, g, row, EV_RTO, s.n_rto_ex, ts, idle, frame)
    if fin and s.fin_ts < 0:
        track_fin(s, p, ts, frame)
