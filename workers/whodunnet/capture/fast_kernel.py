"""The compiled per-packet kernel of ``fast`` (numba, ``@njit(cache=True)``).

This is ``reader._read_pcap`` + ``TcpDecoder.packet`` + ``TcpTable.segment`` written once
more over numpy state; ``fast`` feeds it and turns its state back into ``ConnState``
objects, and ``test_capture_fast.py`` holds it to the pure path's results.
"""

# numba infers the numeric types here (uint8 buffers, int64 / uint64 words): the numpy
# scalar types mypy would check are not the ones that run, so mypy's numeric checks stay off
# in this module only; the equivalence tests are what check it.
# mypy: disable-error-code="assignment, return-value, arg-type"

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba
import numpy as np
import numpy.typing as npt

from whodunnet.capture.reader import EPB_OPTIONS_SLACK
from whodunnet.capture.sketch import EXACT_KEYS, MANTISSA_BITS
from whodunnet.capture.tcp import MAX_EXAMPLES, MAX_HOLES, MAX_RTT_US, PINNED_SHARE, RTO_IDLE

F = TypeVar("F", bound=Callable[..., Any])


def _jit(fn: F) -> F:
    jitted: F = numba.njit(cache=True, nogil=True)(fn)
    return jitted


I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

# ---- per-connection int fields (CI) -----------------------------------------------------
C_FIRST_PKT = 0
C_LAST_PKT = 1
C_CLIENT = 2
C_SCALE0 = 3
C_SCALE1 = 4
C_SCALE_KNOWN = 5
C_HS_ACK_PKT = 6
NCI = 7
# ---- per-connection float fields (CF) ---------------------------------------------------
C_FIRST_TS = 0
C_LAST_TS = 1
C_HS_ACK_TS = 2
C_OOO_THRESH = 3
NCF = 4
# ---- per-side int fields (SI, row conn * 2 + side) --------------------------------------
S_PKTS = 0
S_PAYLOAD = 1
S_FLAGS = 2
S_BASE = 3
S_ISN = 4
S_MAX_END = 5
S_ACKED = 6
S_ACK_VALID = 7
S_DATA_PKTS = 8
S_RETRANS = 9
S_OOO = 10
S_RETRANS_BYTES = 11
S_RTO = 12
S_TIMED_END = 13
S_WIN_MIN = 14
S_WIN_MAX = 15
S_WIN_LAST = 16
S_ZERO_COUNT = 17
S_ZERO_FIRST_PKT = 18
S_MAX_INFLIGHT = 19
S_PINNED = 20
S_PINNED_CHECKED = 21
S_SYN_COUNT = 22
S_SYNACK_COUNT = 23
S_N_SYN_EV = 24
S_N_SYNACK_EV = 25
S_N_RTO_EX = 26
S_SYN_WIN = 27
S_MSS = 28
S_WSCALE = 29
S_SACK = 30
S_TSOPT = 31
S_FIN_PKT = 32
S_RST_PKT = 33
S_PEER_UNACKED_AT_FIN = 34
S_DAPF_PKTS = 35
S_DAPF_BYTES = 36
S_RST_AFTER_FIN_PKT = 37
S_NHOLES = 38
S_RTT_N = 39
S_WIN_RUN_V = 40
S_WIN_RUN_N = 41
S_RTT_RUN_V = 42
S_RTT_RUN_N = 43
S_WIN_DISTINCT = 44
S_WIN_FOLDED = 45
S_RTT_DISTINCT = 46
S_RTT_FOLDED = 47
NSI = 48
# ---- per-side float fields (SF) ---------------------------------------------------------
S_FIRST_TS = 0
S_FIRST_DATA_TS = 1
S_LAST_DATA_TS = 2
S_ADV_TS = 3
S_RTO_WAIT = 4
S_TIMED_TS = 5
S_RTT_MIN = 6
S_RTT_MAX = 7
S_ZERO_START = 8
S_ZERO_TOTAL = 9
S_FIN_TS = 10
S_RST_TS = 11
S_RST_AFTER_FIN_TS = 12
NSF = 13
# ---- global counters (G) ----------------------------------------------------------------
G_FRAMES = 0
G_TCP = 1
G_FRAGS = 2
G_IP = 3
G_NCONN = 4
G_BYTES = 5
G_CAPTURED = 6
G_TRUNC = 7
G_BAD = 9  # caplen of the record that broke the limit
G_MAPN = 10  # entries in the sketch map
NG = 11
# ---- kernel return codes ----------------------------------------------------------------
R_NEED_DATA = 0
R_CAPLEN = 1
R_GROW = 2
R_GROW_MAP = 4
# ---- key columns (K, uint64) ------------------------------------------------------------
NK = 5  # lo address hi/lo words, hi address hi/lo words, lo port << 17 | hi port << 1 | v6

_MAX_EXAMPLES = MAX_EXAMPLES
_MAX_HOLES = MAX_HOLES
_RTO_IDLE = RTO_IDLE
_PINNED_SHARE = PINNED_SHARE
_MAX_RTT_US = MAX_RTT_US
_EPB_OPTIONS_SLACK = EPB_OPTIONS_SLACK
_EXACT_KEYS = EXACT_KEYS
_MANTISSA_BITS = MANTISSA_BITS


@_jit
def _hash(k0: Any, k1: Any, k2: Any, k3: Any, k4: Any, mask: int) -> int:
    h = np.uint64(0x9E3779B97F4A7C15)
    m = np.uint64(0xFF51AFD7ED558CCD)
    h = (h ^ k0) * m
    h = (h ^ k1) * m
    h = (h ^ k2) * m
    h = (h ^ k3) * m
    h = (h ^ k4) * m
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(mask))


@_jit
def rehash(ht: I64, keys: Any, ci: I64, n: int) -> None:
    # The table maps a 4-tuple to its newest connection: later indices overwrite older ones.
    mask = ht.shape[0] - 1
    for i in range(n):
        j = _hash(keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3], keys[i, 4], mask)
        while True:
            c = ht[j]
            if c < 0:
                ht[j] = i
                break
            if (
                keys[c, 0] == keys[i, 0]
                and keys[c, 1] == keys[i, 1]
                and keys[c, 2] == keys[i, 2]
                and keys[c, 3] == keys[i, 3]
                and keys[c, 4] == keys[i, 4]
            ):
                ht[j] = i
                break
            j = (j + 1) & mask


@_jit
def _u64be(buf: U8, p: int, n: int) -> Any:
    v = np.uint64(0)
    for i in range(n):
        v = (v << np.uint64(8)) | np.uint64(buf[p + i])
    return v


@_jit
def _quantize(v: int) -> int:
    # sketch.quantize: ``v`` rounded down to MANTISSA_BITS significant bits.
    b = 0
    t = v
    while t:
        t >>= 1
        b += 1
    if b <= _MANTISSA_BITS:
        return v
    shift = b - _MANTISSA_BITS
    return (v >> shift) << shift


@_jit
def _map_slot(mk: I64, sid: int, v: int) -> int:
    mask = mk.shape[0] - 1
    h = np.uint64(sid) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(v) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(31)
    j = np.int64(h & np.uint64(mask))
    while True:
        if mk[j, 0] < 0 or (mk[j, 0] == sid and mk[j, 1] == v):
            return j
        j = (j + 1) & mask


@_jit
def remap(mk: I64, mc: I64, old_k: I64, old_c: I64) -> None:
    for i in range(old_k.shape[0]):
        if old_k[i, 0] >= 0:
            j = _map_slot(mk, old_k[i, 0], old_k[i, 1])
            mk[j, 0] = old_k[i, 0]
            mk[j, 1] = old_k[i, 1]
            mc[j] = old_c[i]


@_jit
def _sketch_put(si: I64, mk: I64, mc: I64, g: I64, row: int, which: int, v: int, n: int) -> None:
    # Sketch.add_n into one map for all sketches. Once a sketch has seen more than EXACT_KEYS
    # distinct values it is folded: new values go in quantized, and Python quantizes the exact
    # keys it already had when it builds the Sketch (the result does not depend on the order).
    ff = S_WIN_FOLDED if which == 0 else S_RTT_FOLDED
    fd = S_WIN_DISTINCT if which == 0 else S_RTT_DISTINCT
    if si[row, ff]:
        v = _quantize(v)
    sid = row * 2 + which
    j = _map_slot(mk, sid, v)
    if mk[j, 0] < 0:
        mk[j, 0] = sid
        mk[j, 1] = v
        g[G_MAPN] += 1
        if not si[row, ff]:
            si[row, fd] += 1
            if si[row, fd] > _EXACT_KEYS:
                si[row, ff] = 1
    mc[j] += n


@_jit
def _sketch_add(si: I64, mk: I64, mc: I64, g: I64, row: int, which: int, v: int) -> None:
    # Run-length in front of the map: most packets repeat their side's last window.
    fv = S_WIN_RUN_V if which == 0 else S_RTT_RUN_V
    fn = fv + 1
    if si[row, fn] and si[row, fv] == v:
        si[row, fn] += 1
        return
    if si[row, fn]:
        _sketch_put(si, mk, mc, g, row, which, si[row, fv], si[row, fn])
    si[row, fv] = v
    si[row, fn] = 1


@_jit
def close_runs(si: I64, mk: I64, mc: I64, g: I64, rows: int) -> bool:
    # False when the map needs to grow first (Python grows it and calls again).
    for row in range(rows):
        for which in (0, 1):
            fv = S_WIN_RUN_V if which == 0 else S_RTT_RUN_V
            if si[row, fv + 1]:
                if (g[G_MAPN] + 1) * 2 > mk.shape[0]:
                    return False
                _sketch_put(si, mk, mc, g, row, which, si[row, fv], si[row, fv + 1])
                si[row, fv + 1] = 0
    return True


@_jit
def _fill_hole(holes: I64, si: I64, row: int, a: int, b: int) -> bool:
    inside = False
    n = si[row, S_NHOLES]
    i = 0
    while i < n:
        hs = holes[row, i, 0]
        he = holes[row, i, 1]
        if he <= a or hs >= b:
            i += 1
            continue
        if hs <= a and b <= he:
            inside = True
        if hs < a and b < he:
            holes[row, i, 1] = a
            for j in range(n, i + 1, -1):
                holes[row, j, 0] = holes[row, j - 1, 0]
                holes[row, j, 1] = holes[row, j - 1, 1]
            holes[row, i + 1, 0] = b
            holes[row, i + 1, 1] = he
            n += 1
            if n > _MAX_HOLES:
                for j in range(n - 1):
                    holes[row, j, 0] = holes[row, j + 1, 0]
                    holes[row, j, 1] = holes[row, j + 1, 1]
                n -= 1
            si[row, S_NHOLES] = n
            return inside
        if hs < a:
            holes[row, i, 1] = a
            i += 1
        elif b < he:
            holes[row, i, 0] = b
            i += 1
        else:
            for j in range(i, n - 1):
                holes[row, j, 0] = holes[row, j + 1, 0]
                holes[row, j, 1] = holes[row, j + 1, 1]
            n -= 1
    si[row, S_NHOLES] = n
    return inside


@_jit
def _forget_below(holes: I64, si: I64, row: int, a: int) -> None:
    n = si[row, S_NHOLES]
    drop = 0
    while drop < n and holes[row, drop, 0] < a:
        if holes[row, drop, 1] <= a:
            drop += 1
        else:
            holes[row, drop, 0] = a
            break
    if drop:
        for j in range(n - drop):
            holes[row, j, 0] = holes[row, j + drop, 0]
            holes[row, j, 1] = holes[row, j + drop, 1]
        si[row, S_NHOLES] = n - drop


@_jit
def _record(
    buf: U8, pos: int, end_buf: int, big: bool, scale: float, max_caplen: int, g: I64, tminmax: F64
) -> tuple[int, int, int, float, int]:
    # One pcap record header: (data offset, caplen, wirelen, time, -1), or (..., return code).
    if big:
        sec = (buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]
        frac = (buf[pos + 4] << 24) | (buf[pos + 5] << 16) | (buf[pos + 6] << 8) | buf[pos + 7]
        caplen = (buf[pos + 8] << 24) | (buf[pos + 9] << 16) | (buf[pos + 10] << 8) | buf[pos + 11]
        wirelen = (buf[pos + 12] << 24) | (buf[pos + 13] << 16) | (buf[pos + 14] << 8) | buf[pos + 15]
    else:
        sec = (buf[pos + 3] << 24) | (buf[pos + 2] << 16) | (buf[pos + 1] << 8) | buf[pos]
        frac = (buf[pos + 7] << 24) | (buf[pos + 6] << 16) | (buf[pos + 5] << 8) | buf[pos + 4]
        caplen = (buf[pos + 11] << 24) | (buf[pos + 10] << 16) | (buf[pos + 9] << 8) | buf[pos + 8]
        wirelen = (buf[pos + 15] << 24) | (buf[pos + 14] << 16) | (buf[pos + 13] << 8) | buf[pos + 12]
    sec = np.int64(sec)
    frac = np.int64(frac)
    caplen = np.int64(caplen)
    wirelen = np.int64(wirelen)
    if caplen > max_caplen:
        g[G_BAD] = caplen
        return 0, 0, 0, 0.0, R_CAPLEN
    if pos + 16 + caplen > end_buf:
        return 0, 0, 0, 0.0, R_NEED_DATA
    ts = sec + frac * scale
    if ts < tminmax[0]:
        tminmax[0] = ts
    if ts > tminmax[1]:
        tminmax[1] = ts
    g[G_BYTES] += wirelen
    g[G_CAPTURED] += caplen
    if caplen < wirelen:
        g[G_TRUNC] += 1
    return pos + 16, caplen, wirelen, ts, -1


@_jit
def _u32(buf: U8, p: int, big: bool) -> Any:
    if big:
        return (np.int64(buf[p]) << 24) | (np.int64(buf[p + 1]) << 16) | (np.int64(buf[p + 2]) << 8) | buf[p + 3]
    return (np.int64(buf[p + 3]) << 24) | (np.int64(buf[p + 2]) << 16) | (np.int64(buf[p + 1]) << 8) | buf[p]


@_jit
def _ng_record(
    buf: U8,
    pos: int,
    end_buf: int,
    big: bool,
    max_caplen: int,
    ng_link: I64,
    ng_div: F64,
    ng_off: I64,
    g: I64,
    tminmax: F64,
) -> tuple[int, int, int, float, int, int]:
    # One pcapng enhanced packet block that the pure reader would read without a question:
    # (data offset, caplen, wirelen, time, link, next block), or next block -1 for anything
    # else (another block type, an error, a block not wholly in ``buf``): the reader takes it.
    if end_buf - pos < 28:
        return 0, 0, 0, 0.0, 0, -1
    btype = _u32(buf, pos, big)
    blen = _u32(buf, pos + 4, big)
    if btype != 6 or blen < 32 or blen & 3 or end_buf - pos < blen:
        return 0, 0, 0, 0.0, 0, -1
    iface = _u32(buf, pos + 8, big)
    hi = _u32(buf, pos + 12, big)
    lo = _u32(buf, pos + 16, big)
    caplen = _u32(buf, pos + 20, big)
    wirelen = _u32(buf, pos + 24, big)
    if caplen > max_caplen or 28 + caplen + 4 > blen or iface >= ng_link.shape[0]:
        return 0, 0, 0, 0.0, 0, -1
    if blen > 32 + caplen + _EPB_OPTIONS_SLACK or _u32(buf, pos + blen - 4, big) != blen:
        return 0, 0, 0, 0.0, 0, -1
    ts = np.float64((np.uint64(hi) << np.uint64(32)) | np.uint64(lo)) / ng_div[iface] + np.float64(ng_off[iface])
    tminmax[2] = ts
    if ts < tminmax[0]:
        tminmax[0] = ts
    if ts > tminmax[1]:
        tminmax[1] = ts
    g[G_BYTES] += wirelen
    g[G_CAPTURED] += caplen
    if caplen < wirelen:
        g[G_TRUNC] += 1
    return pos + 28, caplen, wirelen, ts, ng_link[iface], pos + blen


@_jit
def kernel(
    buf: U8,
    pos: int,
    end_buf: int,
    big: bool,
    scale: float,
    link0: int,
    max_caplen: int,
    offs: I64,
    caps: I64,
    wires: I64,
    links: I64,
    tss: F64,
    ng_link: I64,
    ng_div: F64,
    ng_off: I64,
    g: I64,
    tminmax: F64,
    ci: I64,
    cf: F64,
    si: I64,
    sf: F64,
    synev: F64,
    synackev: F64,
    rtoex: F64,
    holes: I64,
    keys: Any,
    ht: I64,
    mk: I64,
    mc: I64,
) -> tuple[int, int]:
    # Two ways in, one body: pcap records walked here straight out of ``buf`` (``offs`` empty),
    # or records another reader found (pcapng: ``offs``, ``caps``... give them, and the caller
    # made room for all of them). The body is TcpDecoder.packet + TcpTable.segment.
    m32 = 0xFFFFFFFF
    half = 1 << 31
    wrap = 1 << 32
    mask = ht.shape[0] - 1
    cap_conns = ci.shape[0]
    map_cap = mk.shape[0]
    given = offs.shape[0]
    ng = ng_link.shape[0] > 0
    i = 0
    while True:
        if given:
            if i == given:
                return R_NEED_DATA, pos
            off = offs[i]
            caplen = caps[i]
            wirelen = wires[i]
            link = links[i]
            ts = tss[i]
            i += 1
        else:
            # Room for this packet's state: a new connection and two sketch runs at most.
            if g[G_NCONN] + 1 >= cap_conns:
                return R_GROW, pos
            if (g[G_MAPN] + 2) * 2 > map_cap:
                return R_GROW_MAP, pos
            if ng:
                off, caplen, wirelen, ts, link, nxt = _ng_record(
                    buf, pos, end_buf, big, max_caplen, ng_link, ng_div, ng_off, g, tminmax
                )
                if nxt < 0:
                    return R_NEED_DATA, pos
                pos = nxt
            else:
                link = link0
                if end_buf - pos < 16:
                    return R_NEED_DATA, pos
                off, caplen, wirelen, ts, code = _record(buf, pos, end_buf, big, scale, max_caplen, g, tminmax)
                if code >= 0:
                    return code, pos
                pos = off + caplen
        g[G_FRAMES] += 1
        frame = g[G_FRAMES]
        end = off + caplen
        if link == 1:
            if caplen < 14:
                continue
            et = (buf[off + 12] << 8) | buf[off + 13]
            p = off + 14
        elif link == 113:
            if caplen < 16:
                continue
            et = (buf[off + 14] << 8) | buf[off + 15]
            p = off + 16
        elif link == 276:
            if caplen < 20:
                continue
            et = (buf[off] << 8) | buf[off + 1]
            p = off + 20
        elif link == 0 or link == 108:
            if caplen < 4:
                continue
            fam = buf[off] | buf[off + 3]
            if fam == 2:
                et = 0x0800
            elif fam == 24 or fam == 28 or fam == 30:
                et = 0x86DD
            else:
                continue
            p = off + 4
        elif link == 101 or link == 12 or link == 14:
            if caplen < 1:
                continue
            v = buf[off] >> 4
            et = 0x0800 if v == 4 else (0x86DD if v == 6 else 0)
            p = off
        elif link == 242:
            if caplen < 44:
                continue
            et = (buf[off + 40] << 8) | buf[off + 41]
            p = off + 44
        elif link == 228:
            et = 0x0800
            p = off
        elif link == 229:
            et = 0x86DD
            p = off
        else:
            continue
        et = np.int64(et)
        p = np.int64(p)
        ip_cap = -1
        hops = 0
        ok = True
        while et != 0x0800 and et != 0x86DD:
            hops += 1
            if hops > 8:
                ok = False
                break
            if et == 0x8100 or et == 0x88A8 or et == 0x9100 or et == 0x9200 or et == 0x9300:
                if p + 4 > end:
                    ok = False
                    break
                et = np.int64((buf[p + 2] << 8) | buf[p + 3])
                p += 4
            elif et == 0x8847 or et == 0x8848:
                while True:
                    if p + 4 > end:
                        ok = False
                        break
                    bos = buf[p + 2] & 1
                    p += 4
                    if bos:
                        break
                if not ok or p >= end:
                    ok = False
                    break
                v = buf[p] >> 4
                et = np.int64(0x0800 if v == 4 else (0x86DD if v == 6 else 0))
                if et == 0:
                    ok = False
                    break
            elif et <= 1500:
                if p + 8 > end or buf[p] != 0xAA or buf[p + 1] != 0xAA:
                    ok = False
                    break
                et = np.int64((buf[p + 6] << 8) | buf[p + 7])
                p += 8
            elif et == 0x8926:
                if p + 6 > end:
                    ok = False
                    break
                et = np.int64((buf[p + 4] << 8) | buf[p + 5])
                p += 6
            elif et == 0x88E7:
                if p + 18 > end:
                    ok = False
                    break
                et = np.int64((buf[p + 16] << 8) | buf[p + 17])
                p += 18
            elif et == 0x8864:
                if p + 8 > end:
                    ok = False
                    break
                pproto = (buf[p + 6] << 8) | buf[p + 7]
                ip_cap = np.int64((buf[p + 4] << 8) | buf[p + 5]) - 2
                p += 8
                et = np.int64(0x0800 if pproto == 0x21 else (0x86DD if pproto == 0x57 else 0))
                if et == 0:
                    ok = False
                    break
            else:
                ok = False
                break
        if not ok:
            continue
        depth = 0
        v6 = False
        a_hi = np.uint64(0)
        a_lo = np.uint64(0)
        b_hi = np.uint64(0)
        b_lo = np.uint64(0)
        l4 = np.int64(0)
        l4len = np.int64(0)
        found = False
        while True:
            depth += 1
            if depth > 4:
                break
            if et == 0x0800:
                if p + 20 > end:
                    break
                vihl = buf[p]
                ihl = np.int64(vihl & 15) << 2
                if vihl >> 4 != 4 or ihl < 20:
                    break
                g[G_IP] += 1
                tot = np.int64((buf[p + 2] << 8) | buf[p + 3])
                frag = (buf[p + 6] << 8) | buf[p + 7]
                proto = buf[p + 9]
                if frag & 0x3FFF:
                    g[G_FRAGS] += 1
                    if frag & 0x1FFF:
                        break
                if tot == 0:
                    tot = wirelen - (p - off)
                if ip_cap >= 0 and ip_cap < tot:
                    tot = ip_cap
                l4 = p + ihl
                l4len = tot - ihl
                if proto == 6:
                    if l4 + 14 > end:
                        break
                    v6 = False
                    a_hi = np.uint64(0)
                    a_lo = _u64be(buf, p + 12, 4)
                    b_hi = np.uint64(0)
                    b_lo = _u64be(buf, p + 16, 4)
                    found = True
                    break
                if proto == 4 or proto == 41:
                    et = np.int64(0x0800 if proto == 4 else 0x86DD)
                    p = l4
                    continue
                break
            if p + 40 > end:
                break
            if buf[p] >> 4 != 6:
                break
            g[G_IP] += 1
            l4len = np.int64((buf[p + 4] << 8) | buf[p + 5])
            if l4len == 0:
                l4len = wirelen - (p - off) - 40
            nh = buf[p + 6]
            q = p + 40
            bad = False
            while True:
                if nh == 6 or nh == 4 or nh == 41:
                    break
                if nh == 0 or nh == 43 or nh == 60 or nh == 135 or nh == 139 or nh == 140 or nh == 253 or nh == 254:
                    if q + 8 > end:
                        bad = True
                        break
                    hl = (np.int64(buf[q + 1]) + 1) << 3
                elif nh == 51:
                    if q + 8 > end:
                        bad = True
                        break
                    hl = (np.int64(buf[q + 1]) + 2) << 2
                elif nh == 44:
                    if q + 8 > end:
                        bad = True
                        break
                    g[G_FRAGS] += 1
                    if ((buf[q + 2] << 8) | buf[q + 3]) & 0xFFF8:
                        bad = True
                        break
                    hl = np.int64(8)
                else:
                    bad = True
                    break
                nh = buf[q]
                q += hl
                l4len -= hl
            if bad:
                break
            if nh == 6:
                if q + 14 > end:
                    break
                v6 = True
                a_hi = _u64be(buf, p + 8, 8)
                a_lo = _u64be(buf, p + 16, 8)
                b_hi = _u64be(buf, p + 24, 8)
                b_lo = _u64be(buf, p + 32, 8)
                l4 = q
                found = True
                break
            et = np.int64(0x0800 if nh == 4 else 0x86DD)
            p = q
        if not found:
            continue

        # ---- TCP ----
        sport = np.int64((buf[l4] << 8) | buf[l4 + 1])
        dport = np.int64((buf[l4 + 2] << 8) | buf[l4 + 3])
        seq = np.int64(_u64be(buf, l4 + 4, 4))
        ack = np.int64(_u64be(buf, l4 + 8, 4))
        offflags = np.int64((buf[l4 + 12] << 8) | buf[l4 + 13])
        win = np.int64((buf[l4 + 14] << 8) | buf[l4 + 15]) if l4 + 16 <= end else np.int64(-1)
        doff = (offflags >> 12) << 2
        payload = l4len - doff
        if payload < 0:
            payload = np.int64(0)
        g[G_TCP] += 1
        if a_hi < b_hi or (a_hi == b_hi and (a_lo < b_lo or (a_lo == b_lo and sport <= dport))):
            k0, k1, k2, k3 = a_hi, a_lo, b_hi, b_lo
            k4 = np.uint64((sport << 17) | (dport << 1) | (1 if v6 else 0))
            d = 0
        else:
            k0, k1, k2, k3 = b_hi, b_lo, a_hi, a_lo
            k4 = np.uint64((dport << 17) | (sport << 1) | (1 if v6 else 0))
            d = 1
        flags = offflags & 0x1FF

        # ================= TcpTable.segment =================
        j = _hash(k0, k1, k2, k3, k4, mask)
        c = -1
        while True:
            e = ht[j]
            if e < 0:
                break
            if keys[e, 0] == k0 and keys[e, 1] == k1 and keys[e, 2] == k2 and keys[e, 3] == k3 and keys[e, 4] == k4:
                c = e
                break
            j = (j + 1) & mask
        new = c < 0
        if not new and flags & 0x12 == 0x02:
            b = si[c * 2 + d, S_BASE]
            if b != -1 and b != seq:
                new = True
        if new:
            c = g[G_NCONN]
            g[G_NCONN] = c + 1
            ht[j] = c
            keys[c, 0] = k0
            keys[c, 1] = k1
            keys[c, 2] = k2
            keys[c, 3] = k3
            keys[c, 4] = k4
            ci[c, C_FIRST_PKT] = frame
            ci[c, C_LAST_PKT] = frame
            ci[c, C_CLIENT] = -1
            cf[c, C_FIRST_TS] = ts
            cf[c, C_LAST_TS] = ts
            cf[c, C_HS_ACK_TS] = -1.0
            cf[c, C_OOO_THRESH] = 0.003
            for r in (c * 2, c * 2 + 1):
                si[r, S_BASE] = -1
                si[r, S_ISN] = -1
                si[r, S_WIN_MIN] = -1
                si[r, S_WIN_MAX] = -1
                si[r, S_WIN_LAST] = -1
                si[r, S_SYN_WIN] = -1
                si[r, S_MSS] = -1
                si[r, S_WSCALE] = -1
                for f in range(NSF):
                    sf[r, f] = -1.0
                sf[r, S_RTO_WAIT] = 0.0
                sf[r, S_TIMED_TS] = 0.0
                sf[r, S_ZERO_TOTAL] = 0.0
        s = c * 2 + d
        pr = c * 2 + 1 - d
        idle = ts - cf[c, C_LAST_TS]
        cf[c, C_LAST_TS] = ts
        ci[c, C_LAST_PKT] = frame
        si[s, S_PKTS] += 1
        si[s, S_PAYLOAD] += payload
        si[s, S_FLAGS] |= flags
        syn = flags & 0x02
        if si[s, S_BASE] == -1:
            si[s, S_BASE] = seq if syn else (seq - 1) & m32
            si[s, S_MAX_END] = 0 if syn else 1
            sf[s, S_FIRST_TS] = ts
        max_end = si[s, S_MAX_END]
        rel = (seq - si[s, S_BASE]) & m32
        diff = (rel - max_end) & m32
        if diff >= half:
            diff -= wrap
        rel = max_end + diff

        if syn:
            if flags & 0x10:
                if ci[c, C_CLIENT] == -1:
                    ci[c, C_CLIENT] = 1 - d
                si[s, S_SYNACK_COUNT] += 1
                n = si[s, S_N_SYNACK_EV]
                if n < _MAX_EXAMPLES:
                    synackev[s, n, 0] = ts
                    synackev[s, n, 1] = 1.0 if flags & 0xC0 == 0x40 else 0.0
                    synackev[s, n, 2] = frame
                    si[s, S_N_SYNACK_EV] = n + 1
            else:
                if ci[c, C_CLIENT] == -1:
                    ci[c, C_CLIENT] = d
                si[s, S_SYN_COUNT] += 1
                n = si[s, S_N_SYN_EV]
                if n < _MAX_EXAMPLES:
                    synev[s, n, 0] = ts
                    synev[s, n, 1] = 1.0 if flags & 0xC0 == 0xC0 else 0.0
                    synev[s, n, 2] = frame
                    si[s, S_N_SYN_EV] = n + 1
            si[s, S_ISN] = seq
            si[s, S_SYN_WIN] = win
            stop = l4 + doff
            if stop > end:
                stop = end
            # parse_options
            mss = -1
            ws = -1
            sack = False
            tsopt = False
            q = l4 + 20
            while q < stop:
                kind = buf[q]
                if kind == 0:
                    break
                if kind == 1:
                    q += 1
                    continue
                if q + 1 >= stop:
                    break
                olen = np.int64(buf[q + 1])
                if olen < 2 or q + olen > stop:
                    break
                if kind == 2 and olen == 4:
                    mss = (np.int64(buf[q + 2]) << 8) | buf[q + 3]
                elif kind == 3 and olen == 3:
                    ws = np.int64(buf[q + 2])
                elif kind == 4:
                    sack = True
                elif kind == 8:
                    tsopt = True
                q += olen
            if mss >= 0:
                si[s, S_MSS] = mss
            si[s, S_WSCALE] = ws
            if sack:
                si[s, S_SACK] = 1
            if tsopt:
                si[s, S_TSOPT] = 1
            if flags & 0x10 and si[pr, S_SYN_COUNT] and not ci[c, C_SCALE_KNOWN]:
                ci[c, C_SCALE_KNOWN] = 1
                pws = si[pr, S_WSCALE]
                if ws >= 0 and pws >= 0:
                    mine = min(ws, 14)
                    theirs = min(pws, 14)
                    if d == 0:
                        ci[c, C_SCALE0] = mine
                        ci[c, C_SCALE1] = theirs
                    else:
                        ci[c, C_SCALE0] = theirs
                        ci[c, C_SCALE1] = mine
        elif flags & 0x10 and cf[c, C_HS_ACK_TS] < 0 and d == ci[c, C_CLIENT] and si[pr, S_SYNACK_COUNT]:
            cf[c, C_HS_ACK_TS] = ts
            ci[c, C_HS_ACK_PKT] = frame
            if si[s, S_N_SYN_EV] and ts > synev[s, 0, 0]:
                cf[c, C_OOO_THRESH] = ts - synev[s, 0, 0]

        fin = flags & 0x01
        if flags & 0x04:
            if sf[s, S_RST_TS] < 0:
                sf[s, S_RST_TS] = ts
                si[s, S_RST_PKT] = frame
            if sf[s, S_FIN_TS] >= 0 and si[pr, S_DAPF_PKTS] and sf[s, S_RST_AFTER_FIN_TS] < 0:
                sf[s, S_RST_AFTER_FIN_TS] = ts
                si[s, S_RST_AFTER_FIN_PKT] = frame
            continue

        # ---- the peer's data acknowledged ----
        if flags & 0x10 and si[pr, S_BASE] != -1:
            pmax = si[pr, S_MAX_END]
            a = (ack - si[pr, S_BASE]) & m32
            diff = (a - pmax) & m32
            if diff >= half:
                diff -= wrap
            a = pmax + diff
            if not si[pr, S_ACK_VALID] or a > si[pr, S_ACKED]:
                si[pr, S_ACKED] = a
                si[pr, S_ACK_VALID] = 1
                if si[pr, S_NHOLES] and holes[pr, 0, 0] < a:
                    _forget_below(holes, si, pr, a)
            te = si[pr, S_TIMED_END]
            if te and a >= te:
                sample = ts - sf[pr, S_TIMED_TS]
                si[pr, S_TIMED_END] = 0
                if sample >= 0:
                    _sketch_add(si, mk, mc, g, pr, 1, np.int64(min(sample * 1e6, _MAX_RTT_US)))
                    si[pr, S_RTT_N] += 1
                    if sf[pr, S_RTT_MIN] < 0 or sample < sf[pr, S_RTT_MIN]:
                        sf[pr, S_RTT_MIN] = sample
                    if sample > sf[pr, S_RTT_MAX]:
                        sf[pr, S_RTT_MAX] = sample

        # ---- the advertised window ----
        if not syn and win >= 0:
            w = win << (ci[c, C_SCALE0] if d == 0 else ci[c, C_SCALE1])
            si[s, S_WIN_LAST] = w
            _sketch_add(si, mk, mc, g, s, 0, w)
            if si[s, S_WIN_MIN] < 0 or w < si[s, S_WIN_MIN]:
                si[s, S_WIN_MIN] = w
            if w > si[s, S_WIN_MAX]:
                si[s, S_WIN_MAX] = w
            if win == 0 and not fin:
                si[s, S_ZERO_COUNT] += 1
                if sf[s, S_ZERO_START] < 0:
                    sf[s, S_ZERO_START] = ts
                    if not si[s, S_ZERO_FIRST_PKT]:
                        si[s, S_ZERO_FIRST_PKT] = frame
            elif win and sf[s, S_ZERO_START] >= 0:
                sf[s, S_ZERO_TOTAL] += ts - sf[s, S_ZERO_START]
                sf[s, S_ZERO_START] = -1.0

        # ---- this side's data ----
        seglen = payload + (1 if syn else 0) + (1 if fin else 0)
        if seglen:
            if payload:
                si[s, S_DATA_PKTS] += 1
                if sf[s, S_FIRST_DATA_TS] < 0:
                    sf[s, S_FIRST_DATA_TS] = ts
                sf[s, S_LAST_DATA_TS] = ts
                if sf[pr, S_FIN_TS] >= 0:
                    si[s, S_DAPF_PKTS] += 1
                    si[s, S_DAPF_BYTES] += payload
            seg_end = rel + seglen
            if seg_end > max_end and rel >= max_end:
                if payload and not si[s, S_TIMED_END]:
                    si[s, S_TIMED_END] = seg_end
                    sf[s, S_TIMED_TS] = ts
                if rel > max_end and not syn:
                    n = si[s, S_NHOLES]
                    holes[s, n, 0] = max_end
                    holes[s, n, 1] = rel
                    n += 1
                    if n > _MAX_HOLES:
                        for jj in range(n - 1):
                            holes[s, jj, 0] = holes[s, jj + 1, 0]
                            holes[s, jj, 1] = holes[s, jj + 1, 1]
                        n -= 1
                    si[s, S_NHOLES] = n
                si[s, S_MAX_END] = seg_end
                sf[s, S_ADV_TS] = ts
            elif syn or (payload <= 1 and not fin and rel == max_end - 1):
                pass
            elif (
                _fill_hole(holes, si, s, rel, min(seg_end, max_end))
                and ts - sf[s, S_ADV_TS] < cf[c, C_OOO_THRESH]
                and seg_end != max_end
            ):
                si[s, S_OOO] += 1
            else:
                si[s, S_RETRANS] += 1
                si[s, S_RETRANS_BYTES] += payload
                if idle >= _RTO_IDLE:
                    si[s, S_RTO] += 1
                    sf[s, S_RTO_WAIT] += idle
                    n = si[s, S_N_RTO_EX]
                    if n < _MAX_EXAMPLES:
                        rtoex[s, n, 0] = frame
                        rtoex[s, n, 1] = ts
                        rtoex[s, n, 2] = idle
                        si[s, S_N_RTO_EX] = n + 1
                if si[s, S_TIMED_END] and rel < si[s, S_TIMED_END]:
                    si[s, S_TIMED_END] = 0
                if seg_end > max_end:
                    si[s, S_MAX_END] = seg_end
            if payload and si[s, S_ACK_VALID]:
                inflight = si[s, S_MAX_END] - si[s, S_ACKED]
                if inflight > si[s, S_MAX_INFLIGHT]:
                    si[s, S_MAX_INFLIGHT] = inflight
                pw = si[pr, S_WIN_LAST]
                if pw > 0:
                    si[s, S_PINNED_CHECKED] += 1
                    if inflight >= _PINNED_SHARE * pw:
                        si[s, S_PINNED] += 1
        if fin and sf[s, S_FIN_TS] < 0:
            sf[s, S_FIN_TS] = ts
            si[s, S_FIN_PKT] = frame
            if si[pr, S_ACK_VALID]:
                si[s, S_PEER_UNACKED_AT_FIN] = max(0, si[pr, S_MAX_END] - si[pr, S_ACKED])
