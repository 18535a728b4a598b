"""What a bisect job is: the repository, the range, the reproducer and how to judge it.

A :class:`BisectSpec` is a frozen, JSON-able value; the backend stores it with the job row
and rebuilds it with :meth:`BisectSpec.from_json` in every step task.

Verdict rules (how one run of the reproducer is judged, see ``step.classify_run``):

* :class:`ExitCodeRule` - ``git bisect run`` semantics: exit 0 is good, 125 is skip (the
  commit cannot be tested, e.g. the build is broken), 1-127 other than 125 is bad; anything
  else (exit >= 128, killed by a signal, timed out, could not start) is an *error* of the
  step, never bad.
* :class:`MetricRule` - the reproducer prints ``name=value`` on stdout (the last such line
  wins); the run is bad when the value is strictly above (``above_is_bad``) or strictly
  below (``below_is_bad``) the threshold, good otherwise. Exit 125 is still skip; any other
  non-zero exit, a timeout or a missing/unparsable value is an error.

How R > 1 runs combine into one step verdict (the agreement rule) is documented in
``whodunnet.bisect.step``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from whodunnet.bisect.errors import SpecError

Direction = Literal["above_is_bad", "below_is_bad"]
DIRECTIONS: tuple[Direction, ...] = ("above_is_bad", "below_is_bad")
InconclusivePolicy = Literal["retry_then_skip", "skip"]
ErrorPolicy = Literal["stop", "skip"]


@dataclass(frozen=True)
class ExitCodeRule:
    """Judge a run by its exit code, as ``git bisect run`` does."""

    kind: Literal["exit_code"] = "exit_code"


@dataclass(frozen=True)
class MetricRule:
    """Judge a run by a value it prints as ``metric=value`` against a threshold."""

    metric: str
    threshold: float
    direction: Direction = "above_is_bad"
    kind: Literal["metric"] = "metric"

    def is_bad(self, value: float) -> bool:
        if self.direction == "above_is_bad":
            return value > self.threshold
        return value < self.threshold


VerdictRule = ExitCodeRule | MetricRule

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Variables the runner sets itself for every run.
RESERVED_ENV_PREFIX = "WHODUNNET_"
MAX_ENV_BYTES = 64 * 1024


def check_env(env: Mapping[str, str]) -> None:
    """Raise SpecError unless ``env`` is a set of plain variables a reproducer may be given."""
    size = 0
    for name, value in env.items():
        if not _ENV_NAME.match(name):
            raise SpecError(f"bad environment variable name {name!r}")
        if name.upper().startswith(RESERVED_ENV_PREFIX):
            raise SpecError(f"{name}: names starting with {RESERVED_ENV_PREFIX} are set by the runner")
        if "\0" in value:
            raise SpecError(f"{name}: the value holds a NUL byte")
        size += len(name) + len(value.encode()) + 2
    if size > MAX_ENV_BYTES:
        raise SpecError(f"the environment is larger than {MAX_ENV_BYTES:,} bytes")


@dataclass(frozen=True, kw_only=True)
class BisectSpec:
    """One bisect job, everything a worker needs to run any of its steps.

    ``command`` is an argv tuple (run directly) or a string (run by ``/bin/sh -c``), with the
    worktree checked out at the candidate commit as its working directory.
    ``step_timeout`` is the wall-time limit of one run (each of the R runs of a step gets it).
    ``min_agreement`` is the share of the R runs that must agree for a good or bad verdict
    (see ``whodunnet.bisect.step``). ``on_inconclusive`` says what to do when they do not
    agree: run the step once more, then skip the commit (``retry_then_skip``), or skip at
    once. ``on_error`` says what a step error does to the job: stop it (``stop``, as
    ``git bisect run`` does) or skip the commit.
    ``env`` is the whole environment the reproducer gets beyond ``PATH``, ``HOME``, ``LANG``,
    ``TMPDIR`` and the ``WHODUNNET_*`` run variables (in the console nothing else of the
    worker's environment ever reaches it); ``network`` gives a sandboxed reproducer the
    worker's network instead of a loopback of its own.
    """

    repo: str
    good: str
    bad: str
    command: tuple[str, ...] | str
    path: str | None = None
    repeats: int = 1
    rule: VerdictRule = ExitCodeRule()
    step_timeout: float = 3600.0
    memory_limit_mb: int | None = None
    min_agreement: float = 0.8
    on_inconclusive: InconclusivePolicy = "retry_then_skip"
    on_error: ErrorPolicy = "stop"
    stop_early: bool = True
    env: tuple[tuple[str, str], ...] = ()
    network: bool = False

    def __post_init__(self) -> None:
        if not self.repo:
            raise SpecError("repo is empty")
        if not self.good or not self.bad:
            raise SpecError("both a good and a bad ref are needed")
        if not self.command or (isinstance(self.command, tuple) and not all(self.command)):
            raise SpecError("the reproducer command is empty")
        if self.repeats < 1:
            raise SpecError(f"repeats must be at least 1, not {self.repeats}")
        if not 0.5 < self.min_agreement <= 1.0:
            raise SpecError(f"min_agreement must be in (0.5, 1], not {self.min_agreement}")
        if not self.step_timeout > 0:
            raise SpecError(f"step_timeout must be positive, not {self.step_timeout}")
        if self.memory_limit_mb is not None and self.memory_limit_mb < 1:
            raise SpecError(f"memory_limit_mb must be positive, not {self.memory_limit_mb}")
        if isinstance(self.rule, MetricRule):
            if not self.rule.metric or "=" in self.rule.metric or self.rule.metric.strip() != self.rule.metric:
                raise SpecError(f"bad metric name {self.rule.metric!r}")
            if self.rule.direction not in DIRECTIONS:
                raise SpecError(f"direction must be one of {DIRECTIONS}, not {self.rule.direction!r}")
            if not math.isfinite(self.rule.threshold):
                raise SpecError("threshold must be a finite number")
        if self.on_inconclusive not in ("retry_then_skip", "skip"):
            raise SpecError(f"unknown on_inconclusive policy {self.on_inconclusive!r}")
        if self.on_error not in ("stop", "skip"):
            raise SpecError(f"unknown on_error policy {self.on_error!r}")
        check_env(dict(self.env))

    @property
    def needed_votes(self) -> int:
        """How many of the R runs must agree for a good or bad verdict."""
        return max(self.repeats // 2 + 1, math.ceil(self.min_agreement * self.repeats - 1e-9))

    def to_json(self) -> dict[str, Any]:
        rule: dict[str, Any]
        if isinstance(self.rule, MetricRule):
            rule = {
                "kind": "metric",
                "metric": self.rule.metric,
                "threshold": self.rule.threshold,
                "direction": self.rule.direction,
            }
        else:
            rule = {"kind": "exit_code"}
        return {
            "repo": self.repo,
            "good": self.good,
            "bad": self.bad,
            "command": self.command if isinstance(self.command, str) else list(self.command),
            "path": self.path,
            "repeats": self.repeats,
            "rule": rule,
            "step_timeout": self.step_timeout,
            "memory_limit_mb": self.memory_limit_mb,
            "min_agreement": self.min_agreement,
            "on_inconclusive": self.on_inconclusive,
            "on_error": self.on_error,
            "stop_early": self.stop_early,
            "env": dict(self.env),
            "network": self.network,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BisectSpec:
        raw_rule = data.get("rule") or {"kind": "exit_code"}
        rule: VerdictRule
        if raw_rule.get("kind") == "metric":
            rule = MetricRule(
                metric=str(raw_rule["metric"]),
                threshold=float(raw_rule["threshold"]),
                direction=raw_rule.get("direction", "above_is_bad"),
            )
        elif raw_rule.get("kind") == "exit_code":
            rule = ExitCodeRule()
        else:
            raise SpecError(f"unknown verdict rule {raw_rule.get('kind')!r}")
        command = data["command"]
        memory = data.get("memory_limit_mb")
        return cls(
            repo=str(data["repo"]),
            good=str(data["good"]),
            bad=str(data["bad"]),
            command=command if isinstance(command, str) else tuple(str(c) for c in command),
            path=data.get("path") or None,
            repeats=int(data.get("repeats", 1)),
            rule=rule,
            step_timeout=float(data.get("step_timeout", 3600.0)),
            memory_limit_mb=None if memory is None else int(memory),
            min_agreement=float(data.get("min_agreement", 0.8)),
            on_inconclusive=data.get("on_inconclusive", "retry_then_skip"),
            on_error=data.get("on_error", "stop"),
            stop_early=bool(data.get("stop_early", True)),
            env=tuple(sorted((str(k), str(v)) for k, v in (data.get("env") or {}).items())),
            network=bool(data.get("network", False)),
        )
