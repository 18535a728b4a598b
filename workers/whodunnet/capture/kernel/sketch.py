"""Bounded quantile sketches of each side's windows and RTT samples, in one shared map.

A sketch counts exact values until it has seen more than ``EXACT_KEYS`` distinct ones, then
it is folded: new values go in quantized to ``MANTISSA_BITS`` significant bits, and the exact
ones already there are quantized when quantiles are read (the result does not depend on the
order values came in). Keys stay bounded by the grid (64 per octave): memory grows with
connections, never with packets. Sketch ``row * 2 + which`` belongs to side ``row`` (connection
id * 2 + side; ``which``: SKETCH_WINDOW or SKETCH_RTT); each side keeps a run-length front
(``run_value``/``run_count``), since most packets repeat their side's last window.
"""

from __future__ import annotations

import math

import numpy as np

from whodunnet.capture.constants import EXACT_KEYS, MANTISSA_BITS
from whodunnet.capture.fields import Scan, Side
from whodunnet.capture.kernel import jit
from whodunnet.capture.kernel.hashing import GOLDEN, mix, next_slot, slot_index
from whodunnet.capture.kernel.types import Rows


@jit
def quantize(v: int) -> int:
    """``v`` rounded down to MANTISSA_BITS significant bits."""
    bits = 0
    t = v
    while t:
        t >>= 1
        bits += 1
    if bits <= MANTISSA_BITS:
        return v
    shift = bits - MANTISSA_BITS
    return (v >> shift) << shift


@jit
def slot(entries: Rows, sketch: int, v: int) -> int:
    """The map slot of (sketch, v): where it is, or the free slot where it goes."""
    size = entries.shape[0]
    j = slot_index(mix(mix(np.uint64(GOLDEN), np.uint64(sketch)), np.uint64(v)), size)
    while True:
        e = entries[j]
        if e.sketch < 0 or (e.sketch == sketch and e.value == v):
            return j
        j = next_slot(j, size)


@jit
def put(entries: Rows, g: Scan, s: Side, row: int, which: int, v: int, n: int) -> None:
    """Add ``v`` ``n`` times to sketch (row, which); fold it past EXACT_KEYS distinct values."""
    if s.folded[which]:
        v = quantize(v)
    sketch = row * 2 + which
    e = entries[slot(entries, sketch, v)]
    if e.sketch < 0:
        e.sketch = sketch
        e.value = v
        g.sketch_used += 1
        if not s.folded[which]:
            s.distinct[which] += 1
            if s.distinct[which] > EXACT_KEYS:
                s.folded[which] = True
    e.count += n


@jit
def add(entries: Rows, g: Scan, s: Side, row: int, which: int, v: int) -> None:
    """Add ``v`` to sketch (row, which), through the side's run-length front."""
    if s.run_count[which]:
        if s.run_value[which] == v:
            s.run_count[which] += 1
            return
        put(entries, g, s, row, which, s.run_value[which], s.run_count[which])
    s.run_value[which] = v
    s.run_count[which] = 1


@jit
def rehome(entries: Rows, old: Rows) -> None:
    """Move every entry of ``old`` into the (larger, empty) map ``entries``."""
    for i in range(old.shape[0]):
        o = old[i]
        if o.sketch >= 0:
            e = entries[slot(entries, o.sketch, o.value)]
            e.sketch = o.sketch
            e.value = o.value
            e.count = o.count


@jit
def quantiles(sketch: Rows, value: Rows, count: Rows, folded: Rows, qs: Rows, out: Rows) -> None:
    """``out[sketch, i]`` = the value at rank ceil(qs[i] * n) of each sketch (nearest rank).

    ``sketch``/``value``/``count`` are the map's used entries sorted by sketch then value;
    ``folded[sketch]`` says whether its exact values are quantized first; ``out`` starts at -1.
    """
    n = sketch.shape[0]
    start = 0
    while start < n:
        sid = sketch[start]
        stop = start
        total = 0
        while stop < n and sketch[stop] == sid:
            total += count[stop]
            stop += 1
        for i in range(qs.shape[0]):
            rank = max(1, math.ceil(qs[i] * total - 1e-9))
            seen = 0
            best = -1
            # Values sorted exact; quantizing keeps the order (it rounds down monotonically).
            for k in range(start, stop):
                seen += count[k]
                if seen >= rank:
                    best = quantize(value[k]) if folded[sid] else value[k]
                    break
            out[sid, i] = best
        start = stop
