"""Decoding one packet's headers down to TCP: link → tags and shims → IP (→ tunnel → IP) → TCP.

Each step reads what the previous one left in ``Packet`` (``ethertype`` and ``net``: the next
header's type and position) and fills in its own fields; ``decode_packet`` chains them and
returns False for anything that is not TCP we can read. Every read is bounded by the
captured length (``Packet.end``), so no content can make a step read past the packet.

Tunnels enter at ``decapsulate``: given the protocol an IP header carries, it sets the inner
header's ethertype and position, and the loop decodes the inner packet like an outer one.
"""

from __future__ import annotations

import numpy as np

from whodunnet.capture.constants import (
    AF_INET,
    AF_INET6_BSD,
    AF_INET6_DARWIN,
    AF_INET6_FREEBSD,
    ETH_IPV4,
    ETH_IPV6,
    ETH_MAX_LENGTH,
    ETH_MPLS,
    ETH_MPLS_MULTICAST,
    ETH_PBB,
    ETH_PPPOE_SESSION,
    ETH_VNTAG,
    IPPROTO_AH,
    IPPROTO_FRAGMENT,
    IPPROTO_IPIP,
    IPPROTO_IPV6,
    IPPROTO_TCP,
    IPV4_HEADER,
    IPV4_MF_OFFSET,
    IPV4_OFFSET,
    IPV6_EXTENSIONS,
    IPV6_FRAG_OFFSET,
    IPV6_HEADER,
    LINK_ETHERNET,
    LINK_IPOIB,
    LINK_IPV4,
    LINK_IPV6,
    LINK_LINUX_SLL,
    LINK_LINUX_SLL2,
    LINK_LOOP,
    LINK_NULL,
    LINK_RAW,
    LINK_RAW_12,
    LINK_RAW_14,
    LLC_SNAP,
    MAX_IP_LAYERS,
    MAX_SHIMS,
    PPP_IPV4,
    PPP_IPV6,
    TCP_HEADER,
    TCP_MIN_CAPTURED,
    TCPOPT_EOL,
    TCPOPT_MSS,
    TCPOPT_NOP,
    TCPOPT_SACK_PERMITTED,
    TCPOPT_TIMESTAMPS,
    TCPOPT_WSCALE,
    TH_ALL,
    VLAN_TPIDS,
)
from whodunnet.capture.fields import Packet, Scan
from whodunnet.capture.kernel import hot, jit
from whodunnet.capture.kernel.types import Buffer
from whodunnet.capture.kernel.wire import be16, be32, be64


@jit
def ip_version_ethertype(buf: Buffer, p: int) -> int:
    """The ethertype of an IP header known only by its version nibble (0: neither)."""
    v = int(buf[p]) >> 4
    return ETH_IPV4 if v == 4 else ETH_IPV6 if v == 6 else 0


@jit
def decode_link(buf: Buffer, pk: Packet) -> bool:
    """The link-layer header: the ethertype after it and where the next header starts."""
    link = pk.link
    off = pk.off
    caplen = pk.caplen
    if link == LINK_ETHERNET:
        if caplen < 14:
            return False
        et = be16(buf, off + 12)
        net = off + 14
    elif link == LINK_LINUX_SLL:
        if caplen < 16:
            return False
        et = be16(buf, off + 14)
        net = off + 16
    elif link == LINK_LINUX_SLL2:
        if caplen < 20:
            return False
        et = be16(buf, off)
        net = off + 20
    elif link in (LINK_NULL, LINK_LOOP):
        # The address family, in the writer's byte order (null) or network order (loop).
        if caplen < 4:
            return False
        fam = int(buf[off]) | int(buf[off + 3])
        if fam == AF_INET:
            et = ETH_IPV4
        elif fam in (AF_INET6_BSD, AF_INET6_FREEBSD, AF_INET6_DARWIN):
            et = ETH_IPV6
        else:
            return False
        net = off + 4
    elif link in (LINK_RAW, LINK_RAW_12, LINK_RAW_14):
        if caplen < 1:
            return False
        et = ip_version_ethertype(buf, off)
        if not et:
            return False
        net = off
    elif link == LINK_IPOIB:  # 40-byte pseudo-header, then the type and 2 reserved bytes
        if caplen < 44:
            return False
        et = be16(buf, off + 40)
        net = off + 44
    elif link == LINK_IPV4:
        et = ETH_IPV4
        net = off
    elif link == LINK_IPV6:
        et = ETH_IPV6
        net = off
    else:
        return False
    pk.ethertype = et
    pk.net = net
    pk.ip_cap = -1
    return True


@jit
def fixed_tag(et: int) -> tuple[int, int]:
    """(length, offset of the next ethertype in it) of a fixed-size tag, or (0, 0)."""
    if et in VLAN_TPIDS:
        return 4, 2
    if et == ETH_VNTAG:
        return 6, 4
    if et == ETH_PBB:  # I-TAG, then the customer frame's addresses and type
        return 18, 16
    return 0, 0


@jit
def skip_shims(buf: Buffer, pk: Packet) -> bool:
    """Tags and shims between the link header and IP: 802.1Q/QinQ, VN-Tag, 802.1ah, MPLS,
    LLC/SNAP and PPPoE (whose length field bounds the IP packet)."""
    et = pk.ethertype
    p = pk.net
    end = pk.end
    hops = 0
    while et != ETH_IPV4 and et != ETH_IPV6:
        hops += 1
        if hops > MAX_SHIMS:
            return False
        size, at = fixed_tag(et)
        if size:
            if p + size > end:
                return False
            et = be16(buf, p + at)
            p += size
        elif et in (ETH_MPLS, ETH_MPLS_MULTICAST):  # pop labels to the bottom of the stack
            while True:
                if p + 4 > end:
                    return False
                bottom = int(buf[p + 2]) & 1
                p += 4
                if bottom:
                    break
            if p >= end:
                return False
            et = ip_version_ethertype(buf, p)
            if not et:
                return False
        elif et <= ETH_MAX_LENGTH:  # an 802.3 length: only LLC/SNAP (AA AA 03 + OUI) carries a type
            if p + 8 > end or buf[p] != LLC_SNAP or buf[p + 1] != LLC_SNAP:
                return False
            et = be16(buf, p + 6)
            p += 8
        elif et == ETH_PPPOE_SESSION:
            if p + 8 > end:
                return False
            proto = be16(buf, p + 6)
            pk.ip_cap = be16(buf, p + 4) - 2
            p += 8
            et = ETH_IPV4 if proto == PPP_IPV4 else ETH_IPV6 if proto == PPP_IPV6 else 0
            if not et:
                return False
        else:
            return False
    pk.ethertype = et
    pk.net = p
    return True


@jit
def decode_ipv4(buf: Buffer, pk: Packet, g: Scan) -> int:
    """An IPv4 header: addresses, where the transport header starts and its length.

    Returns the protocol it carries, or -1 (not IPv4, cut short, or a later fragment).
    """
    p = pk.net
    if p + IPV4_HEADER > pk.end:
        return -1
    vihl = int(buf[p])
    ihl = (vihl & 15) << 2
    if vihl >> 4 != 4 or ihl < IPV4_HEADER:
        return -1
    g.ip_packets += 1
    total = be16(buf, p + 2)
    frag = be16(buf, p + 6)
    if frag & IPV4_MF_OFFSET:
        g.ip_fragments += 1
        if frag & IPV4_OFFSET:
            return -1  # not the first fragment: no transport header here
    room = pk.wirelen - (p - pk.off)
    if total == 0:  # TSO / offloaded capture: trust the frame length
        total = room
    elif total > room:  # a length past the frame: the frame's is the one that was on the wire
        g.ip_len_beyond += 1
        total = room
    if 0 <= pk.ip_cap < total:
        total = pk.ip_cap
    pk.v6 = False
    pk.ip_id = be16(buf, p + 4)
    pk.ttl = int(buf[p + 8])
    pk.src_hi = np.uint64(0)
    pk.src_lo = np.uint64(be32(buf, p + 12))
    pk.dst_hi = np.uint64(0)
    pk.dst_lo = np.uint64(be32(buf, p + 16))
    pk.l4 = p + ihl
    pk.l4len = total - ihl
    return int(buf[p + 9])


@jit
def decode_ipv6(buf: Buffer, pk: Packet, g: Scan) -> int:
    """An IPv6 header and its extension headers; returns the protocol after them, or -1."""
    p = pk.net
    end = pk.end
    if p + IPV6_HEADER > end or int(buf[p]) >> 4 != 6:
        return -1
    g.ip_packets += 1
    l4len = be16(buf, p + 4)
    room = pk.wirelen - (p - pk.off) - IPV6_HEADER
    if l4len == 0:  # jumbogram or offload
        l4len = room
    elif l4len > room:
        g.ip_len_beyond += 1
        l4len = room
    nh = int(buf[p + 6])
    q = p + IPV6_HEADER
    while True:
        if nh in IPV6_EXTENSIONS:
            if q + 8 > end:
                return -1
            hl = (int(buf[q + 1]) + 1) << 3
        elif nh == IPPROTO_AH:
            if q + 8 > end:
                return -1
            hl = (int(buf[q + 1]) + 2) << 2
        elif nh == IPPROTO_FRAGMENT:
            if q + 8 > end:
                return -1
            g.ip_fragments += 1
            if be16(buf, q + 2) & IPV6_FRAG_OFFSET:
                return -1
            hl = 8
        else:
            break
        nh = int(buf[q])
        q += hl
        l4len -= hl
    pk.v6 = True
    pk.ip_id = -1
    pk.ttl = int(buf[p + 7])
    pk.src_hi = be64(buf, p + 8)
    pk.src_lo = be64(buf, p + 16)
    pk.dst_hi = be64(buf, p + 24)
    pk.dst_lo = be64(buf, p + 32)
    pk.l4 = q
    pk.l4len = l4len
    return nh


@jit
def decapsulate(pk: Packet, proto: int) -> bool:
    """The packet inside a tunnel: its ethertype and position, or False for no tunnel we open.

    IP-in-IP and 6in4 (and 4in6, 6in6) today; GRE and UDP tunnels (VXLAN, Geneve) would set
    the inner Ethernet header here and let ``skip_shims`` take it from there.
    """
    if proto == IPPROTO_IPIP:
        pk.ethertype = ETH_IPV4
    elif proto == IPPROTO_IPV6:
        pk.ethertype = ETH_IPV6
    else:
        return False
    pk.net = pk.l4
    return True


@jit
def decode_tcp(buf: Buffer, pk: Packet, g: Scan) -> bool:
    """The TCP header: ports, numbers, flags, window (-1 when not captured) and payload length."""
    l4 = pk.l4
    if l4 + TCP_MIN_CAPTURED > pk.end:
        return False
    pk.sport = be16(buf, l4)
    pk.dport = be16(buf, l4 + 2)
    pk.seq = be32(buf, l4 + 4)
    pk.ack = be32(buf, l4 + 8)
    offflags = be16(buf, l4 + 12)
    pk.win = be16(buf, l4 + 14) if l4 + 16 <= pk.end else -1
    pk.tcp_sum = be16(buf, l4 + 16) if l4 + 18 <= pk.end else -1
    pk.doff = (offflags >> 12) << 2
    pk.tcp_flags = offflags & TH_ALL
    pk.payload = max(0, pk.l4len - pk.doff)
    g.tcp_packets += 1
    return True


@hot
def decode_packet(buf: Buffer, pk: Packet, g: Scan) -> bool:
    """Every header from the link layer to TCP; False when the packet is not TCP we can read."""
    if not decode_link(buf, pk):
        return False
    for _ in range(MAX_IP_LAYERS):
        if not skip_shims(buf, pk):
            return False
        proto = decode_ipv4(buf, pk, g) if pk.ethertype == ETH_IPV4 else decode_ipv6(buf, pk, g)
        if proto == IPPROTO_TCP:
            return decode_tcp(buf, pk, g)
        if not decapsulate(pk, proto):
            return False
    return False


@jit
def tcp_options(buf: Buffer, pk: Packet) -> tuple[int, int, bool, bool]:
    """(MSS or -1, window scale or -1, SACK permitted, timestamps) from the captured options."""
    mss = -1
    ws = -1
    sack = False
    tsopt = False
    p = pk.l4 + TCP_HEADER
    stop = min(pk.l4 + pk.doff, pk.end)
    while p < stop:
        kind = int(buf[p])
        if kind == TCPOPT_EOL:
            break
        if kind == TCPOPT_NOP:
            p += 1
            continue
        if p + 1 >= stop:
            break
        olen = int(buf[p + 1])
        if olen < 2 or p + olen > stop:
            break
        if kind == TCPOPT_MSS and olen == 4:
            mss = be16(buf, p + 2)
        elif kind == TCPOPT_WSCALE and olen == 3:
            ws = int(buf[p + 2])
        elif kind == TCPOPT_SACK_PERMITTED:
            sack = True
        elif kind == TCPOPT_TIMESTAMPS:
            tsopt = True
        p += olen
    return mss, ws, sack, tsopt
