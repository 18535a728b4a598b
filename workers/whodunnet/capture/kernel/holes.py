"""The gaps a connection side has left in its sequence space (``Side.holes``).

A segment that jumps past the highest sequence opens a gap; a later segment inside one
fills space this capture never saw (reordering, or a resend of a segment lost before the
capture point), while anything else below the highest sequence re-sends bytes already seen,
which only a retransmission does. At most ``MAX_HOLES`` gaps are kept (the lowest is
forgotten: its space then counts as seen); the peer's ACK past a gap forgets it too.
"""

from __future__ import annotations

from whodunnet.capture.constants import MAX_HOLES
from whodunnet.capture.fields import Ints, Side
from whodunnet.capture.kernel import jit


@jit
def remove_hole(h: Ints, n: int, i: int) -> int:
    """Delete gap ``i`` of ``n``; returns the new count."""
    for j in range(i, n - 1):
        h[j, 0] = h[j + 1, 0]
        h[j, 1] = h[j + 1, 1]
    return n - 1


@jit
def insert_hole(h: Ints, n: int, i: int, a: int, b: int) -> int:
    """Insert gap [a, b) at ``i`` (the spare row takes the overflow); forget the lowest past
    MAX_HOLES. Returns the new count."""
    for j in range(n, i, -1):
        h[j, 0] = h[j - 1, 0]
        h[j, 1] = h[j - 1, 1]
    h[i, 0] = a
    h[i, 1] = b
    n += 1
    if n > MAX_HOLES:
        n = remove_hole(h, n, 0)
    return n


@jit
def open_hole(s: Side, a: int, b: int) -> None:
    """The side jumped from ``a`` to ``b``: [a, b) was never seen here."""
    s.n_holes = insert_hole(s.holes, s.n_holes, s.n_holes, a, b)


@jit
def fill_hole(s: Side, a: int, b: int) -> bool:
    """Remove [a, b) from the gaps; True when all of it lay in one gap (never seen before)."""
    h = s.holes
    n = s.n_holes
    inside = False
    i = 0
    while i < n:
        hs = h[i, 0]
        he = h[i, 1]
        if he <= a or hs >= b:
            i += 1
            continue
        if hs <= a and b <= he:
            inside = True
        if hs < a and b < he:  # strictly inside: split in two
            h[i, 1] = a
            n = insert_hole(h, n, i + 1, b, he)
            break
        if hs < a:
            h[i, 1] = a
            i += 1
        elif b < he:
            h[i, 0] = b
            i += 1
        else:
            n = remove_hole(h, n, i)
    s.n_holes = n
    return inside


@jit
def forget_below(s: Side, a: int) -> None:
    """The peer acknowledged everything below ``a``: gaps there were filled out of our sight."""
    h = s.holes
    n = s.n_holes
    while n and h[0, 0] < a:
        if h[0, 1] <= a:
            n = remove_hole(h, n, 0)
        else:
            h[0, 0] = a
            break
    s.n_holes = n
