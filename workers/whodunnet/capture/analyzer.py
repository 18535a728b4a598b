"""The capture analyzer: one pcap/pcapng (plain or gzip) → summary, connection table, findings.

One streaming pass builds the per-connection state (``tcp.TcpTable``); the table rows
(``connections.Connection``) and the TCP findings (``findings``) are derived from it after
the pass, also when reading broke part way (the partial table is still analysed).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from whodunnet.capture.connections import Connection, build_table
from whodunnet.capture.findings import tcp_findings
from whodunnet.capture.reader import CaptureReader, linktype_name
from whodunnet.capture.source import open_capture
from whodunnet.capture.tcp import TcpTable
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits
from whodunnet.model import ErrorInfo, EvidenceResult, Finding, Ref

if TYPE_CHECKING:
    from whodunnet.capture.fast import FastReader

Summary = dict[str, Any]

#: Smaller inputs stay on the pure-Python path: loading the compiled kernel (numba's import
#: and its on-disk cache, ~0.5 s; a first compile ~10 s) costs more than it saves below this.
COMPILED_MIN_BYTES = 8 << 20


def compiled_available() -> bool:
    """numba is installed and ``WHODUNNET_NUMBA`` does not switch the compiled path off."""
    return os.environ.get("WHODUNNET_NUMBA", "1") != "0" and importlib.util.find_spec("numba") is not None


class CaptureAnalysis:
    """Reads one capture stream and builds its summary.

    ``run`` returns the summary, or raises ``MalformedInput`` whose ``partial`` is the
    summary of everything read before the break. ``on_progress(fraction)`` is called
    once per chunk read (the caller throttles it).
    """

    def __init__(
        self,
        *,
        limits: Limits = DEFAULT_LIMITS,
        on_progress: Callable[[float], None] | None = None,
        compiled: bool | None = None,
    ) -> None:
        self.limits = limits
        self.on_progress = on_progress
        #: Take the numba path (``fast``) for pcap input. None: when numba is there, the path is not
        #: switched off and the file is at least ``COMPILED_MIN_BYTES`` (or of unknown size).
        self.compiled = compiled
        self.table = TcpTable()
        self.reader: CaptureReader | FastReader | None = None
        self.compressed = False
        #: Bytes the gzip decompressor produced (or plain bytes read); never past the limit + 1.
        self.decompressed_bytes = 0

    def run(self, source: str | Path | BinaryIO) -> Summary:
        opened = open_capture(source, max_input_bytes=self.limits.max_input_bytes, guard=InflateGuard(self.limits))
        self.compressed = opened.compressed
        on_chunk = None
        if self.on_progress is not None:
            report = self.on_progress

            def on_chunk() -> None:
                report(opened.fraction())

        max_caplen = self.limits.max_caplen
        compiled = self.compiled
        if compiled is None:
            compiled = compiled_available() and (opened.size == 0 or opened.size >= COMPILED_MIN_BYTES)
        if compiled:
            from whodunnet.capture.fast import FastReader

            self.reader = FastReader(opened.stream, self.table, max_caplen=max_caplen, on_chunk=on_chunk)
        else:
            self.reader = CaptureReader(opened.stream, self.table, max_caplen=max_caplen, on_chunk=on_chunk)
        try:
            self.reader.read()
        except MalformedInput as exc:
            exc.partial = self.summary()
            raise
        finally:
            self.decompressed_bytes = opened.decompressed_bytes
            opened.close()
        return self.summary()

    def connections(self) -> tuple[Connection, ...]:
        """The connection table of what has been read so far."""
        return build_table(self.table)

    def summary(self) -> Summary:
        """The summary of what has been read so far (what the evidence card shows)."""
        r = self.reader
        t = self.table
        first = r.first_ts if r is not None else None
        last = r.last_ts if r is not None else None
        return {
            "format": r.format if r is not None and r.format else "pcap",
            "compressed": self.compressed,
            "link_types": [linktype_name(x) for x in r.link_types] if r is not None else [],
            "packets": r.packets if r is not None else 0,
            "bytes": r.bytes if r is not None else 0,
            "captured_bytes": r.captured_bytes if r is not None else 0,
            "first_ts": first,
            "last_ts": last,
            "duration": (last - first) if first is not None and last is not None else 0.0,
            "tcp_packets": t.tcp_packets,
            "tcp_connections": t.connection_count,
            "truncated_packets": r.truncated_packets if r is not None else 0,
            "ip_fragments": t.ip_fragments,
        }


def analyze_capture(
    index: int,
    path: Path,
    *,
    limits: Limits,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Analyze one capture file: its evidence entry and its findings (partial on error)."""
    analysis = CaptureAnalysis(limits=limits, on_progress=progress)
    error: ErrorInfo | None = None
    try:
        summary = analysis.run(path)
    except MalformedInput as exc:
        summary = exc.partial if isinstance(exc.partial, dict) else analysis.summary()
        message = exc.message
        if summary.get("compressed") and exc.offset is not None:
            message += " (offset counted in the decompressed data)"
        error = ErrorInfo(message=message, offset=exc.offset, line=exc.line)
    conns = analysis.connections()
    findings = [summary_finding(index, summary, error), *tcp_findings(index, conns)]
    return EvidenceResult(path=str(path), kind="capture", summary=summary, error=error, connections=conns), findings


def summary_finding(index: int, s: Summary, error: ErrorInfo | None) -> Finding:
    """The ``capture.summary`` finding: what the capture holds, in one line."""
    packets = s["packets"]
    conns = s["tcp_connections"]
    duration = s["duration"]
    title = (
        f"{packets:,} packet{'s' if packets != 1 else ''} over {format_seconds(duration)}, "
        f"{conns:,} TCP connection{'s' if conns != 1 else ''}"
    )
    compressed = "gzip-compressed " if s["compressed"] else ""
    links = ", ".join(s["link_types"]) or "no"
    parts = [
        (
            f"A {compressed}{s['format']} capture ({links} link type) with {packets:,} packets "
            f"({s['bytes']:,} bytes on the wire, {s['captured_bytes']:,} captured) over {format_seconds(duration)}."
        ),
        f"{s['tcp_packets']:,} are TCP, in {conns:,} connections.",
    ]
    if s["truncated_packets"]:
        parts.append(f"{s['truncated_packets']:,} packets were cut by the snapshot length (headers still read).")
    if s["ip_fragments"]:
        parts.append(f"{s['ip_fragments']:,} IP fragments were counted (not reassembled).")
    if error is not None:
        where = f" at byte {error.offset:,}" if error.offset is not None else ""
        parts.append(f"Reading stopped{where}: {error.message}. The numbers cover what was read before that.")
    time_range = (s["first_ts"], s["last_ts"]) if s["first_ts"] is not None and s["last_ts"] is not None else None
    return Finding(
        kind="capture.summary",
        layer="network",
        severity="info",
        title=title,
        explanation=" ".join(parts),
        refs=(Ref(evidence=index, label="whole capture", time=time_range),),
        key=f"evidence-{index}",
        data=dict(s),
    )


def format_seconds(seconds: float) -> str:
    """``12.3 s``, ``0.171 s``, ``2,400 s``: short, with as many digits as matter."""
    if seconds >= 1000:
        return f"{seconds:,.0f} s"
    if seconds >= 1:
        return f"{seconds:.1f} s"
    if seconds == 0:
        return "0 s"
    return f"{seconds:.3g} s"
