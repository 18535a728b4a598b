"""How the UI shows the sockets findings' numbers (``sockets.summary``, ``sockets.bbr_candidates``)."""

from __future__ import annotations

from whodunnet.kinds.settings import PERCENT
from whodunnet.kinds.sockets.settings import BBR
from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "sockets": Field("count"),
    "snapshots": Field("count"),
    "prefix": Field("text"),
    "rtt_ms": Field("ms", "RTT"),
    "delivery_rate_bps": Field("bit/s", "Delivery rate"),
    "cwnd": Field("count", "cwnd"),
    "retrans_total": Field("count", "Retransmissions"),
    "app_limited": Field("count", "Application-limited"),
    "rwnd_limited": Field("count", "Receive-window-limited"),
    "congestion_control": Field("count"),
    "lines": Field("count"),
    "n": Field("count", "Sockets"),
    "intervals": Field("count"),
    "candidates": Field("text"),
    "params": Field("number", "Parameters"),
    "bottom_intervals": Field("count"),
    "duty_cycle": Field("share"),
    "flaps": Field("count"),
    "flap_rate": Field("share"),
    "candidate": Field("text"),
    # the parameters, as the settings declare them
    **{s.name: Field("share" if s.display == PERCENT else "count") for s in BBR.settings},
    "min_bytes": Field("bytes"),
}

FINDINGS = (
    FindingSpec(
        "sockets.summary",
        facts=("sockets", "snapshots"),
        tables=(
            Table(
                "prefixes",
                "Per prefix",
                columns=(
                    "prefix",
                    "sockets",
                    "rtt_ms",
                    "delivery_rate_bps",
                    "cwnd",
                    "retrans_total",
                    "app_limited",
                    "rwnd_limited",
                    "congestion_control",
                ),
            ),
        ),
    ),
    FindingSpec(
        "sockets.bbr_candidates",
        facts=("intervals", "candidates", "params"),
        tables=(
            Table(
                "prefixes",
                "Prefixes",
                columns=("prefix", "intervals", "bottom_intervals", "duty_cycle", "flaps", "flap_rate", "candidate"),
            ),
        ),
    ),
)
