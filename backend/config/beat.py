"""Every periodic task, in one place, each with why it runs."""

from __future__ import annotations

from typing import Any


def beat_schedule(*, reconcile_seconds: float) -> dict[str, dict[str, Any]]:
    return {
        # A run whose enqueue was lost (broker down at commit) or whose worker was killed
        # would otherwise sit queued/running forever: re-queue it; the claim keeps it single.
        "reconcile-analysis-runs": {
            "task": "analysis.tasks.reconcile_analysis_runs",
            "schedule": reconcile_seconds,
        },
    }
