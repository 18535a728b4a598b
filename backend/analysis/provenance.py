"""Where each piece of evidence comes from: a person's values over what the engine read from the file.

The engine infers a host, a role and, for snapshots, when it was taken from the content and the file name
(``whodunnet.provenance``), stored on the run as ``AnalysisRun.provenance``; a person's values live on the
evidence (``Evidence.host``, ``role``, ``taken_at``) and always win. The cards show the result with the source
of each value, and the correlation hands the same result to the engine.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from analysis.models import AnalysisRun
from evidence.models import Evidence

FIELDS = ("host", "role", "taken_at")


@dataclass(frozen=True)
class Known:
    """One provenance field: its value (None when unknown) and where it came from."""

    value: Any
    source: str | None  # "user" | "content" | "filename" | "default" | None (unknown)


def effective(evidence: Evidence, run: AnalysisRun | None) -> dict[str, Known]:
    """Each field as the engine should use it: a person's value, else the run's inference, else unknown.

    ``taken_at`` is in unix seconds.
    """
    inferred: dict[str, Any] = (run.provenance if run is not None else None) or {}
    sources: dict[str, str] = inferred.get("source") or {}
    out: dict[str, Known] = {}
    for name in FIELDS:
        given = getattr(evidence, name)
        if given is not None:
            out[name] = Known(given.timestamp() if isinstance(given, dt.datetime) else given, "user")
        elif inferred.get(name) is not None:
            out[name] = Known(inferred[name], sources.get(name, "content"))
        else:
            out[name] = Known(None, None)
    return out


def as_json(known: dict[str, Known]) -> dict[str, dict[str, Any]]:
    """The card's shape: ``taken_at`` as an ISO date with its zone."""
    out: dict[str, dict[str, Any]] = {}
    for name, field in known.items():
        value = field.value
        if name == "taken_at" and value is not None:
            value = dt.datetime.fromtimestamp(float(value), tz=dt.UTC).isoformat().replace("+00:00", "Z")
        out[name] = {"value": value, "source": field.source}
    return out
