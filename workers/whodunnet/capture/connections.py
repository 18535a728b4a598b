"""The connection table: one frozen, JSON-able row per TCP connection.

Rows are built from the kernel's columns (``fields.Conn`` and ``fields.Side`` rows) once the
capture has been read: a Side field declared with ``view="..."`` becomes that attribute of
``Direction`` (shown as its ``show`` says), the attributes in ``DERIVED`` are worked out from
several fields. Everything is measured *at the capture point*: bytes in flight and RTT
samples mean most when the capture was taken at the data sender; the handshake's initial RTT
is a full round trip wherever the capture was taken.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, overload

import numpy as np

from whodunnet.capture.constants import EV_RTO, EV_SYN, EV_SYNACK, SKETCH_RTT, SKETCH_WINDOW
from whodunnet.capture.fields import (
    FINISHED_CONN,
    FINISHED_SIDE,
    Col,
    Conn,
    Event,
    Finished,
    FinishedStore,
    Handshake,
    Show,
    Side,
    blank,
)

Role = Literal["client", "server"]


@dataclass(frozen=True, slots=True)
class SynEvent:
    """One SYN or SYN-ACK: when (epoch seconds), its packet number, and its ECN setup flags."""

    time: float
    packet: int
    ecn: bool


@dataclass(frozen=True, slots=True)
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
    #: Retransmissions that carried payload (a FIN or SYN sent again alone is not a data packet).
    data_retransmissions: int
    #: Segments captured twice (the same packet seen again by the capture, not sent again):
    #: counted in ``packets`` and ``payload_bytes`` as tshark does, nowhere else.
    capture_duplicates: int
    #: Segments below the highest sequence sent that came within the initial RTT (or 3 ms)
    #: of the one that last advanced it: reordered, not retransmitted (Wireshark's rule).
    out_of_order: int
    #: Keep-alives (and zero-window probes): 0 or 1 byte repeating the last byte the peer had
    #: already acknowledged. The same byte not yet acknowledged is a retransmission.
    keep_alives: int
    #: Retransmissions by what set them off: a tail loss probe (the first re-send of the last
    #: segment sent, ≥ 2 RTT after it, with SACK on: Linux's TLP, counted in TCPLossProbes), a
    #: timeout after the connection was silent ≥ 200 ms (RTO-style, TCPTimeouts), a re-send of
    #: bytes the peer had already acknowledged (its ACK was lost past the capture point), and
    #: the rest (fast: set off by the peer's duplicate ACKs or SACKs).
    tail_loss_probes: int
    tlp_wait: float
    rto_retransmissions: int
    resent_acknowledged: int
    #: A FIN without data sent again (the peer did not acknowledge the close): counted, not timed.
    fin_retransmissions: int
    #: Data sent again while the peer's window was zero: probing the window, not repairing a loss.
    zero_window_probes: int
    #: Segments the peer said it received twice (D-SACK): retransmissions that were spurious.
    dsacked_segments: int
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


@dataclass(frozen=True, slots=True)
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
    #: When the client's first ACK after a SYN-ACK was seen (None: the handshake did not complete).
    handshake_ack_time: float | None
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


def _none_where(values: Any, missing: Any) -> list[Any]:
    """``values`` as a list, None where ``missing``."""
    return [None if m else v for v, m in zip(values.tolist(), missing.tolist(), strict=True)]


#: How a field declared with ``view=`` is shown (``fields.Col.show``), a whole column at a time.
_SHOW: dict[Show, Callable[[Any], list[Any]]] = {
    "as_is": lambda a: a.tolist(),
    "time": lambda a: _none_where(a, a < 0),
    "opt": lambda a: _none_where(a, a < 0),
    "packet": lambda a: _none_where(a, a == 0),
    "nonneg": lambda a: np.maximum(a, 0).tolist(),
}


class EventIndex:
    """The event pool's rows (``fields.Event``), grouped by side row (each row's in the order kept:
    ``CaptureState.table`` sorts the pool so), found by side row."""

    def __init__(self, events: Any) -> None:
        self._row = np.ascontiguousarray(events["row"])
        self._cols = {name: events[name] for name in ("kind", "frame", "time", "value")}

    def kept(self, rows: Any, kind: int) -> list[list[tuple[int, float, float]]]:
        """Per side row of ``rows``: the (packet, time, value) of each event of ``kind`` it kept, in order."""
        kept = self.flat(rows, kind)
        # Only these rows' events become Python values (not whole columns: 2 M events are 200 MB of objects).
        frames, times, values = (kept[name].tolist() for name in ("frame", "time", "value"))
        out: list[list[tuple[int, float, float]]] = []
        start = 0
        for stop in kept.ends.tolist():
            out.append(list(zip(frames[start:stop], times[start:stop], values[start:stop], strict=True)))
            start = stop
        return out

    def flat(self, rows: Any, kind: int) -> KeptEvents:
        """The events of ``kind`` that side rows ``rows`` kept, as columns: each row's in order, one row after
        another."""
        lo = np.searchsorted(self._row, rows, "left")
        counts = np.searchsorted(self._row, rows, "right") - lo
        first = np.cumsum(counts) - counts
        at = np.repeat(lo - first, counts) + np.arange(int(counts.sum()))
        mine = self._cols["kind"][at] == kind
        ends = np.cumsum(mine)[first + counts - 1] if len(at) else np.zeros(len(counts), np.int64)
        # A row that kept no event at all ends where the one before it does.
        ends = np.maximum.accumulate(np.where(counts > 0, ends, 0)) if len(ends) else ends
        at = at[mine]
        return KeptEvents(ends, {name: self._cols[name][at] for name in ("frame", "time", "value")})


@dataclass(frozen=True)
class KeptEvents:
    """Some side rows' kept events of one kind (``EventIndex.flat``): ``columns`` ("frame", "time", "value"), the
    rows' events one row after another; row ``i``'s end at ``ends[i]``, its start at the end of the one before."""

    ends: Any
    columns: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.columns[name]

    @property
    def starts(self) -> Any:
        """Where each row's events start."""
        return np.concatenate([[0], self.ends[:-1]]).astype(np.int64) if len(self.ends) else self.ends

    def time_at(self, at: Any, where: Any) -> Any:
        """The time of event ``at[i]`` where ``where[i]``, else 0.0 (a row that kept no event has none to read)."""
        times = self.columns["time"]
        if not len(times):
            return np.zeros(len(at))
        return np.where(where, times[np.where(where, at, 0)], 0.0)

    def of(self, i: int) -> list[tuple[int, float, float]]:
        """Row ``i``'s events as (packet, time, value)."""
        start, stop = (int(self.ends[i - 1]) if i else 0), int(self.ends[i])
        return list(zip(*(self.columns[name][start:stop].tolist() for name in ("frame", "time", "value")), strict=True))


class SideColumns:
    """Side fields of the side rows ``rows`` as numpy columns, one entry per Direction to build.

    ``end`` and ``scale_known`` are the connection's (its last packet's time, whether the
    handshake told the window scale); ``events`` the event pool grouped by side row.
    """

    def __init__(self, sides: Any, rows: Any, end: Any, scale_known: Any, events: EventIndex) -> None:
        self._sides = sides
        self.rows = rows
        self._events = events
        self.end = end
        self.scale_known = scale_known
        self._cache: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        col = self._cache.get(name)
        if col is None:
            col = self._cache[name] = self._sides.column(name, self.rows)
        return col

    def kept(self, kind: int) -> list[list[tuple[int, float, float]]]:
        """Per side row: the (packet, time, value) of each event of ``kind`` it kept, in order."""
        return self._events.kept(self.rows, kind)

    def quantile(self, which: int, i: int) -> Any:
        """Quantile ``scanner.QUANTILES[i]`` of sketch ``which`` (-1: no values)."""
        key = f"q[{which}, {i}]"
        col = self._cache.get(key)
        if col is None:
            col = self._cache[key] = self._sides.column("q", self.rows, (which, i))
        return col

    @property
    def handshake(self) -> Any:
        """The side sent a SYN or SYN-ACK (its handshake options are known)."""
        return (self["syn_count"] > 0) | (self["synack_count"] > 0)


def _throughput(s: SideColumns) -> list[float | None]:
    payload, first, last = s["payload"], s["first_data_ts"], s["last_data_ts"]
    ok = (payload > 0) & (last > first) & (first >= 0)
    return _none_where(payload / np.where(ok, last - first, 1.0), ~ok)


def _rto_examples(s: SideColumns) -> list[tuple[tuple[int, float, float], ...]]:
    return [tuple(kept) for kept in s.kept(EV_RTO)]


def _seconds(us: Any) -> list[float | None]:
    return _none_where(us / 1e6, us < 0)


def _fast_retransmissions(s: Any) -> Any:
    return s["retrans"] - s["rto"] - s["tlp"] - s["resent_acked"] - s["fin_resends"] - s["win_probes"]


def _zero_window_seconds(s: Any, end: Any) -> Any:
    return s["zero_total"] + np.where(s["zero_start"] >= 0, end - s["zero_start"], 0.0)


class _RoleColumns:
    """The fields of one role's side of every connection of a table, read like ``SideColumns``."""

    def __init__(self, table: ConnectionTable, role: Role) -> None:
        self._table = table
        self._role = role

    def __getitem__(self, name: str) -> Any:
        return self._table.side(self._role, name)


#: Direction attributes worked out from several fields, a column at a time.
DERIVED: dict[str, Callable[[SideColumns], list[Any]]] = {
    "throughput": _throughput,
    "fast_retransmissions": lambda s: _fast_retransmissions(s).tolist(),
    "rto_examples": _rto_examples,
    "window_median": lambda s: _none_where(s.quantile(SKETCH_WINDOW, 0), s.quantile(SKETCH_WINDOW, 0) < 0),
    "window_scaled": lambda s: s.scale_known.tolist(),
    "zero_window_seconds": lambda s: _zero_window_seconds(s, s.end).tolist(),
    "rtt_median": lambda s: _seconds(s.quantile(SKETCH_RTT, 0)),
    "rtt_p99": lambda s: _seconds(s.quantile(SKETCH_RTT, 1)),
    "window_scale": lambda s: _none_where(s["wscale"], ~s.handshake | (s["wscale"] < 0)),
    "sack_permitted": lambda s: _none_where(s["sack"], ~s.handshake),
    "timestamps": lambda s: _none_where(s["tsopt"], ~s.handshake),
    "syn_window": lambda s: _none_where(s["syn_win"], ~s.handshake | (s["syn_win"] < 0)),
}

#: Side fields shown as a Direction attribute as they are (``view=`` in ``fields.Side``).
VIEWED: dict[str, Col] = {c.view: c for c in Side.columns if c.view}
#: Conn fields shown as a Connection attribute as they are.
CONN_VIEWED: dict[str, Col] = {c.view: c for c in Conn.columns if c.view}


def directions(s: SideColumns) -> list[Direction]:
    """The Direction of each side row of ``s``."""
    out: dict[str, list[Any]] = {name: _SHOW[c.show](s[c.name]) for name, c in VIEWED.items()}
    out.update((name, derive(s)) for name, derive in DERIVED.items())
    order = [out[f.name] for f in fields(Direction)]
    return [Direction(*values) for values in zip(*order, strict=True)]


def client_sides(conns: Any, sides: Any) -> tuple[Any, Any]:
    """Per connection: (side of the client, whether the handshake told us), as numpy columns.

    Without a SYN or SYN-ACK, the client is the sender of the connection's first packet.
    """
    pkts = sides.pkts.reshape(-1, 2)
    first = sides.first_ts.reshape(-1, 2)
    first0 = (pkts[:, 0] > 0) & ((pkts[:, 1] == 0) | (first[:, 0] <= first[:, 1]))
    known = conns.client >= 0
    return np.where(known, conns.client, np.where(first0, 0, 1)), known


def _client_server(conns: Any, client: Any) -> list[tuple[str, int, str, int]]:
    """(client address, client port, server address, server port) of each row of ``conns``; ``client``: which side
    (0/1) of each is the client."""
    k = {n: conns[n].tolist() for n in ("a_ip_hi", "a_ip_lo", "b_ip_hi", "b_ip_lo", "a_port", "b_port", "v6")}
    out = []
    for i, ci in enumerate(client.tolist()):
        ips = (_ip(k["a_ip_hi"][i], k["a_ip_lo"][i], k["v6"][i]), _ip(k["b_ip_hi"][i], k["b_ip_lo"][i], k["v6"][i]))
        ports = (k["a_port"][i], k["b_port"][i])
        out.append((ips[ci], ports[ci], ips[1 - ci], ports[1 - ci]))
    return out


def _ip(hi: int, lo: int, v6: bool) -> str:
    if v6:
        return str(ipaddress.IPv6Address((hi << 64) | lo))
    return f"{lo >> 24}.{(lo >> 16) & 255}.{(lo >> 8) & 255}.{lo & 255}"


def _events(s: SideColumns, kind: int) -> list[tuple[SynEvent, ...]]:
    """The SYNs (``kind`` EV_SYN) or SYN-ACKs (EV_SYNACK) each side row kept."""
    return [tuple(SynEvent(t, f, bool(v)) for f, t, v in kept) for kept in s.kept(kind)]


def _first_of(client_ts: float, server_ts: float) -> tuple[float | None, Role | None]:
    """(time, role) of whichever endpoint did it first; (None, None) when neither did."""
    if client_ts >= 0 and (server_ts < 0 or client_ts <= server_ts):
        return client_ts, "client"
    if server_ts >= 0:
        return server_ts, "server"
    return None, None


def _scale_note(scaled: bool, client_scale: int, server_scale: int, syns: int = 0, synacks: int = 0) -> str:
    if not scaled and syns and not synacks:
        return "no window scale agreed: the SYN was never answered in the capture, windows are raw (unscaled) values"
    if not scaled and synacks and not syns:
        return "window scale unknown: the client's SYN was not captured, windows are raw (unscaled) values"
    if not scaled:
        return "window scale unknown: the handshake was not captured, windows are raw (unscaled) values"
    if client_scale or server_scale:
        return f"window scale {client_scale} (client) / {server_scale} (server), from the captured handshake"
    return "no window scaling (an endpoint did not offer it in the handshake)"


def _initial_rtt(hs_ack_ts: float, syns: tuple[SynEvent, ...], synacks: tuple[SynEvent, ...]) -> float | None:
    """SYN → SYN-ACK → ACK as two halves, without SYN or SYN-ACK retry delays."""
    if hs_ack_ts < 0 or not synacks:
        return None
    first_synack = synacks[0].time
    syns_before = [e.time for e in syns if e.time <= first_synack]
    last_synack = [e.time for e in synacks if e.time <= hs_ack_ts]
    if not syns_before or not last_synack:
        return None
    return (first_synack - syns_before[-1]) + (hs_ack_ts - last_synack[-1])


#: Rows built at a time when the whole table is walked (bounds the Python objects alive at once
#: to what the walker keeps).
ROWS_PER_CHUNK = 4096


class ConnectionTable(Sequence[Connection]):
    """Every connection of a capture, as columns (its finished rows, ``fields.Finished``, side
    ``2 * id + side``); a ``Connection`` row only when asked for.

    Findings read whole columns (``side``, ``conn``, ``handshake``) and build rows for the few
    connections they cite (``rows``); walking the table (the console's COPY, ``--connections``)
    builds rows a chunk at a time. Rows come out in id order and equal what one would build
    for the whole table at once.
    """

    def __init__(self, conns: Finished, sides: Finished, events: Any) -> None:
        """``events``: the kept examples grouped by side row (``CaptureState.table``)."""
        self._conns = conns
        self._sides = sides
        self._event_rows = events
        self._n = len(conns)
        client, known = client_sides(conns, sides) if self._n else (np.zeros(0, np.int64), np.zeros(0, np.bool_))
        #: Per connection: which side (0/1) is the client, and whether a SYN or SYN-ACK said so.
        self.client = client
        self.roles_known = known
        self._client_rows = 2 * np.arange(self._n) + client
        #: Each connection's server's side row: the findings read a server column some thirty times.
        self._server_rows = self._client_rows ^ 1
        self._events: EventIndex | None = None
        self._handshake: Any = None
        #: The two above are worked out once, on whichever thread first asks (the analysis reads the table on two).
        self._lazy = threading.RLock()

    @classmethod
    def empty(cls) -> ConnectionTable:
        """A table of no connections (nothing was read)."""
        conns, sides = FinishedStore(FINISHED_CONN).table(0), FinishedStore(FINISHED_SIDE).table(0)
        return cls(conns, sides, blank(Event, 0))

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Connection: ...
    @overload
    def __getitem__(self, i: slice) -> list[Connection]: ...
    def __getitem__(self, i: int | slice) -> Connection | list[Connection]:
        if isinstance(i, slice):
            return self.rows(np.arange(self._n)[i])
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self.rows(np.array([i % self._n]))[0]

    def __deepcopy__(self, memo: dict[int, Any]) -> list[dict[str, Any]]:
        """Its rows as plain data: what ``dataclasses.asdict`` of a result holding the table gives."""
        return [asdict(c) for c in self]

    def __iter__(self) -> Iterator[Connection]:
        for start in range(0, self._n, ROWS_PER_CHUNK):
            yield from self.rows(np.arange(start, min(self._n, start + ROWS_PER_CHUNK)))

    # -- columns --------------------------------------------------------------------------

    def conn(self, name: str) -> Any:
        """A ``fields.Conn`` field, one value per connection (raw: -1 / 0 where the row shows None)."""
        return self._conns[name]

    def side_rows(self, role: Role) -> Any:
        """The side row of each connection's ``role``."""
        return self._client_rows if role == "client" else self._server_rows

    def side(self, role: Role, name: str) -> Any:
        """A ``fields.Side`` field of what each connection's ``role`` sent (raw, as the kernel keeps it)."""
        return self._sides.column(name, self.side_rows(role))

    def window_median(self, role: Role) -> Any:
        """The median window each connection's ``role`` advertised (-1: none)."""
        return self._sides.column("q", self.side_rows(role), (SKETCH_WINDOW, 0))

    def rtt_median(self, role: Role) -> Any:
        """The median RTT of ``role``'s data, in microseconds (-1: no sample)."""
        return self._sides.column("q", self.side_rows(role), (SKETCH_RTT, 0))

    def fast_retransmissions(self, role: Role) -> Any:
        """``Direction.fast_retransmissions`` of each connection's ``role``."""
        return _fast_retransmissions(_RoleColumns(self, role))

    def zero_window_seconds(self, role: Role) -> Any:
        """``Direction.zero_window_seconds`` of each connection's ``role`` (a zero window still open
        at the end counts until the connection's last packet)."""
        return _zero_window_seconds(_RoleColumns(self, role), self._conns["last_ts"])

    def event_values(self, kind: int) -> list[float]:
        """The value of every kept event of ``kind`` (for EV_RTO: the silence before each)."""
        ev = self._event_rows
        values: list[float] = ev["value"][ev["kind"] == kind].tolist()
        return values

    @property
    def handshake(self) -> Any:
        """``fields.Handshake`` per connection (first SYN-ACK, initial RTT, ECN), from the kept events."""
        with self._lazy:
            if self._handshake is None:
                self._handshake = self._handshake_facts()
        return self._handshake

    def _handshake_facts(self) -> Any:
        from whodunnet.capture.kernel import jit_disabled  # numba: only once a capture was read
        from whodunnet.capture.kernel.finalize import handshake_facts

        out = blank(Handshake, self._n)
        events, client_rows, hs_ack = self._event_rows, self._client_rows, self._conns["hs_ack_ts"]
        if jit_disabled():  # plain Python reads rows by attribute: record arrays
            handshake_facts(events, len(events), client_rows, hs_ack, out)
        else:  # compiled: plain arrays (numba types a record array subclass slowly)
            handshake_facts(events.view(np.ndarray), len(events), client_rows, hs_ack, out.view(np.ndarray))
        return out

    def handshake_kept(self, ids: Any, role: Role) -> KeptEvents:
        """Per connection of ``ids``: the SYNs its client sent (``role`` "client") or the SYN-ACKs its server
        sent ("server"), as its row's ``syn_times`` / ``synack_times`` holds them, without building the row: as
        columns (``KeptEvents``; ``of`` gives one connection's as (packet, time, ECN flags)), since the findings
        read them of every retried connection (tens of thousands of them in a capture of many connections)."""
        rows = self.side_rows(role)[np.asarray(ids, np.int64)]
        return self.events.flat(rows, EV_SYN if role == "client" else EV_SYNACK)

    def endpoints(self, ids: Any) -> list[tuple[str, str]]:
        """(client, server) of connections ``ids``, as their rows' ``client`` and ``server`` read, without building
        the rows (matching two captures names every matched connection)."""
        ids = np.asarray(ids, np.int64)
        ends = _client_server(self._conns[ids], self.client[ids])
        return [(_endpoint(cip, cport), _endpoint(sip, sport)) for cip, cport, sip, sport in ends]

    @property
    def events(self) -> EventIndex:
        with self._lazy:
            if self._events is None:
                self._events = EventIndex(self._event_rows)
        return self._events

    # -- rows -----------------------------------------------------------------------------

    def rows(self, ids: Any) -> list[Connection]:
        """The rows of connections ``ids`` (ascending or not: in the order given)."""
        ids = np.asarray(ids, np.int64)
        if not len(ids):
            return []
        conns = self._conns[ids]
        client, known = self.client[ids], self.roles_known[ids]
        crow = self._client_rows[ids]
        cs = SideColumns(self._sides, crow, conns.last_ts, conns.scale_known, self.events)
        ss = SideColumns(self._sides, crow ^ 1, conns.last_ts, conns.scale_known, self.events)
        c2s, s2c = directions(cs), directions(ss)
        syns, synacks = _events(cs, EV_SYN), _events(ss, EV_SYNACK)
        direct = {name: _SHOW[c.show](conns[c.name]) for name, c in CONN_VIEWED.items()}
        ends = _client_server(conns, client)
        first_ts, last_ts, hs_ack = conns.first_ts.tolist(), conns.last_ts.tolist(), conns.hs_ack_ts.tolist()
        scale = conns.scale.tolist()
        fins = zip(cs["fin_ts"].tolist(), ss["fin_ts"].tolist(), strict=True)
        rsts = zip(cs["rst_ts"].tolist(), ss["rst_ts"].tolist(), strict=True)
        syn_counts, synack_counts = cs["syn_count"].tolist(), ss["synack_count"].tolist()
        out = []
        for i, cid, ci, role_known, (cfin, sfin), (crst, srst) in zip(
            range(len(ids)), ids.tolist(), client.tolist(), known.tolist(), fins, rsts, strict=True
        ):
            client_ip, client_port, server_ip, server_port = ends[i]
            first_fin, first_rst = _first_of(cfin, sfin), _first_of(crst, srst)
            scaled = direct["window_scale_known"][i]
            out.append(
                Connection(
                    id=cid,
                    client_ip=client_ip,
                    client_port=client_port,
                    server_ip=server_ip,
                    server_port=server_port,
                    roles_known=role_known,
                    duration=last_ts[i] - first_ts[i],
                    syn_count=syn_counts[i],
                    syn_times=syns[i],
                    synack_count=synack_counts[i],
                    synack_times=synacks[i],
                    handshake_complete=hs_ack[i] >= 0,
                    initial_rtt=_initial_rtt(hs_ack[i], syns[i], synacks[i]),
                    window_scale_note=_scale_note(
                        scaled, scale[i][ci], scale[i][1 - ci], syn_counts[i], synack_counts[i]
                    ),
                    ecn_setup_syn=any(e.ecn for e in syns[i]),
                    ecn_setup_synack=any(e.ecn for e in synacks[i]),
                    first_fin_by=first_fin[1],
                    first_fin_time=first_fin[0],
                    first_rst_by=first_rst[1],
                    first_rst_time=first_rst[0],
                    c2s=c2s[i],
                    s2c=s2c[i],
                    **{name: col[i] for name, col in direct.items()},
                )
            )
        return out
