"""Build small pcap / pcapng files byte by byte, for tests of formats the corpus lacks."""

from __future__ import annotations

import struct
from collections.abc import Iterator


def tcp_segment(sport: int, dport: int, *, seq: int = 1000, flags: int = 0x02, payload: bytes = b"") -> bytes:
    return struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0) + payload


def ipv4(src: str, dst: str, l4: bytes, *, proto: int = 6, frag: int = 0) -> bytes:
    s = bytes(int(x) for x in src.split("."))
    d = bytes(int(x) for x in dst.split("."))
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, frag, 64, proto, 0, s, d) + l4


def ipv6(src_last: int, dst_last: int, l4: bytes, *, next_header: int = 6, ext: bytes = b"") -> bytes:
    src = bytes(15) + bytes([src_last])
    dst = bytes(15) + bytes([dst_last])
    body = ext + l4
    return struct.pack("!IHBB16s16s", 6 << 28, len(body), next_header, 64, src, dst) + body


def ethernet(payload: bytes, *, ethertype: int = 0x0800, vlans: tuple[int, ...] = ()) -> bytes:
    head = b"\x02" * 6 + b"\x04" * 6
    for i, vid in enumerate(vlans):
        tpid = 0x88A8 if i == 0 and len(vlans) > 1 else 0x8100
        head += struct.pack("!HH", tpid, vid)
    return head + struct.pack("!H", ethertype) + payload


def linux_sll2(payload: bytes, *, protocol: int = 0x0800) -> bytes:
    return struct.pack("!HHIHBB8s", protocol, 0, 2, 1, 0, 6, b"\x02" * 8) + payload


def pcap(
    frames: list[bytes],
    *,
    link: int = 1,
    endian: str = "<",
    nano: bool = False,
    snaplen: int = 65535,
    t0: float = 1_700_000_000.0,
) -> bytes:
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = [struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, link)]
    for i, frame in enumerate(frames):
        ts = t0 + i * 0.5
        sec = int(ts)
        frac = round((ts - sec) * (1e9 if nano else 1e6))
        cap = frame[:snaplen]
        out.append(struct.pack(endian + "IIII", sec, frac, len(cap), len(frame)) + cap)
    return b"".join(out)


def _block(endian: str, btype: int, body: bytes) -> bytes:
    body += b"\x00" * (-len(body) % 4)
    blen = 12 + len(body)
    return struct.pack(endian + "II", btype, blen) + body + struct.pack(endian + "I", blen)


def _options(endian: str, opts: list[tuple[int, bytes]]) -> bytes:
    out = b""
    for code, value in opts:
        out += struct.pack(endian + "HH", code, len(value)) + value + b"\x00" * (-len(value) % 4)
    return out + (struct.pack(endian + "HH", 0, 0) if opts else b"")


def pcapng_shb(endian: str = "<") -> bytes:
    return _block(endian, 0x0A0D0D0A, struct.pack(endian + "IHHq", 0x1A2B3C4D, 1, 0, -1))


def pcapng_idb(link: int, *, endian: str = "<", tsresol: int | None = None, snaplen: int = 0) -> bytes:
    opts = [(9, bytes([tsresol]))] if tsresol is not None else []
    return _block(endian, 1, struct.pack(endian + "HHI", link, 0, snaplen) + _options(endian, opts))


def pcapng_epb(iface: int, ticks: int, frame: bytes, *, endian: str = "<", caplen: int | None = None) -> bytes:
    cap = len(frame) if caplen is None else caplen
    head = struct.pack(endian + "IIIII", iface, ticks >> 32, ticks & 0xFFFFFFFF, cap, len(frame))
    return _block(endian, 6, head + frame)


def pcapng_spb(frame: bytes, *, endian: str = "<") -> bytes:
    return _block(endian, 3, struct.pack(endian + "I", len(frame)) + frame)


def pcapng_block(btype: int, body: bytes, *, endian: str = "<") -> bytes:
    return _block(endian, btype, body)


def pcap_records(data: bytes) -> Iterator[tuple[int, int]]:
    """(offset, caplen) of each complete record of a pcap, walked here independently of the engine."""
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    pos = 24
    while pos + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, pos + 8)[0]
        if pos + 16 + caplen > len(data):
            return
        yield pos, caplen
        pos += 16 + caplen
