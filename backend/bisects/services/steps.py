"""Running one bisect step on a worker: claim it, rebuild the bisect from the job's log, test, record once.

The job row is the truth: its ``log`` is the bisect log after the last recorded step, and any worker continues
the job from it (``BisectSession.resume``). A step task claims its step row with a conditional UPDATE (queued,
or running with a stale heartbeat), runs the reproducer, then in one transaction - only while it still holds
the claim - records the verdict, the new log and the progress, and creates the next step row, sent on commit.
``(job, index)`` is unique, so a redelivered or re-queued step is recorded once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import uuid
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from bisects import dispatch, workspace
from bisects.models import ACTIVE_JOB_STATUSES, BisectJob, BisectStep, JobStatus, StepStatus, StepVerdict
from incidents.models import EventKind
from incidents.services import record_event
from outbox import services as outbox
from whodunnet.bisect.errors import BisectError
from whodunnet.bisect.session import BisectSession, Candidate, Done
from whodunnet.bisect.spec import BisectSpec
from whodunnet.bisect.step import Action, Record, Retry, StepResult, Stop, next_action, run_step

logger = logging.getLogger(__name__)

# A worker that dies this many times running one step (OOM killer, host crash, a hard time
# limit) ends the job instead of taking the next worker down with it.
MAX_STEP_CLAIMS = 3


def claim_step(*, step_id: int, worker: str = "") -> uuid.UUID | None:
    """Take the step if it is queued or orphaned and its job is live; None otherwise."""
    now = timezone.now()
    token = uuid.uuid4()
    claimed = (
        BisectStep.objects.filter(pk=step_id, job__status__in=ACTIVE_JOB_STATUSES)
        .filter(Q(status=StepStatus.QUEUED) | Q(status=StepStatus.RUNNING, heartbeat_at__lt=workspace.stale_before()))
        .update(
            status=StepStatus.RUNNING,
            claim_token=token,
            started_at=now,
            heartbeat_at=now,
            claims=F("claims") + 1,
            worker=worker[:200],
            # Claimed: the message arrived. Should this worker die, the next sweep re-sends at once.
            resends=0,
            resend_after=None,
        )
    )
    return token if claimed else None


def _open_session(job: BisectJob, spec: BisectSpec) -> BisectSession:
    """The job's bisect on this worker: its worktree (reused when present), rebuilt from the stored log."""
    cache = workspace.cache()
    cache.ensure(spec.repo, [spec.good, spec.bad])
    worktree = workspace.worktree_path(f"job-{job.pk}")

    def rebuild() -> BisectSession:
        if job.log:
            return BisectSession.resume(spec, worktree, job.log)
        return BisectSession.start(spec, worktree)

    if (worktree / ".git").exists():
        # Reusing the worktree keeps ignored build output (an incremental kernel build);
        # replaying the log resets whatever bisect state was left in it.
        with contextlib.suppress(BisectError):
            return rebuild()
    cache.add_worktree(spec.repo, worktree, spec.bad)
    return rebuild()


def _remove_worktree(job: BisectJob) -> None:
    with contextlib.suppress(Exception):
        workspace.cache().remove_worktree(job.repo, workspace.worktree_path(f"job-{job.pk}"))


def execute_step(*, step_id: int, worker: str = "") -> None:
    """Claim one step, rebuild the bisect from the job's log, test the candidate, record it once."""
    token = claim_step(step_id=step_id, worker=worker)
    if token is None:
        logger.info("bisect step %s is not claimable (finished, cancelled or held elsewhere)", step_id)
        return
    claims = BisectStep.objects.filter(pk=step_id).values_list("claims", flat=True).first() or 0
    if claims > MAX_STEP_CLAIMS:
        fail_step(
            step_id=step_id,
            token=token,
            message=f"the worker running this step died {claims - 1} times (out of memory? a hard time limit?)",
        )
        return
    try:
        _run_claimed(step_id=step_id, token=token)
    except Exception as exc:
        logger.exception("bisect step %s crashed", step_id)
        fail_step(step_id=step_id, token=token, message=f"internal error: {type(exc).__name__}: {exc}")


def _run_claimed(*, step_id: int, token: uuid.UUID) -> None:
    step = BisectStep.objects.select_related("job").get(pk=step_id)
    job = step.job
    BisectJob.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=timezone.now()
    )
    spec = BisectSpec.from_json(job.spec())
    cancel = threading.Event()

    def beat() -> None:
        BisectStep.objects.filter(pk=step_id, claim_token=token, status=StepStatus.RUNNING).update(
            heartbeat_at=timezone.now()
        )
        # A cancelled job stops its running reproducer at the next beat, not at its end.
        if BisectJob.objects.filter(pk=job.pk, status=JobStatus.CANCELLED).exists():
            cancel.set()

    with workspace.heartbeat(beat):
        try:
            runner = workspace.runner(cancel=cancel)
            session = _open_session(job, spec)
            candidate = session.next_candidate()
        except BisectError as exc:
            fail_step(step_id=step_id, token=token, message=str(exc))
            return
        if isinstance(candidate, Done):  # the range needed no test at all
            _store_step(step_id=step_id, token=token, candidate=None, result=None, after=candidate, log=candidate.log)
            return
        BisectStep.objects.filter(pk=step_id, claim_token=token).update(
            commit=candidate.commit, title=candidate.title[:500], revisions_left=candidate.revisions_left
        )
        BisectJob.objects.filter(pk=job.pk, status__in=ACTIVE_JOB_STATUSES).update(
            revisions_left=candidate.revisions_left, steps_left=candidate.steps_left
        )
        with workspace.scratch_dir() as scratch:
            result = run_step(
                spec,
                session,
                runner,
                candidate.commit,
                attempt=step.attempt,
                scratch_root=scratch,
            )
        action = next_action(spec, result)
        after = session.record(candidate.commit, action.verdict) if isinstance(action, Record) else None
        log = session.log()
    _store_step(step_id=step_id, token=token, candidate=candidate, result=result, after=after, log=log, action=action)


def _store_step(
    *,
    step_id: int,
    token: uuid.UUID,
    candidate: Candidate | None,
    result: StepResult | None,
    after: Candidate | Done | None,
    log: str,
    action: Action | None = None,
) -> bool:
    """Record a step's verdict, the new log and progress, and queue the next step: one transaction."""
    with transaction.atomic():
        step = BisectStep.objects.select_for_update().filter(pk=step_id).first()
        if step is None:
            return False
        job = BisectJob.objects.select_for_update().get(pk=step.job_id)
        if step.claim_token != token or step.status != StepStatus.RUNNING or job.is_terminal:
            logger.warning("bisect step %s lost its claim or its job ended; its result is dropped", step_id)
            terminal = job.is_terminal
        else:
            terminal = _apply_step(
                job=job, step=step, candidate=candidate, result=result, after=after, log=log, action=action
            )
    if terminal:
        _remove_worktree(job)
    return True


def _apply_step(
    *,
    job: BisectJob,
    step: BisectStep,
    candidate: Candidate | None,
    result: StepResult | None,
    after: Candidate | Done | None,
    log: str,
    action: Action | None,
) -> bool:
    """Write one finished step into its job (the caller holds both rows locked); True when the job ended."""
    now = timezone.now()
    step.status = StepStatus.DONE
    step.finished_at = now
    step.claim_token = None
    if result is not None:
        step.verdict = result.verdict
        step.reason = result.reason
        step.runs = workspace.runs_json(result.runs)
        step.duration = result.duration
        job.mean_step_seconds = ((job.mean_step_seconds or 0.0) * job.steps_done + result.duration) / (
            job.steps_done + 1
        )
        job.steps_done += 1
    else:
        step.reason = "git needed no test in this range"
    step.save()
    job.log = log
    if candidate is not None:
        left = f"; {after.revisions_left} revisions left" if isinstance(after, Candidate) else ""
        record_event(
            incident=job.incident,
            kind=EventKind.BISECT_STEP,
            summary=f"Bisect #{job.pk} step {step.index + 1}: {candidate.commit[:12]} {step.verdict} "
            f"“{candidate.title}”{left}",
            data={
                "bisect": job.pk,
                "step": step.pk,
                "commit": candidate.commit,
                "verdict": step.verdict,
                "duration": step.duration,
            },
        )
    if isinstance(after, Done):
        _finish(job=job, done=after, now=now)
    elif isinstance(action, Record) and after is not None:
        job.revisions_left = after.revisions_left
        job.steps_left = after.steps_left
        nxt = BisectStep.objects.create(job=job, index=step.index + 1, attempt=0)
        dispatch.run_step(step_id=nxt.pk, time_limit=job.step_time_limit)
    elif isinstance(action, Retry):
        nxt = BisectStep.objects.create(job=job, index=step.index + 1, attempt=action.attempt)
        dispatch.run_step(step_id=nxt.pk, time_limit=job.step_time_limit)
    else:
        _fail(job=job, message=action.reason if isinstance(action, Stop) else step.reason, now=now)
    job.save()
    return job.is_terminal


def _finish(*, job: BisectJob, done: Done, now: dt.datetime) -> None:
    first = done.first_bad
    job.finished_at = now
    job.steps_left = 0
    job.possible_first_bad = list(done.possible_first_bad)
    if first is None:
        job.status = JobStatus.AMBIGUOUS
        job.revisions_left = len(done.possible_first_bad)
        listed = ", ".join(c[:12] for c in done.possible_first_bad[:10])
        summary = f"Bisect #{job.pk}: only skipped commits left; the first bad commit is one of {listed}"
        data: dict[str, Any] = {"bisect": job.pk, "possible_first_bad": job.possible_first_bad}
    else:
        job.status = JobStatus.FOUND
        job.revisions_left = 1
        job.first_bad_commit = first.id
        job.first_bad_title = first.title[:500]
        job.first_bad_author = first.author[:300]
        job.first_bad_date = first.date[:40]
        job.first_bad_files = list(first.files)
        job.first_bad_touches_path = first.touches_path
        summary = (
            f"Bisect #{job.pk} found the first bad commit {first.id[:12]} “{first.title}” by {first.author} "
            f"after {job.steps_done} step(s)"
        )
        data = {"bisect": job.pk, "commit": first.id, "title": first.title, "files": list(first.files)}
    record_event(incident=job.incident, kind=EventKind.BISECT_FINISHED, summary=summary, data=data)


def _fail(*, job: BisectJob, message: str, now: dt.datetime) -> None:
    job.status = JobStatus.FAILED
    job.error = message
    job.finished_at = now
    job.steps_left = None
    record_event(
        incident=job.incident,
        kind=EventKind.BISECT_FAILED,
        summary=f"Bisect #{job.pk} failed: {message}",
        data={"bisect": job.pk},
    )


def fail_step(*, step_id: int, token: uuid.UUID, message: str) -> None:
    """End a claimed step and its job with an error (git refused, or a bug), on the timeline too."""
    with transaction.atomic():
        step = BisectStep.objects.select_for_update().filter(pk=step_id, claim_token=token).first()
        if step is None:
            return
        job = BisectJob.objects.select_for_update().get(pk=step.job_id)
        if job.is_terminal:
            return
        now = timezone.now()
        step.status = StepStatus.DONE
        step.verdict = StepVerdict.ERROR
        step.reason = message
        step.finished_at = now
        step.claim_token = None
        step.save()
        _fail(job=job, message=message, now=now)
        job.save()


def reconcile_steps() -> int:
    """Re-queue steps whose message was lost or whose worker died; returns how many."""
    now = timezone.now()
    stale = workspace.stale_before()
    orphaned = (
        BisectStep.objects.filter(job__status__in=ACTIVE_JOB_STATUSES)
        .filter(Q(status=StepStatus.QUEUED, queued_at__lt=stale) | Q(status=StepStatus.RUNNING, heartbeat_at__lt=stale))
        .filter(Q(resend_after__isnull=True) | Q(resend_after__lt=now))
    )
    count = 0
    for step in orphaned.select_related("job"):
        dispatch.run_step(step_id=step.pk, time_limit=step.job.step_time_limit)
        BisectStep.objects.filter(pk=step.pk).update(
            resends=step.resends + 1,
            resend_after=outbox.next_resend(now=now, stale_seconds=settings.RUN_STALE_SECONDS, resends=step.resends),
        )
        count += 1
    if count:
        logger.info("re-queued %d orphaned bisect step(s)", count)
    return count
