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
from whodunnet.capture.fields import Scan, Side, SketchEntry
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
def nearest_rank(value: Rows, count: Rows, start: int, stop: int, total: int, q: float, folded: bool) -> int:
    """The value at rank ceil(q * total) (nearest rank) of the values ``value[start:stop]`` (sorted, each
    ``count`` times; ``total`` in all), quantized when the sketch ``folded``; -1 for none."""
    rank = max(1, math.ceil(q * total - 1e-9))
    seen = 0
    # Values sorted exact; quantizing keeps the order (it rounds down monotonically).
    for k in range(start, stop):
        seen += count[k]
        if seen >= rank:
            return quantize(value[k]) if folded else value[k]
    return -1


@jit
def sort_pairs(local: Rows, value: Rows, count: Rows, n: int) -> None:
    """Sort the first ``n`` (local, value, count) triples by local sketch, then value (Shell's sort, in place: a
    connection's handful of entries, and at most a few thousand of a long one's folded grid)."""
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for i in range(gap, n):
            lo, va, co = local[i], value[i], count[i]
            j = i
            while j >= gap and (local[j - gap] > lo or (local[j - gap] == lo and value[j - gap] > va)):
                local[j], value[j], count[j] = local[j - gap], value[j - gap], count[j - gap]
                j -= gap
            local[j], value[j], count[j] = lo, va, co
        gap //= 3


@jit
def batch_quantiles(
    entries: Rows,
    starts: Rows,
    run_value: Rows,
    run_count: Rows,
    distinct: Rows,
    folded: Rows,
    qs: Rows,
    local: Rows,
    values: Rows,
    counts: Rows,
    out: Rows,
) -> None:
    """``out[4 i + 2 side + which, k]``: quantile ``qs[k]`` of sketch ``which`` of side ``side`` of connection ``i``
    of a batch (-1: empty; ``out`` starts at -1). The connections' map entries are ``entries`` (``SketchEntry``),
    grouped by connection (``starts``: where each one's begin, and the end); ``run_value``, ``run_count``,
    ``distinct`` and ``folded`` are their sides' fields of those names, as columns (``[2 i + side, which]``).
    ``local``, ``values`` and ``counts`` are room for one connection's entries and four more.

    A pending run counts as ``put`` would put it in the map: a value of its own, whose putting folds a sketch that
    had EXACT_KEYS distinct values when the run's value is new to it."""
    for i in range(starts.shape[0] - 1):
        m = 0
        for e in range(starts[i], starts[i + 1]):
            x: SketchEntry = entries[e]
            local[m] = x.sketch & 3
            values[m] = x.value
            counts[m] = x.count
            m += 1
        for j in range(4):
            if run_count[2 * i + (j >> 1), j & 1] > 0:
                local[m] = j
                values[m] = run_value[2 * i + (j >> 1), j & 1]
                counts[m] = run_count[2 * i + (j >> 1), j & 1]
                m += 1
        sort_pairs(local, values, counts, m)
        start = 0
        while start < m:
            j = local[start]
            k = 4 * i + j
            side = 2 * i + (j >> 1)
            which = j & 1
            stop = start
            total = 0
            while stop < m and local[stop] == j:
                total += counts[stop]
                stop += 1
            fold = folded[side, which] != 0
            if not fold and run_count[side, which] > 0 and distinct[side, which] == EXACT_KEYS:
                fold = True  # unless the run's value is one the map has already
                for e in range(starts[i], starts[i + 1]):
                    if entries[e].sketch & 3 == j and entries[e].value == run_value[side, which]:
                        fold = False
                        break
            for q in range(qs.shape[0]):
                out[k, q] = nearest_rank(values, counts, start, stop, total, qs[q], fold)
            start = stop
