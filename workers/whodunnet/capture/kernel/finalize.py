"""After the scan: per-connection facts drawn from the event pool, one pass over the kept events.

The kept SYNs and SYN-ACKs (``fields.Event``, in the order the capture saw them) give each
connection its handshake facts without building a Python row: when the first SYN-ACK came,
the initial RTT (SYN → SYN-ACK → ACK as two halves, without retry delays), which SYNs asked
for ECN, and how the SYNs sent before the first SYN-ACK were flagged. ``connections.Connection``
works out the same facts from the same events for one row; ``findings`` reads these columns
to pick the rows it needs.
"""

from __future__ import annotations

from whodunnet.capture.constants import EV_SYN, EV_SYNACK
from whodunnet.capture.kernel import jit
from whodunnet.capture.kernel.types import Rows


@jit
def handshake_facts(events: Rows, n_events: int, client_row: Rows, hs_ack_ts: Rows, out: Rows) -> None:
    """Fill ``out`` (``fields.Handshake`` rows, one per connection, at their initial values).

    ``client_row[c]`` is the side row of connection c's client, ``hs_ack_ts[c]`` the time of the
    client's first ACK after a SYN-ACK (-1: none)."""
    # First pass: each connection's first SYN-ACK (from the server's side row).
    for i in range(n_events):
        e = events[i]
        c = e.row >> 1
        if e.kind == EV_SYNACK and e.row != client_row[c]:
            h = out[c]
            if h.synacks == 0:
                h.first_synack_ts = e.time
            h.synacks += 1
            if e.value:
                h.synack_ecn = True
            if hs_ack_ts[c] >= 0 and e.time <= hs_ack_ts[c]:
                h.last_synack_before_ack = e.time
    # Second pass: the client's SYNs, against that first SYN-ACK.
    for i in range(n_events):
        e = events[i]
        c = e.row >> 1
        if e.kind != EV_SYN or e.row != client_row[c]:
            continue
        h = out[c]
        ecn = e.value != 0
        if h.syns == 0:
            h.first_syn_ts = e.time
        h.syns += 1
        h.syn_ecn = h.syn_ecn or ecn
        if h.synacks and e.time <= h.first_synack_ts:
            h.syns_before = h.syns_before + 1
            h.last_syn_before = e.time
            h.last_before_ecn = ecn
            h.ecn_before = h.ecn_before or ecn
    for c in range(out.shape[0]):
        h = out[c]
        if hs_ack_ts[c] >= 0 and h.synacks and h.syns_before and h.last_synack_before_ack >= 0:
            h.initial_rtt = (h.first_synack_ts - h.last_syn_before) + (hs_ack_ts[c] - h.last_synack_before_ack)
