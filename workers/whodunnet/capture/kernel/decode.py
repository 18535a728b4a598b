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
    ERSPAN_2_HEADER,
    ERSPAN_3_HEADER,
    ERSPAN_3_SUBHEADER,
    ETH_ARUBA_WLAN,
    ETH_ERSPAN_2,
    ETH_ERSPAN_3,
    ETH_IPV4,
    ETH_IPV6,
    ETH_MAX_LENGTH,
    ETH_MPLS,
    ETH_MPLS_MULTICAST,
    ETH_PBB,
    ETH_PPPOE_SESSION,
    ETH_TEB,
    ETH_VNTAG,
    ETHERNET_HEADER,
    FDDI_HEADER,
    GENEVE_HEADER,
    GRE_CHECKSUM,
    GRE_HEADER,
    GRE_KEY,
    GRE_SEQUENCE,
    GRE_VERSION,
    GTP_GPDU,
    GTP_HEADER,
    GTP_OPTIONAL,
    GTP_VERSION_1,
    IPPROTO_AH,
    IPPROTO_FRAGMENT,
    IPPROTO_GRE,
    IPPROTO_IPIP,
    IPPROTO_IPV6,
    IPPROTO_TCP,
    IPPROTO_UDP,
    IPV4_HEADER,
    IPV4_MF_OFFSET,
    IPV4_OFFSET,
    IPV6_EXTENSIONS,
    IPV6_FRAG_OFFSET,
    IPV6_HEADER,
    LINK_ETHERNET,
    LINK_FDDI,
    LINK_IEEE802_11,
    LINK_IEEE802_11_RADIOTAP,
    LINK_IPOIB,
    LINK_IPV4,
    LINK_IPV6,
    LINK_LINUX_SLL,
    LINK_LINUX_SLL2,
    LINK_LOOP,
    LINK_NFLOG,
    LINK_NULL,
    LINK_RAW,
    LINK_RAW_12,
    LINK_RAW_14,
    LLC_SNAP,
    MAX_IP_LAYERS,
    MAX_SHIMS,
    NFLOG_HEADER,
    NFULA_PAYLOAD,
    PPP_IPV4,
    PPP_IPV6,
    TCP_HEADER,
    TCP_MIN_CAPTURED,
    TCPOPT_EOL,
    TCPOPT_MSS,
    TCPOPT_NOP,
    TCPOPT_SACK,
    TCPOPT_SACK_PERMITTED,
    TCPOPT_TIMESTAMPS,
    TCPOPT_WSCALE,
    TH_ALL,
    UDP_GENEVE,
    UDP_GTPU,
    UDP_HEADER,
    UDP_VXLAN,
    UDP_VXLAN_LINUX,
    VLAN_TPIDS,
    VXLAN_FLAG_VNI,
    VXLAN_HEADER,
    WLAN_DS_BOTH,
    WLAN_HEADER,
    WLAN_NO_DATA,
    WLAN_ORDER,
    WLAN_PROTECTED,
    WLAN_QOS,
    WLAN_TYPE_DATA,
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
def wlan_data(buf: Buffer, pk: Packet, p: int) -> bool:
    """An 802.11 data frame at ``p`` (unencrypted, with a payload): LLC/SNAP follows its header
    (``skip_shims`` reads it, so the ethertype is left at 0: "a length")."""
    if p + WLAN_HEADER > pk.end:
        return False
    fc0 = int(buf[p])
    fc1 = int(buf[p + 1])
    sub = fc0 >> 4
    if (fc0 >> 2) & 3 != WLAN_TYPE_DATA or sub & WLAN_NO_DATA or fc1 & WLAN_PROTECTED:
        return False
    h = WLAN_HEADER
    if fc1 & WLAN_DS_BOTH == WLAN_DS_BOTH:
        h += 6
    if sub & WLAN_QOS:
        h += 2
        if fc1 & WLAN_ORDER:
            h += 4
    pk.ethertype = 0
    pk.net = p + h
    pk.ip_cap = -1
    return True


@jit
def nflog_payload(buf: Buffer, pk: Packet) -> bool:
    """The packet an NFLOG record carries (its NFULA_PAYLOAD record)."""
    off = pk.off
    end = pk.end
    if off + NFLOG_HEADER > end:
        return False
    fam = int(buf[off])
    q = off + NFLOG_HEADER
    while q + 4 <= end:
        size = int(buf[q]) | (int(buf[q + 1]) << 8)
        kind = int(buf[q + 2]) | (int(buf[q + 3]) << 8)
        if size < 4:
            return False
        if kind & 0x7FFF == NFULA_PAYLOAD:
            pk.ethertype = ETH_IPV4 if fam == AF_INET else ip_version_ethertype(buf, q + 4) if q + 4 < end else 0
            pk.net = q + 4
            pk.ip_cap = -1
            return pk.ethertype != 0
        q += (size + 3) & ~3
    return False


@hot
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
    elif link == LINK_IEEE802_11:
        return wlan_data(buf, pk, off)
    elif link == LINK_IEEE802_11_RADIOTAP:  # radiotap's length is little-endian
        if caplen < 4:
            return False
        return wlan_data(buf, pk, off + (int(buf[off + 2]) | (int(buf[off + 3]) << 8)))
    elif link == LINK_NFLOG:
        return nflog_payload(buf, pk)
    elif link == LINK_FDDI:
        if caplen < FDDI_HEADER:
            return False
        et = 0  # LLC/SNAP follows
        net = off + FDDI_HEADER
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


@hot
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


@hot
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
def inner_frame(buf: Buffer, pk: Packet, p: int, et: int) -> bool:
    """The tunnel's payload starts at ``p`` and is ``et``: IP, or an Ethernet frame (TEB)."""
    if et == ETH_TEB:
        if p + ETHERNET_HEADER > pk.end:
            return False
        pk.ethertype = be16(buf, p + 12)
        pk.net = p + ETHERNET_HEADER
    elif et in (ETH_IPV4, ETH_IPV6):
        pk.ethertype = et
        pk.net = p
    else:
        return False
    pk.ip_cap = -1
    return True


@jit
def gre_payload(buf: Buffer, pk: Packet) -> bool:
    """GRE (version 0): IP, Ethernet (TEB) or ERSPAN type I, II or III inside."""
    p = pk.l4
    if p + GRE_HEADER > pk.end:
        return False
    flags = be16(buf, p)
    et = be16(buf, p + 2)
    if flags & GRE_VERSION:
        return False  # version 1 is PPTP's enhanced GRE: PPP inside
    q = p + GRE_HEADER
    for bit in (GRE_CHECKSUM, GRE_KEY, GRE_SEQUENCE):
        if flags & bit:
            q += 4
    if et == ETH_ERSPAN_2:
        if flags & GRE_SEQUENCE:
            q += ERSPAN_2_HEADER  # type II; type I has no header of its own
        et = ETH_TEB
    elif et == ETH_ARUBA_WLAN:
        return wlan_data(buf, pk, q)
    elif et == ETH_ERSPAN_3:
        if q + ERSPAN_3_HEADER > pk.end:
            return False
        sub = int(buf[q + ERSPAN_3_HEADER - 1]) & 1  # O: a platform-specific subheader follows
        q += ERSPAN_3_HEADER + (ERSPAN_3_SUBHEADER if sub else 0)
        et = ETH_TEB
    return inner_frame(buf, pk, q, et)


@jit
def udp_payload(buf: Buffer, pk: Packet) -> bool:
    """A UDP tunnel, by destination port (else by source port, as tshark tries both): VXLAN,
    Geneve or GTP-U."""
    p = pk.l4
    if p + UDP_HEADER > pk.end:
        return False
    dport = be16(buf, p + 2)
    if dport not in (UDP_VXLAN, UDP_VXLAN_LINUX, UDP_GENEVE, UDP_GTPU):
        dport = be16(buf, p)
    q = p + UDP_HEADER
    if dport in (UDP_VXLAN, UDP_VXLAN_LINUX):
        if q + VXLAN_HEADER > pk.end:
            return False
        if dport == UDP_VXLAN_LINUX and int(buf[q]) != VXLAN_FLAG_VNI:
            return False
        return inner_frame(buf, pk, q + VXLAN_HEADER, ETH_TEB)
    if dport == UDP_GENEVE:
        if q + GENEVE_HEADER > pk.end or int(buf[q]) >> 6 != 0:
            return False
        options = (int(buf[q]) & 0x3F) << 2
        return inner_frame(buf, pk, q + GENEVE_HEADER + options, be16(buf, q + 2))
    if dport == UDP_GTPU:
        if q + GTP_HEADER > pk.end:
            return False
        flags = int(buf[q])
        if flags >> 5 != GTP_VERSION_1 or int(buf[q + 1]) != GTP_GPDU:
            return False
        r = q + GTP_HEADER
        if flags & GTP_OPTIONAL:
            if r + 4 > pk.end:
                return False
            nxt = int(buf[r + 3])
            r += 4
            while nxt:  # extension headers: a length in 4-byte units, the next type last
                if r >= pk.end:
                    return False
                size = int(buf[r]) << 2
                if size == 0 or r + size > pk.end:
                    return False
                nxt = int(buf[r + size - 1])
                r += size
        if r >= pk.end:
            return False
        return inner_frame(buf, pk, r, ip_version_ethertype(buf, r))
    return False


@jit
def decapsulate(buf: Buffer, pk: Packet, proto: int) -> bool:
    """The packet inside a tunnel: its ethertype and position, or False for no tunnel we open.

    IP-in-IP and 6in4 (and 4in6, 6in6); GRE with IP, Ethernet or ERSPAN I/II/III inside;
    VXLAN, Geneve and GTP-U over UDP. Inner Ethernet headers go on through ``skip_shims``.
    """
    if proto == IPPROTO_IPIP:
        pk.ethertype = ETH_IPV4
    elif proto == IPPROTO_IPV6:
        pk.ethertype = ETH_IPV6
    elif proto == IPPROTO_GRE:
        return gre_payload(buf, pk)
    elif proto == IPPROTO_UDP:
        return udp_payload(buf, pk)
    else:
        return False
    pk.net = pk.l4
    return True


@hot
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
        if not decapsulate(buf, pk, proto):
            return False
    return False


@jit
def first_sack_block(buf: Buffer, pk: Packet) -> tuple[int, int]:
    """(left, right) raw edges of the first SACK block of the segment, or (-1, -1)."""
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
        if kind == TCPOPT_SACK and olen >= 10:
            return be32(buf, p + 2), be32(buf, p + 6)
        p += olen
    return -1, -1


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
