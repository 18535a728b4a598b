"""Bisect jobs as people (and schedules) start, cancel and retry them: validated, on the timeline, queued.

A job is queued with its first step row; the step is sent to a bisect worker when the transaction commits
(``bisects.dispatch``). Who may start or retry one is decided before these are called, in one place:
``bisects.selectors.incident_to_run_bisects``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError

from bisects import dispatch
from bisects.models import SPEC_FIELDS, BisectJob, BisectStep, JobStatus, RuleKind, ScheduleFiring, StepStatus
from incidents.models import EventKind, Incident
from incidents.services import record_event
from whodunnet.bisect.errors import SpecError
from whodunnet.bisect.spec import BisectSpec


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Not possible in the job's current state."
    default_code = "conflict"


def check_spec(*, fields: Mapping[str, Any], good: str, bad: str) -> BisectSpec:
    """The engine spec for these fields, or a ValidationError saying what is wrong."""
    if fields.get("rule") == RuleKind.METRIC:
        missing = [name for name in ("metric", "threshold") if fields.get(name) in (None, "")]
        if missing:
            raise ValidationError({name: ["Required with the metric rule."] for name in missing})
    probe = BisectJob(good=good, bad=bad, **{k: v for k, v in fields.items() if k in SPEC_FIELDS})
    try:
        return BisectSpec.from_json(probe.spec())
    except SpecError as exc:
        raise ValidationError({"non_field_errors": [str(exc)]}) from None


def _describe(job: BisectJob) -> str:
    """What the timeline says a queued job will bisect, and what it will run on a worker."""
    path = f" limited to {job.path}" if job.path else ""
    return f"{job.good} (good) .. {job.bad} (bad) in {job.repo}{path}; runs {_command_line(job)} {_confinement(job)}"


def _command_line(job: BisectJob) -> str:
    lines = [line for line in job.command.strip().splitlines() if line.strip() and not line.startswith("#")]
    first = (lines[0] if lines else job.command.strip())[:200]
    more = f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else ""
    return f"`{first}`{more}"


def _confinement(job: BisectJob) -> str:
    if not settings.BISECT_SANDBOX:
        return "outside the sandbox (turned off on the workers)"
    network = "with the network" if job.network else "without network"
    names = ", ".join(sorted(job.env)) if job.env else ""
    return f"in the sandbox, {network}" + (f", with {names} set" if names else "")


@transaction.atomic
def create_job(
    *,
    incident: Incident,
    user: User | None,
    good: str,
    bad: str,
    fields: Mapping[str, Any],
    firing: ScheduleFiring | None = None,
    why: str = "",
) -> BisectJob:
    """Queue a bisect of good..bad under an incident; its first step is enqueued on commit."""
    check_spec(fields=fields, good=good, bad=bad)
    job = BisectJob.objects.create(
        incident=incident,
        started_by=user,
        firing=firing,
        good=good,
        bad=bad,
        **{k: v for k, v in fields.items() if k in SPEC_FIELDS},
    )
    step = BisectStep.objects.create(job=job, index=0)
    record_event(
        incident=incident,
        kind=EventKind.BISECT_STARTED,
        actor=user,
        summary=f"{why}Bisect #{job.pk} queued: {_describe(job)}",
        data={
            "bisect": job.pk,
            "good": good,
            "bad": bad,
            "repo": job.repo,
            "path": job.path,
            "command": job.command,
            "env": sorted(job.env),
            "network": job.network,
            "sandboxed": settings.BISECT_SANDBOX,
        },
    )
    dispatch.run_step(step_id=step.pk, time_limit=job.step_time_limit)
    return job


@transaction.atomic
def cancel_job(*, user: User, job: BisectJob) -> BisectJob:
    """Stop a queued or running bisect; a step still running finishes but is not recorded."""
    locked = BisectJob.objects.select_for_update().get(pk=job.pk)
    if locked.is_terminal:
        raise Conflict(f"Bisect #{locked.pk} is already {locked.status}.")
    now = timezone.now()
    locked.status = JobStatus.CANCELLED
    locked.finished_at = now
    locked.steps_left = None
    locked.save(update_fields=["status", "finished_at", "steps_left"])
    locked.steps.filter(status__in=[StepStatus.QUEUED, StepStatus.RUNNING]).update(
        status=StepStatus.CANCELLED, finished_at=now, claim_token=None
    )
    record_event(
        incident=locked.incident,
        kind=EventKind.BISECT_CANCELLED,
        actor=user,
        summary=f"Bisect #{locked.pk} cancelled after {locked.steps_done} step(s)",
        data={"bisect": locked.pk},
    )
    return locked


@transaction.atomic
def retry_step(*, user: User, job: BisectJob, step: BisectStep) -> BisectStep:
    """Run the last step of a failed job again (as a new step row, the next attempt), continuing the job."""
    locked = BisectJob.objects.select_for_update().get(pk=job.pk)
    last = locked.steps.order_by("-index").first()
    if locked.status != JobStatus.FAILED or last is None or last.pk != step.pk:
        raise Conflict("Only the last step of a failed bisect can be retried.")
    new = BisectStep.objects.create(job=locked, index=last.index + 1, attempt=last.attempt + 1)
    locked.status = JobStatus.RUNNING
    locked.error = ""
    locked.finished_at = None
    locked.save(update_fields=["status", "error", "finished_at"])
    record_event(
        incident=locked.incident,
        kind=EventKind.BISECT_STEP,
        actor=user,
        summary=f"Bisect #{locked.pk}: retrying step {last.index + 1}"
        + (f" at {last.commit[:12]}" if last.commit else ""),
        data={"bisect": locked.pk, "step": new.pk, "retry_of": last.pk},
    )
    dispatch.run_step(step_id=new.pk, time_limit=locked.step_time_limit)
    return new
