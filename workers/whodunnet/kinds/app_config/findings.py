"""How the UI shows ``app.kafka_settings``' numbers."""

from __future__ import annotations

from whodunnet.kinds.spec import Field, FindingSpec, Table

FIELDS = {
    "receive_buffer_bytes": Field("bytes_exact", "receive.buffer.bytes"),
    "receive_buffer_bytes_set": Field("text", "receive.buffer.bytes set"),
    "send_buffer_bytes": Field("bytes_exact", "send.buffer.bytes"),
    "send_buffer_bytes_set": Field("text", "send.buffer.bytes set"),
    "request_timeout_ms": Field("ms", "request.timeout.ms"),
    "request_timeout_ms_set": Field("text", "request.timeout.ms set"),
    "pins_rcvbuf": Field("text", "Pins SO_RCVBUF"),
    "lines": Field("count"),
    "kernel": Field("text"),
    "window": Field("bytes_exact"),
    "formula": Field("text"),
}

FINDINGS = (
    FindingSpec(
        "app.kafka_settings",
        facts=("receive_buffer_bytes", "send_buffer_bytes", "request_timeout_ms", "pins_rcvbuf"),
        tables=(Table("windows", "Receive window per kernel", columns=("kernel", "window", "formula")),),
        hidden=("receive_buffer_bytes_set", "send_buffer_bytes_set", "request_timeout_ms_set", "lines"),
    ),
)
