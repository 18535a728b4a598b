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


def set_captured_at(*, user: User, evidence: Evidence, captured_at: dt.datetime | None) -> Evidence:
    """Say when a snapshot was taken; the findings across evidence are recomputed with it."""
    with transaction.atomic():
        evidence.captured_at = captured_at
        evidence.save(update_fields=["captured_at"])
        said = captured_at.isoformat() if captured_at else "unknown (upload order)"
        record_event(
            incident=evidence.incident,
            kind=EventKind.INCIDENT_UPDATED,
            actor=user,
            summary=f"{evidence.filename}: taken at {said}",
            data={"evidence": evidence.pk, "captured_at": captured_at.isoformat() if captured_at else None},
        )
        signals.send(signals.captured_at_changed, evidence=evidence)
    return evidence
