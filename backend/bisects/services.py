"""Every write to bisect jobs, steps and schedules; the step and watch work the tasks call.

The job row is the truth: its ``log`` is the bisect log after the last recorded step, and any
worker continues the job from it (``BisectSession.resume``). A step task claims its step row
with a conditional UPDATE (queued, or running with a stale heartbeat), runs the reproducer,
then in one transaction - only while it still holds the claim - records the verdict, the new
log and the progress, and creates the next step row, enqueued on commit. ``(job, index)`` is
unique, so a redelivered or re-queued step is recorded once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError

from bisects import dispatch
from bisects.models import (
    ACTIVE_JOB_STATUSES,
    BisectJob,
    BisectStep,
    FiringStatus,
    JobStatus,
    RuleKind,
    Schedule,
    ScheduleFiring,
    ScheduleKind,
    StepStatus,
    StepVerdict,
    WatchState,
)
from incidents.models import EventKind, Incident
from incidents.services import record_event
from whodunnet.bisect.errors import BisectError, SpecError
from whodunnet.bisect.gitcmd import git, rev_parse
from whodunnet.bisect.repo import RepoCache
from whodunnet.bisect.runner import LocalRunner, RunOutcome
from whodunnet.bisect.session import BisectSession, Candidate, Done
from whodunnet.bisect.spec import BisectSpec
from whodunnet.bisect.step import (
    Action,
    Record,
    Retry,
    RunVerdict,
    StepResult,
    Stop,
    classify_run,
    combine,
    decided,
    next_action,
    run_step,
)

logger = logging.getLogger(__name__)

# The fields of BisectSpecFields a job or schedule is created with.
SPEC_FIELDS = (
    "repo",
    "path",
    "command",
    "repeats",
    "min_agreement",
    "rule",
    "metric",
    "threshold",
    "direction",
    "step_timeout",
    "memory_limit_mb",
    "on_inconclusive",
    "on_error",
    "runner",
)
SCHEDULE_FIELDS = (
    *SPEC_FIELDS,
    "name",
    "kind",
    "enabled",
    "good",
    "bad",
    "start_at",
    "window_start",
    "window_end",
    "tag_pattern",
    "branch",
    "interval_minutes",
)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Not possible in the job's current state."
    default_code = "conflict"


# --- validation ---------------------------------------------------------------------------


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


# --- jobs ---------------------------------------------------------------------------------


# A worker that dies this many times running one step (OOM killer, host crash, a hard time
# limit) ends the job instead of taking the next worker down with it.
MAX_STEP_CLAIMS = 3


def _describe(job: BisectJob) -> str:
    path = f" limited to {job.path}" if job.path else ""
    return f"{job.good} (good) .. {job.bad} (bad) in {job.repo}{path}"


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
        data={"bisect": job.pk, "good": good, "bad": bad, "repo": job.repo, "path": job.path},
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


# --- running a step (called by the step task on a worker) ------------------------------------


def _stale_before() -> dt.datetime:
    return timezone.now() - dt.timedelta(seconds=settings.RUN_STALE_SECONDS)


def claim_step(*, step_id: int, worker: str = "") -> uuid.UUID | None:
    """Take the step if it is queued or orphaned and its job is live; None otherwise."""
    now = timezone.now()
    token = uuid.uuid4()
    claimed = (
        BisectStep.objects.filter(pk=step_id, job__status__in=ACTIVE_JOB_STATUSES)
        .filter(Q(status=StepStatus.QUEUED) | Q(status=StepStatus.RUNNING, heartbeat_at__lt=_stale_before()))
        .update(
            status=StepStatus.RUNNING,
            claim_token=token,
            started_at=now,
            heartbeat_at=now,
            claims=F("claims") + 1,
            worker=worker[:200],
        )
    )
    return token if claimed else None


@contextlib.contextmanager
def _heartbeat(beat: Callable[[], None]) -> Iterator[None]:
    """Call ``beat`` every third of the stale time while the block runs (a step may take hours)."""
    stop = threading.Event()
    interval = max(0.2, settings.RUN_STALE_SECONDS / 3)

    def loop() -> None:
        try:
            while not stop.wait(interval):
                try:
                    beat()
                except Exception:
                    logger.exception("heartbeat failed")
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=loop, name="bisect-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _cache() -> RepoCache:
    return RepoCache(Path(settings.BISECT_CACHE_DIR) / "clones")


def _worktree_path(name: str) -> Path:
    return Path(settings.BISECT_CACHE_DIR) / "worktrees" / name


def _open_session(job: BisectJob, spec: BisectSpec) -> BisectSession:
    """The job's bisect on this worker: its worktree (reused when present), rebuilt from the stored log."""
    cache = _cache()
    cache.ensure(spec.repo, [spec.good, spec.bad])
    worktree = _worktree_path(f"job-{job.pk}")

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
        _cache().remove_worktree(job.repo, _worktree_path(f"job-{job.pk}"))


def _runs_json(runs: tuple[RunOutcome, ...] | list[RunOutcome]) -> list[dict[str, Any]]:
    limit = settings.BISECT_OUTPUT_TAIL_BYTES
    out = []
    for run in runs:
        data = run.to_json()
        for key in ("stdout_tail", "stderr_tail"):
            text: str = data.get(key) or ""
            if len(text) > limit:
                data[key] = text[-limit:]
        out.append(data)
    return out


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

    with _heartbeat(beat):
        try:
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
        scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=_ensure_dir(_worktree_path("scratch"))))
        try:
            result = run_step(
                spec, session, LocalRunner(cancel=cancel), candidate.commit, attempt=step.attempt, scratch_root=scratch
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        action = next_action(spec, result)
        after = session.record(candidate.commit, action.verdict) if isinstance(action, Record) else None
        log = session.log()
    _store_step(step_id=step_id, token=token, candidate=candidate, result=result, after=after, log=log, action=action)


def _ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


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
        step.runs = _runs_json(result.runs)
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
    """Re-queue steps (and watch checks) whose message was lost or whose worker died."""
    stale = _stale_before()
    orphaned = BisectStep.objects.filter(job__status__in=ACTIVE_JOB_STATUSES).filter(
        Q(status=StepStatus.QUEUED, queued_at__lt=stale) | Q(status=StepStatus.RUNNING, heartbeat_at__lt=stale)
    )
    count = 0
    for step in orphaned.select_related("job"):
        dispatch.run_step(step_id=step.pk, time_limit=step.job.step_time_limit)
        count += 1
    firings = ScheduleFiring.objects.filter(
        Q(status=FiringStatus.QUEUED, created_at__lt=stale) | Q(status=FiringStatus.RUNNING, heartbeat_at__lt=stale)
    )
    for firing_id in firings.values_list("pk", flat=True):
        dispatch.check_watch(firing_id=firing_id)
        count += 1
    if count:
        logger.info("re-queued %d orphaned bisect step(s)/watch check(s)", count)
    return count


# --- schedules ------------------------------------------------------------------------------


def check_schedule(*, values: Mapping[str, Any]) -> None:
    """Refuse a schedule that could never fire or whose bisect could never run."""
    kind = values.get("kind")
    errors: dict[str, list[str]] = {}
    if kind in (ScheduleKind.ONCE, ScheduleKind.NIGHTLY):
        for name in ("good", "bad"):
            if not values.get(name):
                errors[name] = ["Required to start a bisect."]
    if kind == ScheduleKind.ONCE and not values.get("start_at"):
        errors["start_at"] = ["Required for a schedule that starts once."]
    if kind == ScheduleKind.NIGHTLY:
        for name in ("window_start", "window_end"):
            if values.get(name) is None:
                errors[name] = ["Required for a nightly window."]
    if kind == ScheduleKind.WATCH:
        if bool(values.get("tag_pattern")) == bool(values.get("branch")):
            errors["tag_pattern"] = ["A watch follows either the newest tag matching a pattern or a branch."]
        if (values.get("interval_minutes") or 0) < 1:
            errors["interval_minutes"] = ["At least 1 minute."]
    if errors:
        raise ValidationError(errors)
    ref = str(values.get("bad") or values.get("branch") or values.get("tag_pattern") or "HEAD")
    check_spec(fields=values, good=str(values.get("good") or ref), bad=ref)


def _schedule_event(*, schedule: Schedule, user: User, verb: str) -> None:
    record_event(
        incident=schedule.incident,
        kind=EventKind.BISECT_SCHEDULED,
        actor=user,
        summary=f"Bisect schedule “{schedule.name}” ({schedule.kind}) {verb}",
        data={"schedule": schedule.pk, "kind": schedule.kind},
    )


@transaction.atomic
def create_schedule(*, user: User, incident: Incident, values: Mapping[str, Any]) -> Schedule:
    """Add a schedule or watch to an incident."""
    check_schedule(values=values)
    schedule = Schedule.objects.create(
        incident=incident, created_by=user, **{k: v for k, v in values.items() if k in SCHEDULE_FIELDS}
    )
    _schedule_event(schedule=schedule, user=user, verb="added")
    return schedule


@transaction.atomic
def update_schedule(*, user: User, schedule: Schedule, changes: Mapping[str, Any]) -> Schedule:
    """Change a schedule (e.g. disable it); the result must still be a valid schedule."""
    locked = Schedule.objects.select_for_update().get(pk=schedule.pk)
    values = {name: getattr(locked, name) for name in SCHEDULE_FIELDS}
    values.update({k: v for k, v in changes.items() if k in SCHEDULE_FIELDS})
    check_schedule(values=values)
    for name, value in values.items():
        setattr(locked, name, value)
    locked.save()
    _schedule_event(schedule=locked, user=user, verb="changed")
    return locked


@transaction.atomic
def delete_schedule(*, user: User, schedule: Schedule) -> None:
    """Remove a schedule; jobs it started stay."""
    _schedule_event(schedule=schedule, user=user, verb="removed")
    schedule.delete()


def _spec_values(schedule: Schedule) -> dict[str, Any]:
    return {name: getattr(schedule, name) for name in SPEC_FIELDS}


def tick_schedules(*, now: dt.datetime | None = None) -> int:
    """Fire every schedule due now, once per period (beat runs this); returns how many fired."""
    now = now or timezone.now()
    fired = 0
    for schedule in Schedule.objects.filter(enabled=True).select_related("incident"):
        planned = schedule.planned_for(now)
        if planned is None:
            continue
        with transaction.atomic():
            firing, created = ScheduleFiring.objects.get_or_create(schedule=schedule, planned_for=planned)
            if not created:
                continue
            fired += 1
            if schedule.kind == ScheduleKind.WATCH:
                dispatch.check_watch(firing_id=firing.pk)
                continue
            job = create_job(
                incident=schedule.incident,
                user=None,
                good=schedule.good,
                bad=schedule.bad,
                fields=_spec_values(schedule),
                firing=firing,
                why=f"Schedule “{schedule.name}”: ",
            )
            firing.status = FiringStatus.DONE
            firing.finished_at = timezone.now()
            firing.detail = f"started bisect #{job.pk}"
            firing.save(update_fields=["status", "finished_at", "detail"])
    return fired


def claim_firing(*, firing_id: int) -> uuid.UUID | None:
    token = uuid.uuid4()
    now = timezone.now()
    claimed = (
        ScheduleFiring.objects.filter(pk=firing_id)
        .filter(Q(status=FiringStatus.QUEUED) | Q(status=FiringStatus.RUNNING, heartbeat_at__lt=_stale_before()))
        .update(status=FiringStatus.RUNNING, claim_token=token, heartbeat_at=now)
    )
    return token if claimed else None


def _watched_head(clone: Path, schedule: Schedule) -> tuple[str, str]:
    if schedule.tag_pattern:
        # -rc tags sort before their release (v6.7-rc8 < v6.7), as kernel tags should.
        out = git(
            ["-c", "versionsort.suffix=-rc", "tag", "-l", schedule.tag_pattern, "--sort=-v:refname"], cwd=clone
        ).stdout
        tags = [line.strip() for line in out.splitlines() if line.strip()]
        if not tags:
            raise BisectError(f"no tag matches {schedule.tag_pattern!r}")
        ref = tags[0]
        commit = rev_parse(f"refs/tags/{ref}^{{commit}}", cwd=clone)
    else:
        ref = schedule.branch
        commit = rev_parse(f"refs/heads/{ref}^{{commit}}", cwd=clone)
    if commit is None:
        raise BisectError(f"{ref} does not name a commit")
    return ref, commit


def _test_commit(spec: BisectSpec, worktree: Path, commit: str) -> tuple[str, str, list[dict[str, Any]]]:
    """Run the reproducer R times at one commit and apply the agreement rule (no bisect involved)."""
    runner = LocalRunner()
    runs = []
    verdicts: list[RunVerdict] = []
    for i in range(spec.repeats):
        git(["reset", "--quiet", "--hard"], cwd=worktree, check=False)
        git(["clean", "-ffdq"], cwd=worktree, check=False)
        scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=_ensure_dir(_worktree_path("scratch"))))
        try:
            outcome = runner.run(spec, commit, worktree, scratch, run_index=i)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        runs.append(outcome)
        verdicts.append(classify_run(spec.rule, outcome))
        if spec.stop_early and decided(spec, verdicts):
            break
    verdict, reason = combine(spec, verdicts)
    return verdict, reason, _runs_json(runs)


def check_watch(*, firing_id: int) -> None:
    """Test a watch's newest tag (or branch head); start one bisect when it turned bad after good.

    A no-op when the firing is done or held by a live worker; an unexpected exception (a bug) fails the firing.
    """
    token = claim_firing(firing_id=firing_id)
    if token is None:
        return
    try:
        _check_claimed_watch(firing_id=firing_id, token=token)
    except Exception as exc:
        logger.exception("watch check %s crashed", firing_id)
        _end_firing(
            firing_id=firing_id,
            token=token,
            status=FiringStatus.FAILED,
            detail=f"internal error: {type(exc).__name__}: {exc}",
        )


def _check_claimed_watch(*, firing_id: int, token: uuid.UUID) -> None:
    firing = ScheduleFiring.objects.select_related("schedule").get(pk=firing_id)
    schedule = firing.schedule

    def beat() -> None:
        ScheduleFiring.objects.filter(pk=firing_id, claim_token=token).update(heartbeat_at=timezone.now())

    ref = commit = verdict = ""
    detail = ""
    try:
        with _heartbeat(beat):
            cache = _cache()
            clone = cache.ensure(schedule.repo, refresh=True)
            ref, commit = _watched_head(clone, schedule)
            if commit == schedule.last_checked_commit and schedule.state != WatchState.UNKNOWN:
                detail = f"{ref} is still {commit[:12]}, tested before"
            else:
                spec = BisectSpec.from_json(schedule.spec_json(good=commit, bad=commit))
                worktree = cache.add_worktree(schedule.repo, _worktree_path(f"watch-{schedule.pk}"), commit)
                try:
                    verdict, detail, _runs = _test_commit(spec, worktree, commit)
                finally:
                    cache.remove_worktree(schedule.repo, worktree)
    except (BisectError, SpecError) as exc:
        _end_firing(
            firing_id=firing_id, token=token, status=FiringStatus.FAILED, ref=ref, commit=commit, detail=str(exc)
        )
        return
    with transaction.atomic():
        locked = Schedule.objects.select_for_update().get(pk=schedule.pk)
        held = ScheduleFiring.objects.select_for_update().filter(pk=firing_id, claim_token=token).first()
        if held is None:
            return
        if verdict in (StepVerdict.GOOD, StepVerdict.BAD):
            locked.last_checked_commit = commit
            locked.last_checked_ref = ref
            locked.last_checked_at = timezone.now()
        if verdict == StepVerdict.GOOD:
            locked.state = WatchState.GOOD
            locked.last_good_commit = commit
            locked.last_good_ref = ref
        elif verdict == StepVerdict.BAD:
            if locked.state == WatchState.GOOD and locked.last_good_commit:
                job = create_job(
                    incident=locked.incident,
                    user=None,
                    good=locked.last_good_commit,
                    bad=commit,
                    fields=_spec_values(locked),
                    firing=held,
                    why=f"Watch “{locked.name}”: {ref} regressed against {locked.last_good_ref}. ",
                )
                detail = f"{detail}; started bisect #{job.pk}"
            elif locked.state == WatchState.UNKNOWN:
                detail = f"{detail}; bad with no earlier good result to bisect from"
            locked.state = WatchState.BAD
        locked.save()
        held.status = FiringStatus.DONE
        held.ref = ref
        held.commit = commit
        held.verdict = verdict
        held.detail = detail
        held.finished_at = timezone.now()
        held.claim_token = None
        held.save()


def _end_firing(*, firing_id: int, token: uuid.UUID, status: str, detail: str, ref: str = "", commit: str = "") -> None:
    ScheduleFiring.objects.filter(pk=firing_id, claim_token=token).update(
        status=status, ref=ref, commit=commit, detail=detail[:5000], finished_at=timezone.now(), claim_token=None
    )


def jobs_started_by(*, schedule: Schedule) -> QuerySet[BisectJob]:
    return BisectJob.objects.filter(firing__schedule=schedule)
