"""Where each piece of evidence comes from: a person's values over what the engine read from the file.

The engine infers a host, a role and, for snapshots, when it was taken from the content and the file name
(``whodunnet.provenance.infer``, with the name the person uploaded it under), stored on the run as
``AnalysisRun.provenance``; a person's values live on the evidence (``Evidence.host``, ``role``, ``taken_at``)
and always win (``whodunnet.provenance.merge``). The correlation then fills what one file cannot say from the
others (``whodunnet.provenance.across``: a capture's host from another file's addresses) and keeps the result
(``Correlation.provenance``), which the cards show with the source of each value.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from analysis.models import AnalysisRun
from evidence.models import Evidence
from whodunnet import provenance as engine
from whodunnet.model import Provenance


def given(evidence: Evidence) -> Provenance:
    """What a person said about the file (None: not said)."""
    return Provenance(
        host=evidence.host,
        role=evidence.role,
        taken_at=evidence.taken_at.timestamp() if evidence.taken_at is not None else None,
    )


def effective(evidence: Evidence, run: AnalysisRun | None) -> Provenance:
    """A person's values over what the engine read from this one file."""
    inferred = Provenance.from_json(run.provenance if run is not None else None)
    return engine.merge(inferred, given(evidence))


def for_card(evidence: Evidence, run: AnalysisRun | None, across: Mapping[str, Any] | None) -> dict[str, Any]:
    """The card's shape: each field's value and source; ``across`` is what the correlation said about this file
    (it can name a capture's host from the other files), used for fields this file alone does not know."""
    known = effective(evidence, run)
    if across:
        other = Provenance.from_json(across)
        source = dict(known.source)
        fields: dict[str, Any] = {}
        for name in ("host", "role", "taken_at"):
            if getattr(known, name) is None and getattr(other, name) is not None:
                fields[name] = getattr(other, name)
                source[name] = other.source.get(name, "content")
        if fields:
            known = Provenance(**{"host": known.host, "role": known.role, "taken_at": known.taken_at, **fields},
                               source=source)  # fmt: skip
    taken = (
        dt.datetime.fromtimestamp(known.taken_at, tz=dt.UTC).isoformat().replace("+00:00", "Z")
        if known.taken_at is not None
        else None
    )
    return {
        name: {"value": value, "source": known.source.get(name) if value is not None else None}
        for name, value in (("host", known.host), ("role", known.role), ("taken_at", taken))
    }
