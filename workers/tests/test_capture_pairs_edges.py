"""Which copies the two-capture comparison counts near where one capture started or stopped (``_while_both_ran``).

Segments here are tuples (seq, length, flags, ack, frame, payload, IPv4 id, time), made into the comparison's
columns (``Segments``, one group): one direction of one connection as each capture holds it. The lab tests
(``test_capture_netlab``) cover the same rule on real captures; these pin the timing cases a lab run cannot choose.
"""

from __future__ import annotations

import numpy as np
import pytest

from whodunnet import capture_pairs
from whodunnet.capture.constants import TH_ACK, TH_FIN, TH_SYN
from whodunnet.capture_pairs import (
    SEGMENT_FIELDS,
    SEGMENT_TYPES,
    Segments,
    _excess,
    _gone,
    _intervals,
    _Missing,
    _missing_acks,
    _missing_space,
    _while_both_ran,
)

#: (seq, sequence space it covers, TCP flags, ack, packet number, payload bytes, IPv4 identification, time).
Segment = tuple[int, int, int, int, int, int, int, float]

#: 5 ms between the client's pure ACKs; 5 ms from the client's capture to the server's.
GAP, TRANSIT = 0.005, 0.005


def acks(n: int) -> list[Segment]:
    """The client's pure ACKs as its own capture holds them: one every ``GAP`` s."""
    return [(1000, 0, TH_ACK, 5000 + 1448 * i, i + 1, 0, i, i * GAP) for i in range(n)]


def at_server(segs: list[Segment], lost: set[int], late: dict[int, float], until: float = 1e9) -> list[Segment]:
    """The same ACKs as the server's capture holds them: ``TRANSIT`` later, but those ``lost`` on the way, those in
    ``late`` held up that much longer, and none after ``until`` (the capture stopped)."""
    out = [(*s[:7], s[7] + TRANSIT + late.get(i, 0.0)) for i, s in enumerate(segs) if i not in lost]
    return sorted((s for s in out if s[7] <= until), key=lambda s: s[7])


def span(segs: list[Segment]) -> tuple[float, float]:
    return segs[0][7], segs[-1][7]


def columns(segs: list[Segment], group: int = 0) -> Segments:
    """One side of one connection (group 0: the client's, 1: the server's), as the comparison holds it."""
    cols = list(zip(*segs, strict=True)) or [() for _ in SEGMENT_FIELDS]
    return Segments(
        np.full(len(segs), group, np.int64), *(np.array(c, t) for c, (_, t) in zip(cols, SEGMENT_FIELDS, strict=True))
    )


def while_both_ran(client: list[Segment], server: list[Segment]) -> list[Segment]:
    """The client capture's copies that are compared."""
    keep, _ = _while_both_ran(columns(client), columns(server), span(client), span(server), groups=1)
    return [s for s, k in zip(client, keep.tolist(), strict=True) if k]


def missing_acks(
    client: list[Segment], server: list[Segment]
) -> tuple[list[tuple[int, int, int, str]], list[tuple[int, int, int, str]]]:
    """The client's pure ACKs, acknowledging data from 5000 on, that only one capture holds (those only the client's
    capture holds, those only the server's), as (the ack relative to 5000, packet, copies missing, type)."""
    at = (np.array([5000]), np.array([0]), np.array([1_000_000]))

    def named(m: _Missing) -> list[tuple[int, int, int, str]]:
        rows = zip(*(c.tolist() for c in (m.seq, m.frame, m.missing, m.kind)), strict=True)
        return [(seq, frame, n, SEGMENT_TYPES[kind]) for seq, frame, n, kind in rows]

    only_client, only_server = _missing_acks(columns(client), columns(server), *at, groups=1)
    return named(only_client), named(only_server)


def lone(kept: list[Segment], other: list[Segment]) -> list[int]:
    """The ACK numbers (``ack`` field's index) of kept copies the other capture lacks."""
    there = {s[3] for s in other}
    return [(s[3] - 5000) // 1448 for s in kept if s[3] not in there]


def test_one_ack_held_up_in_a_queue_does_not_hide_losses_far_from_it() -> None:
    client = acks(200)  # one second of ACKs
    server = at_server(client, lost={10, 190}, late={100: 0.4})
    kept = while_both_ran(client, server)
    # Both losses are 50 ms from an end of the transfer; the held-up ACK, half a second away, says nothing of them.
    # (Its 0.4 s, taken as the spread of the whole transfer, left both out: neither was counted lost.)
    assert lone(kept, server) == [10, 190]


def test_acks_the_server_capture_stopped_before_are_not_compared() -> None:
    client = acks(200)
    stopped = 150 * GAP + TRANSIT + GAP / 2  # the server's capture stops after it saw ACK 150
    server = at_server(client, lost={10}, late={}, until=stopped)
    kept = while_both_ran(client, server)
    assert lone(kept, server) == [10]  # 151-199 went past after it stopped: not lost


def test_losses_next_to_a_held_up_ack_at_the_end_are_left_out() -> None:
    # The server's capture ends with ACK 190, held up 50 ms on the way (it came after 199). Around then a copy could
    # take 50 ms more: 197, missing there, may have been on its way when the capture stopped. 20 was surely lost.
    client = acks(200)
    server = at_server(client, lost={20, 197}, late={190: 0.05})
    assert server[-1][3] == 5000 + 1448 * 190
    kept = while_both_ran(client, server)
    assert lone(kept, server) == [20]


def test_an_ack_only_one_capture_holds_names_that_captures_packet_either_way_round() -> None:
    client = acks(50)
    server = at_server(client, lost={7}, late={})
    server.insert(20, (1000, 0, TH_ACK, 999_000, 777, 0, 9_999, 0.1))  # an ACK only the server's capture holds
    only_client, only_server = missing_acks(client, server)
    # The packet numbers are each capture's own: what the finding's "go to the packet" opens in that capture.
    assert only_client == [(1448 * 7, 8, 1, "pure ACK")]
    assert only_server == [(999_000 - 5000, 777, 1, "pure ACK")]


def test_keys_that_share_a_hash_are_still_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # Copies are counted by a hash of their numbers; two different segments with one hash must still be two.
    client = acks(200)
    server = at_server(client, lost={10, 190}, late={100: 0.4})
    server.insert(20, (1000, 0, TH_ACK, 999_000, 777, 0, 9_999, 0.1))
    hashed = while_both_ran(client, server), missing_acks(client, server)
    monkeypatch.setattr(capture_pairs, "_hashed", lambda *columns: np.zeros(len(columns[0]), np.uint64))
    assert (while_both_ran(client, server), missing_acks(client, server)) == hashed
    assert lone(hashed[0], server) == [10, 190]
    only_client, only_server = hashed[1]
    assert [(seq, packet) for seq, packet, _, _ in only_client] == [(1448 * 10, 11), (1448 * 190, 191)]
    assert [(seq, packet) for seq, packet, _, _ in only_server] == [(999_000 - 5000, 777)]


def test_what_one_capture_lacks_is_named_by_the_segment_that_carried_it() -> None:
    # The client's SYN, two data segments and a FIN carrying 50 bytes; the server's SYN-ACK. The second capture
    # lacks the SYN, the second data segment, the FIN and the SYN-ACK.
    syn = (1000, 1, TH_SYN, 0, 1, 0, 1, 0.0)
    data = [(1001 + 100 * i, 100, TH_ACK, 5001, 3 + i, 100, 2 + i, 0.01 * (i + 1)) for i in range(2)]
    fin = (1201, 51, TH_FIN | TH_ACK, 5001, 5, 50, 4, 0.03)
    synack = (5000, 1, TH_SYN | TH_ACK, 1001, 2, 0, 9, 0.005)

    def capture(client: list[Segment], server: list[Segment]) -> Segments:
        c, s = columns(client, 0), columns(server, 1)
        return Segments(
            *(np.concatenate((getattr(c, f), getattr(s, f))) for f in ("g", *(n for n, _ in SEGMENT_FIELDS)))
        )

    first, second = capture([syn, *data, fin], [synack]), capture([data[0]], [])
    base, lo, hi = np.array([1000, 5000]), np.array([0, 0]), np.array([10_000, 10_000])
    in_first, in_second = _intervals(first, base, lo, hi), _intervals(second, base, lo, hi)
    more, less = _excess(in_first, in_second)
    space = _missing_space(in_first, more, first)
    named = zip(*(c.tolist() for c in (space.g, space.kind, space.seq, space.length, space.frame)), strict=True)
    assert [(g, SEGMENT_TYPES[k], seq, length, frame) for g, k, seq, length, frame in named] == [
        (0, "SYN", 0, 1, 1),
        (0, "data", 101, 100, 4),
        (0, "FIN", 201, 51, 5),
        (1, "SYN-ACK", 0, 1, 2),
    ]
    assert not len(less[0])
    (only_first, only_second, examples, by_type_first, by_type_second) = _gone(
        1, (space, _Missing.none()), (_Missing.none(), _Missing.none())
    )[0]
    assert (only_first, only_second, by_type_second) == (4, 0, ())
    assert by_type_first == (
        ("client", "FIN", 1),
        ("client", "SYN", 1),
        ("client", "data", 1),
        ("server", "SYN-ACK", 1),
    )
    assert [(m.sender, m.type, m.packet) for m in examples] == [
        ("client", "SYN", 1),
        ("client", "data", 4),
        ("client", "FIN", 5),
        ("server", "SYN-ACK", 2),
    ]
