"""The one table of capture state: every field the compiled kernel keeps, declared once.

Each class below is one record type, its fields in order: the annotation is the type (``int``
is a signed 64-bit word, ``U64`` an unsigned one, ``Ints``/``Floats``/``Flags`` fixed-size
arrays), ``col(init, doc, ...)`` the value a fresh row starts with and what the field means.
From that:

- ``dtype(Side)`` is the numpy record type of the kernel's arrays; compiled code reads and
  writes fields by name (``side.retrans += 1``), so no index is ever numbered by hand, and
  the annotation lets mypy check those names in the kernel's source.
- ``blank(Side, n)`` gives n rows at their initial values; ``grown(rows, n)`` a bigger copy.
- The kernel's growing arrays (``Conn``, ``Side``, ``Key``, ``Event``) are ``MappedRows`` instead:
  all-zero memory the operating system hands out lazily, so an array's unused tail costs neither
  time nor resident memory; the kernel copies ``blank(Conn, 1)`` and ``blank(Side, 1)`` (the
  ``template``) into a row when it starts a connection there.
- The Python views read the same columns by name: a field with ``view="packets"`` becomes
  that attribute of the table row (``connections.Direction.packets``), shown as ``show`` says
  (``time``: -1 is None; ``packet``: 0 is None; ``opt``: negative is None). Fields without a
  view are working state (sequence tracking, sketch fronts) or feed derived attributes.

A new per-connection fact is one line here plus the code that sets it (and, when the table
shows it, one attribute on the row).
"""

from __future__ import annotations

import inspect
import mmap
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

from whodunnet.capture.constants import DUP_RING, MAX_HOLES, NO_ACK, OOO_DEFAULT

#: An unsigned 64-bit word (the halves of an address).
U64 = np.uint64
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
#: Fixed-size arrays of 0/1 flags (numba has no nested bool arrays).
Flags = npt.NDArray[np.uint8]

Show = Literal["as_is", "time", "packet", "opt", "nonneg"]

_DTYPES: dict[str, type[np.generic]] = {
    "int": np.int64,
    "U64": np.uint64,
    "float": np.float64,
    "bool": np.bool_,
    "Ints": np.int64,
    "Floats": np.float64,
    "Flags": np.uint8,
}


@dataclass(frozen=True)
class Col:
    """One field: its name, element type, shape, initial value, meaning and view."""

    name: str
    kind: type[np.generic]
    shape: tuple[int, ...]
    init: float
    doc: str
    view: str | None
    show: Show


@dataclass(frozen=True)
class _Spec:
    init: float
    doc: str
    shape: tuple[int, ...]
    view: str | None
    show: Show


def col(init: float, doc: str, *, shape: tuple[int, ...] = (), view: str | None = None, show: Show = "as_is") -> Any:
    """Declare a field (see the module docstring)."""
    return _Spec(init, doc, shape, view, show)


class Record:
    """Base of the record types: collects the declared fields into ``columns`` and ``dtype``."""

    columns: ClassVar[tuple[Col, ...]] = ()
    dtype: ClassVar[np.dtype[Any]]

    def __init_subclass__(cls) -> None:
        cols = []
        for name, annotation in inspect.get_annotations(cls).items():
            spec = cls.__dict__.get(name)
            if not isinstance(spec, _Spec):
                continue
            if hasattr(np.record, name):  # np.record (the rows without the JIT) would shadow it
                raise TypeError(f"{cls.__name__}.{name}: the name is taken by numpy's record type")
            kind = _DTYPES[str(annotation)]
            if str(annotation) in ("Ints", "Floats", "Flags") and not spec.shape:
                raise TypeError(f"{cls.__name__}.{name}: an array field needs a shape")
            cols.append(Col(name, kind, spec.shape, spec.init, spec.doc, spec.view, spec.show))
        cls.columns = tuple(cols)
        cls.dtype = np.dtype([(c.name, c.kind, c.shape) if c.shape else (c.name, c.kind) for c in cols], align=True)


def blank(record: type[Record], n: int) -> Any:
    """``n`` rows of ``record`` at their initial values (a numpy record array)."""
    rows = np.zeros(n, record.dtype)
    for c in record.columns:
        if c.init:
            rows[c.name] = c.init
    return rows.view(np.recarray)


def grown(rows: Any, record: type[Record], n: int) -> Any:
    """A copy of ``rows`` with room for ``n`` rows, the new ones blank."""
    out = blank(record, n)
    out[: len(rows)] = rows
    return out


def template(record: type[Record]) -> Any:
    """One row at its initial values: what the kernel copies into an all-zero row it starts (``MappedRows``)."""
    return blank(record, 1)


# ---- reading: one row for the whole scan ------------------------------------------------------


class Scan(Record):
    """Where reading is in the file format, what it counted, and what it asks Python for."""

    fmt: int = col(0, "0 until the file header is read, then FMT_PCAP or FMT_PCAPNG")
    big: bool = col(False, "big-endian file (pcap) or section (pcapng)")
    ts_scale: float = col(1e-6, "pcap: seconds per unit of a record's fraction field")
    link: int = col(0, "pcap: the file's link type")
    in_section: bool = col(False, "pcapng: a section header has been read")
    iface_base: int = col(0, "pcapng: the current section's first row in the interfaces")
    n_ifaces: int = col(0, "pcapng: interface rows in use (every section's)")
    last_ts: float = col(0.0, "pcapng: time of the last timed packet (simple packet blocks have none)")
    frames: int = col(0, "packet records read", view="packets")
    bytes: int = col(0, "bytes on the wire", view="bytes")
    captured: int = col(0, "bytes captured", view="captured_bytes")
    truncated: int = col(0, "packets cut by the snapshot length", view="truncated_packets")
    tmin: float = col(np.inf, "earliest packet time")
    tmax: float = col(-np.inf, "latest packet time")
    ip_packets: int = col(0, "IP headers decoded (inner ones of a tunnel too)")
    ip_fragments: int = col(0, "IP fragments (counted, not reassembled)", view="ip_fragments")
    ip_len_beyond: int = col(
        0, "IP headers whose length runs past the frame (the frame's length used)", view="ip_length_beyond_frame"
    )
    dup_packets: int = col(0, "TCP segments captured twice (capture duplicates)", view="duplicate_packets")
    dup_ttl: int = col(0, "of them, copies that differ only in TTL (a router seen on both sides)", view="duplicate_ttl")
    tcp_packets: int = col(0, "TCP segments decoded", view="tcp_packets")
    conns: int = col(0, "connections so far (ids handed out, in order of first packet)", view="tcp_connections")
    slots: int = col(0, "connection rows ever used (a retired connection's row is reused: ``free``)")
    n_free: int = col(0, "rows of retired connections waiting to be reused, on the ``free`` stack")
    ht_used: int = col(0, "4-tuples in the hash table (open and retired connections)")
    pending: bool = col(False, "the packet in hand is decoded and waits for its connection (after R_REVIVE)")
    revive: int = col(-1, "R_REVIVE: the retired connection the packet in hand belongs to")
    revive_at: int = col(-1, "R_REVIVE: its hash table slot")
    sketch_used: int = col(0, "entries in use in the sketch map")
    n_events: int = col(0, "rows in use in the event pool")
    n_trace: int = col(0, "packet rows of traced connections waiting in the trace buffer")
    err: int = col(0, "an E_* code when reading stopped on bad input")
    err_a: int = col(0, "first number of the error message")
    err_b: int = col(0, "second number of the error message")
    err_at: int = col(0, "buffer position of the error (the start of the record or block)")
    skip: int = col(0, "bytes from the returned position that Python skips without buffering")
    skip_err: int = col(0, "the E_* code if the file ends inside those bytes")


class Iface(Record):
    """One pcapng interface description."""

    link: int = col(0, "link type")
    div: float = col(1e6, "timestamp units per second (if_tsresol)")
    tsoff: int = col(0, "seconds added to every timestamp (if_tsoffset)")
    snaplen: int = col(0, "snapshot length (0: none)")


# ---- decoding: one row, the packet in hand -------------------------------------------------


class Packet(Record):
    """The packet in hand: each decoding step reads the previous steps' fields, then the
    connection table adds what it made of the segment."""

    frame: int = col(0, "1-based packet number in the file")
    ts: float = col(0.0, "time, epoch seconds")
    off: int = col(0, "buffer position of the packet's first byte")
    caplen: int = col(0, "bytes captured")
    wirelen: int = col(0, "bytes on the wire")
    link: int = col(0, "link type")
    end: int = col(0, "buffer position just past the captured bytes")
    ethertype: int = col(0, "protocol of the next header (an ethertype) while decoding")
    net: int = col(0, "buffer position of the next header while decoding")
    ip_cap: int = col(-1, "a shim's own bound on the IP packet's length (PPPoE), or -1")
    v6: bool = col(False, "the innermost IP header is IPv6")
    ip_id: int = col(-1, "the innermost IPv4 header's identification, -1 for IPv6")
    ttl: int = col(0, "its TTL (hop limit)")
    src_hi: U64 = col(0, "source address, high 64 bits (0 for IPv4)")
    src_lo: U64 = col(0, "source address, low 64 bits")
    dst_hi: U64 = col(0, "destination address, high 64 bits")
    dst_lo: U64 = col(0, "destination address, low 64 bits")
    l4: int = col(0, "buffer position of the transport header")
    l4len: int = col(0, "transport header + payload length per the IP header(s)")
    sport: int = col(0, "TCP source port")
    dport: int = col(0, "TCP destination port")
    seq: int = col(0, "raw sequence number")
    ack: int = col(0, "raw acknowledgement number")
    tcp_flags: int = col(0, "TCP flags (9 bits)")
    tcp_sum: int = col(-1, "TCP checksum field, -1 when not captured")
    win: int = col(-1, "raw window, -1 when the capture cut it off")
    doff: int = col(0, "TCP header length in bytes")
    payload: int = col(0, "TCP payload bytes (per the IP length, so also when not captured)")
    # What the connection table made of it (a traced connection's rows are copies of this one):
    conn: int = col(0, "connection id")
    slot: int = col(0, "its row in the connection arrays (the id, unless connections are aged out)")
    side: int = col(0, "sending side (0: the connection's lower endpoint)")
    rel_seq: int = col(0, "sequence number relative to the sender's base, unwrapped")
    seglen: int = col(0, "sequence space it covers (payload, SYN and FIN count one each)")
    rel_ack: int = col(NO_ACK, "acknowledgement relative to the peer's base, or NO_ACK")
    kind: int = col(0, "SEG_* class")


# ---- the connection table ---------------------------------------------------------------------


class Conn(Record):
    """One TCP connection; its two sides are rows 2 * id and 2 * id + 1 of the side arrays.

    Side 0 sent from the lower endpoint of the 4-tuple (``a``), side 1 from the higher.
    """

    cid: int = col(-1, "its connection id (-1: the row is free); the row is a slot, reused once the connection retires")
    a_ip_hi: U64 = col(0, "lower endpoint's address, high 64 bits")
    a_ip_lo: U64 = col(0, "lower endpoint's address, low 64 bits")
    b_ip_hi: U64 = col(0, "higher endpoint's address, high 64 bits")
    b_ip_lo: U64 = col(0, "higher endpoint's address, low 64 bits")
    a_port: int = col(0, "lower endpoint's port")
    b_port: int = col(0, "higher endpoint's port")
    v6: bool = col(False, "IPv6 addresses")
    first_pkt: int = col(0, "packet number of its first packet", view="first_packet")
    last_pkt: int = col(0, "packet number of its last packet", view="last_packet")
    first_ts: float = col(0.0, "time of its first packet", view="first_time")
    last_ts: float = col(0.0, "time of its last packet", view="last_time")
    client: int = col(-1, "the side that sent the SYN (or, without one, did not send the SYN-ACK); -1 unknown")
    scale: Ints = col(0, "window scale applied to each side's windows", shape=(2,))
    scale_known: bool = col(False, "the handshake told the window scale", view="window_scale_known")
    hs_ack_ts: float = col(
        -1.0,
        "time of the client's first ACK after a SYN-ACK (handshake complete)",
        view="handshake_ack_time",
        show="time",
    )
    hs_ack_pkt: int = col(0, "its packet number")
    ooo_thresh: float = col(
        OOO_DEFAULT,
        "a segment below the highest sequence within this long after the one that advanced it is "
        "out of order, not retransmitted (Wireshark's rule: the initial RTT, or 3 ms)",
    )


class Side(Record):
    """What one endpoint of a connection sent, and what the peer acknowledged of it.

    Sequence numbers are relative to ``seq_base`` and unwrapped past 2**32.
    """

    pkts: int = col(0, "packets sent", view="packets")
    payload: int = col(0, "payload bytes sent, retransmissions included", view="payload_bytes")
    flags_sent: int = col(0, "every TCP flag it sent, OR-ed")
    seq_base: int = col(
        -1, "raw sequence number counted from (the SYN's, or one before the first)", view="base_seq", show="nonneg"
    )
    isn: int = col(-1, "raw sequence number of its SYN, -1 without one", view="isn", show="opt")
    max_end: int = col(0, "highest sequence sent + 1 (SYN and FIN count one), relative to seq_base", view="seq_span")
    acked: int = col(0, "highest sequence the peer acknowledged")
    ack_valid: bool = col(False, "the peer acknowledged something")
    first_ts: float = col(-1.0, "time of its first packet")
    data_pkts: int = col(0, "packets with payload", view="data_packets")
    first_data_ts: float = col(-1.0, "time of its first payload", view="first_data_time", show="time")
    last_data_ts: float = col(-1.0, "time of its last payload", view="last_data_time", show="time")
    adv_ts: float = col(-1.0, "time of the segment that last advanced max_end")
    retrans: int = col(0, "retransmitted segments", view="retransmissions")
    retrans_bytes: int = col(0, "their payload bytes", view="retransmitted_bytes")
    retrans_data: int = col(
        0, "of them, segments with payload (a FIN or SYN alone is not a data packet)", view="data_retransmissions"
    )
    ooo: int = col(0, "reordered segments (space never seen, soon after the highest)", view="out_of_order")
    keepalives: int = col(
        0, "keep-alives: 0 or 1 byte at the last byte the peer already acknowledged", view="keep_alives"
    )
    rto: int = col(0, "retransmissions after ≥ RTO_IDLE of silence (not tail loss probes)", view="rto_retransmissions")
    rto_wait: float = col(0.0, "the silences before them, added up", view="rto_wait")
    tlp: int = col(
        0,
        "tail loss probes: the first re-send of the last segment sent, ≥ 2 RTT (and TLP_MIN) after it, SACK on",
        view="tail_loss_probes",
    )
    tlp_wait: float = col(0.0, "the time from this side's previous segment to each, added up", view="tlp_wait")
    resent_acked: int = col(
        0, "re-sends of bytes the peer had already acknowledged (not waiting on a loss)", view="resent_acknowledged"
    )
    fin_resends: int = col(
        0, "re-sends of a FIN without data (a close not acknowledged; not timed)", view="fin_retransmissions"
    )
    win_probes: int = col(
        0, "re-sends while the peer's window is zero: window probes, not loss", view="zero_window_probes"
    )
    dsacked: int = col(
        0,
        "segments the peer reported receiving twice (a D-SACK: a SACK block below its cumulative ACK)",
        view="dsacked_segments",
    )
    last_send_ts: float = col(-1.0, "time of its last segment with sequence space (new or re-sent)")
    resent_end: int = col(0, "highest end of a segment it re-sent")
    n_rto_ex: int = col(0, "RTO-style examples kept (in the event pool, ``Event``)")
    n_holes: int = col(0, "gaps tracked below max_end")
    holes: Ints = col(
        0, "[start, end) of each gap, ascending (one spare row while splitting)", shape=(MAX_HOLES + 1, 2)
    )
    timed_end: int = col(0, "end of the segment being timed for an RTT sample, 0 when none")
    timed_ts: float = col(0.0, "when it was sent")
    rtt_n: int = col(0, "RTT samples of its data", view="rtt_samples")
    rtt_min: float = col(-1.0, "smallest RTT sample, seconds", view="rtt_min", show="time")
    rtt_max: float = col(-1.0, "largest RTT sample, seconds")
    win_min: int = col(-1, "smallest window it advertised (scaled when known)", view="window_min", show="opt")
    win_max: int = col(-1, "largest", view="window_max", show="opt")
    win_last: int = col(-1, "latest")
    zero_count: int = col(0, "zero-window advertisements", view="zero_windows")
    zero_start: float = col(-1.0, "start of the zero window in progress, -1 when none")
    zero_total: float = col(0.0, "seconds of zero window that ended")
    zero_first_pkt: int = col(
        0, "packet number of its first zero window", view="first_zero_window_packet", show="packet"
    )
    dups: int = col(0, "segments captured twice (same packet seen again), not tracked", view="capture_duplicates")
    n_recent: int = col(0, "segments sent so far, modulo DUP_RING: the next slot of the recent ring")
    recent_fp: Ints = col(
        -1,
        "fingerprint of each of the last DUP_RING segments: a hash of its sequence and acknowledgement "
        "numbers, length, flags, window, TCP checksum and IPv4 identification (-1: slot empty)",
        shape=(DUP_RING,),
    )
    recent_ttl: Flags = col(0, "their TTLs (hop limits): one byte each", shape=(DUP_RING,))
    recent_ts: Floats = col(0.0, "their times", shape=(DUP_RING,))
    max_inflight: int = col(0, "largest bytes in flight when it sent data", view="max_in_flight")
    pinned: int = col(
        0, "data packets sent with bytes in flight ≥ PINNED_SHARE of the peer's window", view="window_pinned_packets"
    )
    pinned_checked: int = col(0, "data packets sent while the peer's window was known", view="window_checked_packets")
    syn_count: int = col(0, "SYNs (without ACK) sent")
    synack_count: int = col(0, "SYN-ACKs sent")
    n_syn_ev: int = col(0, "SYNs kept (in the event pool, ``Event``)")
    first_syn_ts: float = col(-1.0, "time of its first SYN kept")
    n_synack_ev: int = col(0, "SYN-ACKs kept (in the event pool)")
    syn_win: int = col(-1, "raw window of its SYN or SYN-ACK")
    mss: int = col(-1, "MSS option it sent", view="mss", show="opt")
    wscale: int = col(-1, "window scale option it sent, -1 without")
    sack: bool = col(False, "it offered SACK")
    tsopt: bool = col(False, "it offered timestamps")
    fin_ts: float = col(-1.0, "time of its first FIN", view="fin_time", show="time")
    fin_pkt: int = col(0, "its packet number", view="fin_packet", show="packet")
    rst_ts: float = col(-1.0, "time of its first RST", view="rst_time", show="time")
    rst_pkt: int = col(0, "its packet number", view="rst_packet", show="packet")
    peer_unacked_at_fin: int = col(0, "peer's bytes it had not acknowledged at its FIN", view="peer_unacked_at_fin")
    dapf_pkts: int = col(0, "data packets it sent after the peer's FIN", view="data_after_peer_fin_packets")
    dapf_bytes: int = col(0, "their payload bytes", view="data_after_peer_fin_bytes")
    rst_after_fin_ts: float = col(
        -1.0, "its first RST after its FIN, answering the peer's data", view="rst_after_fin_time", show="time"
    )
    rst_after_fin_pkt: int = col(0, "its packet number", view="rst_after_fin_packet", show="packet")
    # Quantile sketches, SKETCH_WINDOW and SKETCH_RTT: a run-length front (most packets repeat
    # their side's last window) before the shared sketch map.
    run_value: Ints = col(0, "value of the current run", shape=(2,))
    run_count: Ints = col(0, "its length (0: no run)", shape=(2,))
    distinct: Ints = col(0, "distinct values in the map", shape=(2,))
    folded: Flags = col(0, "past EXACT_KEYS distinct values: values are quantized", shape=(2,))


class Event(Record):
    """One kept example, in the event pool shared by every side: a SYN, a SYN-ACK or an
    RTO-style retransmission (at most MAX_EXAMPLES of each per side, in the order sent).
    Rare per side, so they live here rather than as fixed slots in every ``Side`` row."""

    row: int = col(0, "the side row that sent it")
    kind: int = col(0, "EV_SYN, EV_SYNACK or EV_RTO")
    frame: int = col(0, "its packet number")
    time: float = col(0.0, "its time")
    value: float = col(
        0.0, "EV_SYN: ECN setup asked (ECE+CWR), EV_SYNACK: accepted (ECE alone), 1 or 0; EV_RTO: the silence before it"
    )


class SketchEntry(Record):
    """One (sketch, value) -> count entry of the open-addressing sketch map."""

    sketch: int = col(-1, "side row * 2 + SKETCH_WINDOW or SKETCH_RTT; -1 for a free slot")
    value: int = col(0, "the value (bytes or microseconds), quantized once the sketch folded")
    count: int = col(0, "how many times it was added")


class Handshake(Record):
    """A connection's handshake as its kept SYNs and SYN-ACKs tell it (``kernel.finalize``):
    worked out after the scan, one row per connection, for the findings to read as columns."""

    syns: int = col(0, "the client's SYNs kept")
    first_syn_ts: float = col(-1.0, "time of the first of them")
    syn_ecn: bool = col(False, "one of them asked for ECN (ECE+CWR)")
    synacks: int = col(0, "the server's SYN-ACKs kept")
    first_synack_ts: float = col(-1.0, "time of the first of them")
    synack_ecn: bool = col(False, "one of them accepted ECN (ECE alone)")
    last_synack_before_ack: float = col(-1.0, "time of the last SYN-ACK at or before the client's first ACK")
    syns_before: int = col(0, "SYNs kept at or before the first SYN-ACK")
    last_syn_before: float = col(-1.0, "time of the last of them")
    last_before_ecn: bool = col(False, "the last of them asked for ECN")
    ecn_before: bool = col(False, "one of them asked for ECN")
    initial_rtt: float = col(-1.0, "SYN → SYN-ACK → ACK as two halves, without retry delays (-1: not captured)")


# ---- ageing: connections retired from the kernel's rows -----------------------------------------


class Key(Record):
    """One connection's 4-tuple, by connection id: how the hash table finds a retired connection
    (``ht`` holds -(id + 1) for it) and the key columns of the finished table."""

    a_ip_hi: U64 = col(0, "lower endpoint's address, high 64 bits")
    a_ip_lo: U64 = col(0, "lower endpoint's address, low 64 bits")
    b_ip_hi: U64 = col(0, "higher endpoint's address, high 64 bits")
    b_ip_lo: U64 = col(0, "higher endpoint's address, low 64 bits")
    a_port: int = col(0, "lower endpoint's port")
    b_port: int = col(0, "higher endpoint's port")
    v6: bool = col(False, "IPv6 addresses")
    seq_base: Ints = col(-1, "each side's seq_base when it retired (a SYN with another tells port reuse)", shape=(2,))
    spill_at: int = col(-1, "retired: where its whole state was spilled (``scanner.Spill``); -1 while open")
    spill_i: int = col(0, "its place in that spilled batch")


#: Working state: fields the kernel needs while a connection is open and nothing reads once it
#: is finished (the finished rows, ``FINISHED_CONN`` / ``FINISHED_SIDE``, leave them out).
WORKING: dict[str, frozenset[str]] = {
    "Conn": frozenset({"cid", "ooo_thresh", "hs_ack_pkt"}),
    "Side": frozenset(
        {
            "flags_sent",
            "acked",
            "ack_valid",
            "adv_ts",
            "last_send_ts",
            "resent_end",
            "n_rto_ex",
            "n_holes",
            "holes",
            "timed_end",
            "timed_ts",
            "rtt_max",
            "win_last",
            "n_recent",
            "recent_fp",
            "recent_ttl",
            "recent_ts",
            "n_syn_ev",
            "first_syn_ts",
            "n_synack_ev",
            "run_value",
            "run_count",
            "distinct",
            "folded",
        }
    ),
}
#: Quantiles kept per sketch of a finished side (``scanner.QUANTILES``).
N_QUANTILES = 2


def _part(record: type[Record], working: bool, extra: tuple[Any, ...] = ()) -> np.dtype[Any]:
    """The fields of ``record`` that are working state (``working``) or not, packed."""
    drop = WORKING[record.__name__]
    kept = [(c.name, c.kind, c.shape) if c.shape else (c.name, c.kind) for c in record.columns]
    return np.dtype([f for f in kept if (f[0] in drop) == working] + list(extra))


#: The working state alone: what a retired connection spills, besides its finished row.
WORKING_CONN = _part(Conn, True)
WORKING_SIDE = _part(Side, True)
#: A finished connection's row: what the connection table and the findings read (packed).
FINISHED_CONN = _part(Conn, False)
#: A finished side's row, with ``q[which, i]``: quantile i of its sketch ``which`` (-1: empty).
FINISHED_SIDE = _part(Side, False, (("q", np.int64, (2, N_QUANTILES)),))


def _narrowest(full: np.dtype[Any], lo: int, hi: int) -> np.dtype[Any]:
    """The smallest integer type of ``full``'s kind holding ``lo``…``hi`` (else ``full``)."""
    for t in (np.int8, np.int16, np.int32) if full.kind == "i" else (np.uint8, np.uint16, np.uint32):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return np.dtype(t)
    return full


def mapped(n: int, dtype: np.dtype[Any]) -> Any:
    """``n`` zeroed rows in an anonymous memory mapping of their own: unmapped (returned to the
    system) when the array goes. Freed heap blocks are not: glibc keeps them, and once a large
    block was freed it serves blocks up to that size from the heap."""
    return np.frombuffer(_anonymous(n * dtype.itemsize), dtype, count=n)


def _anonymous(size: int) -> mmap.mmap:
    """A private anonymous mapping (a shared one is shared memory: its pages cost more to fault in, and it cannot
    grow in place)."""
    return mmap.mmap(-1, max(1, size), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)


def _regrown(m: mmap.mmap, size: int, keep: int) -> mmap.mmap:
    """``m`` (``_anonymous``) with room for ``size`` bytes, its first ``keep`` as they were: the mapping moved
    (``mremap``: no copy, and the pages in use are not faulted in again), or, where something still reads it (an
    array over it: a mapping with an export cannot move), a new mapping they are copied into."""
    try:
        m.resize(size)
    except (BufferError, OSError, SystemError, ValueError):
        grown = _anonymous(size)
        np.frombuffer(grown, np.uint8, count=keep)[:] = np.frombuffer(m, np.uint8, count=keep)
        return grown
    return m


class MappedRows:
    """Rows of a record in a private anonymous mapping of their own (all-zero bytes, mapped lazily: untouched rows
    cost nothing), grown by moving the mapping (``mremap``): the rows in use are neither copied nor faulted in
    again. The kernel's connection rows, their sides, the 4-tuples and the event pool grow so: 31 times in the
    analysis of a million connections, where a fresh array and a copy each time cost 0.15-0.2 s of the scanning
    core (decision 0021)."""

    def __init__(self, record: type[Record], n: int) -> None:
        self._dtype = record.dtype
        self._map = _anonymous(n * self._dtype.itemsize)

    def rows(self, n: int) -> Any:
        """The first ``n`` rows (a record array over the mapping)."""
        return np.frombuffer(self._map, self._dtype, count=n).view(np.recarray)

    def grow(self, n: int, used: int) -> Any:
        """``rows(n)``, room for ``n``, the first ``used`` as they were. The caller first lets go of the rows it has:
        a mapping something still reads cannot move, and is copied into a new one instead (``_regrown``)."""
        self._map = _regrown(self._map, n * self._dtype.itemsize, used * self._dtype.itemsize)
        return self.rows(n)


class FinishedStore:
    """Finished rows by id (a connection's, or a side's ``2 * id + side``), a column per field, each in a mapping
    of its own (``mapped``), grown (doubling, in place where the system can move the mapping) as ids come. Stored
    narrow: each integer column in the smallest type that holds every value written to it (most are small counts),
    widened when a batch needs more. A later write of an id wins (a connection that came back and retired again)."""

    def __init__(self, full: np.dtype[Any]) -> None:
        self._full = full
        self._cols: dict[str, Any] = {}
        self._maps: dict[str, mmap.mmap] = {}
        self._n = 0

    def put(self, ids: Any, rows: Any) -> None:
        """Rows ``rows`` (fields of ``full`` in kernel types: a column per field, or records) at ids ``ids``."""
        if not len(ids):
            return
        need = int(ids.max()) + 1
        for name in self._full.names or ():
            field, values = self._full[name], rows[name]
            want = field.base
            if field.base.kind in "iu" and values.size:
                want = _narrowest(field.base, int(values.min()), int(values.max()))
            room = self._room(name, need, want)
            # Cast first (a contiguous cast), then scatter in one type: numpy's scatter that casts as it goes took
            # 2.5x as long per element.
            room[ids] = values.astype(room.dtype, copy=False)
        self._n = max(self._n, need)

    def _room(self, name: str, need: int, want: np.dtype[Any]) -> Any:
        """Field ``name``'s column, with room for ids below ``need``, in a type that holds ``want``."""
        col = self._cols.get(name)
        if col is not None and need <= len(col) and np.result_type(col.dtype, want) == col.dtype:
            return col
        shape = self._full[name].shape
        size = len(col) if col is not None else 0
        if need > size:
            size = max(need, 2 * size)
        dtype = np.dtype((want if col is None else np.result_type(col.dtype, want), shape))
        if col is not None and dtype.base == col.dtype:
            del col, self._cols[name]  # the column is the mapping's one export: a mapping in use cannot move
            m = self._maps[name] = _regrown(self._maps[name], size * dtype.itemsize, self._n * dtype.itemsize)
            grown = self._cols[name] = np.frombuffer(m, dtype, count=size)
            return grown
        m = _anonymous(size * dtype.itemsize)
        grown = np.frombuffer(m, dtype, count=size)
        if col is not None:
            grown[: self._n] = col[: self._n]
        self._cols[name], self._maps[name] = grown, m
        return grown

    def row(self, name: str, i: int) -> Any:
        """Field ``name`` of id ``i``."""
        return self._cols[name][i]

    def table(self, n: int) -> Finished:
        """Ids ``0 … n - 1``, as columns."""
        out = {}
        for name in self._full.names or ():
            field, col = self._full[name], self._cols.get(name)
            out[name] = col[:n] if col is not None else mapped(n, np.dtype((field.base, field.shape)))
        return Finished(out)


class Finished:
    """Finished rows (``FINISHED_CONN`` or ``FINISHED_SIDE`` fields) as ``columns``, one array per field
    (``FinishedStore.table``), read like the kernel's rows: a field comes back in its kernel type (int64,
    uint64), ``table[ids]`` gives those rows. Columns, not records: the findings read the table a column at a
    time, and a column of records reads a cache line per row for a byte or two of it."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def column(self, name: str, ids: Any = None, part: tuple[int, ...] = ()) -> Any:
        """Field ``name`` (of rows ``ids``, or of every row; of an array field, only its element ``part``) in its
        kernel type."""
        col = self.columns[name]
        if ids is not None or part:
            col = col[(slice(None) if ids is None else ids, *part)]
        kind = col.dtype.kind
        if kind == "i":
            return col.astype(np.int64)
        if kind == "u":
            return col.astype(np.uint64)
        return col

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.column(key)
        return Finished({name: col[key] for name, col in self.columns.items()})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "columns":
            raise AttributeError(name)
        return self.column(name)
