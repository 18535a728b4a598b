"""The streaming text runner every text evidence kind reads through (strace, counters, ss, ...).

``read_text(source, reader)`` walks the file (a path, or an open binary stream such as an object store's
ranged reader: ``Kind.streams``) one line at a time (plain or gzip) and hands each
line, with its 1-based number, to ``reader.feed``: no kind holds the file or a list of its
lines, so memory grows with what a kind keeps (sockets, counters), never with the file.
A reader keeps going past a line it cannot read and records it in the run's ``LineLog`` as a
``BadLine``, so one odd line never loses the rest of the file; only input past
``Limits.max_input_bytes`` (or a corrupt gzip) stops reading, and ``text_result`` turns what was
read, the bad lines and where reading stopped into the file's evidence entry.

``HeadFirst`` is for the kinds whose format is decided from the first lines (ss text or a
tcp_info CSV; a netperf report or a latency table): it holds that many lines, lets the kind
choose its reader, then streams. ``first_lines`` and ``share`` help the kinds' sniffers.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from whodunnet.errors import InputTooLarge, MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits, SmallReads
from whodunnet.magic import GZIP_MAGIC
from whodunnet.model import ErrorInfo, EvidenceResult

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


#: What the text runner reads: a path, the bytes themselves, or an open seekable binary stream (left open).
TextSource = str | Path | bytes | BinaryIO


def iter_lines(
    source: TextSource, *, limits: Limits = DEFAULT_LIMITS, on_progress: Callable[[float], None] | None = None
) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` for each line (without its newline), gzip or plain.

    Bytes that are not UTF-8 are replaced, not fatal. Raises ``InputTooLarge`` (with the
    line number) once more than ``limits.max_input_bytes`` have been read. A stream is read from
    its start and left open (its owner closes it).
    """
    raw: Any
    total = 0
    owned = True
    if isinstance(source, bytes):
        raw = io.BytesIO(source)
        total = len(source)
    elif isinstance(source, (str, Path)):
        raw = open(source, "rb")  # noqa: SIM115 - closed in the finally below
        total = Path(source).stat().st_size
    else:
        raw, owned = source, False
        total = raw.seek(0, io.SEEK_END)
        raw.seek(0)
    try:
        head = raw.read(2)
        raw.seek(0)
        stream: Any = raw
        guard = None
        if head == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=SmallReads(raw))
            guard = InflateGuard(limits)
        read = 0
        number = 0
        while True:
            try:
                chunk = stream.readline(1 << 20)
            except (OSError, EOFError, zlib.error) as exc:
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
        if owned:
            raw.close()


class LineReader(Protocol):
    """A kind's parser as the runner sees it: fed one numbered line at a time."""

    def feed(self, number: int, text: str) -> None: ...


@dataclass
class TextRun:
    """What the runner read: how many lines, the bad lines the reader logged, where reading stopped."""

    lines: int = 0
    log: LineLog = field(default_factory=LineLog)
    error: MalformedInput | None = None


def read_text(
    source: TextSource,
    reader: LineReader,
    *,
    log: LineLog | None = None,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> TextRun:
    """Feed every line of ``source`` to ``reader``; ``log`` is the one the reader logs bad lines to.

    Never raises for bad input: a corrupt gzip or input past the size limit ends the run with
    its ``error`` (and its line number); everything fed before it stays with the reader.
    """
    run = TextRun(log=log if log is not None else LineLog())
    try:
        for number, text in iter_lines(source, limits=limits, on_progress=progress):
            run.lines = number
            reader.feed(number, text)
    except MalformedInput as exc:
        run.error = exc
    finish = getattr(reader, "finish", None)
    if callable(finish):
        finish()
    return run


R = TypeVar("R", bound=LineReader)


def read_with(
    source: TextSource,
    make_reader: Callable[[LineLog], R],
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[R, TextRun]:
    """``read_text`` with a reader made for the run's ``LineLog``: what most analyzers start with."""
    log = LineLog()
    reader = make_reader(log)
    return reader, read_text(source, reader, log=log, limits=limits, progress=progress)


class HeadFirst:
    """Holds the first ``size`` non-blank lines, then lets ``choose(head)`` pick the reader and streams.

    ``reader`` is None until the choice is made (at the ``size``-th non-blank line, or at
    ``finish`` for a shorter file); blank lines before it are not replayed.
    """

    def __init__(self, size: int, choose: Callable[[list[tuple[int, str]]], LineReader]) -> None:
        self.size = size
        self.choose = choose
        self.head: list[tuple[int, str]] = []
        self.reader: LineReader | None = None

    def feed(self, number: int, text: str) -> None:
        if self.reader is not None:
            self.reader.feed(number, text)
            return
        if text.strip():
            self.head.append((number, text))
        if len(self.head) >= self.size:
            self._decide()

    def finish(self) -> None:
        if self.reader is None:
            self._decide()
        finish = getattr(self.reader, "finish", None)
        if callable(finish):
            finish()

    def _decide(self) -> None:
        head, self.head = self.head, []
        self.reader = self.choose(head)
        for number, text in head:
            self.reader.feed(number, text)


def text_result(path: Path | BinaryIO, kind: str, summary: dict[str, Any], run: TextRun) -> EvidenceResult:
    """The evidence entry of a text file: its summary, its bad lines, and where reading stopped."""
    log, error = run.log, run.error
    summary = {"lines": run.lines, **summary, **log.to_json()}
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
    name = str(path) if isinstance(path, (str, Path)) else str(getattr(path, "name", ""))
    return EvidenceResult(path=name, kind=kind, summary=summary, error=info)


def first_lines(text: str, limit: int = 40) -> list[str]:
    """The first ``limit`` lines of a sniffed head that say something (no blanks, no ``# `` comments)."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith(("# ", "//")) and s != "#":
            out.append(line.rstrip())
        if len(out) >= limit:
            break
    return out


def share(lines: list[str], pattern: re.Pattern[str]) -> float:
    """The share of ``lines`` that ``pattern`` finds something in."""
    return sum(1 for ln in lines if pattern.search(ln)) / len(lines) if lines else 0.0
