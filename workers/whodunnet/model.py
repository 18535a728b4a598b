"""Typed results shared by every analyzer, the Celery worker and the CLI.

Everything here is a frozen dataclass made of JSON-able parts, so a result can be
stored by the backend, printed by ``whodunnet analyze --json`` and compared in tests
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
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


@dataclass(frozen=True)
class EvidenceResult:
    """What one input file is and what it holds, in summary.

    ``connections`` is the connection table of a capture (``whodunnet.capture.Connection``
    rows, frozen dataclasses of JSON-able parts); empty for other kinds.
    """

    path: str
    kind: str
    summary: Mapping[str, Any]
    error: ErrorInfo | None = None
    connections: tuple[Any, ...] = ()

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
    raise TypeError(f"{type(value).__name__} is not JSON-able")
