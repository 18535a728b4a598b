"""Bisect schedules and watches: their writes, the beat tick that fires them, and a watch's check on a worker.

A schedule starts jobs later (once, in a nightly window) or watches a branch or tag pattern and starts a bisect
when a new head turns bad after a good one. Each firing is a ``ScheduleFiring`` row, unique per (schedule,
planned time), so a schedule fires once per period however often beat ticks (docs/decisions/0006).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from bisects import dispatch, workspace
from bisects.models import SPEC_FIELDS, FiringStatus, Schedule, ScheduleFiring, ScheduleKind, StepVerdict, WatchState
from bisects.services.jobs import check_spec, create_job
from incidents.models import EventKind, Incident
from incidents.services import record_event
from whodunnet.bisect.errors import BisectError, SpecError
from whodunnet.bisect.gitcmd import git, rev_parse
from whodunnet.bisect.spec import BisectSpec
from whodunnet.bisect.step import RunVerdict, classify_run, combine, decided

logger = logging.getLogger(__name__)

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
    """Take the watch check if it is queued or orphaned; None when it is done or held by a live worker."""
    token = uuid.uuid4()
    now = timezone.now()
    claimed = (
        ScheduleFiring.objects.filter(pk=firing_id)
        .filter(
            Q(status=FiringStatus.QUEUED) | Q(status=FiringStatus.RUNNING, heartbeat_at__lt=workspace.stale_before())
        )
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
    runner = workspace.runner()
    runs = []
    verdicts: list[RunVerdict] = []
    for i in range(spec.repeats):
        git(["reset", "--quiet", "--hard"], cwd=worktree, check=False)
        git(["clean", "-ffdq"], cwd=worktree, check=False)
        with workspace.scratch_dir() as scratch:
            outcome = runner.run(spec, commit, worktree, scratch, run_index=i)
        runs.append(outcome)
        verdicts.append(classify_run(spec.rule, outcome))
        if spec.stop_early and decided(spec, verdicts):
            break
    verdict, reason = combine(spec, verdicts)
    return verdict, reason, workspace.runs_json(runs)


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
        with workspace.heartbeat(beat):
            cache = workspace.cache()
            clone = cache.ensure(schedule.repo, refresh=True)
            ref, commit = _watched_head(clone, schedule)
            if commit == schedule.last_checked_commit and schedule.state != WatchState.UNKNOWN:
                detail = f"{ref} is still {commit[:12]}, tested before"
            else:
                spec = BisectSpec.from_json(schedule.spec_json(good=commit, bad=commit))
                worktree = cache.add_worktree(schedule.repo, workspace.worktree_path(f"watch-{schedule.pk}"), commit)
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


def reconcile_firings() -> int:
    """Re-queue watch checks whose message was lost or whose worker died; returns how many."""
    stale = workspace.stale_before()
    firings = ScheduleFiring.objects.filter(
        Q(status=FiringStatus.QUEUED, created_at__lt=stale) | Q(status=FiringStatus.RUNNING, heartbeat_at__lt=stale)
    )
    count = 0
    for firing_id in firings.values_list("pk", flat=True):
        dispatch.check_watch(firing_id=firing_id)
        count += 1
    if count:
        logger.info("re-queued %d orphaned watch check(s)", count)
    return count
