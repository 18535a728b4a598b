"""Per-packet decoding (link layer → IPv4/IPv6 → TCP) and the per-connection state machine.

``TcpDecoder.packet`` is the hot path: one method, local variables, ``struct.unpack_from``
on the shared buffer, bounds checked against the captured length so no content can make
it raise. It hands each TCP segment to ``segment``; ``TcpTable`` keeps one ``ConnState``
per TCP connection there (sequence tracking, handshake, retransmissions, windows, RTT,
close), so memory grows with connections, never with packets. ``ConnectionScanner``
re-walks a capture for a few chosen connections with the same numbering.
"""

from __future__ import annotations

from struct import Struct
from typing import Any

from whodunnet.capture.sketch import Sketch

_V4_ADDRS = Struct("!II").unpack_from
_TCP_HEAD = Struct("!HHIIHH").unpack_from
_TCP_HEAD14 = Struct("!HHIIH").unpack_from

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
_VLAN_TPIDS = frozenset({0x8100, 0x88A8, 0x9100, 0x9200, 0x9300})
# IPv6 extension headers we walk through (fragment 44 and AH 51 are handled apart).
_IPV6_EXT = frozenset({0, 43, 60, 135, 139, 140, 253, 254})

TH_FIN = 0x01
TH_SYN = 0x02
TH_RST = 0x04
TH_ACK = 0x10
TH_ECE = 0x40
TH_CWR = 0x80

#: Silence (no packet of the connection either way) before a retransmission that makes it
#: "RTO-style": Linux's minimum retransmission timeout is 200 ms.
RTO_IDLE = 0.2
#: Bytes in flight at or above this share of the peer's advertised window count as "pinned".
PINNED_SHARE = 0.85
#: How many examples (SYN times, retransmission packets...) a connection keeps.
MAX_EXAMPLES = 8
#: Gaps in the sequence space a side has sent (seen jumps not yet filled) that are tracked.
#: A segment inside one fills space never seen (reordering or a resend of a segment lost before
#: the capture point); anything else below the highest sequence re-sends bytes this capture
#: already saw, which only a retransmission does. When more gaps open, the lowest is
#: forgotten (its space then counts as seen). The numba kernel keeps the same bound.
MAX_HOLES = 8

#: RTT samples are kept in microseconds as 64-bit integers by the compiled path; a corrupt
#: timestamp can make one absurd, so both paths clamp it here (2**62 µs, ~146,000 years).
MAX_RTT_US = float(1 << 62)

M32 = 0xFFFFFFFF
HALF = 1 << 31
WRAP = 1 << 32

Key = tuple[Any, int, Any, int]


def parse_options(buf: bytes, p: int, stop: int) -> tuple[int, int, bool, bool]:
    """(MSS or -1, window scale or -1, SACK permitted, timestamps) from TCP options."""
    mss = ws = -1
    sack = tsopt = False
    while p < stop:
        kind = buf[p]
        if kind == 0:
            break
        if kind == 1:
            p += 1
            continue
        if p + 1 >= stop:
            break
        olen = buf[p + 1]
        if olen < 2 or p + olen > stop:
            break
        if kind == 2 and olen == 4:
            mss = (buf[p + 2] << 8) | buf[p + 3]
        elif kind == 3 and olen == 3:
            ws = buf[p + 2]
        elif kind == 4:
            sack = True
        elif kind == 8:
            tsopt = True
        p += olen
    return mss, ws, sack, tsopt


def fill_hole(holes: list[list[int]], a: int, b: int) -> bool:
    """Remove [a, b) from the gaps; True when all of it lay in one gap (never seen before)."""
    inside = False
    i = 0
    while i < len(holes):
        h = holes[i]
        hs, he = h
        if he <= a or hs >= b:
            i += 1
            continue
        if hs <= a and b <= he:
            inside = True
        if hs < a and b < he:  # strictly inside: split in two
            h[1] = a
            holes.insert(i + 1, [b, he])
            if len(holes) > MAX_HOLES:
                del holes[0]
            return inside
        if hs < a:
            h[1] = a
            i += 1
        elif b < he:
            h[0] = b
            i += 1
        else:
            del holes[i]
    return inside


def forget_below(holes: list[list[int]], a: int) -> None:
    """The peer acknowledged everything below ``a``: gaps there were filled out of our sight."""
    while holes and holes[0][0] < a:
        if holes[0][1] <= a:
            del holes[0]
        else:
            holes[0][0] = a
            break


class SideState:
    """What one endpoint of a connection sent (and what the peer acknowledged of it).

    Sequence numbers are kept relative to ``base`` and unwrapped past 2**32.
    """

    __slots__ = (
        "ack_valid",
        "acked",
        "adv_ts",
        "base",
        "data_after_peer_fin_bytes",
        "data_after_peer_fin_pkts",
        "data_pkts",
        "fin_pkt",
        "fin_ts",
        "first_data_ts",
        "first_ts",
        "flags",
        "holes",
        "isn",
        "last_data_ts",
        "max_end",
        "max_inflight",
        "mss",
        "ooo",
        "payload",
        "peer_unacked_at_fin",
        "pinned",
        "pinned_checked",
        "pkts",
        "retrans",
        "retrans_bytes",
        "rst_after_fin_pkt",
        "rst_after_fin_ts",
        "rst_pkt",
        "rst_ts",
        "rto",
        "rto_examples",
        "rto_wait",
        "rtt",
        "rtt_max",
        "rtt_min",
        "sack",
        "syn_count",
        "syn_events",
        "syn_win",
        "synack_count",
        "synack_events",
        "timed_end",
        "timed_ts",
        "tsopt",
        "win_last",
        "win_max",
        "win_min",
        "windows",
        "wscale",
        "zero_count",
        "zero_first_pkt",
        "zero_start",
        "zero_total",
    )

    def __init__(self) -> None:
        self.pkts = 0
        self.payload = 0
        self.flags = 0
        self.base = -1
        self.first_ts = -1.0
        self.isn = -1
        self.max_end = 0
        #: Unfilled gaps below ``max_end``: [start, end) pairs, ascending, disjoint.
        self.holes: list[list[int]] = []
        self.acked = 0
        self.ack_valid = False
        self.data_pkts = 0
        self.first_data_ts = -1.0
        self.last_data_ts = -1.0
        self.retrans = 0
        self.ooo = 0
        self.adv_ts = -1.0
        self.retrans_bytes = 0
        self.rto = 0
        self.rto_wait = 0.0
        self.rto_examples: list[tuple[int, float, float]] = []
        self.timed_end = 0
        self.timed_ts = 0.0
        self.rtt = Sketch()
        self.rtt_min = -1.0
        self.rtt_max = -1.0
        self.windows = Sketch()
        self.win_min = -1
        self.win_max = -1
        self.win_last = -1
        self.zero_count = 0
        self.zero_start = -1.0
        self.zero_total = 0.0
        self.zero_first_pkt = 0
        self.max_inflight = 0
        self.pinned = 0
        self.pinned_checked = 0
        self.syn_count = 0
        self.synack_count = 0
        # (time, ECN flags as sent (ECE+CWR on a SYN, ECE alone on a SYN-ACK), packet number)
        self.syn_events: list[tuple[float, bool, int]] = []
        self.synack_events: list[tuple[float, bool, int]] = []
        self.syn_win = -1
        self.mss = -1
        self.wscale = -1
        self.sack = False
        self.tsopt = False
        self.fin_ts = -1.0
        self.fin_pkt = 0
        self.rst_ts = -1.0
        self.rst_pkt = 0
        self.peer_unacked_at_fin = 0
        self.data_after_peer_fin_pkts = 0
        self.data_after_peer_fin_bytes = 0
        self.rst_after_fin_ts = -1.0
        self.rst_after_fin_pkt = 0


class ConnState:
    """One TCP connection while the capture is read; ``sides[0]`` is the lower endpoint's."""

    __slots__ = (
        "client",
        "first_pkt",
        "first_ts",
        "hs_ack_pkt",
        "hs_ack_ts",
        "index",
        "key",
        "last_pkt",
        "last_ts",
        "ooo_thresh",
        "scale",
        "scale_known",
        "sides",
    )

    def __init__(self, index: int, key: Key, ts: float, frame: int) -> None:
        self.index = index
        self.key = key
        self.first_ts = ts
        self.last_ts = ts
        self.first_pkt = frame
        self.last_pkt = frame
        #: 0 or 1: the side that sent the SYN (or, without one, see ``client_side``); -1 unknown yet.
        self.client = -1
        self.sides = (SideState(), SideState())
        self.scale = (0, 0)
        self.scale_known = False
        self.hs_ack_ts = -1.0
        self.hs_ack_pkt = 0
        #: A segment below the highest sequence that comes sooner than this after the one that
        #: last advanced it is out of order, not retransmitted (Wireshark's rule: the initial
        #: RTT, or 3 ms). At a receiver in the middle of a burst, resent segments that fill a
        #: hole also meet it: there the retransmission counts are a lower bound.
        self.ooo_thresh = 0.003


class TcpDecoder:
    """Decodes link, IP and TCP headers and hands every TCP segment to ``segment``."""

    def __init__(self) -> None:
        self.frames = 0
        self.tcp_packets = 0
        self.ip_fragments = 0
        self.ip_packets = 0

    def packet(self, buf: bytes, off: int, caplen: int, wirelen: int, link: int, ts: float) -> None:
        self.frames += 1
        end = off + caplen
        # ---- link layer: find the ethertype and where the network header starts ----
        if link == 1:
            if caplen < 14:
                return
            et = (buf[off + 12] << 8) | buf[off + 13]
            p = off + 14
        elif link == 113:  # Linux cooked v1
            if caplen < 16:
                return
            et = (buf[off + 14] << 8) | buf[off + 15]
            p = off + 16
        elif link == 276:  # Linux cooked v2
            if caplen < 20:
                return
            et = (buf[off] << 8) | buf[off + 1]
            p = off + 20
        elif link == 0 or link == 108:  # BSD null (host byte order) / OpenBSD loop (network order)
            if caplen < 4:
                return
            fam = buf[off] | buf[off + 3]
            if fam == 2:
                et = ETH_IPV4
            elif fam == 24 or fam == 28 or fam == 30:
                et = ETH_IPV6
            else:
                return
            p = off + 4
        elif link == 101 or link == 12 or link == 14:  # raw IP, version from the first nibble
            if caplen < 1:
                return
            v = buf[off] >> 4
            et = ETH_IPV4 if v == 4 else ETH_IPV6 if v == 6 else 0
            p = off
        elif link == 242:  # IP over InfiniBand: 40-byte pseudo-header, then type and 2 reserved bytes
            if caplen < 44:
                return
            et = (buf[off + 40] << 8) | buf[off + 41]
            p = off + 44
        elif link == 228:
            et = ETH_IPV4
            p = off
        elif link == 229:
            et = ETH_IPV6
            p = off
        else:
            return

        # ---- tags and shims between the link header and IP ----
        ip_cap = -1  # a shim's own length field (PPPoE) that bounds the IP packet
        hops = 0
        while et != ETH_IPV4 and et != ETH_IPV6:
            hops += 1
            if hops > 8:
                return
            if et in _VLAN_TPIDS:
                if p + 4 > end:
                    return
                et = (buf[p + 2] << 8) | buf[p + 3]
                p += 4
            elif et == 0x8847 or et == 0x8848:  # MPLS: pop labels to bottom of stack
                while True:
                    if p + 4 > end:
                        return
                    bos = buf[p + 2] & 1
                    p += 4
                    if bos:
                        break
                if p >= end:
                    return
                v = buf[p] >> 4
                et = ETH_IPV4 if v == 4 else ETH_IPV6 if v == 6 else 0
                if not et:
                    return
            elif et <= 1500:  # 802.3 length: only LLC/SNAP (AA AA 03 + OUI) carries an ethertype
                if p + 8 > end or buf[p] != 0xAA or buf[p + 1] != 0xAA:
                    return
                et = (buf[p + 6] << 8) | buf[p + 7]
                p += 8
            elif et == 0x8926:  # Cisco VN-Tag
                if p + 6 > end:
                    return
                et = (buf[p + 4] << 8) | buf[p + 5]
                p += 6
            elif et == 0x88E7:  # 802.1ah provider backbone: I-TAG, then the customer frame
                if p + 18 > end:
                    return
                et = (buf[p + 16] << 8) | buf[p + 17]
                p += 18
            elif et == 0x8864:  # PPPoE session
                if p + 8 > end:
                    return
                proto = (buf[p + 6] << 8) | buf[p + 7]
                ip_cap = ((buf[p + 4] << 8) | buf[p + 5]) - 2
                p += 8
                et = ETH_IPV4 if proto == 0x21 else ETH_IPV6 if proto == 0x57 else 0
                if not et:
                    return
            else:
                return

        # ---- IP (looping for IP-in-IP / 6in4 tunnels) ----
        depth = 0
        while True:
            depth += 1
            if depth > 4:
                return
            if et == ETH_IPV4:
                if p + 20 > end:
                    return
                vihl = buf[p]
                ihl = (vihl & 15) << 2
                if vihl >> 4 != 4 or ihl < 20:
                    return
                self.ip_packets += 1
                tot = (buf[p + 2] << 8) | buf[p + 3]
                frag = (buf[p + 6] << 8) | buf[p + 7]
                proto = buf[p + 9]
                if frag & 0x3FFF:
                    self.ip_fragments += 1
                    if frag & 0x1FFF:
                        return  # not the first fragment: no transport header here
                if tot == 0:  # TSO / offloaded capture: trust the frame length
                    tot = wirelen - (p - off)
                if 0 <= ip_cap < tot:
                    tot = ip_cap
                l4 = p + ihl
                l4len = tot - ihl
                if proto == 6:
                    if l4 + 14 > end:
                        return
                    src, dst = _V4_ADDRS(buf, p + 12)
                    break
                if proto == 4 or proto == 41:
                    et = ETH_IPV4 if proto == 4 else ETH_IPV6
                    p = l4
                    continue
                return
            # IPv6
            if p + 40 > end:
                return
            if buf[p] >> 4 != 6:
                return
            self.ip_packets += 1
            l4len = (buf[p + 4] << 8) | buf[p + 5]
            if l4len == 0:  # jumbogram or offload
                l4len = wirelen - (p - off) - 40
            nh = buf[p + 6]
            q = p + 40
            while True:
                if nh == 6 or nh == 4 or nh == 41:
                    break
                if nh in _IPV6_EXT:
                    if q + 8 > end:
                        return
                    hl = (buf[q + 1] + 1) << 3
                elif nh == 51:  # authentication header
                    if q + 8 > end:
                        return
                    hl = (buf[q + 1] + 2) << 2
                elif nh == 44:  # fragment
                    if q + 8 > end:
                        return
                    self.ip_fragments += 1
                    if ((buf[q + 2] << 8) | buf[q + 3]) & 0xFFF8:
                        return
                    hl = 8
                else:
                    return
                nh = buf[q]
                q += hl
                l4len -= hl
            if nh == 6:
                if q + 14 > end:
                    return
                src = buf[p + 8 : p + 24]
                dst = buf[p + 24 : p + 40]
                l4 = q
                break
            et = ETH_IPV4 if nh == 4 else ETH_IPV6
            p = q

        # ---- TCP ----
        if l4 + 16 <= end:
            sport, dport, seq, ack, offflags, win = _TCP_HEAD(buf, l4)
        else:
            sport, dport, seq, ack, offflags = _TCP_HEAD14(buf, l4)
            win = -1
        doff = (offflags >> 12) << 2
        payload = l4len - doff
        if payload < 0:
            payload = 0
        self.tcp_packets += 1
        if src < dst or (src == dst and sport <= dport):
            key = (src, sport, dst, dport)
            d = 0
        else:
            key = (dst, dport, src, sport)
            d = 1
        self.segment(key, d, ts, seq, ack, offflags & 0x1FF, win, payload, buf, l4, doff, end)

    def segment(
        self,
        key: Key,
        d: int,
        ts: float,
        seq: int,
        ack: int,
        flags: int,
        win: int,
        payload: int,
        buf: bytes,
        l4: int,
        doff: int,
        end: int,
    ) -> None:
        """One TCP segment: ``key`` is the canonical 4-tuple, ``d`` 0 when sent by its lower endpoint.

        ``win`` is the raw window (-1 when the capture cut it off); the options are
        ``buf[l4 + 20 : min(l4 + doff, end)]``.
        """
        raise NotImplementedError


class TcpTable(TcpDecoder):
    """Keeps one ``ConnState`` per TCP connection, numbered in order of first packet.

    A new connection starts for the same 4-tuple when a SYN (without ACK) carries a
    different initial sequence number than the one the connection began with in that
    direction: the port-reuse rule Wireshark uses for ``tcp.stream``, so numbers and
    counts match tshark's.
    """

    def __init__(self) -> None:
        super().__init__()
        self.conns: dict[Key, ConnState] = {}
        #: Connections replaced by a newer one on the same 4-tuple.
        self.finished: list[ConnState] = []
        self.next_index = 0

    @property
    def connection_count(self) -> int:
        return self.next_index

    def all_connections(self) -> list[ConnState]:
        """Every connection, in order of first packet (its index)."""
        return sorted([*self.finished, *self.conns.values()], key=lambda c: c.index)

    def segment(
        self,
        key: Key,
        d: int,
        ts: float,
        seq: int,
        ack: int,
        flags: int,
        win: int,
        payload: int,
        buf: bytes,
        l4: int,
        doff: int,
        end: int,
    ) -> None:
        frame = self.frames
        c = self.conns.get(key)
        if c is None:
            c = ConnState(self.next_index, key, ts, frame)
            self.next_index += 1
            self.conns[key] = c
        elif flags & 0x12 == TH_SYN and c.sides[d].base != -1 and c.sides[d].base != seq:
            self.finished.append(c)
            c = ConnState(self.next_index, key, ts, frame)
            self.next_index += 1
            self.conns[key] = c
        s = c.sides[d]
        p = c.sides[1 - d]
        idle = ts - c.last_ts
        c.last_ts = ts
        c.last_pkt = frame
        s.pkts += 1
        s.payload += payload
        s.flags |= flags
        syn = flags & TH_SYN
        if s.base == -1:
            # Wireshark's base: the SYN's own number, or one before the first segment seen.
            s.base = seq if syn else (seq - 1) & M32
            s.max_end = 0 if syn else 1
            s.first_ts = ts
        rel = (seq - s.base) & M32
        diff = (rel - s.max_end) & M32
        if diff >= HALF:
            diff -= WRAP
        rel = s.max_end + diff

        if syn:
            if flags & TH_ACK:
                if c.client == -1:
                    c.client = 1 - d
                s.synack_count += 1
                if len(s.synack_events) < MAX_EXAMPLES:
                    s.synack_events.append((ts, flags & (TH_ECE | TH_CWR) == TH_ECE, frame))
            else:
                if c.client == -1:
                    c.client = d
                s.syn_count += 1
                if len(s.syn_events) < MAX_EXAMPLES:
                    s.syn_events.append((ts, flags & (TH_ECE | TH_CWR) == TH_ECE | TH_CWR, frame))
            s.isn = seq
            s.syn_win = win
            stop = l4 + doff
            if stop > end:
                stop = end
            mss, ws, sack, tsopt = parse_options(buf, l4 + 20, stop)
            if mss >= 0:
                s.mss = mss
            s.wscale = ws
            s.sack = s.sack or sack
            s.tsopt = s.tsopt or tsopt
            if flags & TH_ACK and p.syn_count and not c.scale_known:
                c.scale_known = True
                if ws >= 0 and p.wscale >= 0:
                    mine = min(ws, 14)
                    theirs = min(p.wscale, 14)
                    c.scale = (mine, theirs) if d == 0 else (theirs, mine)
        elif flags & TH_ACK and c.hs_ack_ts < 0 and d == c.client and p.synack_count:
            c.hs_ack_ts = ts
            c.hs_ack_pkt = frame
            if s.syn_events and ts > s.syn_events[0][0]:
                c.ooo_thresh = ts - s.syn_events[0][0]

        fin = flags & TH_FIN
        if flags & TH_RST:
            if s.rst_ts < 0:
                s.rst_ts = ts
                s.rst_pkt = frame
            if s.fin_ts >= 0 and p.data_after_peer_fin_pkts and s.rst_after_fin_ts < 0:
                s.rst_after_fin_ts = ts
                s.rst_after_fin_pkt = frame
            return

        # ---- the peer's data acknowledged by this segment ----
        if flags & TH_ACK and p.base != -1:
            a = (ack - p.base) & M32
            diff = (a - p.max_end) & M32
            if diff >= HALF:
                diff -= WRAP
            a = p.max_end + diff
            if not p.ack_valid or a > p.acked:
                p.acked = a
                p.ack_valid = True
                if p.holes and p.holes[0][0] < a:
                    forget_below(p.holes, a)
            if p.timed_end and a >= p.timed_end:
                sample = ts - p.timed_ts
                p.timed_end = 0
                if sample >= 0:
                    p.rtt.add(int(min(sample * 1e6, MAX_RTT_US)))
                    if p.rtt_min < 0 or sample < p.rtt_min:
                        p.rtt_min = sample
                    if sample > p.rtt_max:
                        p.rtt_max = sample

        # ---- the advertised window (SYN windows are never scaled; RST windows mean nothing) ----
        if not syn and win >= 0:
            w = win << c.scale[d]
            s.win_last = w
            s.windows.add(w)
            if s.win_min < 0 or w < s.win_min:
                s.win_min = w
            if w > s.win_max:
                s.win_max = w
            if win == 0 and not fin:
                s.zero_count += 1
                if s.zero_start < 0:
                    s.zero_start = ts
                    if not s.zero_first_pkt:
                        s.zero_first_pkt = frame
            elif win and s.zero_start >= 0:
                s.zero_total += ts - s.zero_start
                s.zero_start = -1.0

        # ---- this side's data: new, retransmitted or a keep-alive ----
        seglen = payload + (1 if syn else 0) + (1 if fin else 0)
        if seglen:
            if payload:
                s.data_pkts += 1
                if s.first_data_ts < 0:
                    s.first_data_ts = ts
                s.last_data_ts = ts
                if p.fin_ts >= 0:
                    s.data_after_peer_fin_pkts += 1
                    s.data_after_peer_fin_bytes += payload
            seg_end = rel + seglen
            if seg_end > s.max_end and rel >= s.max_end:
                if payload and not s.timed_end:
                    s.timed_end = seg_end
                    s.timed_ts = ts
                if rel > s.max_end and not syn:
                    s.holes.append([s.max_end, rel])
                    if len(s.holes) > MAX_HOLES:
                        del s.holes[0]
                s.max_end = seg_end
                s.adv_ts = ts
            elif syn or (payload <= 1 and not fin and rel == s.max_end - 1):
                pass  # a SYN retry (counted with the handshake) or a keep-alive
            elif (
                fill_hole(s.holes, rel, min(seg_end, s.max_end))
                and ts - s.adv_ts < c.ooo_thresh
                and seg_end != s.max_end
            ):
                # Space never seen here, soon after the highest segment: reordered (Wireshark's
                # rule). Space already seen is always a retransmission, however soon it comes.
                s.ooo += 1
            else:
                s.retrans += 1
                s.retrans_bytes += payload
                if idle >= RTO_IDLE:
                    s.rto += 1
                    s.rto_wait += idle
                    if len(s.rto_examples) < MAX_EXAMPLES:
                        s.rto_examples.append((frame, ts, idle))
                if s.timed_end and rel < s.timed_end:
                    s.timed_end = 0  # Karn: no RTT sample from a retransmitted range
                if seg_end > s.max_end:
                    s.max_end = seg_end
            if payload and s.ack_valid:
                inflight = s.max_end - s.acked
                if inflight > s.max_inflight:
                    s.max_inflight = inflight
                if p.win_last > 0:
                    s.pinned_checked += 1
                    if inflight >= PINNED_SHARE * p.win_last:
                        s.pinned += 1
        if fin and s.fin_ts < 0:
            s.fin_ts = ts
            s.fin_pkt = frame
            if p.ack_valid:
                s.peer_unacked_at_fin = max(0, p.max_end - p.acked)


class ConnectionScanner(TcpDecoder):
    """Re-walks a capture and calls ``on_segment`` for the connections in ``wanted``.

    Numbers connections exactly as ``TcpTable`` does, so an id from the table finds the
    same connection. ``on_segment(index, d, frame, ts, seq, ack, flags, win, payload, wscale)``
    gets ``d`` as in the table (0: sent by the lower endpoint of the canonical 4-tuple) and,
    on SYNs and SYN-ACKs, the window scale option (-1 when absent or not a SYN).
    """

    def __init__(self, wanted: set[int], on_segment: Any) -> None:
        super().__init__()
        self.wanted = wanted
        self.on_segment = on_segment
        # key -> [index, base seq side 0, base seq side 1]
        self.index: dict[Key, list[int]] = {}
        self.next_index = 0

    def segment(
        self,
        key: Key,
        d: int,
        ts: float,
        seq: int,
        ack: int,
        flags: int,
        win: int,
        payload: int,
        buf: bytes,
        l4: int,
        doff: int,
        end: int,
    ) -> None:
        e = self.index.get(key)
        if e is None or (flags & 0x12 == TH_SYN and e[1 + d] != -1 and e[1 + d] != seq):
            e = [self.next_index, -1, -1]
            self.next_index += 1
            self.index[key] = e
        if e[1 + d] == -1:
            e[1 + d] = seq if flags & TH_SYN else (seq - 1) & M32
        if e[0] in self.wanted:
            ws = -1
            if flags & TH_SYN:
                ws = parse_options(buf, l4 + 20, min(l4 + doff, end))[1]
            self.on_segment(e[0], d, self.frames, ts, seq, ack, flags, win, payload, ws)
