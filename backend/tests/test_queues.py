"""Celery tasks are known by stable names: beat and every dispatch module name tasks a worker registers."""

from __future__ import annotations

from django.conf import settings

from analysis import dispatch as analysis_dispatch
from bisects import dispatch as bisects_dispatch
from config.celery import app


def registered() -> set[str]:
    app.loader.import_default_modules()
    return {name for name in app.tasks if not name.startswith("celery.")}


def dispatched() -> set[str]:
    return {
        value
        for module in (analysis_dispatch, bisects_dispatch)
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }


def test_it_registers_every_task_under_the_name_its_dispatch_module_sends() -> None:
    assert registered() == dispatched()


def test_it_names_only_registered_tasks_in_the_beat_schedule() -> None:
    names = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert names <= registered(), names - registered()
