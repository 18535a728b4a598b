"""Streaming pcap / pcapng record reader.

The reader walks records straight out of a rolling ``bytes`` buffer (refilled 1 MiB at a
time) with ``struct.unpack_from`` and hands each packet to a sink as
``(buf, offset, caplen, wirelen, linktype, timestamp)``: no per-packet objects, no copy
of the packet, and memory bounded by one chunk plus one record. A length field that
points past ``max_caplen`` or past the end of the data raises ``MalformedInput`` with the
byte offset of that record *before* anything of that size is buffered.

Offsets are positions in the (decompressed) capture stream.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from struct import Struct
from typing import Protocol

from whodunnet.capture.source import ByteSource
from whodunnet.errors import MalformedInput

#: Bytes pulled from the source per refill.
CHUNK = 1 << 20
#: Largest pcapng metadata block (section / interface description) we agree to buffer.
MAX_META_BLOCK = 1 << 20
#: Options after an EPB's packet data that are buffered with it rather than streamed past.
EPB_OPTIONS_SLACK = 4096

PCAPNG_SHB = 0x0A0D0D0A
PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D

LINKTYPE_NAMES: dict[int, str] = {
    0: "null",
    1: "ethernet",
    12: "raw",
    14: "raw",
    101: "raw",
    108: "loop",
    113: "linux_sll",
    228: "ipv4",
    229: "ipv6",
    276: "linux_sll2",
    9: "ppp",
    105: "ieee802_11",
    127: "ieee802_11_radiotap",
    239: "nflog",
    242: "ipoib",
    274: "ethernet_mpacket",
}


def linktype_name(link: int) -> str:
    """A short, stable name for a LINKTYPE_ value (``linktype_N`` when we do not decode it)."""
    return LINKTYPE_NAMES.get(link, f"linktype_{link}")


class PacketSink(Protocol):
    """Receives every packet record; must never raise on any content of ``buf``."""

    def packet(self, buf: bytes, off: int, caplen: int, wirelen: int, link: int, ts: float) -> None: ...


#: ``bulk(buf, pos, end, interfaces, big_endian)`` reads a run of enhanced packet blocks from
#: ``pos`` itself and returns (next position, packets, wire bytes, captured bytes, truncated,
#: first time, last time, time of the last packet); it stops (next position == ``pos``) at any
#: block it does not read exactly as this reader would, which this reader then takes.
BulkReader = Callable[
    [bytes, int, int, list[tuple[int, float, int, int]], bool], tuple[int, int, int, int, int, float, float, float]
]


class CaptureReader:
    """Reads one pcap or pcapng stream, feeding packets to ``sink`` and counting them.

    ``bulk`` (the compiled path's) may read runs of pcapng packet blocks in one call.
    """

    def __init__(
        self,
        stream: ByteSource,
        sink: PacketSink,
        *,
        max_caplen: int,
        on_chunk: Callable[[], None] | None = None,
        bulk: BulkReader | None = None,
    ) -> None:
        self._read = stream.read
        self._bulk = bulk
        self._sink = sink
        self._max_caplen = max_caplen
        self._on_chunk = on_chunk
        self._buf = b""
        self._pos = 0
        #: Stream offset of ``_buf[0]``.
        self._base = 0
        self.format = ""
        self.link_types: list[int] = []
        self.packets = 0
        self.bytes = 0
        self.captured_bytes = 0
        self.truncated_packets = 0
        self.first_ts: float | None = None
        self.last_ts: float | None = None

    # -- buffer handling (once per chunk, not per packet) -------------------------------

    def _fill(self, need: int) -> bool:
        """Make ``need`` bytes available from ``_pos``; False if the stream ends first."""
        rest = self._buf[self._pos :]
        self._base += self._pos
        self._pos = 0
        parts = [rest]
        have = len(rest)
        while have < need:
            data = self._read(max(CHUNK, need - have))
            if not data:
                break
            parts.append(data)
            have += len(data)
        self._buf = b"".join(parts) if len(parts) > 1 else rest
        if self._on_chunk is not None:
            self._on_chunk()
        return have >= need

    def _skip(self, n: int, *, what: str) -> None:
        """Move ``n`` bytes forward from ``_pos`` without buffering them."""
        start = self._base + self._pos
        avail = len(self._buf) - self._pos
        if n <= avail:
            self._pos += n
            return
        n -= avail
        self._base += len(self._buf)
        self._buf = b""
        self._pos = 0
        while n > 0:
            data = self._read(min(CHUNK, n))
            if not data:
                raise MalformedInput(f"the file ends inside {what}", offset=start)
            n -= len(data)
            self._base += len(data)
        if self._on_chunk is not None:
            self._on_chunk()

    def _record_ts(self, tmin: float, tmax: float) -> None:
        if tmin <= tmax:
            self.first_ts = tmin if self.first_ts is None else min(self.first_ts, tmin)
            self.last_ts = tmax if self.last_ts is None else max(self.last_ts, tmax)

    # -- entry point ---------------------------------------------------------------------

    def read(self) -> None:
        """Read the whole stream; raises ``MalformedInput`` where it breaks."""
        if not self._fill(4):
            raise MalformedInput("the capture is shorter than its 4-byte magic number", offset=0)
        magic = self._buf[:4]
        if magic == b"\x0a\x0d\x0d\x0a":
            self.format = "pcapng"
            self._read_pcapng()
        else:
            self.format = "pcap"
            self._read_pcap()

    # -- pcap ----------------------------------------------------------------------------

    def _read_pcap(self) -> None:
        if not self._fill(24):
            raise MalformedInput("the pcap file header is cut short (it needs 24 bytes)", offset=0)
        magic = self._buf[:4]
        if magic == b"\xd4\xc3\xb2\xa1":
            endian, scale = "<", 1e-6
        elif magic == b"\xa1\xb2\xc3\xd4":
            endian, scale = ">", 1e-6
        elif magic == b"\x4d\x3c\xb2\xa1":
            endian, scale = "<", 1e-9
        elif magic == b"\xa1\xb2\x3c\x4d":
            endian, scale = ">", 1e-9
        else:
            raise MalformedInput(f"not a pcap file (magic {magic.hex()})", offset=0)
        network = Struct(endian + "I").unpack_from(self._buf, 20)[0]
        link = network & 0xFFFF  # the upper bits carry the FCS length, not the link type
        self.link_types = [link]

        unpack_rec = Struct(endian + "IIII").unpack_from
        packet = self._sink.packet
        max_caplen = self._max_caplen
        n = nbytes = ncap = ntrunc = 0
        tmin, tmax = math.inf, -math.inf
        buf = self._buf
        pos = 24
        end = len(buf)
        try:
            while True:
                if end - pos < 16:
                    self._pos = pos
                    if not self._fill(16):
                        left = len(self._buf) - self._pos
                        if left:
                            raise MalformedInput(
                                f"the file ends inside a record header ({left} of 16 bytes present)",
                                offset=self._base + self._pos,
                            )
                        pos = self._pos
                        break
                    buf, pos, end = self._buf, 0, len(self._buf)
                sec, frac, caplen, wirelen = unpack_rec(buf, pos)
                if caplen > max_caplen:
                    raise MalformedInput(
                        f"record caplen {caplen:,} is larger than the {max_caplen:,}-byte limit",
                        offset=self._base + pos,
                    )
                nxt = pos + 16 + caplen
                if nxt > end:
                    self._pos = pos
                    if not self._fill(16 + caplen):
                        left = len(self._buf) - self._pos
                        raise MalformedInput(
                            f"the file ends in the middle of a packet: this record needs "
                            f"{16 + caplen:,} bytes, {left:,} are left",
                            offset=self._base + self._pos,
                        )
                    buf, pos, end = self._buf, 0, len(self._buf)
                    nxt = 16 + caplen
                ts = sec + frac * scale
                if ts < tmin:
                    tmin = ts
                if ts > tmax:
                    tmax = ts
                n += 1
                nbytes += wirelen
                ncap += caplen
                if caplen < wirelen:
                    ntrunc += 1
                packet(buf, pos + 16, caplen, wirelen, link, ts)
                pos = nxt
        finally:
            self._pos = pos
            self.packets += n
            self.bytes += nbytes
            self.captured_bytes += ncap
            self.truncated_packets += ntrunc
            self._record_ts(tmin, tmax)

    # -- pcapng --------------------------------------------------------------------------

    def _read_pcapng(self) -> None:
        packet = self._sink.packet
        bulk = self._bulk
        max_caplen = self._max_caplen
        # Per interface: (linktype, timestamp divisor, timestamp offset in seconds, snaplen)
        ifaces: list[tuple[int, float, int, int]] = []
        endian = "<"
        u32 = Struct("<I").unpack_from
        hdr2 = Struct("<II").unpack_from
        epb = Struct("<IIIII").unpack_from
        opb = Struct("<HHIIII").unpack_from
        n = nbytes = ncap = ntrunc = 0
        tmin, tmax = math.inf, -math.inf
        last_ts = 0.0
        seen_shb = False
        buf = self._buf
        pos = 0
        end = len(buf)
        try:
            while True:
                if end - pos < 12:
                    self._pos = pos
                    if not self._fill(12):
                        left = len(self._buf) - self._pos
                        if left:
                            raise MalformedInput(
                                f"the file ends inside a block header ({left} bytes present)",
                                offset=self._base + self._pos,
                            )
                        pos = self._pos
                        break
                    buf, pos, end = self._buf, 0, len(self._buf)
                start = self._base + pos
                btype = u32(buf, pos)[0]
                if btype == PCAPNG_SHB:
                    bom = buf[pos + 8 : pos + 12]
                    if bom == b"\x4d\x3c\x2b\x1a":
                        endian = "<"
                    elif bom == b"\x1a\x2b\x3c\x4d":
                        endian = ">"
                    else:
                        raise MalformedInput(f"bad pcapng byte-order magic {bom.hex()}", offset=start)
                    u32 = Struct(endian + "I").unpack_from
                    hdr2 = Struct(endian + "II").unpack_from
                    epb = Struct(endian + "IIIII").unpack_from
                    opb = Struct(endian + "HHIIII").unpack_from
                    ifaces = []
                    seen_shb = True
                elif not seen_shb:
                    raise MalformedInput("a pcapng file must start with a section header block", offset=start)
                btype, blen = hdr2(buf, pos)
                if blen < 12 or blen & 3:
                    raise MalformedInput(f"pcapng block length {blen:,} is invalid", offset=start)

                if btype == 6 and bulk is not None and ifaces:
                    nxt, bn, bbytes, bcap, btrunc, bmin, bmax, blast = bulk(buf, pos, end, ifaces, endian == ">")
                    if nxt != pos:
                        pos = nxt
                        n += bn
                        nbytes += bbytes
                        ncap += bcap
                        ntrunc += btrunc
                        tmin = min(tmin, bmin)
                        tmax = max(tmax, bmax)
                        last_ts = blast
                        continue
                if btype == 6 or btype == 2:  # enhanced / obsolete packet block
                    if blen < 32:
                        raise MalformedInput(f"packet block length {blen:,} is too short", offset=start)
                    if end - pos < 28:
                        self._pos = pos
                        if not self._fill(28):
                            raise MalformedInput("the file ends inside a packet block", offset=start)
                        buf, pos, end = self._buf, 0, len(self._buf)
                    if btype == 6:
                        iface, hi, lo, caplen, wirelen = epb(buf, pos + 8)
                    else:
                        iface, _drops, hi, lo, caplen, wirelen = opb(buf, pos + 8)
                    if caplen > max_caplen:
                        raise MalformedInput(
                            f"packet caplen {caplen:,} is larger than the {max_caplen:,}-byte limit",
                            offset=start,
                        )
                    if 28 + caplen + 4 > blen:
                        raise MalformedInput(
                            f"packet caplen {caplen:,} does not fit in its {blen:,}-byte block", offset=start
                        )
                    if iface >= len(ifaces):
                        raise MalformedInput(
                            f"packet on interface {iface}, but only {len(ifaces)} interfaces are described",
                            offset=start,
                        )
                    link, div, tsoff, _snap = ifaces[iface]
                    whole = blen <= 32 + caplen + EPB_OPTIONS_SLACK
                    need = blen if whole else 28 + caplen
                    if end - pos < need:
                        self._pos = pos
                        if not self._fill(need):
                            left = len(self._buf) - self._pos
                            raise MalformedInput(
                                f"the file ends in the middle of a packet: this block needs {blen:,} bytes, "
                                f"{left:,} are left",
                                offset=start,
                            )
                        buf, pos, end = self._buf, 0, len(self._buf)
                    if whole and u32(buf, pos + blen - 4)[0] != blen:
                        raise MalformedInput("pcapng block lengths at its start and end differ", offset=start)
                    ts = ((hi << 32) | lo) / div + tsoff
                    last_ts = ts
                    if ts < tmin:
                        tmin = ts
                    if ts > tmax:
                        tmax = ts
                    n += 1
                    nbytes += wirelen
                    ncap += caplen
                    if caplen < wirelen:
                        ntrunc += 1
                    packet(buf, pos + 28, caplen, wirelen, link, ts)
                    if whole:
                        pos += blen
                        continue
                    self._pos = pos + 28 + caplen
                    self._skip(blen - 28 - caplen, what="a packet block's options")
                    buf, pos, end = self._buf, self._pos, len(self._buf)
                    continue

                if btype == 3:  # simple packet block: interface 0, no timestamp
                    if blen < 16:
                        raise MalformedInput(f"simple packet block length {blen:,} is too short", offset=start)
                    if not ifaces:
                        raise MalformedInput("simple packet block before any interface description", offset=start)
                    link, _div, _tsoff, snap = ifaces[0]
                    wirelen = u32(buf, pos + 8)[0]
                    caplen = min(wirelen, blen - 16, snap or wirelen)
                    if caplen > max_caplen:
                        raise MalformedInput(
                            f"packet length {caplen:,} is larger than the {max_caplen:,}-byte limit",
                            offset=start,
                        )
                    if blen > 16 + caplen + 3 + EPB_OPTIONS_SLACK:
                        raise MalformedInput(f"simple packet block length {blen:,} is invalid", offset=start)
                    if end - pos < blen:
                        self._pos = pos
                        if not self._fill(blen):
                            raise MalformedInput(
                                "the file ends in the middle of a packet (simple packet block)", offset=start
                            )
                        buf, pos, end = self._buf, 0, len(self._buf)
                    n += 1
                    nbytes += wirelen
                    ncap += caplen
                    if caplen < wirelen:
                        ntrunc += 1
                    packet(buf, pos + 12, caplen, wirelen, link, last_ts)
                    pos += blen
                    continue

                if btype == 1 or btype == PCAPNG_SHB:
                    if blen > MAX_META_BLOCK:
                        raise MalformedInput(f"pcapng header block of {blen:,} bytes is too large", offset=start)
                    if end - pos < blen:
                        self._pos = pos
                        if not self._fill(blen):
                            raise MalformedInput("the file ends inside a pcapng header block", offset=start)
                        buf, pos, end = self._buf, 0, len(self._buf)
                    if u32(buf, pos + blen - 4)[0] != blen:
                        raise MalformedInput("pcapng block lengths at its start and end differ", offset=start)
                    if btype == 1:
                        if blen < 20:
                            raise MalformedInput("interface description block is too short", offset=start)
                        ifaces.append(_parse_idb(buf, pos, blen, endian, start))
                        if ifaces[-1][0] not in self.link_types:
                            self.link_types.append(ifaces[-1][0])
                    pos += blen
                    continue

                # Any other block (statistics, name resolution, decryption secrets, custom...)
                self._pos = pos
                self._skip(blen, what="a pcapng block")
                buf, pos, end = self._buf, self._pos, len(self._buf)
        finally:
            self._pos = pos
            self.packets += n
            self.bytes += nbytes
            self.captured_bytes += ncap
            self.truncated_packets += ntrunc
            self._record_ts(tmin, tmax)


def _parse_idb(buf: bytes, pos: int, blen: int, endian: str, start: int) -> tuple[int, float, int, int]:
    """(linktype, timestamp divisor, timestamp offset, snaplen) of an interface block."""
    link, _reserved, snaplen = Struct(endian + "HHI").unpack_from(buf, pos + 8)
    div = 1e6
    tsoff = 0
    opt = Struct(endian + "HH").unpack_from
    p = pos + 16
    stop = pos + blen - 4
    while p + 4 <= stop:
        code, olen = opt(buf, p)
        if code == 0:
            break
        if p + 4 + olen > stop:
            raise MalformedInput("interface description option runs past its block", offset=start)
        if code == 9 and olen >= 1:  # if_tsresol
            v = buf[p + 4]
            div = float(2 ** (v & 0x7F)) if v & 0x80 else float(10**v)
        elif code == 14 and olen >= 8:  # if_tsoffset, seconds
            tsoff = Struct(endian + "q").unpack_from(buf, p + 4)[0]
        p += 4 + ((olen + 3) & ~3)
    return link, div, tsoff, snaplen
