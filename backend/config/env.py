"""Typed environment helpers: a bad value stops start-up with a message naming the variable."""

from __future__ import annotations

import os
import re

from django.core.exceptions import ImproperlyConfigured

_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_required(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"{name} must be set (see .env.example)")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_size(name: str, default: int, *, minimum: int | None = None) -> int:
    """A byte size such as ``10GiB``, ``512M`` or ``1048576``."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    match = _SIZE.match(raw)
    if not match:
        raise ImproperlyConfigured(f"{name} must be a size like 10GiB or 1048576, not {raw!r}")
    unit = (match.group(2) or "").lower()[:1]
    value = int(match.group(1)) * _UNITS[unit]
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum:,} bytes, not {raw!r}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def env_header(name: str, default: tuple[str, str] | None) -> tuple[str, str] | None:
    """A request header and the value that means "this request came over HTTPS", written as
    ``X-Forwarded-Proto: https``; returned the way Django's SECURE_PROXY_SSL_HEADER wants it
    (``("HTTP_X_FORWARDED_PROTO", "https")``)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    header, sep, value = raw.partition(":")
    header, value = header.strip(), value.strip()
    if not sep or not value or not re.fullmatch(r"[A-Za-z0-9-]+", header):
        raise ImproperlyConfigured(f"{name} must look like 'X-Forwarded-Proto: https', not {raw!r}")
    return "HTTP_" + header.upper().replace("-", "_"), value
