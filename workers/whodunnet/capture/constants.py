"""Named numbers of the capture formats and protocols the kernel reads, and its tunables.

Plain module-level ints and floats: numba reads them as compile-time constants, so naming
them costs nothing in the compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---- capture files -----------------------------------------------------------------------
#: The first four bytes of a pcap file, read as a big-endian word.
PCAP_LE_US = 0xD4C3B2A1
PCAP_BE_US = 0xA1B2C3D4
PCAP_LE_NS = 0x4D3CB2A1
PCAP_BE_NS = 0xA1B23C4D
PCAP_HEADER = 24
PCAP_RECORD_HEADER = 16

#: pcapng block types (the section header's type reads the same in both byte orders).
PCAPNG_SHB = 0x0A0D0D0A
PCAPNG_IDB = 1
PCAPNG_OPB = 2  # obsolete packet block
PCAPNG_SPB = 3  # simple packet block
PCAPNG_EPB = 6  # enhanced packet block
#: The section header's byte-order magic, read as a big-endian word.
PCAPNG_BOM_LE = 0x4D3C2B1A
PCAPNG_BOM_BE = 0x1A2B3C4D
#: Bytes before a packet block's data (type, length, interface, time, caplen, wirelen).
PCAPNG_PACKET_HEADER = 28
#: Options (or padding) after a packet block's data that are buffered with it rather than
#: streamed past.
OPTIONS_SLACK = 4096
#: Largest section header / interface description block we agree to buffer.
MAX_META_BLOCK = 1 << 20
#: Interface description options.
IDB_OPT_END = 0
IDB_OPT_TSRESOL = 9
IDB_OPT_TSOFFSET = 14

# ---- link types (LINKTYPE_*) -------------------------------------------------------------
LINK_NULL = 0  # BSD loopback: 4-byte address family in the writer's byte order
LINK_ETHERNET = 1
LINK_PPP = 9
LINK_FDDI = 10
LINK_RAW_12 = 12  # raw IP on some BSDs
LINK_RAW_14 = 14  # raw IP on OpenBSD
LINK_RAW = 101
LINK_IEEE802_11 = 105
LINK_LOOP = 108  # OpenBSD loopback: address family in network byte order
LINK_LINUX_SLL = 113  # Linux cooked v1 (tcpdump -i any)
LINK_IEEE802_11_RADIOTAP = 127
LINK_IPV4 = 228
LINK_IPV6 = 229
LINK_NFLOG = 239
LINK_IPOIB = 242  # IP over InfiniBand
LINK_ETHERNET_MPACKET = 274
LINK_LINUX_SLL2 = 276  # Linux cooked v2

LINKTYPE_NAMES: dict[int, str] = {
    LINK_NULL: "null",
    LINK_ETHERNET: "ethernet",
    LINK_RAW_12: "raw",
    LINK_RAW_14: "raw",
    LINK_RAW: "raw",
    LINK_LOOP: "loop",
    LINK_LINUX_SLL: "linux_sll",
    LINK_IPV4: "ipv4",
    LINK_IPV6: "ipv6",
    LINK_LINUX_SLL2: "linux_sll2",
    LINK_PPP: "ppp",
    LINK_FDDI: "fddi",
    LINK_IEEE802_11: "ieee802_11",
    LINK_IEEE802_11_RADIOTAP: "ieee802_11_radiotap",
    LINK_NFLOG: "nflog",
    LINK_IPOIB: "ipoib",
    LINK_ETHERNET_MPACKET: "ethernet_mpacket",
}


def linktype_name(link: int) -> str:
    """A short, stable name for a LINKTYPE_ value (``linktype_N`` when we do not decode it)."""
    return LINKTYPE_NAMES.get(link, f"linktype_{link}")


#: BSD address families that mean IPv4 / IPv6 in a null or loop header.
AF_INET = 2
AF_INET6_BSD = 24
AF_INET6_FREEBSD = 28
AF_INET6_DARWIN = 30

# ---- between the link header and IP --------------------------------------------------------
ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_VLAN = 0x8100
ETH_QINQ = 0x88A8
ETH_QINQ_9100 = 0x9100
ETH_QINQ_9200 = 0x9200
ETH_QINQ_9300 = 0x9300
ETH_MPLS = 0x8847
ETH_MPLS_MULTICAST = 0x8848
ETH_PPPOE_SESSION = 0x8864
ETH_VNTAG = 0x8926  # Cisco VN-Tag
ETH_PBB = 0x88E7  # 802.1ah provider backbone I-TAG
#: Tag protocol identifiers of 802.1Q / 802.1ad (QinQ) tags.
VLAN_TPIDS = (ETH_VLAN, ETH_QINQ, ETH_QINQ_9100, ETH_QINQ_9200, ETH_QINQ_9300)
#: An "ethertype" at or below this is an 802.3 length: only LLC/SNAP carries a real one.
ETH_MAX_LENGTH = 1500
LLC_SNAP = 0xAA
PPP_IPV4 = 0x21
PPP_IPV6 = 0x57
#: Tags and shims walked before giving up on a frame; IP headers (tunnels) likewise.
MAX_SHIMS = 8
MAX_IP_LAYERS = 4

# ---- IP ------------------------------------------------------------------------------------
IPPROTO_HOPOPTS = 0
IPPROTO_IPIP = 4
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPPROTO_GRE = 47
IPPROTO_IPV6 = 41
IPPROTO_ROUTING = 43
IPPROTO_FRAGMENT = 44
IPPROTO_AH = 51
IPPROTO_DSTOPTS = 60
IPPROTO_MOBILITY = 135
IPPROTO_HIP = 139
IPPROTO_SHIM6 = 140
IPPROTO_EXP1 = 253
IPPROTO_EXP2 = 254
#: IPv6 extension headers walked through by their length byte (fragment and AH apart).
IPV6_EXTENSIONS = (
    IPPROTO_HOPOPTS,
    IPPROTO_ROUTING,
    IPPROTO_DSTOPTS,
    IPPROTO_MOBILITY,
    IPPROTO_HIP,
    IPPROTO_SHIM6,
    IPPROTO_EXP1,
    IPPROTO_EXP2,
)
# ---- tunnels (decode.decapsulate) ----------------------------------------------------------------
UDP_HEADER = 8
#: UDP destination ports of the tunnels opened: VXLAN (IANA's, and the Linux kernel's old default
#: when its flags say VXLAN), Geneve, GTP-U.
UDP_VXLAN = 4789
UDP_VXLAN_LINUX = 8472
UDP_GENEVE = 6081
UDP_GTPU = 2152
VXLAN_HEADER = 8
VXLAN_FLAG_VNI = 0x08
GENEVE_HEADER = 8
GTP_HEADER = 8
GTP_VERSION_1 = 1
GTP_GPDU = 0xFF  # a G-PDU: user data (an IP packet) follows
GTP_OPTIONAL = 0x07  # E, S, PN: 4 more bytes (sequence, N-PDU, next extension type)
#: GRE flags (RFC 2784/2890): checksum, key and sequence present add 4 bytes each.
GRE_HEADER = 4
GRE_CHECKSUM = 0x8000
GRE_KEY = 0x2000
GRE_SEQUENCE = 0x1000
GRE_VERSION = 0x0007
#: What a GRE or Geneve header carries besides IP: a whole Ethernet frame (transparent Ethernet
#: bridging), ERSPAN type I/II (0x88BE: a type II header of 8 bytes when GRE carries a sequence
#: number, none for type I) and type III (0x22EB: 12 bytes, 8 more with the platform subheader).
ETH_TEB = 0x6558
ETH_ERSPAN_2 = 0x88BE
ETH_ERSPAN_3 = 0x22EB
ERSPAN_2_HEADER = 8
ERSPAN_3_HEADER = 12
ERSPAN_3_SUBHEADER = 8
ETHERNET_HEADER = 14
#: Aruba access points send their clients' 802.11 frames to the controller in GRE.
ETH_ARUBA_WLAN = 0x8200
#: 802.11 data frames (decode.wlan_data): the header, its optional parts, then LLC/SNAP.
WLAN_HEADER = 24
WLAN_TYPE_DATA = 2
WLAN_NO_DATA = 0x4  # subtype bit: null function, no payload
WLAN_QOS = 0x8  # subtype bit: a 2-byte QoS control field
WLAN_DS_BOTH = 0x3  # to-DS and from-DS: a fourth address
WLAN_PROTECTED = 0x40
WLAN_ORDER = 0x80  # with QoS: a 4-byte HT control field
#: FDDI: frame control and two addresses, then LLC/SNAP.
FDDI_HEADER = 13
#: NFLOG: a 4-byte header (family, version, resource id), then type-length-value records
#: (lengths in the writer's byte order, little-endian on every Linux we know, padded to 4);
#: the packet is the one of type NFULA_PAYLOAD.
NFLOG_HEADER = 4
NFULA_PAYLOAD = 9
IPV4_HEADER = 20
IPV6_HEADER = 40
IPV4_MF_OFFSET = 0x3FFF  # more-fragments flag and fragment offset
IPV4_OFFSET = 0x1FFF
IPV6_FRAG_OFFSET = 0xFFF8

# ---- TCP -----------------------------------------------------------------------------------
TCP_HEADER = 20
#: Bytes of a TCP header we need to track a segment (ports, numbers, offset and flags);
#: the window (2 more) is read when the capture kept it.
TCP_MIN_CAPTURED = 14
TH_FIN = 0x01
TH_SYN = 0x02
TH_RST = 0x04
TH_PSH = 0x08
TH_ACK = 0x10
TH_URG = 0x20
TH_ECE = 0x40
TH_CWR = 0x80
TH_AE = 0x100  # AccECN (was NS)
TH_ALL = 0x1FF
TCPOPT_EOL = 0
TCPOPT_NOP = 1
TCPOPT_MSS = 2
TCPOPT_WSCALE = 3
TCPOPT_SACK_PERMITTED = 4
TCPOPT_SACK = 5
TCPOPT_TIMESTAMPS = 8
#: The shortest TCP header that can carry a SACK block (20 + kind, length and one 8-byte block).
SACK_MIN_HEADER = 30
#: RFC 7323: larger shifts are taken as 14.
MAX_WSCALE = 14

# ---- sequence arithmetic -------------------------------------------------------------------
M32 = 0xFFFFFFFF
HALF = 1 << 31
WRAP = 1 << 32

# ---- tunables of the connection table --------------------------------------------------------
#: Silence (no packet of the connection either way) before a retransmission that makes it
#: "RTO-style": Linux's minimum retransmission timeout is 200 ms.
RTO_IDLE = 0.2
#: A tail loss probe (RFC 8985, Linux's TLP) re-sends the last segment sent once no ACK came for
#: 2 × SRTT (Linux adds 200 ms when one segment is out, or a few ms), never sooner than 10 ms,
#: and never later than the retransmission timeout would have fired: a first re-send later than
#: 2 × the largest RTT sample + TLP_SLACK is a timeout's (Linux's 200 ms plus 50 ms of margin).
TLP_MIN = 0.01
TLP_SLACK = 0.25
#: Bytes in flight at or above this share of the peer's advertised window count as "pinned".
PINNED_SHARE = 0.85
#: How many examples (SYN times, retransmission packets...) a connection side keeps.
MAX_EXAMPLES = 8
#: What an event-pool row (``fields.Event``) is: a SYN, a SYN-ACK or an RTO-style retransmission.
EV_SYN = 0
EV_SYNACK = 1
EV_RTO = 2
#: Gaps in the sequence space a side has sent (seen jumps not yet filled) that are tracked.
#: A segment inside one fills space never seen (reordering or a resend of a segment lost before
#: the capture point); anything else below the highest sequence re-sends bytes this capture
#: already saw, which only a retransmission does. When more gaps open, the lowest is
#: forgotten (its space then counts as seen).
MAX_HOLES = 8
#: Until the initial RTT is known, a segment below the highest sequence that comes sooner than
#: this after the one that advanced it is out of order, not retransmitted (Wireshark's rule).
OOO_DEFAULT = 0.003
#: Recent segments per side compared with each new one to find capture duplicates: the same
#: packet seen twice (a span port, ``tcpdump -i any`` on a host that forwards, a router capturing
#: on both sides) has the same sequence and acknowledgement numbers, length, flags, window,
#: TCP checksum and IPv4 identification.
DUP_RING = 8
#: The longest gap between two copies of one packet. Linux and Windows give a retransmission a
#: new IPv4 identification, but some stacks resend on a timeout with the same one (a server in
#: pppoe-over-qinq.pcap does, 310 ms later, and the client's D-SACK proves it arrived twice):
#: no retransmission timeout is shorter than Linux's 200 ms minimum, so copies within 100 ms
#: are the capture's. Without an identification (IPv6, or 0), a copy must also carry TCP
#: timestamps (the same ones: the checksum is the same) and come within the connection's
#: initial RTT (``Conn.ooo_thresh``): a go-back-N burst after a timeout resends, without
#: timestamps, byte-identical segments sent only milliseconds before (pppoe-over-qinq.pcap).
DUP_WINDOW = 0.1
#: RTT samples are kept in microseconds as 64-bit integers; a corrupt timestamp can make one
#: absurd, so samples are clamped here (2**62 µs, ~146,000 years).
MAX_RTT_US = float(1 << 62)

# ---- quantile sketches (window and RTT medians) ------------------------------------------------
#: A sketch counts exact values until it has seen more than this many distinct ones, then
#: folds every value onto a log-scale grid with MANTISSA_BITS significant bits (relative
#: error below 1 / 2**(MANTISSA_BITS - 1), under 1.6 %; 64 keys per octave).
EXACT_KEYS = 256
MANTISSA_BITS = 7
SKETCH_WINDOW = 0
SKETCH_RTT = 1

# ---- ageing: retiring silent connections from the kernel's rows (``scanner.CaptureState.sweep``)


@dataclass(frozen=True)
class Ageing:
    """When an open connection is retired from the kernel's rows (capture time: the latest
    packet's against the connection's last). Retiring never changes the output (a retired
    connection comes back exactly as it was); these only trade memory for work."""

    #: Silence after both FINs, or after a RST.
    closed_after: float = 2.0
    #: Silence otherwise.
    idle_after: float = 60.0
    #: Connection rows to start with; a sweep runs when they are full, and they grow (double)
    #: only when it freed less than half of them.
    rows: int = 1024


#: What the analysis uses.
DEFAULT_AGEING = Ageing()


# ---- the kernel's conversation with Python ----------------------------------------------------
FMT_PCAP = 1
FMT_PCAPNG = 2
#: What a kernel call returns (with the buffer position it stopped at).
R_PACKET = 0  # (records) a packet is in ``Packet``
R_NEED_DATA = 1  # refill the buffer from the position and call again
R_END = 2  # the file ended cleanly
R_ERROR = 3  # bad input: Scan.err says what, Scan.err_at where
R_SKIP = 4  # skip Scan.skip bytes without buffering them, then call again
R_GROW_CONNS = 5  # the connection rows are full: retire silent connections or grow them, call again
R_GROW_SKETCHES = 6  # the sketch map is too full
R_GROW_IFACES = 7  # the interface rows are full
R_FLUSH_TRACE = 8  # the trace buffer is full: take its rows and call again
R_GROW_EVENTS = 9  # the event pool is full: grow it and call again
R_GROW_KEYS = 10  # the 4-tuples by connection id (``fields.Key``) are full: grow them and call again
R_GROW_TABLE = 11  # the 4-tuple hash table is a quarter full: grow it and call again
R_REVIVE = 12  # the packet in hand belongs to a retired connection (Scan.revive): restore it, call again

#: Bad input (Scan.err), and what each says (ERRORS).
E_SHORT_MAGIC = 1
E_PCAP_HEADER_CUT = 2
E_NOT_PCAP = 3
E_RECORD_HEADER_CUT = 4
E_RECORD_CAPLEN = 5
E_RECORD_CUT = 6
E_BLOCK_HEADER_CUT = 7
E_BAD_BYTE_ORDER = 8
E_NO_SECTION = 9
E_BLOCK_LENGTH = 10
E_PACKET_BLOCK_SHORT = 11
E_PACKET_BLOCK_CUT = 12
E_PACKET_CAPLEN = 13
E_CAPLEN_PAST_BLOCK = 14
E_NO_INTERFACE = 15
E_PACKET_CUT = 16
E_TRAILER = 17
E_SPB_SHORT = 18
E_SPB_NO_INTERFACE = 19
E_SPB_CAPLEN = 20
E_SPB_LENGTH = 21
E_SPB_CUT = 22
E_META_TOO_LARGE = 23
E_META_CUT = 24
E_IDB_SHORT = 25
E_IDB_OPTION = 26
E_CUT_IN_BLOCK = 27
E_CUT_IN_OPTIONS = 28

#: What each E_* code says; ``{a}``/``{b}`` are ``Scan.err_a``/``err_b``.
ERRORS: dict[int, str] = {
    E_SHORT_MAGIC: "the capture is shorter than its 4-byte magic number",
    E_PCAP_HEADER_CUT: "the pcap file header is cut short (it needs 24 bytes)",
    E_NOT_PCAP: "not a pcap file (magic {a:08x})",
    E_RECORD_HEADER_CUT: "the file ends inside a record header ({a} of 16 bytes present)",
    E_RECORD_CAPLEN: "record caplen {a:,} is larger than the {b:,}-byte limit",
    E_RECORD_CUT: "the file ends in the middle of a packet: this record needs {a:,} bytes, {b:,} are left",
    E_BLOCK_HEADER_CUT: "the file ends inside a block header ({a} bytes present)",
    E_BAD_BYTE_ORDER: "bad pcapng byte-order magic {a:08x}",
    E_NO_SECTION: "a pcapng file must start with a section header block",
    E_BLOCK_LENGTH: "pcapng block length {a:,} is invalid",
    E_PACKET_BLOCK_SHORT: "packet block length {a:,} is too short",
    E_PACKET_BLOCK_CUT: "the file ends inside a packet block",
    E_PACKET_CAPLEN: "packet caplen {a:,} is larger than the {b:,}-byte limit",
    E_CAPLEN_PAST_BLOCK: "packet caplen {a:,} does not fit in its {b:,}-byte block",
    E_NO_INTERFACE: "packet on interface {a}, but only {b} interfaces are described",
    E_PACKET_CUT: "the file ends in the middle of a packet: this block needs {a:,} bytes, {b:,} are left",
    E_TRAILER: "pcapng block lengths at its start and end differ",
    E_SPB_SHORT: "simple packet block length {a:,} is too short",
    E_SPB_NO_INTERFACE: "simple packet block before any interface description",
    E_SPB_CAPLEN: "packet length {a:,} is larger than the {b:,}-byte limit",
    E_SPB_LENGTH: "simple packet block length {a:,} is invalid",
    E_SPB_CUT: "the file ends in the middle of a packet (simple packet block)",
    E_META_TOO_LARGE: "pcapng header block of {a:,} bytes is too large",
    E_META_CUT: "the file ends inside a pcapng header block",
    E_IDB_SHORT: "interface description block is too short",
    E_IDB_OPTION: "interface description option runs past its block",
    E_CUT_IN_BLOCK: "the file ends inside a pcapng block",
    E_CUT_IN_OPTIONS: "the file ends inside a packet block's options",
}

#: ``Packet.rel_ack`` of a segment that acknowledges nothing we can place (no ACK flag, a
#: RST, or the peer not seen yet).
NO_ACK = -(1 << 62)
#: How the connection table classified a segment (``Packet.kind``).
SEG_CONTROL = 0  # no sequence space: a pure ACK or window update
SEG_NEW = 1  # sequence space never sent before (past the highest)
SEG_SYN_RETRY = 2  # a SYN or SYN-ACK again (counted with the handshake)
SEG_KEEPALIVE = 3  # one byte (or none) at the last byte the peer acknowledged, without FIN
SEG_OUT_OF_ORDER = 4  # fills a gap soon after the highest segment
SEG_RETRANSMISSION = 5  # re-sends space this capture already saw
SEG_RESET = 6  # a RST: its numbers are not tracked
SEG_DUPLICATE = 7  # the same packet captured again (not tracked a second time)
