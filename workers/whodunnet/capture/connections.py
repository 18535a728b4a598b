"""The connection table: one frozen, JSON-able row per TCP connection.

Rows are built from the reader's ``ConnState`` once the capture has been read. Everything
is measured *at the capture point*: bytes in flight and RTT samples mean most when the
capture was taken at the data sender; the handshake's initial RTT is a full round trip
wherever the capture was taken.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from typing import Literal

from whodunnet.capture.tcp import ConnState, SideState, TcpTable

Role = Literal["client", "server"]


@dataclass(frozen=True)
class SynEvent:
    """One SYN or SYN-ACK: when (epoch seconds), its packet number, and its ECN setup flags."""

    time: float
    packet: int
    ecn: bool


@dataclass(frozen=True)
class Direction:
    """What one endpoint sent (``client`` → ``server`` or back) and how the peer treated it."""

    packets: int
    payload_bytes: int
    #: Packets carrying payload (original and retransmitted).
    data_packets: int
    first_data_time: float | None
    last_data_time: float | None
    #: Payload bytes per second between the first and the last data packet (None: one packet).
    throughput: float | None
    #: Raw sequence numbers: the SYN's (None without one) and the base the row counts from.
    isn: int | None
    base_seq: int
    #: Sequence space covered (relative to ``base_seq``), SYN and FIN included.
    seq_span: int
    retransmissions: int
    retransmitted_bytes: int
    #: Segments below the highest sequence sent that came within the initial RTT (or 3 ms)
    #: of the one that last advanced it: reordered, not retransmitted (Wireshark's rule).
    out_of_order: int
    #: Retransmissions after the connection was silent ≥ 200 ms (RTO-style), and the rest.
    rto_retransmissions: int
    fast_retransmissions: int
    #: Seconds of silence before the RTO-style retransmissions, added up.
    rto_wait: float
    #: (packet number, time, idle seconds before it) of the first RTO-style retransmissions.
    rto_examples: tuple[tuple[int, float, float], ...]
    #: Window this endpoint advertised, scaled when the scale is known (see ``window_scaled``).
    window_min: int | None
    window_median: int | None
    window_max: int | None
    window_scaled: bool
    zero_windows: int
    zero_window_seconds: float
    first_zero_window_packet: int | None
    #: Largest (highest sent - highest acknowledged) seen when this endpoint sent data.
    max_in_flight: int
    #: Data packets sent while the peer's window was known, and how many of them found the
    #: bytes in flight at ≥ 85 % of that window ("pinned" at the receive window).
    window_checked_packets: int
    window_pinned_packets: int
    #: RTT samples: data this endpoint sent until the peer's ACK covered it, timed here.
    rtt_samples: int
    rtt_min: float | None
    rtt_median: float | None
    rtt_p99: float | None
    #: Handshake options this endpoint sent on its SYN or SYN-ACK (None: not seen).
    mss: int | None
    window_scale: int | None
    sack_permitted: bool | None
    timestamps: bool | None
    syn_window: int | None
    fin_time: float | None
    fin_packet: int | None
    rst_time: float | None
    rst_packet: int | None
    #: The peer's bytes not yet acknowledged by this endpoint when it sent its FIN.
    peer_unacked_at_fin: int
    #: Data this endpoint sent after the peer's FIN.
    data_after_peer_fin_packets: int
    data_after_peer_fin_bytes: int
    #: This endpoint answered data that came after its own FIN with a RST.
    rst_after_fin_time: float | None
    rst_after_fin_packet: int | None


@dataclass(frozen=True)
class Connection:
    """One TCP connection as the capture saw it.

    ``id`` is its number in order of first packet, the same as Wireshark's ``tcp.stream``.
    The client is the endpoint that sent the SYN; without a SYN, the one that did not send
    the SYN-ACK; without either, the sender of the first packet (``roles_known`` False).
    """

    id: int
    client_ip: str
    client_port: int
    server_ip: str
    server_port: int
    roles_known: bool
    first_time: float
    last_time: float
    duration: float
    first_packet: int
    last_packet: int
    # -- handshake --
    syn_count: int
    syn_times: tuple[SynEvent, ...]
    synack_count: int
    synack_times: tuple[SynEvent, ...]
    handshake_complete: bool
    #: SYN → SYN-ACK → ACK, as two halves: the last SYN before the first SYN-ACK to that
    #: SYN-ACK, plus the last SYN-ACK before the client's first ACK to that ACK (a full round
    #: trip wherever the capture was taken, without SYN or SYN-ACK retry delays). None when
    #: the handshake was not captured.
    initial_rtt: float | None
    #: False when the handshake was not captured: windows are then raw, not scaled.
    window_scale_known: bool
    window_scale_note: str
    ecn_setup_syn: bool
    ecn_setup_synack: bool
    # -- close --
    first_fin_by: Role | None
    first_fin_time: float | None
    first_rst_by: Role | None
    first_rst_time: float | None
    # -- both ways --
    c2s: Direction
    s2c: Direction

    @property
    def client(self) -> str:
        return _endpoint(self.client_ip, self.client_port)

    @property
    def server(self) -> str:
        return _endpoint(self.server_ip, self.server_port)

    def side(self, role: Role) -> Direction:
        """What ``role`` sent."""
        return self.c2s if role == "client" else self.s2c


def _endpoint(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _ip(raw: object) -> str:
    if isinstance(raw, int):
        return f"{raw >> 24}.{(raw >> 16) & 255}.{(raw >> 8) & 255}.{raw & 255}"
    if isinstance(raw, bytes):
        return str(ipaddress.IPv6Address(raw))
    return str(raw)


def _opt(v: float) -> float | None:
    return None if v < 0 else v


def _direction(s: SideState, end_ts: float) -> Direction:
    median = s.rtt.quantile(0.5)
    p99 = s.rtt.quantile(0.99)
    throughput = None
    if s.payload and s.last_data_ts > s.first_data_ts >= 0:
        throughput = s.payload / (s.last_data_ts - s.first_data_ts)
    zero_total = s.zero_total + (end_ts - s.zero_start if s.zero_start >= 0 else 0.0)
    handshake = s.syn_count or s.synack_count
    return Direction(
        packets=s.pkts,
        payload_bytes=s.payload,
        data_packets=s.data_pkts,
        first_data_time=_opt(s.first_data_ts),
        last_data_time=_opt(s.last_data_ts),
        throughput=throughput,
        isn=s.isn if s.isn >= 0 else None,
        base_seq=max(s.base, 0),
        seq_span=s.max_end,
        retransmissions=s.retrans,
        retransmitted_bytes=s.retrans_bytes,
        out_of_order=s.ooo,
        rto_retransmissions=s.rto,
        fast_retransmissions=s.retrans - s.rto,
        rto_wait=s.rto_wait,
        rto_examples=tuple(s.rto_examples),
        window_min=s.win_min if s.win_min >= 0 else None,
        window_median=s.windows.quantile(0.5),
        window_max=s.win_max if s.win_max >= 0 else None,
        window_scaled=False,  # set by the caller
        zero_windows=s.zero_count,
        zero_window_seconds=zero_total,
        first_zero_window_packet=s.zero_first_pkt or None,
        max_in_flight=s.max_inflight,
        window_checked_packets=s.pinned_checked,
        window_pinned_packets=s.pinned,
        rtt_samples=s.rtt.n,
        rtt_min=_opt(s.rtt_min),
        rtt_median=None if median is None else median / 1e6,
        rtt_p99=None if p99 is None else p99 / 1e6,
        mss=s.mss if s.mss >= 0 else None,
        window_scale=(s.wscale if s.wscale >= 0 else None) if handshake else None,
        sack_permitted=s.sack if handshake else None,
        timestamps=s.tsopt if handshake else None,
        syn_window=s.syn_win if handshake and s.syn_win >= 0 else None,
        fin_time=_opt(s.fin_ts),
        fin_packet=s.fin_pkt or None,
        rst_time=_opt(s.rst_ts),
        rst_packet=s.rst_pkt or None,
        peer_unacked_at_fin=s.peer_unacked_at_fin,
        data_after_peer_fin_packets=s.data_after_peer_fin_pkts,
        data_after_peer_fin_bytes=s.data_after_peer_fin_bytes,
        rst_after_fin_time=_opt(s.rst_after_fin_ts),
        rst_after_fin_packet=s.rst_after_fin_pkt or None,
    )


def client_side(c: ConnState) -> tuple[int, bool]:
    """(side index of the client, whether the handshake told us)."""
    if c.client >= 0:
        return c.client, True
    # Without a SYN or SYN-ACK: the sender of the connection's first packet.
    a, b = c.sides
    first0 = a.pkts > 0 and (b.pkts == 0 or a.first_ts <= b.first_ts)
    return (0 if first0 else 1), False


def build_connection(c: ConnState) -> Connection:
    """The table row of one connection."""
    ci, roles_known = client_side(c)
    si = 1 - ci
    key = c.key
    lo_ip, lo_port, hi_ip, hi_port = key
    ips = ((_ip(lo_ip), lo_port), (_ip(hi_ip), hi_port))
    cs, ss = c.sides[ci], c.sides[si]
    c2s = _direction(cs, c.last_ts)
    s2c = _direction(ss, c.last_ts)
    scaled = c.scale_known
    c2s = _replace_scaled(c2s, scaled)
    s2c = _replace_scaled(s2c, scaled)
    if scaled:
        note = (
            f"window scale {c.scale[ci]} (client) / {c.scale[si]} (server), from the captured handshake"
            if any(c.scale)
            else "no window scaling (an endpoint did not offer it in the handshake)"
        )
    else:
        note = "window scale unknown: the handshake was not captured, windows are raw (unscaled) values"
    initial_rtt = None
    if c.hs_ack_ts >= 0 and ss.synack_events:
        first_synack = ss.synack_events[0][0]
        syns_before = [e[0] for e in cs.syn_events if e[0] <= first_synack]
        last_synack = [e[0] for e in ss.synack_events if e[0] <= c.hs_ack_ts]
        if syns_before and last_synack:
            initial_rtt = (first_synack - syns_before[-1]) + (c.hs_ack_ts - last_synack[-1])
    first_fin = _first_of(cs.fin_ts, ss.fin_ts)
    first_rst = _first_of(cs.rst_ts, ss.rst_ts)
    return Connection(
        id=c.index,
        client_ip=ips[ci][0],
        client_port=ips[ci][1],
        server_ip=ips[si][0],
        server_port=ips[si][1],
        roles_known=roles_known,
        first_time=c.first_ts,
        last_time=c.last_ts,
        duration=c.last_ts - c.first_ts,
        first_packet=c.first_pkt,
        last_packet=c.last_pkt,
        syn_count=cs.syn_count,
        syn_times=tuple(SynEvent(t, p, e) for t, e, p in cs.syn_events),
        synack_count=ss.synack_count,
        synack_times=tuple(SynEvent(t, p, e) for t, e, p in ss.synack_events),
        handshake_complete=c.hs_ack_ts >= 0,
        initial_rtt=initial_rtt,
        window_scale_known=scaled,
        window_scale_note=note,
        ecn_setup_syn=any(e[1] for e in cs.syn_events),
        ecn_setup_synack=any(e[1] for e in ss.synack_events),
        first_fin_by=first_fin[1],
        first_fin_time=first_fin[0],
        first_rst_by=first_rst[1],
        first_rst_time=first_rst[0],
        c2s=c2s,
        s2c=s2c,
    )


def _first_of(client_ts: float, server_ts: float) -> tuple[float | None, Role | None]:
    """(time, role) of whichever endpoint did it first; (None, None) when neither did."""
    if client_ts >= 0 and (server_ts < 0 or client_ts <= server_ts):
        return client_ts, "client"
    if server_ts >= 0:
        return server_ts, "server"
    return None, None


def _replace_scaled(d: Direction, scaled: bool) -> Direction:
    return replace(d, window_scaled=scaled)


def build_table(table: TcpTable) -> tuple[Connection, ...]:
    """Every connection's row, in id order."""
    return tuple(build_connection(c) for c in table.all_connections())
