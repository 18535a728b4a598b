"""Bisect API shapes. Every field says what it is (help_text), for the schema and the UI."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bisects.models import (
    SPEC_FIELDS,
    BisectJob,
    BisectStep,
    Direction,
    ErrorPolicy,
    FiringStatus,
    InconclusivePolicy,
    JobStatus,
    RuleKind,
    RunnerKind,
    Schedule,
    ScheduleFiring,
    ScheduleKind,
    StepStatus,
    StepVerdict,
    WatchState,
)
from whodunnet.bisect.errors import SpecError
from whodunnet.bisect.spec import check_env

MAX_REPEATS = 50


class SpecInputMixin(serializers.Serializer[Any]):
    """The reproducer and how to judge it: shared by jobs and schedules."""

    repo = serializers.CharField(
        max_length=1000, help_text="Git repository: a URL or a path on the workers (e.g. a kernel mirror)."
    )
    path = serializers.CharField(
        max_length=500, required=False, default="", allow_blank=True, help_text="Only commits touching this path."
    )
    command = serializers.CharField(
        help_text="Reproducer, run by /bin/sh -c in the worktree at the candidate commit (several lines make a "
        "script), inside the workers' sandbox: an unprivileged user, no network unless asked, only the worktree and "
        "WHODUNNET_SCRATCH writable. Environment: PATH, HOME, LANG, TMPDIR, the variables in env, and "
        "WHODUNNET_COMMIT, WHODUNNET_SCRATCH, WHODUNNET_WORKTREE, WHODUNNET_RUN."
    )
    repeats = serializers.IntegerField(
        min_value=1, max_value=MAX_REPEATS, default=1, help_text="Runs per step, combined by the agreement rule."
    )
    min_agreement = serializers.FloatField(
        default=0.8,
        min_value=0.5,
        max_value=1.0,
        help_text="Share of the runs that must agree for good/bad (above 0.5; 0.8 = 4 of 5).",
    )
    rule = serializers.ChoiceField(
        choices=RuleKind.choices,
        default=RuleKind.EXIT_CODE,
        help_text="exit_code: 0 good, 125 skip, 1-127 bad; metric: a printed name=value against a threshold.",
    )
    metric = serializers.CharField(
        max_length=100, required=False, default="", allow_blank=True, help_text="Metric name (rule metric)."
    )
    threshold = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text="Metric threshold (rule metric)."
    )
    direction = serializers.ChoiceField(
        choices=Direction.choices, default=Direction.ABOVE_IS_BAD, help_text="Which side of the threshold is bad."
    )
    step_timeout = serializers.FloatField(
        default=3600.0, min_value=1.0, help_text="Wall-time limit of one run, in seconds."
    )
    memory_limit_mb = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, help_text="Address-space limit per run (MiB)."
    )
    on_inconclusive = serializers.ChoiceField(
        choices=InconclusivePolicy.choices,
        default=InconclusivePolicy.RETRY_THEN_SKIP,
        help_text="When the runs do not agree: run once more then skip, or skip at once.",
    )
    on_error = serializers.ChoiceField(
        choices=ErrorPolicy.choices, default=ErrorPolicy.STOP, help_text="When a step errors: stop or skip the commit."
    )
    runner = serializers.ChoiceField(
        choices=RunnerKind.choices, default=RunnerKind.LOCAL, help_text="Where the reproducer runs."
    )
    env = serializers.DictField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        required=False,
        default=dict,
        help_text="Variables the reproducer gets, NAME: value (names of letters, digits and _, not starting with "
        "WHODUNNET_). It gets nothing else of the worker's environment.",
    )
    network = serializers.BooleanField(
        default=False,
        help_text="Give the reproducer the worker's network. Off: it has only a loopback of its own.",
    )

    def validate_env(self, value: dict[str, str]) -> dict[str, str]:
        try:
            check_env(value)
        except SpecError as exc:
            raise serializers.ValidationError(str(exc)) from None
        return value


class BisectCreateSerializer(SpecInputMixin):
    good = serializers.CharField(max_length=200, help_text="A ref or commit where the reproducer passes.")
    bad = serializers.CharField(max_length=200, help_text="A ref or commit where it fails.")


class RunSerializer(serializers.Serializer[Any]):
    exit_code = serializers.IntegerField(allow_null=True, help_text="Exit status; negative: a signal; null: none.")
    timed_out = serializers.BooleanField(help_text="Killed at the step timeout.")
    duration = serializers.FloatField(help_text="Seconds.")
    stdout_tail = serializers.CharField(help_text="The end of its stdout.")
    stderr_tail = serializers.CharField(help_text="The end of its stderr.")
    metric_value = serializers.FloatField(allow_null=True, help_text="The value it printed for the metric.")
    error = serializers.CharField(allow_null=True, help_text="Why it could not be judged (timeout, start failure).")


class BisectStepSerializer(serializers.ModelSerializer[BisectStep]):
    id = serializers.IntegerField(read_only=True, help_text="Step id.")
    index = serializers.IntegerField(read_only=True, help_text="0, 1, ... in the order run.")
    attempt = serializers.IntegerField(read_only=True, help_text="0; 1 or more when a commit is run again.")
    commit = serializers.CharField(read_only=True, help_text="Candidate commit; empty until a worker picks it.")
    title = serializers.CharField(read_only=True, help_text="Its subject line.")
    status = serializers.ChoiceField(choices=StepStatus.choices, read_only=True, help_text="Where the step is.")
    verdict = serializers.ChoiceField(
        choices=[("", "None yet"), *StepVerdict.choices], read_only=True, help_text="The step's verdict once done."
    )
    reason = serializers.CharField(read_only=True, help_text="How the runs combined into the verdict.")
    runs = RunSerializer(many=True, read_only=True, help_text="Each run of the reproducer.")
    revisions_left = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Revisions that could be the first bad one at this step."
    )
    duration = serializers.FloatField(read_only=True, allow_null=True, help_text="Seconds, all runs.")
    claims = serializers.IntegerField(read_only=True, help_text="Times a worker claimed it (2+: a worker died).")
    worker = serializers.CharField(read_only=True, help_text="Host of the worker that ran it last.")
    queued_at = serializers.DateTimeField(read_only=True, help_text="When it was queued.")
    started_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When a worker last took it.")
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it was recorded.")

    class Meta:
        model = BisectStep
        fields = [
            "id",
            "index",
            "attempt",
            "commit",
            "title",
            "status",
            "verdict",
            "reason",
            "runs",
            "revisions_left",
            "duration",
            "claims",
            "worker",
            "queued_at",
            "started_at",
            "finished_at",
        ]


class KnownChangeSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="Short commit id the knowledge base files it under.")
    title = serializers.CharField(help_text="Commit title.")
    first_release = serializers.CharField(help_text="First upstream release with the change.")
    change = serializers.CharField(help_text="What it changes for users.")
    sources = serializers.ListField(child=serializers.CharField(), help_text="Where it was verified.")


class FirstBadSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(source="first_bad_commit", help_text="Commit id.")
    title = serializers.CharField(source="first_bad_title", help_text="Subject line.")
    author = serializers.CharField(source="first_bad_author", help_text="Name <email>.")
    date = serializers.CharField(source="first_bad_date", help_text="Author date, ISO 8601.")
    files = serializers.ListField(
        child=serializers.CharField(), source="first_bad_files", help_text="Files it changed."
    )
    touches_path = serializers.BooleanField(
        source="first_bad_touches_path", allow_null=True, help_text="Whether it touches the path filter (null: none)."
    )
    known_change = serializers.SerializerMethodField(
        help_text="The kernel knowledge base's entry for this commit, when it has one."
    )

    @extend_schema_field(KnownChangeSerializer(allow_null=True))
    def get_known_change(self, job: BisectJob) -> dict[str, Any] | None:
        from whodunnet.kernel.kb import changes

        commit = job.first_bad_commit
        for entry in changes():
            if commit and (entry["commit"].startswith(commit) or commit.startswith(entry["commit"])):
                return {
                    "id": entry["id"],
                    "title": entry["title"],
                    "first_release": entry["first_release"],
                    "change": entry.get("change", ""),
                    "sources": list(entry.get("sources", [])),
                }
        return None


class ProgressSerializer(serializers.Serializer[Any]):
    steps_done = serializers.IntegerField(help_text="Steps recorded.")
    revisions_left = serializers.IntegerField(allow_null=True, help_text="Commits that can still be the first bad one.")
    steps_left = serializers.IntegerField(
        allow_null=True, help_text="Estimated steps left: ceil(log2(revisions left)), more if commits are skipped."
    )
    mean_step_seconds = serializers.FloatField(allow_null=True, help_text="Mean duration of a step so far.")
    seconds_left = serializers.FloatField(allow_null=True, help_text="Estimated time left: mean step x steps left.")


class BisectJobSerializer(serializers.ModelSerializer[BisectJob]):
    id = serializers.IntegerField(read_only=True, help_text="Bisect id.")
    incident = serializers.IntegerField(source="incident_id", read_only=True, help_text="Incident it belongs to.")
    status = serializers.ChoiceField(choices=JobStatus.choices, read_only=True, help_text="Where the job is.")
    finished = serializers.BooleanField(source="is_terminal", read_only=True, help_text="True in a terminal status.")
    good = serializers.CharField(read_only=True, help_text="Good ref or commit.")
    bad = serializers.CharField(read_only=True, help_text="Bad ref or commit.")
    repo = serializers.CharField(read_only=True, help_text="Repository.")
    path = serializers.CharField(read_only=True, help_text="Path filter; empty for none.")
    command = serializers.CharField(read_only=True, help_text="Reproducer.")
    repeats = serializers.IntegerField(read_only=True, help_text="Runs per step.")
    min_agreement = serializers.FloatField(read_only=True, help_text="Share of runs that must agree.")
    rule = serializers.ChoiceField(choices=RuleKind.choices, read_only=True, help_text="Verdict rule.")
    metric = serializers.CharField(read_only=True, help_text="Metric name (rule metric).")
    threshold = serializers.FloatField(read_only=True, allow_null=True, help_text="Metric threshold.")
    direction = serializers.ChoiceField(choices=Direction.choices, read_only=True, help_text="Which side is bad.")
    step_timeout = serializers.FloatField(read_only=True, help_text="Seconds per run.")
    memory_limit_mb = serializers.IntegerField(read_only=True, allow_null=True, help_text="MiB per run.")
    on_inconclusive = serializers.ChoiceField(
        choices=InconclusivePolicy.choices, read_only=True, help_text="Inconclusive-step policy."
    )
    on_error = serializers.ChoiceField(choices=ErrorPolicy.choices, read_only=True, help_text="Step-error policy.")
    runner = serializers.ChoiceField(choices=RunnerKind.choices, read_only=True, help_text="Runner.")
    env = serializers.DictField(
        child=serializers.CharField(), read_only=True, help_text="Variables the reproducer gets, beyond the run's own."
    )
    network = serializers.BooleanField(read_only=True, help_text="Whether the reproducer gets the network.")
    started_by = serializers.SerializerMethodField(help_text="Who started it; null when a schedule did.")
    schedule = serializers.SerializerMethodField(help_text="Id of the schedule that started it, if one did.")
    progress = serializers.SerializerMethodField(help_text="Steps done and estimates of what is left.")
    first_bad = serializers.SerializerMethodField(help_text="The first bad commit once found.")
    possible_first_bad = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="When ambiguous: the commits it can be."
    )
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was queued.")
    started_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When its first step ran.")
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it ended.")
    error = serializers.CharField(read_only=True, help_text="Why it failed; empty otherwise.")

    class Meta:
        model = BisectJob
        fields = [
            "id",
            "incident",
            "status",
            "finished",
            "good",
            "bad",
            *SPEC_FIELDS,
            "started_by",
            "schedule",
            "progress",
            "first_bad",
            "possible_first_bad",
            "created_at",
            "started_at",
            "finished_at",
            "error",
        ]

    def get_started_by(self, job: BisectJob) -> str | None:
        return job.started_by.get_username() if job.started_by else None

    def get_schedule(self, job: BisectJob) -> int | None:
        return job.firing.schedule_id if job.firing else None

    @staticmethod
    def _progress(job: BisectJob) -> dict[str, Any]:
        return {
            "steps_done": job.steps_done,
            "revisions_left": job.revisions_left,
            "steps_left": job.steps_left,
            "mean_step_seconds": job.mean_step_seconds,
            "seconds_left": job.seconds_left,
        }

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, job: BisectJob) -> dict[str, Any]:
        return dict(ProgressSerializer(self._progress(job)).data)

    @extend_schema_field(FirstBadSerializer(allow_null=True))
    def get_first_bad(self, job: BisectJob) -> dict[str, Any] | None:
        return dict(FirstBadSerializer(job).data) if job.first_bad_commit else None


class BisectDetailSerializer(BisectJobSerializer):
    steps = BisectStepSerializer(many=True, read_only=True, help_text="Every step in order, the live one last.")
    log = serializers.CharField(read_only=True, help_text="The bisect log (git bisect log) after the last step.")

    class Meta(BisectJobSerializer.Meta):
        fields = [*BisectJobSerializer.Meta.fields, "steps", "log"]


class KernelTagSerializer(serializers.Serializer[Any]):
    input = serializers.CharField(help_text="What was given.")
    release = serializers.CharField(help_text="The kernel release found in it.")
    tag = serializers.CharField(help_text="Upstream tag to use as a good or bad ref, e.g. v6.6.10.")
    exact = serializers.BooleanField(
        help_text="False when the tag is only the upstream base (distribution kernels that keep X.Y.0)."
    )
    note = serializers.CharField(help_text="What kind of release it is.")


class ScheduleFiringSerializer(serializers.ModelSerializer[ScheduleFiring]):
    id = serializers.IntegerField(read_only=True, help_text="Firing id.")
    planned_for = serializers.DateTimeField(read_only=True, help_text="The period it fired for (its unique key).")
    status = serializers.ChoiceField(choices=FiringStatus.choices, read_only=True, help_text="Where it is.")
    ref = serializers.CharField(read_only=True, help_text="Watch: the tag or branch tested.")
    commit = serializers.CharField(read_only=True, help_text="Watch: the commit tested.")
    verdict = serializers.CharField(read_only=True, help_text="Watch: good, bad, skip, error or inconclusive.")
    detail = serializers.CharField(read_only=True, help_text="What happened, in words.")
    bisect = serializers.SerializerMethodField(help_text="Id of the bisect it started, if any.")
    created_at = serializers.DateTimeField(read_only=True, help_text="When it fired.")
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it finished.")

    class Meta:
        model = ScheduleFiring
        fields = [
            "id",
            "planned_for",
            "status",
            "ref",
            "commit",
            "verdict",
            "detail",
            "bisect",
            "created_at",
            "finished_at",
        ]

    def get_bisect(self, firing: ScheduleFiring) -> int | None:
        job = getattr(firing, "job", None)
        return job.pk if job is not None else None


class ScheduleInputSerializer(SpecInputMixin):
    name = serializers.CharField(max_length=200, help_text="A name for people.")
    kind = serializers.ChoiceField(
        choices=ScheduleKind.choices, help_text="once (at start_at), nightly (in a window), watch (a tag or branch)."
    )
    enabled = serializers.BooleanField(default=True, help_text="Disabled schedules never fire.")
    good = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True, help_text="once/nightly: the good ref."
    )
    bad = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True, help_text="once/nightly: the bad ref."
    )
    start_at = serializers.DateTimeField(required=False, allow_null=True, default=None, help_text="once: when.")
    window_start = serializers.TimeField(
        required=False, allow_null=True, default=None, help_text="nightly: when the window opens (UTC)."
    )
    window_end = serializers.TimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="nightly: when it closes (UTC); earlier than the start: the next day. A job starts inside it.",
    )
    tag_pattern = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="watch: test the newest tag matching this glob (version order), e.g. v6.*.",
    )
    branch = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True, help_text="watch: or test this branch's head."
    )
    interval_minutes = serializers.IntegerField(min_value=1, default=60, help_text="watch: minutes between checks.")


class ScheduleSerializer(ScheduleInputSerializer):
    id = serializers.IntegerField(read_only=True, help_text="Schedule id.")
    incident = serializers.IntegerField(source="incident_id", read_only=True, help_text="Incident it belongs to.")
    created_by = serializers.SerializerMethodField(help_text="Who added it.")
    state = serializers.ChoiceField(
        choices=WatchState.choices, read_only=True, help_text="watch: the last verdict (bad once a bisect started)."
    )
    last_good_ref = serializers.CharField(read_only=True, help_text="watch: last tag or branch found good.")
    last_good_commit = serializers.CharField(read_only=True, help_text="watch: its commit.")
    last_checked_ref = serializers.CharField(read_only=True, help_text="watch: last ref tested.")
    last_checked_commit = serializers.CharField(read_only=True, help_text="watch: its commit.")
    last_checked_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="watch: when.")
    firings = serializers.SerializerMethodField(help_text="The last 10 firings, newest first.")
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was added.")

    def get_created_by(self, schedule: Schedule) -> str | None:
        return schedule.created_by.get_username() if schedule.created_by else None

    @extend_schema_field(ScheduleFiringSerializer(many=True))
    def get_firings(self, schedule: Schedule) -> list[dict[str, Any]]:
        firings = schedule.firings.select_related("job").order_by("-planned_for")[:10]
        return list(ScheduleFiringSerializer(firings, many=True).data)
