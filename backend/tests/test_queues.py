"""Celery tasks are known by stable names, and each goes on a queue that a worker serves."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.conf import settings

from analysis import dispatch as analysis_dispatch
from bisects import dispatch as bisects_dispatch
from config.celery import app
from config.queues import WORKERS
from evidence import dispatch as evidence_dispatch
from outbox import dispatch as outbox_dispatch

REPO = Path(__file__).resolve().parents[2]


def registered() -> set[str]:
    app.loader.import_default_modules()
    return {name for name in app.tasks if not name.startswith("celery.")}


def dispatched() -> set[str]:
    return {
        value
        for module in (analysis_dispatch, bisects_dispatch, evidence_dispatch, outbox_dispatch)
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }


def test_it_registers_every_task_under_the_name_its_dispatch_module_sends() -> None:
    assert registered() == dispatched()


def test_it_names_only_registered_tasks_in_the_beat_schedule() -> None:
    names = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert names <= registered(), names - registered()


def test_it_routes_every_task_to_a_queue_that_some_worker_serves() -> None:
    served = {queue for queues in WORKERS.values() for queue in queues}
    declared = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    assert served == declared
    for name in registered():
        route = settings.CELERY_TASK_ROUTES.get(name, {"queue": settings.CELERY_TASK_DEFAULT_QUEUE})
        assert route["queue"] in served, name


def test_it_starts_the_same_workers_in_docker_compose() -> None:
    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    for kind, queues in WORKERS.items():
        command = services[f"worker-{kind}"]["command"]
        assert command[command.index("--queues") + 1] == ",".join(queues), kind


def test_it_delivers_each_task_to_its_queue_alone() -> None:
    bindings = {(queue.exchange.name, queue.routing_key) for queue in settings.CELERY_TASK_QUEUES}
    assert len(bindings) == len(settings.CELERY_TASK_QUEUES), "two queues share an exchange and routing key"
    for name, route in settings.CELERY_TASK_ROUTES.items():
        queue = app.amqp.router.route({}, name)["queue"]
        assert (queue.name, queue.exchange.name, queue.routing_key) == (route["queue"],) * 3, name
