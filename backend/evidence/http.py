"""How an upload's request body is read: exact, to its end, or refused; and what a refusal answers.

Django reads a body only as far as its Content-Length says, and as nothing when there is none, so a chunked
body (``curl -T -`` from a pipe) would be stored as an empty file. Gunicorn de-chunks the body itself and says
so with ``wsgi.input_terminated``: such a body is read from ``wsgi.input`` to the end gunicorn marks (a body
cut off before its last chunk is an error there, not an end). Any other body without a length gets 411.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response

from evidence.storage import Body, UploadRefused


class LengthRequired(UploadRefused):
    status = 411


class RawBodyParser(BaseParser):
    """Declares that uploads are raw bytes; the view streams the body itself.

    DRF still calls ``parse`` when the CSRF check looks at ``request.POST`` for a
    session-authenticated upload: it must not read the body, so it returns nothing.
    """

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> dict[str, Any]:
        return {}


HOW_TO_SEND = (
    "Send the file with its length (curl -T capture.pcap URL), or from a pipe with chunked encoding "
    "(curl -T - URL) to a server that reads chunked bodies to their end (gunicorn, as `make dev` and the "
    "containers run it), or use the resumable upload (README, 'From a shell')."
)


def request_body(request: Request) -> Body:
    """The body to copy: its declared length, or the end the server marks for a chunked body; else 411."""
    meta = request.META
    raw = (meta.get("CONTENT_LENGTH") or "").strip()
    if raw:
        if not raw.isdigit():
            raise UploadRefused(f"Content-Length {raw!r} is not a number of bytes.")
        return Body(stream=request._request, length=int(raw))
    chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
    if chunked and meta.get("wsgi.input_terminated"):
        return Body(stream=meta["wsgi.input"], length=None)
    if chunked:
        raise LengthRequired(f"This server cannot tell where a chunked body ends. {HOW_TO_SEND}")
    # Neither a length nor chunked: HTTP/1.1 says the request has no body (RFC 9112, 6.3), an empty file.
    return Body(stream=request._request, length=0)


@contextlib.contextmanager
def idle_timeout(request: Request) -> Iterator[None]:
    """While a body is read, a connection that sends nothing for UPLOAD_IDLE_SECONDS counts as cut off.

    Without it a silently dropped connection holds its upload (and a web thread) until TCP gives up, hours
    later. Gunicorn hands the socket over as ``gunicorn.socket``; elsewhere (tests) this does nothing.
    """
    sock = request.META.get("gunicorn.socket")
    if not isinstance(sock, socket.socket):
        yield
        return
    before = sock.gettimeout()
    sock.settimeout(settings.UPLOAD_IDLE_SECONDS)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(before)


def refusal(exc: UploadRefused, headers: dict[str, str] | None = None) -> Response:
    """An upload refusal as JSON: ``{"detail": why}`` with its status (400, 409, 411, 413, 423, 507)."""
    return Response({"detail": str(exc)}, status=exc.status, headers=headers)
