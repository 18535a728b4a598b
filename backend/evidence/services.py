"""Writes for evidence: what a person changes about how a file is read (uploads are ``evidence.uploads``).

Each write says what happened through ``evidence.signals`` (the analysis app, a layer above, queues the run).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from evidence import signals
from evidence.models import Evidence
from incidents.models import EventKind
from incidents.services import record_event
from whodunnet.kinds.settings import SettingsGroup
from whodunnet.tuning import Tuning


def reanalyse(*, user: User, evidence: Evidence, kind: str) -> Evidence:
    """Read the file again as the kind a person chose (content sniffing got it wrong)."""
    with transaction.atomic():
        previous = evidence.kind
        evidence.kind = kind
        evidence.save(update_fields=["kind"])
        _analyse_again(
            user=user, evidence=evidence, said=f"kind {previous} → {kind}", data={"from": previous, "to": kind}
        )
    return evidence


def _analyse_again(*, user: User, evidence: Evidence, said: str, data: dict[str, Any]) -> None:
    """Say on the timeline what a person changed, and have the file read again with it.

    The file is read as ``evidence.kind`` when a person chose it over the detected kind.
    Call inside the transaction that made the change.
    """
    record_event(
        incident=evidence.incident,
        kind=EventKind.INCIDENT_UPDATED,
        actor=user,
        summary=f"{evidence.filename}: {said}; analysing it again",
        data={"evidence": evidence.pk, **data},
    )
    signals.send(signals.needs_reading, evidence=evidence)


def change_settings(*, user: User, evidence: Evidence, group: SettingsGroup, change: Any) -> Evidence:
    """Change one group of the analysis settings (BBR candidates, interface limits) and analyse the file again.

    ``change`` is the PATCH body's value for the group: a group of numbers is merged into the current
    values, a map of rates replaces the one given before (``SettingsGroup.merge``).
    """
    current = (evidence.tuning or {}).get(group.name)
    return _retune(
        user=user,
        evidence=evidence,
        change=lambda tuning: {**tuning, group.name: group.merge(tuning.get(group.name), change)},
        said=group.said(current, change),
    )


def _retune(
    *, user: User, evidence: Evidence, change: Callable[[dict[str, Any]], dict[str, Any]], said: str
) -> Evidence:
    """Store changed analysis settings (validated by the engine's Tuning) and analyse the file again."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        evidence.tuning = Tuning.from_json(change(evidence.tuning)).to_json()
        evidence.save(update_fields=["tuning"])
        _analyse_again(user=user, evidence=evidence, said=said, data={"tuning": evidence.tuning})
    return evidence


#: The provenance fields a person can set, with how the timeline names them.
PROVENANCE_FIELDS = {"host": "host", "role": "role", "taken_at": "taken at"}


def set_provenance(*, user: User, evidence: Evidence, changes: dict[str, Any]) -> Evidence:
    """Say where a file comes from (host, role, when it was taken); None gives a field back to the engine.

    A person's value wins over what the engine read from the content or the file name. The findings across the
    incident's evidence are recomputed with it (snapshots pair per host, in time order).
    """
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        # The card's form sends every field: only what differs is a change (and a line on the timeline).
        changed = {
            name: value
            for name, value in changes.items()
            if name in PROVENANCE_FIELDS and getattr(evidence, name) != value
        }
        if not changed:
            return evidence
        said = []
        for name, value in changed.items():
            setattr(evidence, name, value)
            shown = value.isoformat() if isinstance(value, dt.datetime) else value
            said.append(
                f"{PROVENANCE_FIELDS[name]} {shown}"
                if value is not None
                else f"{PROVENANCE_FIELDS[name]} as the file says"
            )
        evidence.save(update_fields=list(changed))
        record_event(
            incident=evidence.incident,
            kind=EventKind.INCIDENT_UPDATED,
            actor=user,
            summary=f"{evidence.filename}: {', '.join(said)}",
            data={
                "evidence": evidence.pk,
                **{k: v.isoformat() if isinstance(v, dt.datetime) else v for k, v in changed.items()},
            },
        )
        signals.send(signals.provenance_changed, evidence=evidence)
    return evidence
