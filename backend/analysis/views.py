"""A capture's connection table and one connection's time-sequence (Stevens) graph data."""

from __future__ import annotations

import dataclasses

from django.db.models import Q
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from analysis.models import AnalysisRun, CaptureConnection, RunStatus
from analysis.serializers import (
    ConnectionDetailSerializer,
    ConnectionPageSerializer,
    ConnectionSerializer,
    TimeSequenceSerializer,
)
from evidence.models import Evidence
from evidence.selectors import get_evidence
from incidents.selectors import get_incident

FLAGS = {
    "retransmissions": Q(retrans_c2s__gt=0) | Q(retrans_s2c__gt=0),
    "rst": Q(has_rst=True),
    "zero_window": Q(zero_windows__gt=0),
    "syn_retries": Q(syn_count__gt=1),
}
ORDERINGS = {
    "conn_id", "first_time", "duration", "packets_c2s", "packets_s2c", "bytes_c2s", "bytes_s2c",
    "retrans_c2s", "retrans_s2c", "syn_count", "zero_windows", "rtt_ms",
}  # fmt: skip
MAX_PAGE = 500


def _evidence(request: Request, incident_id: int, evidence_id: int) -> Evidence:
    incident = get_incident(user=current_user(request), incident_id=incident_id)
    return get_evidence(incident=incident, evidence_id=evidence_id)


def _latest_done_run(evidence: Evidence) -> AnalysisRun | None:
    return evidence.runs.filter(status=RunStatus.DONE).order_by("-id").first()


class ConnectionListView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("flag", OpenApiTypes.STR, enum=sorted(FLAGS), many=True, required=False),
            OpenApiParameter("ordering", OpenApiTypes.STR, required=False, description="A column, - for descending."),
            OpenApiParameter("search", OpenApiTypes.STR, required=False, description="Part of an address or port."),
            OpenApiParameter("limit", OpenApiTypes.INT, required=False),
            OpenApiParameter("offset", OpenApiTypes.INT, required=False),
        ],
        operation_id="incidents_evidence_connections_list",
        responses={200: ConnectionPageSerializer},
    )
    def get(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        evidence = _evidence(request, incident_id, evidence_id)
        run = _latest_done_run(evidence)
        rows = CaptureConnection.objects.filter(run=run) if run else CaptureConnection.objects.none()
        for flag in request.query_params.getlist("flag"):
            if flag not in FLAGS:
                return Response({"flag": [f"One of {', '.join(sorted(FLAGS))}."]}, status=400)
            rows = rows.filter(FLAGS[flag])
        search = request.query_params.get("search", "").strip()
        if search:
            rows = rows.filter(Q(client__icontains=search) | Q(server__icontains=search))
        ordering = request.query_params.get("ordering", "conn_id")
        if ordering.lstrip("-") not in ORDERINGS:
            return Response({"ordering": [f"One of {', '.join(sorted(ORDERINGS))}."]}, status=400)
        try:
            limit = min(max(int(request.query_params.get("limit", "100")), 1), MAX_PAGE)
            offset = max(int(request.query_params.get("offset", "0")), 0)
        except ValueError:
            return Response({"limit": ["limit and offset are numbers."]}, status=400)
        page = rows.order_by(ordering, "conn_id")[offset : offset + limit]
        return Response({"count": rows.count(), "results": ConnectionSerializer(page, many=True).data})


class ConnectionDetailView(APIView):
    @extend_schema(responses={200: ConnectionDetailSerializer})
    def get(self, request: Request, incident_id: int, evidence_id: int, conn_id: int) -> Response:
        evidence = _evidence(request, incident_id, evidence_id)
        row = CaptureConnection.objects.filter(run=_latest_done_run(evidence), conn_id=conn_id).first()
        if row is None:
            raise Http404("No such connection.")
        return Response(ConnectionDetailSerializer(row).data)


class TimeSequenceView(APIView):
    """Re-reads the capture for one connection: seconds for a large file, so the UI asks on demand."""

    @extend_schema(
        parameters=[
            OpenApiParameter("sender", OpenApiTypes.STR, enum=["auto", "client", "server"], required=False),
            OpenApiParameter("max_points", OpenApiTypes.INT, required=False, description="At most 100,000."),
        ],
        responses={200: TimeSequenceSerializer},
    )
    def get(self, request: Request, incident_id: int, evidence_id: int, conn_id: int) -> Response:
        from whodunnet.capture.timeseq import time_sequence

        evidence = _evidence(request, incident_id, evidence_id)
        if not CaptureConnection.objects.filter(run=_latest_done_run(evidence), conn_id=conn_id).exists():
            raise Http404("No such connection.")
        sender = request.query_params.get("sender", "auto")
        if sender not in ("auto", "client", "server"):
            return Response({"sender": ["auto, client or server."]}, status=400)
        try:
            max_points = min(max(int(request.query_params.get("max_points", "20000")), 100), 100_000)
        except ValueError:
            return Response({"max_points": ["A number."]}, status=400)
        series = time_sequence(evidence.path, conn_id, max_points=max_points, sender=sender)  # type: ignore[arg-type]
        return Response(TimeSequenceSerializer(dataclasses.asdict(series)).data)
