"""Evidence endpoints: streaming upload, listing, download as an attachment only."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from evidence import selectors, services
from evidence.serializers import (
    EvidenceKindCatalogueSerializer,
    EvidenceLinesSerializer,
    EvidenceSerializer,
    EvidenceUpdateSerializer,
    UploadErrorSerializer,
)
from evidence.storage import MAX_LINES, UploadTooLarge, read_lines
from incidents.selectors import get_incident
from whodunnet import registry


class RawBodyParser(BaseParser):
    """Declares that uploads are raw bytes; the view streams the body itself.

    DRF still calls ``parse`` when the CSRF check looks at ``request.POST`` for a
    session-authenticated upload: it must not read the body, so it returns nothing.
    """

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> dict[str, Any]:
        return {}


class EvidenceListView(APIView):
    @extend_schema(responses={200: EvidenceSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(EvidenceSerializer(selectors.evidence_of(incident=incident), many=True).data)


class EvidenceUploadView(APIView):
    """The request body is the file. Works with XHR from the browser and ``curl -T``."""

    parser_classes = [RawBodyParser]

    @extend_schema(
        operation_id="evidence_upload",
        parameters=[OpenApiParameter("filename", OpenApiTypes.STR, required=True, description="Display name.")],
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={
            201: EvidenceSerializer,
            400: UploadErrorSerializer,
            413: OpenApiResponse(UploadErrorSerializer, description="Over the size limit."),
        },
    )
    def post(self, request: Request, incident_id: int) -> Response:
        return self.receive(request, incident_id, request.query_params.get("filename", ""))

    def receive(self, request: Request, incident_id: int, filename: str) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        filename = filename.strip()
        if not filename:
            return Response({"detail": "Say the file's name with ?filename=..."}, status=400)
        raw_length = request.META.get("CONTENT_LENGTH") or ""
        content_length = int(raw_length) if raw_length.isdigit() else None
        stream = request._request  # Django's request reads the body stream chunk by chunk.
        try:
            evidence = services.receive_upload(
                user=current_user(request),
                incident=incident,
                filename=filename,
                stream=stream,
                content_length=content_length,
            )
        except UploadTooLarge as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        evidence = selectors.get_evidence(incident=incident, evidence_id=evidence.pk)
        return Response(EvidenceSerializer(evidence).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="evidence_upload_put",
        parameters=[OpenApiParameter("filename", OpenApiTypes.STR, required=True, description="Display name.")],
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={201: EvidenceSerializer, 400: UploadErrorSerializer, 413: UploadErrorSerializer},
    )
    def put(self, request: Request, incident_id: int) -> Response:
        return self.post(request, incident_id)


class EvidenceNamedUploadView(EvidenceUploadView):
    """The same upload with the file name as the last path segment, as ``curl -T file URL/`` sends it."""

    @extend_schema(
        operation_id="evidence_upload_named",
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={201: EvidenceSerializer, 400: UploadErrorSerializer, 413: UploadErrorSerializer},
    )
    def post(self, request: Request, incident_id: int, filename: str) -> Response:  # type: ignore[override]
        return self.receive(request, incident_id, filename)

    @extend_schema(
        operation_id="evidence_upload_named_put",
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={201: EvidenceSerializer, 400: UploadErrorSerializer, 413: UploadErrorSerializer},
    )
    def put(self, request: Request, incident_id: int, filename: str) -> Response:  # type: ignore[override]
        return self.receive(request, incident_id, filename)


class EvidenceDetailView(APIView):
    @extend_schema(responses={200: EvidenceSerializer})
    def get(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(EvidenceSerializer(selectors.get_evidence(incident=incident, evidence_id=evidence_id)).data)

    @extend_schema(request=EvidenceUpdateSerializer, responses={200: EvidenceSerializer})
    def patch(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        """Correct the kind, say when a snapshot was taken, or change a group of the kind's settings."""
        user = current_user(request)
        incident = get_incident(user=user, incident_id=incident_id)
        evidence = selectors.get_evidence(incident=incident, evidence_id=evidence_id)
        form = EvidenceUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        if "captured_at" in form.validated_data:
            services.set_captured_at(user=user, evidence=evidence, captured_at=form.validated_data["captured_at"])
        if "kind" in form.validated_data:
            services.reanalyse(user=user, evidence=evidence, kind=form.validated_data["kind"])
        for name, group in registry.settings_groups().items():
            if name in form.validated_data:
                services.change_settings(user=user, evidence=evidence, group=group, change=form.validated_data[name])
        return Response(EvidenceSerializer(selectors.get_evidence(incident=incident, evidence_id=evidence_id)).data)


class EvidenceDownloadView(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(self, request: Request, incident_id: int, evidence_id: int) -> HttpResponseBase:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        evidence = selectors.get_evidence(incident=incident, evidence_id=evidence_id)
        response = FileResponse(
            open(evidence.path, "rb"),  # noqa: SIM115 - FileResponse closes it when the response is sent
            as_attachment=True,
            filename=evidence.filename,
            content_type="application/octet-stream",
        )
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        return response


class EvidenceLinesView(APIView):
    """Lines of a text evidence file, as JSON, for finding cards that point at lines."""

    @extend_schema(
        parameters=[
            OpenApiParameter("start", OpenApiTypes.INT, required=True, description="First line, 1-based."),
            OpenApiParameter("end", OpenApiTypes.INT, required=False, description="Last line (at most start+499)."),
        ],
        responses={200: EvidenceLinesSerializer, 400: UploadErrorSerializer},
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
        return Response({"start": start, "end": end, "lines": read_lines(evidence.path, start, end)})


class EvidenceKindListView(APIView):
    """Every evidence kind: its settings (the UI's forms) and how its findings' numbers are shown."""

    @extend_schema(responses={200: EvidenceKindCatalogueSerializer})
    def get(self, request: Request) -> Response:
        return Response(EvidenceKindCatalogueSerializer(registry.catalogue()).data)
