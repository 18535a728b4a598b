"""Line-numbered reading shared by the text evidence kinds (strace, counters, ss, ...).

Every text parser here works the same way: it walks the file one line at a time
(plain or gzip), keeps going past a line it cannot read and records it as a
``BadLine`` with its 1-based number, so one odd line never loses the rest of the
file. Only input past ``Limits.max_input_bytes`` stops reading (``InputTooLarge``).
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whodunnet.errors import InputTooLarge, MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits, SmallReads
from whodunnet.model import ErrorInfo, EvidenceResult, Finding

#: How many bad lines a summary lists (the count is always exact).
MAX_BAD_LINES_LISTED = 50


@dataclass(frozen=True)
class BadLine:
    """A line a parser could not read, and why; reading went on after it."""

    line: int
    message: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message, "text": self.text[:200]}


class LineLog:
    """Collects bad lines for one file (an exact count, the first few kept)."""

    def __init__(self) -> None:
        self.count = 0
        self.listed: list[BadLine] = []

    def bad(self, line: int, message: str, text: str) -> None:
        self.count += 1
        if len(self.listed) < MAX_BAD_LINES_LISTED:
            self.listed.append(BadLine(line, message, text))

    def to_json(self) -> dict[str, Any]:
        return {"bad_line_count": self.count, "bad_lines": [b.to_json() for b in self.listed]}


def iter_lines(
    source: str | Path | bytes, *, limits: Limits = DEFAULT_LIMITS, on_progress: Callable[[float], None] | None = None
) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` for each line (without its newline), gzip or plain.

    Bytes that are not UTF-8 are replaced, not fatal. Raises ``InputTooLarge`` (with the
    line number) once more than ``limits.max_input_bytes`` have been read.
    """
    raw: io.BufferedIOBase
    total = 0
    if isinstance(source, bytes):
        raw = io.BytesIO(source)
        total = len(source)
    else:
        raw = open(source, "rb")  # noqa: SIM115 - closed in the finally below
        total = Path(source).stat().st_size
    try:
        head = raw.read(2)
        raw.seek(0)
        stream: Any = raw
        guard = None
        if head == b"\x1f\x8b":
            stream = gzip.GzipFile(fileobj=SmallReads(raw))
            guard = InflateGuard(limits)
        read = 0
        number = 0
        while True:
            try:
                chunk = stream.readline(1 << 20)
            except (OSError, EOFError) as exc:
                raise MalformedInput(
                    f"the gzip stream is corrupt or cut short ({exc}) after {raw.tell():,} bytes of the gzip file",
                    line=number + 1,
                ) from None
            if not chunk:
                return
            read += len(chunk)
            if guard is not None:
                guard.check(compressed=raw.tell(), inflated=read)
            if read > limits.max_input_bytes:
                raise InputTooLarge(
                    f"the file is larger than the {limits.max_input_bytes:,}-byte limit", line=number + 1
                )
            number += 1
            if on_progress is not None and total and number % 4096 == 0:
                on_progress(min(1.0, raw.tell() / total))
            yield number, chunk.decode("utf-8", errors="replace").rstrip("\r\n")
    finally:
        raw.close()


def text_result(
    path: Path, kind: str, summary: dict[str, Any], log: LineLog, error: MalformedInput | None
) -> EvidenceResult:
    """The evidence entry of a text file: its summary, its bad lines, and where reading stopped."""
    summary.update(log.to_json())
    info = None
    if error is not None:
        info = ErrorInfo(message=error.message, offset=error.offset, line=error.line)
    elif log.count:
        first = log.listed[0]
        info = ErrorInfo(
            message=f"{log.count} line{'s' if log.count != 1 else ''} could not be read and were skipped "
            f"(first: line {first.line}: {first.message})",
            line=first.line,
        )
    return EvidenceResult(path=str(path), kind=kind, summary=summary, error=info)


Analyzer = Callable[..., tuple[EvidenceResult, list[Finding]]]
