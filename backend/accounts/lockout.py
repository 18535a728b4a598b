"""What a locked-out sign-in gets, and which address a failure counts against (django-axes' hooks)."""

from __future__ import annotations

import math
from typing import Any

from axes.helpers import get_cool_off  # type: ignore[import-untyped]
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: the peer's, or behind N trusted proxies the Nth entry from the right of
    X-Forwarded-For (entries further left are whatever the client wrote)."""
    hops = settings.TRUSTED_PROXY_COUNT
    if hops:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return str(forwarded[-hops])
    remote = request.META.get("REMOTE_ADDR")
    return str(remote) if remote else None


def lockout_response(request: HttpRequest, original_response: HttpResponse | None, credentials: Any) -> HttpResponse:
    """429 with Retry-After: JSON for the API, a short page for the admin's form."""
    cool_off = get_cool_off(request)
    seconds = max(1, math.ceil(cool_off.total_seconds())) if cool_off else 900
    minutes = max(1, round(seconds / 60))
    message = f"Too many failed sign-ins for this user from this address. Try again in {minutes} min."
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=429)
    else:
        response = HttpResponse(f"<!doctype html><title>Locked out</title><p>{message}</p>", status=429)
    response["Retry-After"] = str(seconds)
    return response
