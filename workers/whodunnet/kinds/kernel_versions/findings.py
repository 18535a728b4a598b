"""How the UI shows the kernel findings (``kernel.known_change_in_range``, ``kernel.receive_window_model``).

Both have a dedicated view in the UI (the version range with the knowledge base's changes; the
model's inputs with their sources and a row per kernel); the facts and tables below are what
those views draw, and what a client without the view shows.
"""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "before": Field("text"),
    "after": Field("text"),
    "approximate": Field("text", "Approximate versions"),
    "id": Field("text", "Commit"),
    "title": Field("text"),
    "first_release": Field("text"),
    "stable_backports": Field("text"),
    "fix": Field("text"),
    "sources": Field("text"),
    "so_rcvbuf": Field("bytes_exact", "SO_RCVBUF"),
    "so_rcvbuf_source": Field("text", "SO_RCVBUF from"),
    "rtt_ms": Field("ms", "RTT"),
    "rtt_source": Field("text", "RTT from"),
    "transfer_bytes": Field("bytes_exact", "Transfer size"),
    "transfer_source": Field("text", "Transfer size from"),
    "timeout_ms": Field("ms", "Timeout"),
    "timeout_source": Field("text", "Timeout from"),
    "tcp_adv_win_scale": Field("count", "tcp_adv_win_scale"),
    "tcp_adv_win_scale_source": Field("text", "tcp_adv_win_scale from"),
    "tcp_rmem": Field("text", "tcp_rmem"),
    "rmem_max": Field("bytes_exact", "rmem_max"),
    "regressed": Field("text"),
    "kernel": Field("text"),
    "role": Field("text"),
    "window": Field("bytes_exact"),
    "throughput_bps": Field("bit/s", "Throughput"),
    "transfer_s": Field("seconds", "Transfer time"),
    "fits_timeout": Field("text", "Fits the timeout"),
    "measured_window": Field("bytes_exact", "Window the capture measured"),
    "measured_window_source": Field("text", "Measured window from"),
    "agrees_with": Field("text", "Prediction agrees for"),
    "agrees_with_measured": Field("text", "Agrees with the measured window"),
    "missing": Field("text", "Missing inputs"),
    "window_note": Field("text", "Window note"),
}

FINDINGS = (
    FindingSpec(
        "kernel.known_change_in_range",
        view="known_changes",
        facts=("before", "after", "approximate"),
        tables=(
            Table(
                "changes",
                "Known changes",
                columns=("id", "title", "first_release", "stable_backports", "fix", "sources"),
            ),
        ),
    ),
    FindingSpec(
        "kernel.receive_window_model",
        view="window_model",
        facts=(
            "so_rcvbuf",
            "so_rcvbuf_source",
            "rtt_ms",
            "rtt_source",
            "transfer_bytes",
            "transfer_source",
            "timeout_ms",
            "timeout_source",
            "tcp_adv_win_scale",
            "tcp_adv_win_scale_source",
            "tcp_rmem",
            "rmem_max",
            "measured_window",
            "measured_window_source",
            "agrees_with",
            "missing",
            "regressed",
        ),
        tables=(
            Table(
                "kernels",
                "Receive window per kernel",
                columns=(
                    "kernel",
                    "role",
                    "window",
                    "throughput_bps",
                    "transfer_s",
                    "fits_timeout",
                    "agrees_with_measured",
                ),
            ),
        ),
    ),
)
