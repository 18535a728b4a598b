"""Bisect jobs (the truth about a running bisect), their steps, and schedules that start them.

The job row holds the bisect log after every recorded step: any worker continues the job from
that text alone (``BisectSession.resume``). Each step is one Celery task that claims its
``BisectStep`` row with a conditional UPDATE; ``(job, index)`` is unique, so a step is
recorded once however often its message is delivered.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.conf import settings
from django.db import models

from incidents.models import Incident


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FOUND = "found", "Found"
    AMBIGUOUS = "ambiguous", "Ambiguous (only skipped commits left)"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


TERMINAL_JOB_STATUSES = frozenset({JobStatus.FOUND, JobStatus.AMBIGUOUS, JobStatus.FAILED, JobStatus.CANCELLED})
ACTIVE_JOB_STATUSES = frozenset({JobStatus.QUEUED, JobStatus.RUNNING})


class RuleKind(models.TextChoices):
    EXIT_CODE = "exit_code", "Exit code (git bisect run)"
    METRIC = "metric", "Measured value against a threshold"


class Direction(models.TextChoices):
    ABOVE_IS_BAD = "above_is_bad", "Above the threshold is bad"
    BELOW_IS_BAD = "below_is_bad", "Below the threshold is bad"


class InconclusivePolicy(models.TextChoices):
    RETRY_THEN_SKIP = "retry_then_skip", "Run the step once more, then skip the commit"
    SKIP = "skip", "Skip the commit"


class ErrorPolicy(models.TextChoices):
    STOP = "stop", "Stop the job"
    SKIP = "skip", "Skip the commit"


class RunnerKind(models.TextChoices):
    LOCAL = "local", "On the worker"


class BisectSpecFields(models.Model):
    """What a bisect runs: shared by jobs and by the schedules that start jobs."""

    repo = models.CharField(max_length=1000)
    path = models.CharField(max_length=500, blank=True)
    command = models.TextField()
    repeats = models.PositiveSmallIntegerField(default=1)
    min_agreement = models.FloatField(default=0.8)
    rule = models.CharField(max_length=10, choices=RuleKind.choices, default=RuleKind.EXIT_CODE)
    metric = models.CharField(max_length=100, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    direction = models.CharField(max_length=12, choices=Direction.choices, default=Direction.ABOVE_IS_BAD)
    step_timeout = models.FloatField(default=3600.0)
    memory_limit_mb = models.PositiveIntegerField(null=True, blank=True)
    on_inconclusive = models.CharField(
        max_length=16, choices=InconclusivePolicy.choices, default=InconclusivePolicy.RETRY_THEN_SKIP
    )
    on_error = models.CharField(max_length=4, choices=ErrorPolicy.choices, default=ErrorPolicy.STOP)
    runner = models.CharField(max_length=10, choices=RunnerKind.choices, default=RunnerKind.LOCAL)
    # The reproducer's environment is exactly this (plus PATH, HOME, LANG, TMPDIR and WHODUNNET_*):
    # nothing of the worker's ever reaches it.
    env = models.JSONField(default=dict, blank=True)
    network = models.BooleanField(default=False)

    class Meta:
        abstract = True

    def spec_json(self, *, good: str, bad: str) -> dict[str, Any]:
        """The engine's ``BisectSpec.to_json`` shape for this range."""
        rule: dict[str, Any] = {"kind": "exit_code"}
        if self.rule == RuleKind.METRIC:
            rule = {"kind": "metric", "metric": self.metric, "threshold": self.threshold, "direction": self.direction}
        return {
            "repo": self.repo,
            "good": good,
            "bad": bad,
            "command": self.command,
            "path": self.path or None,
            "repeats": self.repeats,
            "rule": rule,
            "step_timeout": self.step_timeout,
            "memory_limit_mb": self.memory_limit_mb,
            "min_agreement": self.min_agreement,
            "on_inconclusive": self.on_inconclusive,
            "on_error": self.on_error,
            "env": dict(self.env or {}),
            "network": self.network,
        }


# The fields a job or schedule is created with, in the order they are declared (and shown in the API).
SPEC_FIELDS = tuple(field.name for field in BisectSpecFields._meta.fields)


class BisectJob(BisectSpecFields):
    """One bisect between a good and a bad ref. The UI reads this row, never Celery's results."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="bisects")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set when a schedule started the job; a firing starts at most one job.
    firing = models.OneToOneField(
        "ScheduleFiring", null=True, blank=True, on_delete=models.SET_NULL, related_name="job"
    )
    good = models.CharField(max_length=200)
    bad = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    log = models.TextField(blank=True)
    # The result.
    first_bad_commit = models.CharField(max_length=64, blank=True)
    first_bad_title = models.CharField(max_length=500, blank=True)
    first_bad_author = models.CharField(max_length=300, blank=True)
    first_bad_date = models.CharField(max_length=40, blank=True)
    first_bad_files = models.JSONField(default=list, blank=True)
    first_bad_touches_path = models.BooleanField(null=True, blank=True)
    possible_first_bad = models.JSONField(default=list, blank=True)
    # Progress, written with every recorded step.
    steps_done = models.PositiveIntegerField(default=0)
    revisions_left = models.PositiveIntegerField(null=True, blank=True)
    steps_left = models.PositiveIntegerField(null=True, blank=True)
    mean_step_seconds = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["incident", "status"])]

    def __str__(self) -> str:
        return f"bisect {self.pk} {self.good}..{self.bad}"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_JOB_STATUSES

    @property
    def seconds_left(self) -> float | None:
        """Estimated time left: mean step time x estimated steps left."""
        if self.is_terminal:
            return 0.0
        if self.mean_step_seconds is None or self.steps_left is None:
            return None
        return self.mean_step_seconds * self.steps_left

    def spec(self) -> dict[str, Any]:
        return self.spec_json(good=self.good, bad=self.bad)

    @property
    def step_time_limit(self) -> int:
        """Celery's hard limit for one step task (s): every run at its timeout, plus room for git (a first clone)."""
        return max(int(settings.CELERY_TASK_TIME_LIMIT), int(self.repeats * (self.step_timeout + 30)) + 3600)


def steps_for(revisions: int) -> int:
    """ceil(log2(revisions)): the tests a bisect over that many revisions needs if none is skipped."""
    return math.ceil(math.log2(revisions)) if revisions > 1 else 0


class StepStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    CANCELLED = "cancelled", "Cancelled"


class StepVerdict(models.TextChoices):
    GOOD = "good", "Good"
    BAD = "bad", "Bad"
    SKIP = "skip", "Skip (untestable)"
    ERROR = "error", "Error"
    INCONCLUSIVE = "inconclusive", "Inconclusive"


class BisectStep(models.Model):
    """One test of one candidate commit (R runs of the reproducer), claimed by one worker at a time.

    ``commit`` is filled in when a worker has rebuilt the bisect from the job's log and knows
    the candidate. ``attempt`` > 0 runs a commit again (an inconclusive step, or a retry).
    """

    job = models.ForeignKey(BisectJob, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    attempt = models.PositiveSmallIntegerField(default=0)
    commit = models.CharField(max_length=64, blank=True)
    title = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=StepStatus.choices, default=StepStatus.QUEUED)
    verdict = models.CharField(max_length=12, choices=StepVerdict.choices, blank=True)
    reason = models.TextField(blank=True)
    runs = models.JSONField(default=list, blank=True)
    revisions_left = models.PositiveIntegerField(null=True, blank=True)
    duration = models.FloatField(null=True, blank=True)
    claims = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The reconciler's re-sends of a row still waiting: a backlog must not grow a duplicate message per sweep.
    resends = models.PositiveSmallIntegerField(default=0)
    resend_after = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="unique_bisect_step_index")]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]


class ScheduleKind(models.TextChoices):
    ONCE = "once", "Start once at a time"
    NIGHTLY = "nightly", "Start every night in a window"
    WATCH = "watch", "Watch the newest tag or a branch head"


class WatchState(models.TextChoices):
    UNKNOWN = "unknown", "Not checked yet"
    GOOD = "good", "Good"
    BAD = "bad", "Bad (a bisect was started)"


class Schedule(BisectSpecFields):
    """Starts bisect jobs later: once at a time, nightly in a window, or when a watched ref regresses.

    ``once`` and ``nightly`` start a bisect of ``good``..``bad``. A ``watch`` runs the reproducer
    every ``interval_minutes`` on the newest tag matching ``tag_pattern`` (or the head of
    ``branch``); when it turns bad after a good result it starts one bisect between the last
    good commit and the bad one, then waits for a good result before it can start another.
    """

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="bisect_schedules")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=8, choices=ScheduleKind.choices)
    enabled = models.BooleanField(default=True)
    good = models.CharField(max_length=200, blank=True)
    bad = models.CharField(max_length=200, blank=True)
    start_at = models.DateTimeField(null=True, blank=True)
    window_start = models.TimeField(null=True, blank=True)
    window_end = models.TimeField(null=True, blank=True)
    tag_pattern = models.CharField(max_length=200, blank=True)
    branch = models.CharField(max_length=200, blank=True)
    interval_minutes = models.PositiveIntegerField(default=60)
    # Watch state, written by the check task.
    state = models.CharField(max_length=8, choices=WatchState.choices, default=WatchState.UNKNOWN)
    last_good_commit = models.CharField(max_length=64, blank=True)
    last_good_ref = models.CharField(max_length=200, blank=True)
    last_checked_commit = models.CharField(max_length=64, blank=True)
    last_checked_ref = models.CharField(max_length=200, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    def planned_for(self, now: dt.datetime) -> dt.datetime | None:
        """The period this schedule is due in at ``now`` (its firing key), or None if not due."""
        if not self.enabled:
            return None
        if self.kind == ScheduleKind.ONCE:
            return self.start_at if self.start_at is not None and now >= self.start_at else None
        if self.kind == ScheduleKind.NIGHTLY:
            if self.window_start is None or self.window_end is None:
                return None
            for day in (now.date(), now.date() - dt.timedelta(days=1)):
                opens = dt.datetime.combine(day, self.window_start, tzinfo=dt.UTC)
                length = dt.datetime.combine(day, self.window_end, tzinfo=dt.UTC) - opens
                if length <= dt.timedelta(0):  # the window crosses midnight
                    length += dt.timedelta(days=1)
                if opens <= now < opens + length:
                    return opens
            return None
        # A watch: fixed periods since the epoch, so every tick in a period names the same one.
        period = max(1, self.interval_minutes) * 60
        seconds = int(now.timestamp())
        return dt.datetime.fromtimestamp(seconds - seconds % period, tz=dt.UTC)


class FiringStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ScheduleFiring(models.Model):
    """A schedule's firing for one period. The unique key makes it fire once per period.

    Beat restarting, two ticks in one period, or a tick delivered twice all try to insert the
    same (schedule, planned_for) row; only the first insert does anything.
    """

    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="firings")
    planned_for = models.DateTimeField()
    status = models.CharField(max_length=8, choices=FiringStatus.choices, default=FiringStatus.QUEUED)
    claim_token = models.UUIDField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    ref = models.CharField(max_length=200, blank=True)
    commit = models.CharField(max_length=64, blank=True)
    verdict = models.CharField(max_length=12, blank=True)
    detail = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-planned_for"]
        constraints = [
            models.UniqueConstraint(fields=["schedule", "planned_for"], name="unique_schedule_firing_per_period")
        ]
