"""A file's own endpoints: download as an attachment only, and lines of a text file.

The endpoints that answer with an evidence card (list, upload, detail, settings) show the file's analysis, so they
live a layer up, in ``analysis/views.py``.
"""

from __future__ import annotations

from django.http import FileResponse, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from evidence import selectors
from evidence.serializers import (
    EvidenceKindCatalogueSerializer,
    EvidenceLinesSerializer,
    UploadErrorSerializer,
)
from evidence.storage import MAX_LINES, read_lines
from incidents.selectors import get_incident
from whodunnet import registry


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
