"""Every error the API answers is JSON (``{"detail": ...}``), whichever layer raised it.

DRF answers its own exceptions as JSON; what it does not know falls through to Django, whose error pages are
HTML. Two such cases reach the API: a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django raises
``RequestDataTooBig`` when DRF reads a JSON body, and would answer an HTML 400 — it is a 413), and whatever
Django answers itself (an unknown route, a bad Host, a CSRF failure outside DRF, a crash). For paths under
``/api/`` those answers are JSON; the single-page app and the admin keep Django's pages.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework.response import Response
from rest_framework.views import exception_handler


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
    if _is_api(request):
        return _json(500, "The server failed to answer this request; the error is in its log.")
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if _is_api(request):
        return _json(403, f"CSRF check failed: {reason}")
    return django_csrf_failure(request, reason)
