"""Every error the API answers is JSON (``{"detail": ...}``), whichever layer raised it.

DRF answers its own exceptions as JSON; what it does not know falls through to Django, whose error pages are
HTML. Two such cases reach the API: a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django raises
``RequestDataTooBig`` when DRF reads a JSON body, and would answer an HTML 400 — it is a 413), and whatever
Django answers itself (an unknown route, a bad Host, a CSRF failure outside DRF, a crash). For paths under
``/api/`` those answers are JSON; the single-page app and the admin keep Django's pages.

A database, broker or evidence store (``WHODUNNET_STORAGE=s3``) that cannot be reached is a 503 with
``Retry-After`` on every path, never a page. Django turns an exception into a response in two places, so there are
two hooks: ``ServiceUnavailableMiddleware``
(``process_exception``) sees what a view raised, before the debug page would; ``server_error`` (``handler500``)
sees everything else that escaped, from a middleware included.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

import kombu.exceptions
import redis.exceptions
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import utils as db
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework.response import Response
from rest_framework.views import exception_handler

from evidence.s3 import StoreUnreachable

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
    # The evidence store refused the connection, timed out, dropped it or kept answering 5xx (after retries).
    StoreUnreachable,
)


def unavailable(exc: BaseException) -> JsonResponse:
    """503 with Retry-After, naming which service is down (never the error's text: it can hold addresses)."""
    service = "database" if isinstance(exc, (db.OperationalError, db.InterfaceError)) else "broker"
    if isinstance(exc, StoreUnreachable):
        service = "evidence store"
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


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus a JSON 413 for a body too large to read into memory."""
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {
                "detail": f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes, the most "
                "a JSON request may carry (files go to the upload endpoints)."
            },
            status=413,
        )
    return exception_handler(exc, context)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _json(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return _json(413, f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes.")
        return _json(400, "Bad request.")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(403, "You do not have permission to do this.")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(404, "Not found.")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: called inside Django's ``except`` block, so the exception is still in ``sys.exc_info``."""
    exc = sys.exc_info()[1]
    if exc is not None and isinstance(exc, UNAVAILABLE):
        return unavailable(exc)
    if _is_api(request):
        return _json(500, "The server failed to answer this request; the error is in its log.")
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if _is_api(request):
        return _json(403, f"CSRF check failed: {reason}")
    return django_csrf_failure(request, reason)
