"""How analysis answers the evidence app's signals (``evidence.signals``); connected in ``AnalysisConfig.ready``."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from analysis import services
from evidence import signals
from evidence.models import Evidence


@receiver(signals.needs_reading, dispatch_uid="analysis.read_evidence")
def read_evidence(*, evidence: Evidence, **_: Any) -> None:
    # A kind a person chose over the detected one is forced; otherwise the engine detects it again.
    forced = evidence.kind if evidence.kind != evidence.detected_kind else ""
    services.queue_run(evidence=evidence, forced_kind=forced)


@receiver(signals.provenance_changed, dispatch_uid="analysis.correlate_again")
def correlate_again(*, evidence: Evidence, **_: Any) -> None:
    services.queue_correlation(incident_id=evidence.incident_id)


@receiver(signals.use_changed, dispatch_uid="analysis.correlate_without")
def correlate_without(*, evidence: Evidence, **_: Any) -> None:
    # The findings across evidence are drawn from the files in use only (``selectors.latest_runs``).
    services.queue_correlation(incident_id=evidence.incident_id)
