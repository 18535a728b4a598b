"""Capture file formats: find the next packet record in the buffer (pcap or pcapng).

``next_packet`` fills ``Packet`` (where the packet's bytes are, its lengths, link type and
time) and returns ``R_PACKET`` with the position after it, or tells Python what it needs:
more bytes (``R_NEED_DATA``; never when ``eof``), bytes skipped without buffering
(``R_SKIP``), room for interfaces, the end, or an error (``Scan.err``, at ``Scan.err_at``,
always the start of the record or block that is wrong). A length field is checked against
``max_caplen`` and the block around it before anything of that size is asked for.
"""

from __future__ import annotations

from whodunnet.capture.constants import (
    E_BAD_BYTE_ORDER,
    E_BLOCK_HEADER_CUT,
    E_BLOCK_LENGTH,
    E_CAPLEN_PAST_BLOCK,
    E_CUT_IN_BLOCK,
    E_CUT_IN_OPTIONS,
    E_IDB_OPTION,
    E_IDB_SHORT,
    E_META_CUT,
    E_META_TOO_LARGE,
    E_NO_INTERFACE,
    E_NO_SECTION,
    E_NOT_PCAP,
    E_PACKET_BLOCK_CUT,
    E_PACKET_BLOCK_SHORT,
    E_PACKET_CAPLEN,
    E_PACKET_CUT,
    E_PCAP_HEADER_CUT,
    E_RECORD_CAPLEN,
    E_RECORD_CUT,
    E_RECORD_HEADER_CUT,
    E_SHORT_MAGIC,
    E_SPB_CAPLEN,
    E_SPB_CUT,
    E_SPB_LENGTH,
    E_SPB_NO_INTERFACE,
    E_SPB_SHORT,
    E_TRAILER,
    FMT_PCAP,
    FMT_PCAPNG,
    IDB_OPT_END,
    IDB_OPT_TSOFFSET,
    IDB_OPT_TSRESOL,
    MAX_META_BLOCK,
    OPTIONS_SLACK,
    PCAP_BE_NS,
    PCAP_BE_US,
    PCAP_HEADER,
    PCAP_LE_NS,
    PCAP_LE_US,
    PCAP_RECORD_HEADER,
    PCAPNG_BOM_BE,
    PCAPNG_BOM_LE,
    PCAPNG_EPB,
    PCAPNG_IDB,
    PCAPNG_OPB,
    PCAPNG_PACKET_HEADER,
    PCAPNG_SHB,
    PCAPNG_SPB,
    R_END,
    R_ERROR,
    R_GROW_IFACES,
    R_NEED_DATA,
    R_PACKET,
    R_SKIP,
)
from whodunnet.capture.fields import Iface, Packet, Scan
from whodunnet.capture.kernel import hot, jit
from whodunnet.capture.kernel.types import Buffer, Rows
from whodunnet.capture.kernel.wire import be32, i64, u16, u32


@jit
def fail(g: Scan, at: int, err: int, a: int, b: int) -> tuple[int, int]:
    """Stop on bad input: what (an E_* code and its two numbers) and where."""
    g.err = err
    g.err_a = a
    g.err_b = b
    g.err_at = at
    return R_ERROR, at


@jit
def short(g: Scan, at: int, eof: bool, err: int, a: int, b: int) -> tuple[int, int]:
    """Fewer bytes than the record needs: ask for more, or at the end of the file, fail."""
    if not eof:
        return R_NEED_DATA, at
    return fail(g, at, err, a, b)


@hot
def count_packet(g: Scan, pk: Packet, off: int, caplen: int, wirelen: int, link: int, ts: float, timed: bool) -> None:
    """Put one packet record in ``pk`` and count it."""
    g.frames += 1
    g.bytes += wirelen
    g.captured += caplen
    if caplen < wirelen:
        g.truncated += 1
    if timed:
        g.tmin = min(g.tmin, ts)
        g.tmax = max(g.tmax, ts)
    pk.frame = g.frames
    pk.off = off
    pk.caplen = caplen
    pk.wirelen = wirelen
    pk.link = link
    pk.ts = ts
    pk.end = off + caplen


@jit
def read_file_header(buf: Buffer, end: int, eof: bool, g: Scan) -> tuple[int, int]:
    """The magic number (and a pcap file's header): which format, byte order, time unit."""
    if end < 4:
        return short(g, 0, eof, E_SHORT_MAGIC, 0, 0)
    magic = be32(buf, 0)
    if magic == PCAPNG_SHB:
        g.fmt = FMT_PCAPNG
        return R_PACKET, 0
    if end < PCAP_HEADER:
        return short(g, 0, eof, E_PCAP_HEADER_CUT, 0, 0)
    if magic in (PCAP_LE_US, PCAP_LE_NS):
        g.big = False
    elif magic in (PCAP_BE_US, PCAP_BE_NS):
        g.big = True
    else:
        return fail(g, 0, E_NOT_PCAP, magic, 0)
    g.ts_scale = 1e-9 if magic in (PCAP_LE_NS, PCAP_BE_NS) else 1e-6
    g.link = u32(buf, 20, g.big) & 0xFFFF  # the upper bits carry the FCS length, not the link type
    g.fmt = FMT_PCAP
    return R_PACKET, PCAP_HEADER


@hot
def next_pcap_record(
    buf: Buffer, pos: int, end: int, eof: bool, max_caplen: int, g: Scan, pk: Packet
) -> tuple[int, int]:
    """One pcap record: 16-byte header (seconds, fraction, caplen, wirelen), then the packet."""
    left = end - pos
    if left < PCAP_RECORD_HEADER:
        if eof and left == 0:
            return R_END, pos
        return short(g, pos, eof, E_RECORD_HEADER_CUT, left, 0)
    big = g.big
    caplen = u32(buf, pos + 8, big)
    if caplen > max_caplen:
        return fail(g, pos, E_RECORD_CAPLEN, caplen, max_caplen)
    if PCAP_RECORD_HEADER + caplen > left:
        return short(g, pos, eof, E_RECORD_CUT, PCAP_RECORD_HEADER + caplen, left)
    ts = u32(buf, pos, big) + u32(buf, pos + 4, big) * g.ts_scale
    data = pos + PCAP_RECORD_HEADER
    count_packet(g, pk, data, caplen, u32(buf, pos + 12, big), g.link, ts, True)
    return R_PACKET, data + caplen


@jit
def read_section_header(buf: Buffer, pos: int, g: Scan) -> int:
    """A section header block's byte order; a new section numbers its interfaces from 0."""
    bom = be32(buf, pos + 8)
    if bom == PCAPNG_BOM_LE:
        g.big = False
    elif bom == PCAPNG_BOM_BE:
        g.big = True
    else:
        return bom
    g.in_section = True
    g.iface_base = g.n_ifaces
    return -1


@jit
def read_interface(buf: Buffer, pos: int, blen: int, g: Scan, ifaces: Rows) -> int:
    """An interface description block: link type, snaplen, time resolution and offset.

    Returns 0, or the E_* code of a bad block.
    """
    if blen < 20:
        return E_IDB_SHORT
    big = g.big
    ifc: Iface = ifaces[g.n_ifaces]
    ifc.link = u16(buf, pos + 8, big)
    ifc.snaplen = u32(buf, pos + 12, big)
    ifc.div = 1e6
    ifc.tsoff = 0
    p = pos + 16
    stop = pos + blen - 4
    while p + 4 <= stop:
        code = u16(buf, p, big)
        olen = u16(buf, p + 2, big)
        if code == IDB_OPT_END:
            break
        if p + 4 + olen > stop:
            return E_IDB_OPTION
        if code == IDB_OPT_TSRESOL and olen >= 1:
            v = int(buf[p + 4])
            ifc.div = 2.0 ** (v & 0x7F) if v & 0x80 else 10.0**v
        elif code == IDB_OPT_TSOFFSET and olen >= 8:
            ifc.tsoff = i64(buf, p + 4, big)
        p += 4 + ((olen + 3) & ~3)
    g.n_ifaces += 1
    return 0


@hot
def read_packet_block(
    buf: Buffer,
    pos: int,
    end: int,
    eof: bool,
    btype: int,
    blen: int,
    max_caplen: int,
    g: Scan,
    ifaces: Rows,
    pk: Packet,
) -> tuple[int, int]:
    """An enhanced (or obsolete) packet block: interface, 64-bit time, caplen, wirelen, data.

    A block with more than OPTIONS_SLACK bytes of options has its packet read and the
    options skipped without buffering them.
    """
    if blen < PCAPNG_PACKET_HEADER + 4:
        return fail(g, pos, E_PACKET_BLOCK_SHORT, blen, 0)
    left = end - pos
    if left < PCAPNG_PACKET_HEADER:
        return short(g, pos, eof, E_PACKET_BLOCK_CUT, 0, 0)
    big = g.big
    # The obsolete block has a 16-bit interface and a 16-bit drop count where the enhanced
    # block has its 32-bit interface; the rest is laid out the same.
    iface = u32(buf, pos + 8, big) if btype == PCAPNG_EPB else u16(buf, pos + 8, big)
    hi = u32(buf, pos + 12, big)
    lo = u32(buf, pos + 16, big)
    caplen = u32(buf, pos + 20, big)
    wirelen = u32(buf, pos + 24, big)
    if caplen > max_caplen:
        return fail(g, pos, E_PACKET_CAPLEN, caplen, max_caplen)
    if PCAPNG_PACKET_HEADER + caplen + 4 > blen:
        return fail(g, pos, E_CAPLEN_PAST_BLOCK, caplen, blen)
    described = g.n_ifaces - g.iface_base
    if iface >= described:
        return fail(g, pos, E_NO_INTERFACE, iface, described)
    whole = blen <= PCAPNG_PACKET_HEADER + caplen + 4 + OPTIONS_SLACK
    need = blen if whole else PCAPNG_PACKET_HEADER + caplen
    if left < need:
        return short(g, pos, eof, E_PACKET_CUT, blen, left)
    if whole and u32(buf, pos + blen - 4, big) != blen:
        return fail(g, pos, E_TRAILER, 0, 0)
    ifc: Iface = ifaces[g.iface_base + iface]
    ts = (hi * 4294967296.0 + lo) / ifc.div + ifc.tsoff  # hi * 2**32 is exact in a double
    g.last_ts = ts
    data = pos + PCAPNG_PACKET_HEADER
    count_packet(g, pk, data, caplen, wirelen, ifc.link, ts, True)
    if whole:
        return R_PACKET, pos + blen
    g.skip = blen - PCAPNG_PACKET_HEADER - caplen
    g.skip_err = E_CUT_IN_OPTIONS
    g.err_at = pos
    return R_PACKET, data + caplen


@jit
def read_simple_block(
    buf: Buffer, pos: int, end: int, eof: bool, blen: int, max_caplen: int, g: Scan, ifaces: Rows, pk: Packet
) -> tuple[int, int]:
    """A simple packet block: interface 0, no time (the last timed packet's is used)."""
    if blen < 16:
        return fail(g, pos, E_SPB_SHORT, blen, 0)
    if g.n_ifaces == g.iface_base:
        return fail(g, pos, E_SPB_NO_INTERFACE, 0, 0)
    ifc: Iface = ifaces[g.iface_base]
    wirelen = u32(buf, pos + 8, g.big)
    caplen = min(wirelen, blen - 16)
    if ifc.snaplen:
        caplen = min(caplen, ifc.snaplen)
    if caplen > max_caplen:
        return fail(g, pos, E_SPB_CAPLEN, caplen, max_caplen)
    if blen > 16 + caplen + 3 + OPTIONS_SLACK:
        return fail(g, pos, E_SPB_LENGTH, blen, 0)
    if end - pos < blen:
        return short(g, pos, eof, E_SPB_CUT, 0, 0)
    count_packet(g, pk, pos + 12, caplen, wirelen, ifc.link, g.last_ts, False)
    return R_PACKET, pos + blen


@hot
def next_pcapng_packet(
    buf: Buffer, pos: int, end: int, eof: bool, max_caplen: int, g: Scan, ifaces: Rows, pk: Packet
) -> tuple[int, int]:
    """Walk pcapng blocks to the next packet, reading section and interface blocks on the way
    and stepping over every other block (statistics, name resolution, custom...)."""
    while True:
        left = end - pos
        if left < 12:
            if eof and left == 0:
                return R_END, pos
            return short(g, pos, eof, E_BLOCK_HEADER_CUT, left, 0)
        btype = u32(buf, pos, g.big)
        if btype == PCAPNG_SHB:
            bom = read_section_header(buf, pos, g)
            if bom >= 0:
                return fail(g, pos, E_BAD_BYTE_ORDER, bom, 0)
        elif not g.in_section:
            return fail(g, pos, E_NO_SECTION, 0, 0)
        blen = u32(buf, pos + 4, g.big)
        if blen < 12 or blen & 3:
            return fail(g, pos, E_BLOCK_LENGTH, blen, 0)
        if btype in (PCAPNG_EPB, PCAPNG_OPB):
            return read_packet_block(buf, pos, end, eof, btype, blen, max_caplen, g, ifaces, pk)
        if btype == PCAPNG_SPB:
            return read_simple_block(buf, pos, end, eof, blen, max_caplen, g, ifaces, pk)
        if btype in (PCAPNG_SHB, PCAPNG_IDB):
            if blen > MAX_META_BLOCK:
                return fail(g, pos, E_META_TOO_LARGE, blen, 0)
            if left < blen:
                return short(g, pos, eof, E_META_CUT, 0, 0)
            if u32(buf, pos + blen - 4, g.big) != blen:
                return fail(g, pos, E_TRAILER, 0, 0)
            if btype == PCAPNG_IDB:
                if g.n_ifaces == ifaces.shape[0]:
                    return R_GROW_IFACES, pos
                err = read_interface(buf, pos, blen, g, ifaces)
                if err:
                    return fail(g, pos, err, 0, 0)
            pos += blen
            continue
        if left >= blen:
            pos += blen
        elif blen <= MAX_META_BLOCK and not eof:
            return R_NEED_DATA, pos
        else:
            g.skip = blen
            g.skip_err = E_CUT_IN_BLOCK
            g.err_at = pos
            return R_SKIP, pos


@hot
def next_packet(
    buf: Buffer, pos: int, end: int, eof: bool, max_caplen: int, g: Scan, ifaces: Rows, pk: Packet
) -> tuple[int, int]:
    """The next packet record of the file, whatever its format."""
    if not g.fmt:
        code, pos = read_file_header(buf, end, eof, g)
        if code != R_PACKET:
            return code, pos
    if g.fmt == FMT_PCAP:
        return next_pcap_record(buf, pos, end, eof, max_caplen, g, pk)
    return next_pcapng_packet(buf, pos, end, eof, max_caplen, g, ifaces, pk)
