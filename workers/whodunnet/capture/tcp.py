"""Per-packet decoding (link layer → IPv4/IPv6 → TCP) into a per-connection table.

This is the hot path: one method, local variables, ``struct.unpack_from`` on the shared
buffer, bounds checked against the captured length so no content can make it raise.
A connection is a ``list`` in a dict keyed by the canonical 4-tuple (lower endpoint
first), so memory grows with connections, not packets.
"""

from __future__ import annotations

from struct import Struct
from typing import Any

_V4_ADDRS = Struct("!II").unpack_from
_TCP_HEAD = Struct("!HHIIH").unpack_from

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
_VLAN_TPIDS = frozenset({0x8100, 0x88A8, 0x9100, 0x9200, 0x9300})
# IPv6 extension headers we walk through (fragment 44 and AH 51 are handled apart).
_IPV6_EXT = frozenset({0, 43, 60, 135, 139, 140, 253, 254})

# Connection record layout (a list, indexed by these constants).
C_FIRST_TS = 0
C_LAST_TS = 1
C_PKTS = 2  # +0 lower→upper endpoint, +1 upper→lower
C_PAYLOAD = 4  # same, TCP payload bytes
C_BASE_SEQ = 6  # same, first sequence number seen (-1 before)
C_FLAGS = 8  # same, OR of every TCP flag seen
C_KEY = 10  # the canonical 4-tuple
CONN_FIELDS = 11

TH_FIN = 0x01
TH_SYN = 0x02
TH_RST = 0x04
TH_ACK = 0x10


class TcpTable:
    """Decodes packets and keeps one row per TCP connection.

    A new row starts for the same 4-tuple when a SYN (without ACK) carries a different
    initial sequence number than the one the row began with in that direction: the
    port-reuse rule Wireshark uses for ``tcp.stream``, so counts match tshark.
    """

    def __init__(self) -> None:
        self.conns: dict[tuple[Any, int, Any, int], list[Any]] = {}
        #: Rows replaced by a newer connection on the same 4-tuple.
        self.finished: list[list[Any]] = []
        self.tcp_packets = 0
        self.ip_fragments = 0
        self.ip_packets = 0

    @property
    def connection_count(self) -> int:
        return len(self.conns) + len(self.finished)

    def packet(self, buf: bytes, off: int, caplen: int, wirelen: int, link: int, ts: float) -> None:
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
        elif link == 228:
            et = ETH_IPV4
            p = off
        elif link == 229:
            et = ETH_IPV6
            p = off
        else:
            return

        # ---- tags and shims between the link header and IP ----
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
        sport, dport, seq, _ack, offflags = _TCP_HEAD(buf, l4)
        flags = offflags & 0x1FF
        payload = l4len - ((offflags >> 12) << 2)
        if payload < 0:
            payload = 0
        self.tcp_packets += 1
        if src < dst or (src == dst and sport <= dport):
            key = (src, sport, dst, dport)
            d = 0
        else:
            key = (dst, dport, src, sport)
            d = 1
        conns = self.conns
        c = conns.get(key)
        if c is None:
            c = [ts, ts, 0, 0, 0, 0, -1, -1, 0, 0, key]
            conns[key] = c
        elif flags & 0x12 == TH_SYN and c[C_BASE_SEQ + d] != -1 and c[C_BASE_SEQ + d] != seq:
            self.finished.append(c)
            c = [ts, ts, 0, 0, 0, 0, -1, -1, 0, 0, key]
            conns[key] = c
        if c[C_BASE_SEQ + d] == -1:
            # Wireshark's base: the SYN's own number, or one before the first segment seen.
            c[C_BASE_SEQ + d] = seq if flags & TH_SYN else (seq - 1) & 0xFFFFFFFF
        c[C_LAST_TS] = ts
        c[C_PKTS + d] += 1
        c[C_PAYLOAD + d] += payload
        c[C_FLAGS + d] |= flags
