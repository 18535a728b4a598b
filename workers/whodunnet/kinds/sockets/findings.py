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
    "slowness": Field("share", "Slower than the others (over time)"),
    "p_value": Field("number", "Sign test p"),
    "why_not": Field("text", "Why not a candidate"),
    "median_rate_bps": Field("bit/s", "Median delivery rate"),
    "flows": Field("count"),
    "flows_seen_once": Field("count", "Flows seen in one snapshot only"),
    "rwnd_limited_share": Field("share", "Receive-window-limited (median share of busy time)"),
    "interval_s": Field("seconds", "Time between snapshots"),
    "tie": Field("share", "Rates closer than this are a tie"),
    "left_out_small": Field("count", "Samples left out: small flows"),
    "left_out_app_limited": Field("count", "Samples left out: application-limited"),
    "limits": Field("text", "What these snapshots can and cannot tell"),
    "states": Field("count", "Sockets per state"),
    "time_wait": Field("count", "TIME-WAIT sockets"),
    "time_wait_by_remote": Field("count", "TIME-WAIT per remote address and port"),
    "time_wait_by_remote_port": Field("count", "TIME-WAIT per remote port"),
    "time_wait_by_local_port": Field("count", "TIME-WAIT per local port"),
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
        facts=(
            "intervals",
            "interval_s",
            "candidates",
            "limits",
            "flows",
            "flows_seen_once",
            "params",
            "tie",
            "left_out_small",
            "left_out_app_limited",
        ),
        hidden=("over_time",),
        tables=(
            Table(
                "prefixes",
                "Prefixes",
                columns=(
                    "prefix",
                    "intervals",
                    "median_rate_bps",
                    "slowness",
                    "bottom_intervals",
                    "duty_cycle",
                    "flaps",
                    "flap_rate",
                    "p_value",
                    "flows",
                    "flows_seen_once",
                    "rwnd_limited_share",
                    "candidate",
                    "why_not",
                ),
            ),
        ),
    ),
    FindingSpec(
        "sockets.states",
        facts=(
            "snapshots",
            "states",
            "time_wait",
            "time_wait_by_remote",
            "time_wait_by_remote_port",
            "time_wait_by_local_port",
        ),
    ),
)
