"""A client configuration's one line on its card: the settings that shape its sockets and its deadlines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds.words import listing, plural

#: The properties that matter to a network investigation, in the order said.
SAID = ("receive.buffer.bytes", "send.buffer.bytes", "request.timeout.ms", "session.timeout.ms",
        "socket.connection.setup.timeout.ms", "fetch.max.wait.ms")  # fmt: skip


def describe(summary: Mapping[str, Any], earlier: Mapping[str, Any] | None = None) -> str | None:
    """``10 properties: receive.buffer.bytes=65536, request.timeout.ms=30000``."""
    properties = summary.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return None
    shown = [f"{key}={properties[key]}" for key in SAID if key in properties]
    text = plural(len(properties), "property", "properties")
    return f"{text}: {listing(shown, 3)}" if shown else text
