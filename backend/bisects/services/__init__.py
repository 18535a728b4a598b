"""Every write to bisects, by what it is about (no re-exports: import the module you mean).

- ``jobs``: start, cancel and retry a bisect (people and schedules call these).
- ``steps``: run one step on a worker - claim, test, record once - and re-queue orphaned steps.
- ``schedules``: add, change and remove schedules and watches, fire them (beat), check a watch (worker).

What a worker runs a reproducer with (clone cache, worktrees, runner, heartbeat) is ``bisects.workspace``.
"""
