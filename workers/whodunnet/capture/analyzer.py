"""The capture analyzer: one pcap/pcapng (plain or gzip) → summary, connection table, findings.

One streaming pass of the compiled kernel (``scanner.Scanner``) builds the per-connection
state; the table rows (``connections.Connection``) and the TCP findings (``findings``) are
derived from it after the pass, also when reading broke part way (the partial table is still
analysed). numba is imported on the first analysis, not with this module, so text evidence
and the web process never load it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from whodunnet.capture.connections import ConnectionTable
from whodunnet.capture.constants import DEFAULT_AGEING, Ageing
from whodunnet.capture.fields import Scan
from whodunnet.capture.findings import capture_facts, tcp_findings
from whodunnet.capture.packets import Checkpoint, IndexRecorder, index_to_json
from whodunnet.capture.source import open_capture
from whodunnet.errors import MalformedInput
from whodunnet.limits import DEFAULT_LIMITS, InflateGuard, Limits
from whodunnet.model import ErrorInfo, EvidenceResult, Finding, Ref

if TYPE_CHECKING:
    from whodunnet.capture.scanner import CaptureState

Summary = dict[str, Any]

#: Summary entries read straight from the ``Scan`` row (``view=`` in ``fields.Scan``).
_SCAN_VIEWED = {c.view: c.name for c in Scan.columns if c.view}


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
        ageing: Ageing | None = DEFAULT_AGEING,
    ) -> None:
        self.limits = limits
        self.on_progress = on_progress
        #: When silent connections leave the kernel's rows (None: never; the output is the same).
        self.ageing = ageing
        #: The kernel's arrays once ``run`` has started (the connection table's columns).
        self.state: CaptureState | None = None
        self.compressed = False
        #: Bytes the gzip decompressor produced (or plain bytes read); never past the limit + 1.
        self.decompressed_bytes = 0
        #: The packet index (``packets.Checkpoint`` rows; empty for a compressed capture).
        self.index: list[Checkpoint] = []

    def run(self, source: str | Path | BinaryIO) -> Summary:
        from whodunnet.capture.scanner import Scanner

        opened = open_capture(source, max_input_bytes=self.limits.max_input_bytes, guard=InflateGuard(self.limits))
        self.compressed = opened.compressed
        report = self.on_progress
        recorder = IndexRecorder()

        def on_chunk() -> None:
            if not opened.compressed:
                recorder.record()
            if report is not None:
                report(opened.fraction())

        scanner = Scanner(
            opened.stream,
            max_caplen=self.limits.max_caplen,
            size_hint=0 if opened.compressed else opened.size,
            on_chunk=on_chunk,
            ageing=self.ageing,
        )
        self.state = scanner.state
        recorder.scanner = scanner
        self.index = recorder.checkpoints
        try:
            scanner.run()
        except MalformedInput as exc:
            exc.partial = self.summary()
            exc.message += opened.where(exc)
            raise
        finally:
            self.decompressed_bytes = opened.decompressed_bytes
            scanner.release_buffer()  # first: the buffer may be a view of the mapped file, which closes next
            opened.close()
            # The recorder and the scanner hold each other (its ``scanner``, the scanner's ``on_chunk``): left so,
            # the scanner and the stream it reads (the read-ahead's buffers) wait for the cyclic collector, which
            # a process of many objects runs seldom. The fuzz target's memory grew by 800 MB in 10 s so.
            recorder.scanner = None
        return self.summary()

    def connections(self) -> ConnectionTable:
        """The connection table of what has been read so far (columns; rows built when asked for)."""
        st = self.state
        if st is None:
            return ConnectionTable.empty()
        conns, sides = st.table()
        return ConnectionTable(conns, sides, st.events[: int(st.g.n_events)])

    def summary(self) -> Summary:
        """The summary of what has been read so far (what the evidence card shows)."""
        st = self.state
        if st is None:
            g = None
            first = last = None
        else:
            g = st.g
            first, last = (float(g.tmin), float(g.tmax)) if g.tmin <= g.tmax else (None, None)
        counts = {view: int(g[name]) if g is not None else 0 for view, name in _SCAN_VIEWED.items()}
        return {
            "format": "pcapng" if st is not None and st.is_pcapng else "pcap",
            "compressed": self.compressed,
            "link_types": st.link_types() if st is not None else [],
            "packets": counts["packets"],
            "bytes": counts["bytes"],
            "captured_bytes": counts["captured_bytes"],
            "first_ts": first,
            "last_ts": last,
            "duration": (last - first) if first is not None and last is not None else 0.0,
            "tcp_packets": counts["tcp_packets"],
            "tcp_connections": counts["tcp_connections"],
            "truncated_packets": counts["truncated_packets"],
            "ip_fragments": counts["ip_fragments"],
            "ip_length_beyond_frame": counts["ip_length_beyond_frame"],
            "duplicate_packets": counts["duplicate_packets"],
            "duplicate_ttl": counts["duplicate_ttl"],
        }


def analyze_capture(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits,
    progress: Callable[[float], None] | None = None,
    ageing: Ageing | None = DEFAULT_AGEING,
) -> tuple[EvidenceResult, list[Finding]]:
    """Analyze one capture file: its evidence entry and its findings (partial on error)."""
    with collector_paused():
        return _analyze_capture(index, path, limits=limits, progress=progress, ageing=ageing)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the while (and on again after, if it was).

    An analysis makes few reference cycles but many objects (batches of rows handed between threads, the
    findings' examples), each few hundred of which set off a collection, and a full one now and then that walks
    every object alive: 0.3-0.4 s of the 3.6 s `whodunnet analyze` of the 1 M-connection capture (decision 0021).
    What cycles it does make are collected after it."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _analyze_capture(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits,
    progress: Callable[[float], None] | None,
    ageing: Ageing | None,
) -> tuple[EvidenceResult, list[Finding]]:
    analysis = CaptureAnalysis(limits=limits, on_progress=progress, ageing=ageing)
    error: ErrorInfo | None = None
    try:
        summary = analysis.run(path)
    except MalformedInput as exc:
        summary = exc.partial if isinstance(exc.partial, dict) else analysis.summary()
        error = ErrorInfo(message=exc.message, offset=exc.offset, line=exc.line)
    conns = analysis.connections()
    # The summary's facts on a thread of their own while the findings are worked out: both are mostly numpy over
    # whole columns, which lets go of the GIL, and the scan's other threads are done by now. On the 1 M-connection
    # capture the two took 0.40 s one after the other, 0.29-0.31 s side by side.
    with ThreadPoolExecutor(1, thread_name_prefix="whodunnet-facts") as pool:
        facts = pool.submit(capture_facts, conns)
        tcp = tcp_findings(index, conns)
        summary = {**summary, **facts.result()}
    findings = [summary_finding(index, summary, error), *tcp]
    dups = duplicates_finding(index, summary, conns)
    if dups is not None:
        findings.insert(1, dups)
    return EvidenceResult(
        path=str(path),
        kind="capture",
        summary=summary,
        error=error,
        connections=conns,
        packet_index=tuple(map(tuple, index_to_json(analysis.index))),
    ), findings


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
    if s["ip_length_beyond_frame"]:
        parts.append(
            f"{s['ip_length_beyond_frame']:,} packets have an IP length larger than their frame: "
            "their payload is counted from the frame."
        )
    if s["duplicate_packets"]:
        parts.append(f"{s['duplicate_packets']:,} TCP segments were captured twice (see the capture duplicates note).")
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


def duplicates_finding(index: int, s: Summary, conns: ConnectionTable) -> Finding | None:
    """``capture.duplicates``: packets the capture saw twice, a note on the capture itself."""
    n = s["duplicate_packets"]
    if not n:
        return None
    twice = conns.side("client", "dups") + conns.side("server", "dups")
    ids = np.flatnonzero(twice)
    ids = ids[np.argsort(-twice[ids], kind="stable")]  # most first, then by id
    listed = ids[:100]
    rows = list(zip(twice[listed].tolist(), conns.rows(listed), strict=True))
    ttl = s["duplicate_ttl"]
    parts = [
        f"{n:,} of {s['tcp_packets']:,} TCP segments were seen twice by the capture: the same packet "
        "(sequence and acknowledgement numbers, length, flags, window, checksum and IP identification) again, "
        "not sent again.",
    ]
    if ttl:
        parts.append(
            f"{ttl:,} of the copies differ only in TTL: the capture saw them on both sides of a router (one hop apart)."
        )
    parts.append(
        "A span port mirroring both directions or several VLANs, tcpdump -i any on a host that forwards, "
        "or a router capturing on two interfaces does this. The copies are not counted as retransmissions; "
        "packet and byte counts include them, as tshark's do."
    )
    refs = [
        Ref(
            evidence=index,
            label=f"connection {c.id}: {k:,} segments captured twice",
            connection=str(c.id),
            packets=(c.first_packet, c.last_packet),
            time=(c.first_time, c.last_time),
        )
        for k, c in rows[:20]
    ]
    return Finding(
        kind="capture.duplicates",
        layer="network",
        severity="info",
        title=f"{n:,} TCP segments captured twice (capture duplicates, not retransmissions)",
        explanation=" ".join(parts),
        refs=tuple(refs),
        key=f"evidence-{index}",
        data={
            "duplicate_packets": n,
            "duplicate_ttl": ttl,
            "tcp_packets": s["tcp_packets"],
            "connections": len(ids),
            "rows": [{"connection": c.id, "count": k} for k, c in rows[:100]],
        },
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
