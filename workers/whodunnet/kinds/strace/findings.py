"""How the UI shows the strace findings' numbers (``app.socket_options``, ``app.rcvbuf_pinned``, ``app.timeout``)."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "deadline_source": Field("text", "Deadline from"),
    "closer": Field("text"),
    "close_ages_s": Field("seconds", "Closed at ages"),
    "connections": Field("count"),
    "connection_ids": Field("connection", "Connections"),
    "peer_unacked_at_fin": Field("bytes", "Peer unacked at FIN"),
    "peer_bytes_after_fin": Field("bytes", "Peer bytes after FIN"),
    "rtt_s": Field("seconds", "Handshake RTT"),
    "evidence": Field("count"),
    "hosts": Field("text"),
    "deadline_ms": Field("ms", "Deadline counted down"),
    "deadline_s": Field("seconds", "Deadline"),
    "last_wait_ms": Field("ms", "Last wait"),
    "countdown_waits": Field("count", "Waits counting down"),
    "countdown_lines": Field("count", "Countdown starts at lines"),
    "fd": Field("count", "File descriptor"),
    "fds": Field("count", "File descriptors"),
    "pid": Field("count", "PID"),
    "peer": Field("text"),
    "local": Field("text"),
    "family": Field("text"),
    "options": Field("count"),
    "option_lines": Field("count"),
    "connect_result": Field("text"),
    "opened_line": Field("count"),
    "closed_line": Field("count"),
    "lines": Field("count"),
    "line": Field("count"),
    "so_rcvbuf": Field("bytes_exact", "SO_RCVBUF"),
    "sk_rcvbuf": Field("bytes_exact", "Kernel buffer (sk_rcvbuf)"),
    "kernel": Field("text"),
    "window": Field("bytes_exact"),
    "formula": Field("text"),
    "syscall": Field("text", "System call"),
    "timeout_ms": Field("ms", "Timeout"),
    "count": Field("count"),
    "waited_s": Field("seconds", "Waited"),
    "close_age_s": Field("seconds", "Close age"),
    "age_s": Field("seconds", "Age"),
    "timeout_line": Field("count"),
    "close_line": Field("count"),
}

FINDINGS = (
    FindingSpec(
        "app.socket_options",
        facts=("fd", "peer", "local", "family", "options", "connect_result"),
        hidden=("pid", "option_lines", "opened_line", "closed_line", "lines"),
    ),
    FindingSpec(
        "app.rcvbuf_pinned",
        facts=("so_rcvbuf", "sk_rcvbuf"),
        tables=(
            Table("windows", "Receive window per kernel", columns=("kernel", "window", "formula")),
            Table("sockets", "Sockets", columns=("fd", "peer", "line")),
        ),
        hidden=("lines",),
    ),
    FindingSpec(
        "app.timeout",
        facts=("syscall", "deadline_s", "timeout_ms", "close_age_s", "count", "fds", "last_wait_ms", "countdown_waits"),
        tables=(
            Table("closes_after", "Closed after the wait", columns=("fd", "peer", "timeout_line", "close_line")),
            Table("sockets", "Sockets", columns=("fd", "peer", "opened_line", "closed_line", "age_s")),
        ),
        hidden=("lines", "waited_s", "deadline_ms", "countdown_lines"),
    ),
    FindingSpec(
        "app.deadline_close",
        facts=(
            "deadline_s",
            "deadline_source",
            "closer",
            "close_ages_s",
            "connections",
            "peer_unacked_at_fin",
            "peer_bytes_after_fin",
            "rtt_s",
            "connection_ids",
        ),
        hidden=("evidence", "hosts"),
    ),
)
