"""Every periodic task, in one place, each with why it runs."""

from __future__ import annotations

from typing import Any


def beat_schedule(*, reconcile_seconds: float, bisect_tick_seconds: float) -> dict[str, dict[str, Any]]:
    return {
        # A run whose enqueue was lost (broker down at commit) or whose worker was killed
        # would otherwise sit queued/running forever: re-queue it; the claim keeps it single.
        "reconcile-analysis-runs": {
            "task": "analysis.tasks.reconcile_analysis_runs",
            "schedule": reconcile_seconds,
        },
        # The same for bisect steps: a step whose worker died (stale heartbeat) or whose
        # enqueue was lost is re-queued; the step claim makes a duplicate a no-op.
        "reconcile-bisect-steps": {
            "task": "bisects.tasks.reconcile_bisect_steps",
            "schedule": reconcile_seconds,
        },
        # One tick evaluates every bisect schedule and watch (docs/decisions/0006): the unique
        # (schedule, planned time) firing row makes each fire once per period, so a beat
        # restart or a duplicate tick cannot start a second job.
        "tick-bisect-schedules": {
            "task": "bisects.tasks.tick_bisect_schedules",
            "schedule": bisect_tick_seconds,
        },
    }
