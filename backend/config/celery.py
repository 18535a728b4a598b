"""The Celery application shared by the web process (to enqueue), workers and beat."""

from __future__ import annotations

import gc
import logging
import os

from celery import Celery
from celery.signals import worker_init

logger = logging.getLogger(__name__)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("whodunnet")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def load_the_capture_kernel(**_: object) -> None:
    """A worker loads the compiled capture kernel (about 0.4 s) before it takes a task.

    In the main process, before the pool forks: every pool process starts with the kernel loaded
    (and a slow first compile cannot trip the pool's start-up timeout). ``make install`` and the
    image compile it once (``whodunnet.capture.warm``); if that cache is gone (a new engine
    version), this compiles it, still before any user waits for an analysis.
    """
    from whodunnet.capture.warm import warm

    try:
        took = warm()
    except Exception:  # a worker that cannot warm up still works; its first analysis pays instead
        logger.exception("the capture kernel did not load at worker start")
    else:
        logger.info("capture kernel loaded in %.1f s", took)
    # Everything made so far (the modules, the kernel) lives as long as the worker: out of the garbage collector's
    # reach, which spares each analysis the full collections' walks over it (0.3-0.45 s of a 4 s analysis of a
    # million connections) and keeps the pages the pool's processes share with this one unwritten (Python's
    # advice for a process that forks: ``gc.freeze`` before the fork).
    gc.freeze()
