"""The one error type every reader raises on malformed input."""

from __future__ import annotations

from typing import Any


class MalformedInput(Exception):
    """Input that cannot be read further.

    ``offset`` (bytes) or ``line`` (1-based) says where it broke; ``partial`` carries
    whatever the reader had built before it broke, so callers can still report it.
    """

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        line: int | None = None,
        partial: Any = None,
    ) -> None:
        where = f" at byte {offset}" if offset is not None else f" at line {line}" if line is not None else ""
        super().__init__(f"{message}{where}")
        self.message = message
        self.offset = offset
        self.line = line
        self.partial = partial


class InputTooLarge(MalformedInput):
    """Input (after decompression) went past the configured size limit."""


class InputRefused(Exception):
    """Input refused as a whole, not read in part: a gzip that inflates like a bomb.

    Not a ``MalformedInput``: an analyzer keeps its partial result for those, while what was read of a
    bomb says nothing. ``offset`` counts bytes of the compressed file, where inflating stopped.
    """

    def __init__(self, message: str, *, offset: int | None = None) -> None:
        super().__init__(f"{message} (stopped {offset:,} bytes into the gzip file)" if offset is not None else message)
        self.message = message
        self.offset = offset
