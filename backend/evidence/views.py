"""A file's own endpoints (download as an attachment only, lines of a text file) and the resumable upload.

The endpoints that answer with an evidence card (list, upload, detail, settings) show the file's analysis, so they
live a layer up, in ``analysis/views.py``.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Any

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponseBase
from django.utils.http import http_date
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from evidence import blobs, selectors, uploads
from evidence.http import RawBodyParser, idle_timeout, refusal, request_body
from evidence.models import Upload
from evidence.serializers import (
    EvidenceKindCatalogueSerializer,
    EvidenceLinesSerializer,
    UploadErrorSerializer,
    UploadStatusSerializer,
)
from evidence.storage import MAX_LINES, LinesUnreadable, UploadBusy, UploadRefused, read_lines
from incidents.selectors import get_incident
from whodunnet import registry
from whodunnet.limits import Limits


class EvidenceDownloadView(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(self, request: Request, incident_id: int, evidence_id: int) -> HttpResponseBase:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        evidence = selectors.get_evidence(incident=incident, evidence_id=evidence_id)
        response = FileResponse(
            blobs.store().open(evidence.storage_name),  # streamed from the store; FileResponse closes it
            as_attachment=True,
            filename=evidence.filename,
            content_type="application/octet-stream",
        )
        response.block_size = settings.UPLOAD_CHUNK_BYTES
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        return response


#: Ranged reads of a stored file for the lines view: small, since most requests want a few lines near the start.
LINES_BLOCK = 1024 * 1024


class EvidenceLinesView(APIView):
    """Lines of a text evidence file, as JSON, for finding cards that point at lines."""

    @extend_schema(
        parameters=[
            OpenApiParameter("start", OpenApiTypes.INT, required=True, description="First line, 1-based."),
            OpenApiParameter("end", OpenApiTypes.INT, required=False, description="Last line (at most start+499)."),
        ],
        responses={200: EvidenceLinesSerializer, 400: UploadErrorSerializer, 422: UploadErrorSerializer},
    )
    def get(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        evidence = selectors.get_evidence(incident=incident, evidence_id=evidence_id)
        try:
            start = int(request.query_params.get("start", "1"))
            end = int(request.query_params.get("end") or start)
        except ValueError:
            return Response({"detail": "start and end are line numbers."}, status=400)
        if start < 1 or end < start:
            return Response({"detail": "Give 1 <= start <= end."}, status=400)
        end = min(end, start + MAX_LINES - 1)
        # A gzip is inflated no further than the analysis reads it, and refused as a bomb as the analysis would.
        limits = Limits(max_input_bytes=settings.MAX_UPLOAD_BYTES, max_inflated_bytes=settings.MAX_UPLOAD_BYTES)
        try:
            stored = blobs.store().open(evidence.storage_name, block=LINES_BLOCK)
            lines = read_lines(stored, start, end, limits=limits)
        except LinesUnreadable as exc:
            return Response({"detail": f"This file cannot be shown as lines: {exc}."}, status=422)
        return Response({"start": start, "end": end, "lines": lines})


# --- resumable uploads: the tus 1.0 protocol (core, creation, termination, expiration), decision 0009 -------

TUS_VERSION = "1.0.0"
TUS_EXTENSIONS = "creation,termination,expiration"
OFFSET_CONTENT_TYPE = "application/offset+octet-stream"


class PreconditionFailed(UploadRefused):
    status = 412


class UnsupportedMediaType(UploadRefused):
    status = 415


def _tus_version(request: Request) -> None:
    if request.META.get("HTTP_TUS_RESUMABLE") != TUS_VERSION:
        raise PreconditionFailed(
            f"Send the header Tus-Resumable: {TUS_VERSION} (the tus protocol version spoken here)."
        )


def _number(request: Request, header: str) -> int:
    raw = request.META.get("HTTP_" + header.upper().replace("-", "_"), "").strip()
    if not raw.isdigit():
        raise UploadRefused(f"Send {header} as a number of bytes.")
    return int(raw)


def _metadata(request: Request) -> dict[str, str]:
    """Upload-Metadata: comma-separated ``key base64(value)`` pairs."""
    out: dict[str, str] = {}
    for pair in request.META.get("HTTP_UPLOAD_METADATA", "").split(","):
        key, _, value = pair.strip().partition(" ")
        if not key:
            continue
        try:
            out[key] = base64.b64decode(value.strip(), validate=True).decode("utf-8", errors="replace")
        except (binascii.Error, ValueError):
            raise UploadRefused(f"Upload-Metadata {key!r} is not base64.") from None
    return out


def _where(upload: Upload) -> dict[str, str]:
    headers = {"Upload-Offset": str(upload.offset)}
    if upload.evidence_id is None:
        headers["Upload-Expires"] = http_date(uploads.expires_at(upload).timestamp())
    return headers


class TusView(APIView):
    """Every answer carries Tus-Resumable and is never cached; a refusal is JSON with the reason."""

    parser_classes = [RawBodyParser]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Tus-Resumable"] = TUS_VERSION
        response["Cache-Control"] = "no-store"
        return response

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, UploadRefused):
            return refusal(exc)
        return super().handle_exception(exc)


class UploadCreateView(TusView):
    """Start a resumable upload (tus creation): POST with Upload-Length and Upload-Metadata ``filename``."""

    @extend_schema(
        operation_id="evidence_uploads_create",
        parameters=[
            OpenApiParameter("Tus-Resumable", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True),
            OpenApiParameter("Upload-Length", OpenApiTypes.INT, OpenApiParameter.HEADER, required=True),
            OpenApiParameter(
                "Upload-Metadata",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="filename <base64 of the name> (or give ?filename=).",
            ),
            OpenApiParameter("filename", OpenApiTypes.STR, required=False, description="Display name."),
        ],
        request=None,
        responses={
            201: OpenApiResponse(description="Created; Location is the upload's URL."),
            400: UploadErrorSerializer,
            412: UploadErrorSerializer,
            413: OpenApiResponse(UploadErrorSerializer, description="Over the size limit."),
            507: OpenApiResponse(UploadErrorSerializer, description="Over the team's quota, or the disk is full."),
        },
    )
    def post(self, request: Request, incident_id: int) -> Response:
        user = current_user(request)
        incident = get_incident(user=user, incident_id=incident_id)
        _tus_version(request)
        if "HTTP_UPLOAD_DEFER_LENGTH" in request.META:
            raise UploadRefused("Say the file's size with Upload-Length (deferred lengths are not supported).")
        length = _number(request, "Upload-Length")
        filename = (_metadata(request).get("filename") or request.query_params.get("filename", "")).strip()
        if not filename:
            raise UploadRefused("Say the file's name: Upload-Metadata: filename <base64 of the name>.")
        upload = uploads.start_upload(user=user, incident=incident, filename=filename, length=length, resumable=True)
        location = request.build_absolute_uri(f"{request.path.rstrip('/')}/{upload.id}")
        return Response(status=status.HTTP_201_CREATED, headers={"Location": location, **_where(upload)})

    def options(self, request: Request, *args: Any, **kwargs: Any) -> Response:  # type: ignore[override]
        """tus discovery: the version, extensions and largest size this server takes."""
        return Response(
            status=status.HTTP_204_NO_CONTENT,
            headers={
                "Tus-Version": TUS_VERSION,
                "Tus-Extension": TUS_EXTENSIONS,
                "Tus-Max-Size": str(settings.MAX_UPLOAD_BYTES),
            },
        )


@extend_schema(
    parameters=[
        OpenApiParameter("incident_id", OpenApiTypes.INT, OpenApiParameter.PATH),
        OpenApiParameter("upload_id", OpenApiTypes.UUID, OpenApiParameter.PATH),
    ]
)
class UploadDetailView(TusView):
    """One resumable upload: HEAD its offset, PATCH bytes onto it, DELETE it; GET says what it became."""

    def _upload(self, request: Request, incident_id: str, upload_id: str) -> Upload:
        user = current_user(request)
        incident = get_incident(user=user, incident_id=int(incident_id))
        try:
            key = uuid.UUID(upload_id)
        except ValueError:
            raise Http404("No such upload.") from None
        return selectors.get_upload(incident=incident, user=user, upload_id=key)

    @extend_schema(exclude=True)
    def head(self, request: Request, incident_id: str, upload_id: str) -> Response:
        upload = self._upload(request, incident_id, upload_id)
        _tus_version(request)
        if upload.evidence_id is None and blobs.store().busy(upload.id.hex):
            # A request is still writing it (often the one whose client just lost its connection and has not
            # noticed yet): its offset is about to move, so say "locked" and let the client ask again.
            raise UploadBusy("A request is still sending this upload; ask again in a moment.")
        return Response(status=status.HTTP_200_OK, headers={**_where(upload), "Upload-Length": str(upload.length)})

    @extend_schema(
        operation_id="evidence_uploads_append",
        parameters=[
            OpenApiParameter("Tus-Resumable", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True),
            OpenApiParameter("Upload-Offset", OpenApiTypes.INT, OpenApiParameter.HEADER, required=True),
        ],
        request={OFFSET_CONTENT_TYPE: OpenApiTypes.BINARY},
        responses={
            204: OpenApiResponse(description="Kept; Upload-Offset says where the upload stands now."),
            400: UploadErrorSerializer,
            409: OpenApiResponse(UploadErrorSerializer, description="Upload-Offset is not where the upload stands."),
            413: UploadErrorSerializer,
            415: UploadErrorSerializer,
            423: OpenApiResponse(UploadErrorSerializer, description="Another request is still writing it."),
            507: UploadErrorSerializer,
        },
    )
    def patch(self, request: Request, incident_id: str, upload_id: str) -> Response:
        upload = self._upload(request, incident_id, upload_id)
        _tus_version(request)
        if request.META.get("CONTENT_TYPE", "").split(";")[0].strip() != OFFSET_CONTENT_TYPE:
            raise UnsupportedMediaType(f"Send the bytes as Content-Type: {OFFSET_CONTENT_TYPE}.")
        offset = _number(request, "Upload-Offset")
        body = request_body(request)
        with idle_timeout(request):
            upload = uploads.append(upload=upload, offset=offset, body=body)
        return Response(status=status.HTTP_204_NO_CONTENT, headers=_where(upload))

    @extend_schema(
        operation_id="evidence_uploads_terminate",
        parameters=[OpenApiParameter("Tus-Resumable", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True)],
        responses={204: None, 409: UploadErrorSerializer, 423: UploadErrorSerializer},
    )
    def delete(self, request: Request, incident_id: str, upload_id: str) -> Response:
        upload = self._upload(request, incident_id, upload_id)
        _tus_version(request)
        if upload.evidence_id is not None:
            return Response(
                {"detail": f"This upload is complete: it is evidence {upload.evidence_id} now."},
                status=status.HTTP_409_CONFLICT,
            )
        uploads.end_upload(upload=upload)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(operation_id="evidence_uploads_retrieve", responses={200: UploadStatusSerializer})
    def get(self, request: Request, incident_id: str, upload_id: str) -> Response:
        upload = uploads.finish_if_complete(upload=self._upload(request, incident_id, upload_id))
        return Response(
            UploadStatusSerializer(
                {
                    "id": upload.id,
                    "filename": upload.filename,
                    "length": upload.length,
                    "offset": upload.offset,
                    "expires": uploads.expires_at(upload) if upload.evidence_id is None else None,
                    "evidence": upload.evidence_id,
                }
            ).data
        )


class EvidenceKindListView(APIView):
    """Every evidence kind: its settings (the UI's forms) and how its findings' numbers are shown."""

    @extend_schema(responses={200: EvidenceKindCatalogueSerializer})
    def get(self, request: Request) -> Response:
        return Response(EvidenceKindCatalogueSerializer(registry.catalogue()).data)
