"""Every periodic task, in one place, each with why it runs.

Tasks are named by the stable names their app's ``dispatch.py`` declares (not by module path), so moving a
module never leaves beat sending a name no worker knows; ``tests/test_queues.py`` checks every name here.
"""

from __future__ import annotations

from typing import Any


def beat_schedule(
    *, reconcile_seconds: float, bisect_tick_seconds: float, reap_uploads_seconds: float, outbox_relay_seconds: float
) -> dict[str, dict[str, Any]]:
    return {
        # A task whose send failed after its transaction committed (the broker was down) waits in the outbox;
        # once beat can reach the broker again, this sends it. Tasks claim their rows: a duplicate is a no-op.
        "relay-outbox": {
            "task": "outbox.relay",
            "schedule": outbox_relay_seconds,
        },
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
        # Uploads nobody finishes (a resumable upload abandoned, a web worker killed mid-body) would keep
        # their part files on disk and their bytes reserved against the team's quota forever: remove the
        # ones idle for longer than WHODUNNET_UPLOAD_STALE_SECONDS, and part files no upload row owns.
        "reap-stale-uploads": {
            "task": "evidence.reap_uploads",
            "schedule": reap_uploads_seconds,
        },
        # A deleted evidence file stays restorable for WHODUNNET_EVIDENCE_DELETE_GRACE_SECONDS; past that its bytes
        # would sit in storage (and count against the team's quota) with nothing showing them: remove them and its
        # rows. As often as the upload sweep: both are a few queries when there is nothing to do.
        "purge-deleted-evidence": {
            "task": "evidence.purge_deleted",
            "schedule": reap_uploads_seconds,
        },
    }
