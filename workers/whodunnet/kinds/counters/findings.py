"""How the UI shows the counter findings' numbers (``host.*``, ``neighbours.link_usage``)."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "host": Field("text"),
    "hosts": Field("text"),
    "role": Field("text", "Host role"),
    "ordered_by": Field("text", "Snapshots ordered by"),
    "pair": Field("text", "Snapshots diffed"),
    "delta": Field("text", "Difference of two snapshots"),
    "interval_s": Field("seconds", "Interval"),
    "evidence": Field("count"),
    "counters": Field("count"),
    "per_second": Field("number"),
    "retrans_rate": Field("share", "Retransmitted share"),
    "resets": Field("text", "Counters reset"),
    "values": Field("count"),
    "listen_overflows": Field("count"),
    "listen_drops": Field("count"),
    "interface": Field("text"),
    "virtual": Field("text"),
    "drops": Field("count"),
    "stats": Field("count"),
    "rx_bytes": Field("bytes", "RX bytes"),
    "tx_bytes": Field("bytes", "TX bytes"),
    "retransmits": Field("count"),
    "difference": Field("count"),
    "retransmit_evidence": Field("count"),
    "interface_evidence": Field("count"),
    "near_limit": Field("text"),
    "clears_layer": Field("text"),
    "reason": Field("text"),
    "threshold": Field("share"),
    "rx_bps": Field("bit/s", "RX rate"),
    "tx_bps": Field("bit/s", "TX rate"),
    "limit_bps": Field("bit/s", "Limit"),
    "limit_source": Field("text", "Limit from"),
    "utilisation": Field("share"),
    "count": Field("count", "Entries"),
    "max": Field("count", "Table size"),
    "usage": Field("share"),
    "failures": Field("count"),
    "port_range": Field("count"),
    "port_range_size": Field("count"),
    "server_ports": Field("count"),
    "server_ports_source": Field("text", "Server ports from"),
    "possible_tuples": Field("count"),
    "tuples_share_of_max": Field("share", "Tuples against the table size"),
}

#: What every snapshot finding says about its pair: shown (host, files, order) and kept (the rest).
_PAIR = ("host", "pair", "ordered_by")
_PAIR_HIDDEN = ("hosts", "role", "evidence", "delta")

FINDINGS = (
    FindingSpec(
        "host.retransmits",
        facts=(*_PAIR, "counters", "retrans_rate", "interval_s", "per_second", "resets"),
        hidden=(*_PAIR_HIDDEN, "values"),
    ),
    FindingSpec(
        "host.listen_overflows",
        facts=(*_PAIR, "listen_overflows", "listen_drops", "interval_s"),
        hidden=(*_PAIR_HIDDEN, "values"),
    ),
    FindingSpec(
        "host.interface_drops",
        facts=(*_PAIR, "interface", "virtual", "drops", "interval_s", "stats"),
        hidden=(*_PAIR_HIDDEN, "values"),
    ),
    FindingSpec(
        "host.drops_match_retransmits",
        facts=("interface", "drops", "retransmits", "difference", "retransmit_evidence", "interface_evidence"),
    ),
    FindingSpec(
        "neighbours.link_usage",
        facts=(*_PAIR, "near_limit", "clears_layer", "reason", "threshold", "interval_s"),
        hidden=_PAIR_HIDDEN,
        tables=(
            Table(
                "interfaces",
                "Interfaces",
                columns=(
                    "interface",
                    "rx_bytes",
                    "tx_bytes",
                    "rx_bps",
                    "tx_bps",
                    "limit_bps",
                    "limit_source",
                    "utilisation",
                ),
            ),
        ),
    ),
    FindingSpec(
        "host.conntrack_pressure",
        facts=(
            "count",
            "max",
            "usage",
            "failures",
            "port_range",
            "port_range_size",
            "server_ports",
            "server_ports_source",
            "possible_tuples",
            "tuples_share_of_max",
            "stats",
        ),
    ),
)
