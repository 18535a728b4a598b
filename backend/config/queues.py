"""Every Celery queue, which tasks go on it, and why; one worker (or pool of workers) serves each.

A bisect step can run for hours and an analysis should finish seconds after its upload: on one queue, a few
long steps would hold every worker slot and analyses would wait behind them. So each kind of work has its own
queue and its own worker (``make dev``, ``docker-compose.yml``, ``tests/worker.py`` start one per entry of
``WORKERS``), and a busy bisect worker never delays an analysis. Tasks are routed by their stable names (see
each app's ``dispatch.py``); ``tests/test_queues.py`` checks that every task has a queue a worker serves.
"""

from __future__ import annotations

from kombu import Exchange, Queue

# Analyses of uploaded evidence and the findings across an incident's evidence: CPU-bound, seconds to minutes.
ANALYSIS = "analysis"
# Bisect steps and watch checks: run a reproducer (a build, a boot, a benchmark) for minutes to hours.
BISECT = "bisect"
# Short database sweeps that keep the others moving (the reconcilers, the schedule tick): never behind a step.
HOUSEKEEPING = "housekeeping"

# Each queue has its own exchange and routing key. Left out, Celery binds every declared queue to the default
# queue's exchange and key: Redis still delivers by queue name, but an AMQP broker would copy each message
# to all three queues.
QUEUES = tuple(Queue(name, Exchange(name), routing_key=name) for name in (ANALYSIS, BISECT, HOUSEKEEPING))

# Anything not routed below (the periodic sweeps beat sends) goes to the housekeeping queue.
DEFAULT_QUEUE = HOUSEKEEPING

ROUTES = {
    "analysis.analyze_evidence": {"queue": ANALYSIS},
    "analysis.correlate_incident": {"queue": ANALYSIS},
    "bisects.run_step": {"queue": BISECT},
    "bisects.check_watch": {"queue": BISECT},
}

# Which queues each worker serves. The housekeeping sweeps take milliseconds and ride with the analysis worker:
# they may wait behind running analyses (seconds to minutes), never behind a bisect step (hours), and the bisect
# worker may be a lab host of its own. A deployment may also run a worker for the housekeeping queue alone.
WORKERS = {
    "analysis": (ANALYSIS, HOUSEKEEPING),
    "bisect": (BISECT,),
}
