"""Writes for evidence: what a person changes about how a file is read, and taking a file out of the incident
(excluded from the analysis, deleted, restored, purged after the grace period). Uploads are ``evidence.uploads``.

Each write says what happened through ``evidence.signals`` (the analysis app, a layer above, queues the run).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from evidence import blobs, signals
from evidence.models import Evidence, Upload
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
    _say(
        user=user,
        evidence=evidence,
        event=EventKind.INCIDENT_UPDATED,
        said=f"{said}; analysing it again",
        data=data,
        signal=signals.needs_reading,
    )


def _say(*, user: User, evidence: Evidence, event: EventKind, said: str, data: dict[str, Any], signal: Signal) -> None:
    """The timeline line for what a person changed about a file, and the signal that has the layers above act."""
    record_event(
        incident=evidence.incident,
        kind=event,
        actor=user,
        summary=f"{evidence.filename}: {said}",
        data={"evidence": evidence.pk, **data},
    )
    signals.send(signal, evidence=evidence)


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


class StateError(Exception):
    """The change does not apply to the file as it is now (restoring a file that was not deleted)."""


def set_excluded(*, user: User, evidence: Evidence, excluded: bool) -> Evidence:
    """Take a file out of the analysis, or put it back: its card stays, its findings count only while included."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        if evidence.excluded == excluded:
            return evidence
        evidence.excluded = excluded
        evidence.save(update_fields=["excluded"])
        said = "excluded from the analysis" if excluded else "included in the analysis again"
        _say_use_changed(user=user, evidence=evidence, said=said, data={"excluded": excluded})
    return evidence


def delete_evidence(*, user: User, evidence: Evidence) -> Evidence:
    """Delete a file from the incident: it goes at once, and can be restored until ``purge_deleted`` removes it."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        if evidence.deleted_at is not None:
            return evidence
        evidence.deleted_at = timezone.now()
        evidence.deleted_by = user
        evidence.save(update_fields=["deleted_at", "deleted_by"])
        _say_use_changed(
            user=user,
            evidence=evidence,
            said=f"deleted (it can be restored until {purge_time(evidence):%Y-%m-%d %H:%M} UTC)",
            data={"deleted": True},
        )
    return evidence


def restore_evidence(*, user: User, evidence: Evidence) -> Evidence:
    """Bring back a deleted file that is still within its grace period, as it was (excluded or not)."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence.pk)
        if evidence.deleted_at is None:
            raise StateError(f"{evidence.filename} is not deleted.")
        evidence.deleted_at = None
        evidence.deleted_by = None
        evidence.save(update_fields=["deleted_at", "deleted_by"])
        _say_use_changed(user=user, evidence=evidence, said="restored", data={"deleted": False})
    return evidence


def purge_time(evidence: Evidence) -> dt.datetime:
    """When a deleted file's bytes and analyses go for good."""
    assert evidence.deleted_at is not None
    return evidence.deleted_at + dt.timedelta(seconds=settings.EVIDENCE_DELETE_GRACE_SECONDS)


def purge_deleted(*, now: dt.datetime | None = None) -> int:
    """Remove files deleted longer than the grace period ago: their bytes from storage, then their rows (with
    their analyses, findings and connection tables). The timeline keeps saying they were there. How many went."""
    now = now or timezone.now()
    due = now - dt.timedelta(seconds=settings.EVIDENCE_DELETE_GRACE_SECONDS)
    store = blobs.store()
    purged = 0
    for pk in Evidence.objects.filter(deleted_at__lt=due).values_list("pk", flat=True):
        with transaction.atomic():
            evidence = Evidence.objects.select_for_update(skip_locked=True).filter(pk=pk, deleted_at__lt=due).first()
            if evidence is None:  # restored meanwhile, or another sweep has it
                continue
            # The bytes go first: a failure leaves the row (and the next sweep tries again), never bytes without one.
            store.delete(evidence.storage_name)
            # Its finished upload's row would otherwise count the file's length against the quota once unlinked.
            Upload.objects.filter(evidence=evidence).delete()
            evidence.delete()
            purged += 1
    return purged


def _say_use_changed(*, user: User, evidence: Evidence, said: str, data: dict[str, Any]) -> None:
    """The timeline line for a file taken out of (or put back into) the analysis, and the recomputation."""
    _say(
        user=user, evidence=evidence, event=EventKind.EVIDENCE_CHANGED, said=said, data=data, signal=signals.use_changed
    )
