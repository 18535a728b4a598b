"""Magic numbers of the wrappers any evidence file may come in (gzip), for detection and the readers."""

GZIP_MAGIC = b"\x1f\x8b"
