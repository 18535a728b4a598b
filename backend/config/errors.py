"""Errors answer in JSON: a database or broker that cannot be reached is a 503 with Retry-After, never a page.

Two hooks, because Django turns an exception into a response in two places: ``ServiceUnavailableMiddleware``
(``process_exception``) sees what a view raised, before the debug page would; ``server_error`` (``handler500``
in urls.py) sees everything else that escaped, from middleware included, and answers the API in JSON.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

import kombu.exceptions
import redis.exceptions
from django.db import utils as db
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5

# Connection refused, a server restarting, a dropped socket, a statement cancelled by a shutdown: all transient.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    db.OperationalError,
    db.InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    ConnectionError,
)


def unavailable(exc: BaseException) -> JsonResponse:
    """503 with Retry-After, naming which service is down (never the error's text: it can hold addresses)."""
    service = "database" if isinstance(exc, (db.OperationalError, db.InterfaceError)) else "broker"
    logger.warning("answering 503: the %s is unreachable (%s: %s)", service, type(exc).__name__, exc)
    response = JsonResponse(
        {"detail": f"The {service} is unreachable; nothing was changed by this request. Try again shortly."},
        status=503,
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class ServiceUnavailableMiddleware:
    """Turns a view's database or broker connection error into a JSON 503 (also with DEBUG on)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, UNAVAILABLE):
            return unavailable(exception)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: called inside Django's ``except`` block, so the exception is still in ``sys.exc_info``."""
    exc = sys.exc_info()[1]
    if exc is not None and isinstance(exc, UNAVAILABLE):
        return unavailable(exc)
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Server error; it has been logged."}, status=500)
    return defaults.server_error(request)
