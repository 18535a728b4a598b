"""Is it a capture? pcap (both byte orders, µs and ns) and pcapng, by their magic numbers."""

from __future__ import annotations

PCAP_MAGICS = frozenset(
    {
        b"\xa1\xb2\xc3\xd4",  # microseconds, big-endian
        b"\xd4\xc3\xb2\xa1",  # microseconds, little-endian
        b"\xa1\xb2\x3c\x4d",  # nanoseconds, big-endian
        b"\x4d\x3c\xb2\xa1",  # nanoseconds, little-endian
    }
)
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
FORMATS = ("pcap", "pcapng")


def sniff_capture(head: bytes) -> str | None:
    """``"pcap"`` or ``"pcapng"`` from the first four bytes, else None."""
    magic = head[:4]
    if magic in PCAP_MAGICS:
        return "pcap"
    if magic == PCAPNG_MAGIC:
        return "pcapng"
    return None
