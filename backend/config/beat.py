"""Every periodic task, in one place, each with why it runs.

Tasks are named by the stable names their app's ``dispatch.py`` declares (not by module path), so moving a
module never leaves beat sending a name no worker knows; ``tests/test_queues.py`` checks every name here.
"""

from __future__ import annotations

from typing import Any


def beat_schedule(*, reconcile_seconds: float, bisect_tick_seconds: float) -> dict[str, dict[str, Any]]:
    return {
        # A run whose enqueue was lost (broker down at commit) or whose worker was killed
        # would otherwise sit queued/running forever: re-queue it; the claim keeps it single.
        "reconcile-analysis-runs": {
            "task": "analysis.reconcile_runs",
            "schedule": reconcile_seconds,
        },
        # The same for bisect steps and watch checks: one whose worker died (stale heartbeat) or
        # whose enqueue was lost is re-queued; the claim makes a duplicate a no-op.
        "reconcile-bisect-steps": {
            "task": "bisects.reconcile_steps",
            "schedule": reconcile_seconds,
        },
        # One tick evaluates every bisect schedule and watch (docs/decisions/0006): the unique
        # (schedule, planned time) firing row makes each fire once per period, so a beat
        # restart or a duplicate tick cannot start a second job.
        "tick-bisect-schedules": {
            "task": "bisects.tick_schedules",
            "schedule": bisect_tick_seconds,
        },
    }
