"""Kernel (or any git) bisect jobs: real ``git bisect`` in a cached clone, one step at a time.

Modules: ``spec`` (what a job is), ``repo`` (cached clones and per-job worktrees),
``session`` (the resumable state machine, whose truth is the bisect log), ``runner`` (how the
reproducer runs), ``step`` (repeats and the agreement rule), ``driver`` (the whole loop in
one process) and ``cli`` (``whodunnet bisect``). See README.md in this folder.
"""
