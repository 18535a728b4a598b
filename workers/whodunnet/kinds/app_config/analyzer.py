"""The app-config analyzer: Kafka client properties → ``app.kafka_settings``.

``receive.buffer.bytes`` is handed to the socket as SO_RCVBUF unless it is -1, which
pins the buffer exactly like an explicit setsockopt (Kafka Connect's default 64 KiB with
a 30 s ``request.timeout.ms`` is the classic victim of the 6.6 receive-window change).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from whodunnet.kernel.window import REFERENCE_KERNELS, window_for_rcvbuf, window_text
from whodunnet.kinds.text import LineLog, read_with, text_result
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import EvidenceResult, Finding, Ref

KIND = "app_config"
_PROP = re.compile(r"^(?P<k>[A-Za-z0-9_.\-]+)\s*(?:[=:]\s*|\s+)(?P<v>.*)$")
#: Kafka's documented consumer defaults for the settings that matter here.
KAFKA_DEFAULTS = {"receive.buffer.bytes": 65536, "send.buffer.bytes": 131072, "request.timeout.ms": 30000}
KAFKA_KEYS = frozenset({"bootstrap.servers", "group.id", "receive.buffer.bytes", "send.buffer.bytes", "request.timeout.ms",  # noqa: E501
                        "key.deserializer", "value.deserializer", "key.serializer", "value.serializer", "acks",
                        "fetch.max.bytes", "max.poll.records", "session.timeout.ms", "linger.ms", "client.id",
                        "security.protocol", "fetch.min.bytes", "max.partition.fetch.bytes", "socket.connection.setup.timeout.ms",  # noqa: E501
                        "default.api.timeout.ms", "delivery.timeout.ms", "connections.max.idle.ms"})  # fmt: skip


#: Distinct properties kept (a client config has dozens; a mislabelled file could have millions of lines).
MAX_PROPERTIES = 10_000


class PropertiesReader:
    """``key=value`` (or ``key: value``, ``key value``) lines; ``#`` and ``!`` start comments."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.values: dict[str, str] = {}
        self.where: dict[str, int] = {}

    def feed(self, n: int, t: str) -> None:
        s = t.strip()
        if not s or s[0] in "#!":
            return
        m = _PROP.match(s)
        if m is None:
            self.log.bad(n, "not a 'key=value' property", t)
            return
        key = m.group("k")
        if key not in self.values and len(self.values) >= MAX_PROPERTIES:
            self.log.bad(n, f"more than {MAX_PROPERTIES:,} properties: this one is not kept", t)
            return
        self.values[key] = m.group("v").strip()
        self.where[key] = n


def analyze_app_config(
    index: int,
    path: Path | BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[float], None] | None = None,
) -> tuple[EvidenceResult, list[Finding]]:
    """Kafka client properties and what receive.buffer.bytes / request.timeout.ms mean for the socket."""
    reader, run = read_with(path, PropertiesReader, limits=limits, progress=progress)
    values, where = reader.values, reader.where
    summary: dict[str, Any] = {"properties": values, "property_lines": where}
    found = [kafka_finding(index, values, where)] if set(values) & KAFKA_KEYS else []
    return text_result(path, KIND, summary, run), found


def _int(values: dict[str, str], key: str) -> tuple[int, bool]:
    raw = values.get(key)
    if raw is not None and re.fullmatch(r"-?\d+", raw):
        return int(raw), True
    return KAFKA_DEFAULTS[key], False


def kafka_finding(index: int, values: dict[str, str], where: dict[str, int]) -> Finding:
    rcv, rcv_set = _int(values, "receive.buffer.bytes")
    snd, snd_set = _int(values, "send.buffer.bytes")
    timeout, timeout_set = _int(values, "request.timeout.ms")
    pins = rcv != -1
    windows = (
        [{"kernel": label, **window_for_rcvbuf(rcv, v).to_json()} for label, v in REFERENCE_KERNELS] if pins else []
    )
    src = "" if rcv_set else " (not set: Kafka's consumer default)"
    if pins:
        table = "; ".join(f"{w['kernel']}: {window_text(w)}" for w in windows)
        explanation = (
            f"receive.buffer.bytes={rcv:,}{src} is passed to the socket as SO_RCVBUF, which turns off receive "
            f"autotuning and caps the window ({table}). With request.timeout.ms={timeout:,}"
            f"{'' if timeout_set else ' (default)'}, a fetch that the capped window makes slower than "
            f"{timeout / 1000:g} s is abandoned, as Kafka Connect's 64 KiB / 30 s defaults were on 6.6.10. "
            "Set receive.buffer.bytes=-1 to let the kernel tune the buffer."
        )
    else:
        explanation = (
            f"receive.buffer.bytes=-1: the kernel autotunes the receive buffer. request.timeout.ms={timeout:,}"
            f"{'' if timeout_set else ' (default)'}."
        )
    refs = tuple(Ref(evidence=index, label=k, lines=(where[k], where[k])) for k in KAFKA_DEFAULTS if k in where)
    return Finding(
        kind="app.kafka_settings",
        layer="application",
        severity="medium" if pins else "info",
        title=(
            f"Kafka receive.buffer.bytes={rcv:,} pins SO_RCVBUF"
            if pins
            else "Kafka lets the kernel tune the receive buffer"
        )
        + f"; request.timeout.ms={timeout:,}",
        explanation=explanation,
        refs=refs,
        key=f"evidence-{index}",
        data={
            "receive_buffer_bytes": rcv,
            "receive_buffer_bytes_set": rcv_set,
            "send_buffer_bytes": snd,
            "send_buffer_bytes_set": snd_set,
            "request_timeout_ms": timeout,
            "request_timeout_ms_set": timeout_set,
            "pins_rcvbuf": pins,
            "windows": windows,
            "lines": {k: where[k] for k in KAFKA_DEFAULTS if k in where},
        },
    )
