"""Typed results shared by every analyzer, the Celery worker and the CLI.

Everything here is a frozen dataclass made of JSON-able parts, so a result can be
stored by the backend, printed by ``whodunnet analyze --json`` and compared in tests
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import orjson

Layer = Literal["neighbours", "network", "application", "kernel"]
Severity = Literal["info", "low", "medium", "high"]
LAYERS: tuple[Layer, ...] = ("neighbours", "network", "application", "kernel")
SEVERITIES: tuple[Severity, ...] = ("info", "low", "medium", "high")


@dataclass(frozen=True)
class Ref:
    """A pointer back into one piece of evidence (by its index in the analysed list)."""

    evidence: int
    label: str = ""
    connection: str | None = None
    packets: tuple[int, int] | None = None
    time: tuple[float, float] | None = None
    lines: tuple[int, int] | None = None


@dataclass(frozen=True)
class Finding:
    """One thing an analyzer can say, with the numbers and the evidence behind it.

    ``key`` tells apart findings of the same kind about the same evidence (for example
    one per connection); the backend's unique constraint is (run, kind, key).
    """

    kind: str
    layer: Layer
    severity: Severity
    title: str
    explanation: str
    refs: tuple[Ref, ...] = ()
    key: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ErrorInfo:
    """Where and why reading stopped; what was read before it is still in the result."""

    message: str
    offset: int | None = None
    line: int | None = None


#: What a piece of evidence's host was to the traffic (``Provenance.role``).
ROLES: tuple[str, ...] = ("client", "server", "middlebox", "hypervisor", "other")
#: Where a provenance field came from (``Provenance.source`` values).
SOURCES: tuple[str, ...] = ("content", "filename", "user", "default")


@dataclass(frozen=True)
class Provenance:
    """Which host a piece of evidence is from, what that host was, and when a snapshot was taken.

    Read from the content and the file name (``whodunnet.provenance.infer``) or given by a
    person (``whodunnet.provenance.merge``: what a person gave wins). None means unknown.
    """

    host: str | None = None  # a name ("db-1", "10.0.0.5"); None = unknown
    role: str | None = None  # one of ROLES; None = unknown
    taken_at: float | None = None  # unix seconds when a snapshot was taken; None = unknown
    #: where each known field came from: "content" | "filename" | "user" | "default"
    source: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "role": self.role, "taken_at": self.taken_at, "source": dict(self.source)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Provenance:
        """The inverse of ``to_json`` (the backend stores it as JSON); unknown keys are ignored."""
        if not data:
            return cls()
        taken = data.get("taken_at")
        return cls(
            host=data.get("host") or None,
            role=data.get("role") or None,
            taken_at=float(taken) if taken is not None else None,
            source=dict(data.get("source") or {}),
        )


@dataclass(frozen=True)
class EvidenceResult:
    """What one input file is and what it holds, in summary.

    ``connections`` is the connection table of a capture: ``whodunnet.capture.Connection`` rows
    (frozen dataclasses of JSON-able parts) in id order — a ``ConnectionTable`` that builds them
    as they are read, or a tuple of them; empty for other kinds.
    """

    path: str
    kind: str
    summary: Mapping[str, Any]
    error: ErrorInfo | None = None
    connections: Sequence[Any] = ()
    #: The host, its role and the snapshot time (``engine.analyze`` fills it from the
    #: content, the file name and what a person gave).
    provenance: Provenance = Provenance()
    #: A capture's packet index (``capture.packets.Checkpoint`` as (offset, packet, time)).
    packet_index: tuple[tuple[float, ...], ...] = ()

    @property
    def name(self) -> str:
        """The file's name, as findings across evidence call it (the web stores the uploader's name)."""
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class AnalysisResult:
    """The outcome of analysing one or more files together."""

    engine_version: str
    evidence: tuple[EvidenceResult, ...]
    findings: tuple[Finding, ...]
    #: Captures of the same traffic matched by TCP sequence numbers
    #: (``whodunnet.capture_pairs.CapturePair``), one per pair of capture evidences.
    capture_pairs: tuple[Any, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def to_json_bytes(self) -> bytes:
        """``to_json()`` as indented JSON (``json_bytes``): the same document, about 25 times faster."""
        return json_bytes(self, indent=True)


def json_bytes(value: Any, *, indent: bool = False) -> bytes:
    """A result, or any part of one, as JSON, written by orjson straight from the dataclasses.

    The same document as ``json.dumps(dataclasses.asdict(value))``: a capture's connection table
    is most of a result, and ``asdict`` deep-copies every row before ``json`` walks it again.
    """
    option = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(value, default=_jsonable, option=option)


def _jsonable(value: Any) -> Any:
    """What orjson cannot write itself: read-only mappings and sets."""
    if isinstance(value, MappingProxyType):
        return dict(value)
    if isinstance(value, set | frozenset):
        return sorted(value)
    if isinstance(value, Sequence):  # a capture's ConnectionTable: its rows
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON-able")
