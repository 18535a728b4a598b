"""The strace analyzer: ``app.socket_options``, ``app.rcvbuf_pinned`` and ``app.timeout``.

What the application asked of its sockets is the evidence of the "blame the
application" step: SO_RCVBUF pins the receive buffer (and with it the largest
window the kernel will advertise, differently per kernel: see
``whodunnet.kernel.window``), and a wait that expires after a fixed time followed
by a close is an application timeout, whatever the network did.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kernel.window import REFERENCE_KERNELS, window_for_rcvbuf, window_text
from whodunnet.kinds.strace.parser import Socket, StraceTrace, Timeout
from whodunnet.kinds.text import read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref

KIND = "strace"
#: Closes this close in age (relative) to each other count as "a close at a fixed age".
FIXED_AGE_TOLERANCE = 0.02
#: ... and only ages at least this long (seconds) are interesting.
FIXED_AGE_MIN_S = 1.0


def analyze_strace(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Parse one strace file; its summary lists the sockets (for the combined analysis) and the timeouts."""
    trace, run = read_with(path, StraceTrace, limits=limits, progress=progress)
    return text_result(path, KIND, summarize(trace), run), findings(index, trace)


def summarize(trace: StraceTrace) -> dict[str, Any]:
    """The evidence card: counts, pids, time format, and every socket with its options."""
    return {
        "syscalls": trace.call_count,
        "syscall_counts": dict(sorted(trace.syscall_counts.items(), key=lambda kv: -kv[1])[:30]),
        "pids": sorted(trace.pids),
        "time_format": trace.time_format,
        "first_time": trace.first_time,
        "last_time": trace.last_time,
        "sockets": [s.to_json() for s in trace.sockets],
        "timeouts": [t.to_json() for t in trace.timeouts[:500]],
        "timeout_count": len(trace.timeouts),
        "signals": trace.signals[:200],
        "exits": trace.exits[:200],
    }


def findings(index: int, trace: StraceTrace) -> list[Finding]:
    out: list[Finding] = []
    for sock in trace.sockets:
        if sock.options:
            out.append(socket_options_finding(index, sock))
    out.extend(rcvbuf_findings(index, trace.sockets))
    out.extend(timeout_findings(index, trace))
    return out


#: Socket options whose value is a size in bytes, and those that are a switch (0 off, anything else on).
_BYTE_OPTIONS = frozenset({"SO_RCVBUF", "SO_SNDBUF", "SO_RCVLOWAT", "SO_SNDLOWAT", "TCP_MAXSEG", "TCP_NOTSENT_LOWAT"})
_SWITCH_OPTIONS = frozenset({"TCP_NODELAY", "SO_KEEPALIVE", "SO_REUSEADDR", "SO_REUSEPORT", "TCP_QUICKACK", "TCP_CORK"})


def _said(option: str, value: Any) -> str:
    """One socket option as a person reads it: ``SO_RCVBUF 65,536 B``, ``TCP_NODELAY on``."""
    if option in _BYTE_OPTIONS and isinstance(value, int):
        return f"{option} {value:,} B"
    if option in _SWITCH_OPTIONS and isinstance(value, int):
        return f"{option} {'on' if value else 'off'}"
    if option.endswith(":error"):
        return f"{option.removesuffix(':error')} refused ({value})"
    return f"{option} {_show(value)}"


def socket_options_finding(index: int, sock: Socket) -> Finding:
    opts = ", ".join(_said(k, v) for k, v in sock.options.items())
    to = f" to {sock.peer}" if sock.peer else ""
    lines = sorted(sock.option_lines.values())
    refs = [Ref(evidence=index, label=f"setsockopt {k}", lines=(ln, ln)) for k, ln in sock.option_lines.items()]
    if sock.connect_line is not None:
        refs.append(Ref(evidence=index, label="connect", lines=(sock.connect_line, sock.connect_line)))
    return Finding(
        kind="app.socket_options",
        layer="application",
        severity="info",
        title=f"Socket{to} (fd {sock.fd}) sets {opts}",
        explanation=(
            f"The socket opened at line {sock.opened_line} ({sock.family or 'unknown family'}"
            f"{', ' + sock.how if sock.how != 'socket' else ''}) sets {opts}{to}"
            f"{f' (connect: {sock.connect_result})' if sock.connect_result else ''}."
        ),
        refs=tuple(refs),
        key=f"fd{sock.fd}-line{sock.opened_line}",
        data={
            "fd": sock.fd,
            "pid": sock.pid,
            "peer": sock.peer,
            "local": sock.local,
            "family": sock.family,
            "options": dict(sock.options),
            "option_lines": dict(sock.option_lines),
            "opened_line": sock.opened_line,
            "closed_line": sock.closed_line,
            "connect_result": sock.connect_result,
            "lines": [lines[0], lines[-1]] if lines else [],
        },
    )


def rcvbuf_findings(index: int, sockets: list[Socket]) -> list[Finding]:
    by_value: dict[int, list[Socket]] = defaultdict(list)
    for s in sockets:
        v = s.options.get("SO_RCVBUF")
        if isinstance(v, int):
            by_value[v].append(s)
    out = []
    for value, socks in sorted(by_value.items()):
        windows = [
            {"kernel": label, **window_for_rcvbuf(value, version).to_json()} for label, version in REFERENCE_KERNELS
        ]
        lines = [s.option_lines["SO_RCVBUF"] for s in socks]
        table = "; ".join(f"{w['kernel']}: {window_text(w)}" for w in windows)
        out.append(
            Finding(
                kind="app.rcvbuf_pinned",
                layer="application",
                severity="medium",
                title=f"SO_RCVBUF set to {value:,} on {len(socks)} socket{'s' if len(socks) != 1 else ''}: "
                "receive autotuning is off",
                explanation=(
                    f"Setting SO_RCVBUF to {value:,} B makes the kernel reserve {2 * value:,} bytes (it doubles the "
                    "value) and turns off receive-buffer autotuning for the socket, so the receive window can never "
                    f"grow past what that buffer allows. The largest window it will advertise depends on the kernel: "
                    f"{table}. Leave SO_RCVBUF unset (Kafka: receive.buffer.bytes=-1) to let the kernel tune it."
                ),
                refs=tuple(
                    Ref(evidence=index, label=f"SO_RCVBUF fd {s.fd}", lines=(ln, ln))
                    for s, ln in zip(socks, lines, strict=True)
                ),
                key=f"rcvbuf-{value}",
                data={
                    "so_rcvbuf": value,
                    "sk_rcvbuf": 2 * value,
                    "sockets": [{"fd": s.fd, "peer": s.peer, "line": s.option_lines["SO_RCVBUF"]} for s in socks],
                    "lines": lines,
                    "windows": windows,
                },
            )
        )
    return out


def timeout_findings(index: int, trace: StraceTrace) -> list[Finding]:
    out: list[Finding] = []
    groups: dict[tuple[str, float | None, float | None], list[Timeout]] = defaultdict(list)
    for t in trace.timeouts:
        if t.deadline_ms is not None:  # the last slice of a countdown: grouped by the deadline
            groups[(t.syscall, None, round(t.deadline_ms, -2))].append(t)
        else:
            groups[(t.syscall, t.timeout_ms, None)].append(t)
    by_fd = {fd: s for s in trace.sockets for fd in s.fds}
    for (syscall, timeout_ms, deadline_key), items in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0, kv[0][2] or 0)
    ):
        closes: list[dict[str, Any]] = []
        for t in items:
            for fd in t.fds:
                sock = by_fd.get(fd)
                if sock is not None and sock.closed_line is not None and sock.closed_line > t.line:
                    closes.append({"fd": fd, "timeout_line": t.line, "close_line": sock.closed_line, "peer": sock.peer})
        fds = sorted({fd for t in items for fd in t.fds})
        plural = "s" if len(items) != 1 else ""
        ended = (
            f" {len(closes)} of them {'is' if len(closes) == 1 else 'are'} followed by a close of the same socket, "
            "so the wait ran out and the application gave up on the connection."
            if closes
            else ""
        )
        on_fds = f" on fd {', '.join(map(str, fds))}" if fds else ""
        data: dict[str, Any] = {
            "syscall": syscall,
            "count": len(items),
            "fds": fds,
            "lines": [t.line for t in items[:500]],
            "waited_s": [t.waited_s for t in items[:500]],
            "closes_after": closes[:200],
        }
        if deadline_key is not None:
            deadlines = [t.deadline_ms for t in items if t.deadline_ms is not None]
            deadline_ms = statistics.median(deadlines)
            last = [t.timeout_ms for t in items if t.timeout_ms is not None]
            waits = max(t.countdown_waits for t in items)
            expired = [t for t in items if t.ended_by == "timeout"]
            if expired:
                title = (
                    f"{syscall} timed out {len(expired)} time{'s' if len(expired) != 1 else ''}{on_fds}: the end of a "
                    f"{syscall} loop counting down a {deadline_ms / 1000:.1f} s deadline"
                )
                ending = (
                    f"{syscall} timed out after {min(last):g} ms{'' if len(items) == 1 else ' (the shortest)'} at "
                    f"line {items[0].line}, but that was only the last slice"
                )
            else:
                title = (
                    f"a {syscall} loop{on_fds} counting down a {deadline_ms / 1000:.1f} s deadline, then "
                    f"{items[0].ended_by}: the deadline ran out"
                )
                ending = (
                    f"The last {syscall} (line {items[0].line}) waited at most {min(last):g} ms and the application "
                    f"then called {items[0].ended_by} on the socket with no time left"
                )
            explanation = (
                f"{ending}: from line {items[0].countdown_line} the "
                f"application called {syscall} {waits} times on the same descriptors, each with the time left of one "
                f"deadline, a {syscall} loop counting down a {deadline_ms / 1000:.1f} s deadline "
                f"({deadline_ms:,.0f} ms, read from the first wait's timeout"
                + (" and the trace's timestamps" if items[0].time is not None else "")
                + f").{ended}"
            )
            data.update(
                {
                    "timeout_ms": deadline_ms,
                    "deadline_ms": deadline_ms,
                    "deadline_s": deadline_ms / 1000,
                    "last_wait_ms": min(last) if last else None,
                    "countdown_waits": waits,
                    "countdown_lines": [t.countdown_line for t in items[:500]],
                }
            )
            key = f"deadline-{syscall}-{deadline_key:g}"
            severity = "medium"
        else:
            # Whole milliseconds with separators (30,000 ms), as the facts below the title show them.
            value = (
                "no"
                if timeout_ms is None
                else f"{timeout_ms:,.0f} ms"
                if timeout_ms == int(timeout_ms)
                else f"{timeout_ms:,g} ms"
            )
            title = f"{syscall} timed out {len(items)} time{plural} after {value}{on_fds}"
            explanation = (
                f"{syscall} with a {value} timeout returned 0 (nothing ready) {len(items)} time{plural}, "
                f"first at line {items[0].line}.{ended}"
            )
            data["timeout_ms"] = timeout_ms
            key = f"wait-{syscall}-{timeout_ms}"
            severity = "medium" if closes or (timeout_ms or 0) >= 1000 else "low"
        out.append(
            Finding(
                kind="app.timeout",
                layer="application",
                severity=severity,  # type: ignore[arg-type]
                title=title,
                explanation=explanation,
                refs=tuple(Ref(evidence=index, label=f"{syscall} timeout", lines=(t.line, t.line)) for t in items[:50])
                + tuple(
                    Ref(evidence=index, label=f"{syscall} countdown starts", lines=(t.countdown_line, t.countdown_line))
                    for t in items[:20]
                    if t.countdown_line is not None
                )
                + tuple(
                    Ref(evidence=index, label=f"close fd {c['fd']}", lines=(c["close_line"], c["close_line"]))
                    for c in closes[:20]
                ),
                key=key,
                data=data,
            )
        )
    fixed = fixed_age_closes(trace.sockets)
    if fixed is not None:
        age, socks = fixed
        out.append(
            Finding(
                kind="app.timeout",
                layer="application",
                severity="medium",
                title=f"{len(socks)} connections closed at the same age, {age:.1f} s",
                explanation=(
                    f"{len(socks)} sockets were closed by the application {age:.2f} s (±{FIXED_AGE_TOLERANCE:.0%}) "
                    "after they were opened. Connections that end at one fixed age point at a timer in the "
                    f"application (for example a {round(age):.0f} s request timeout), not at the network."
                ),
                refs=tuple(
                    Ref(
                        evidence=index,
                        label=f"fd {s.fd} open → close",
                        lines=(s.opened_line, s.closed_line or s.opened_line),
                    )
                    for s in socks[:50]
                ),
                key=f"close-age-{round(age, 1)}",
                data={
                    "close_age_s": round(age, 6),
                    "timeout_ms": round(age * 1000),
                    "count": len(socks),
                    "sockets": [
                        {
                            "fd": s.fd,
                            "peer": s.peer,
                            "opened_line": s.opened_line,
                            "closed_line": s.closed_line,
                            "age_s": s.age(),
                        }
                        for s in socks[:200]
                    ],
                },
            )
        )
    return out


def fixed_age_closes(sockets: list[Socket]) -> tuple[float, list[Socket]] | None:
    """The largest group (≥ 2) of sockets closed at one age (within the tolerance), if any."""
    aged = sorted(
        ((a, s) for s in sockets if s.closed_how == "close" and (a := s.age()) is not None and a >= FIXED_AGE_MIN_S),
        key=lambda p: p[0],
    )
    best: list[tuple[float, Socket]] = []
    start = 0
    for end in range(len(aged)):
        while aged[end][0] > aged[start][0] * (1 + 2 * FIXED_AGE_TOLERANCE):
            start += 1
        if end - start + 1 > len(best):
            best = aged[start : end + 1]
    if len(best) < 2:
        return None
    ages = [a for a, _ in best]
    return sum(ages) / len(ages), [s for _, s in best]


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={v}" for k, v in value.items()) + "}"
    return str(value)
