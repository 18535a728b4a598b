"""What the console shows of what analysis found, by route.

- The evidence cards: listing, uploading and changing evidence answer with a card (the file, its latest
  analysis, its settings and how its snapshot is paired), which is why these endpoints are here and not in
  ``evidence`` (a layer below); the writes themselves are ``evidence.services``.
- An incident's findings; a capture's connection table and one connection's time-sequence (Stevens) data.
"""

from __future__ import annotations

import dataclasses
import tempfile
from typing import Any

from django.db.models import Q
from django.http import FileResponse, Http404, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from analysis import selectors
from analysis.models import AnalysisRun, CaptureConnection, RunStatus
from analysis.serializers import (
    ConnectionDetailSerializer,
    ConnectionPageSerializer,
    ConnectionSerializer,
    EvidenceSerializer,
    FindingSerializer,
    PacketPageSerializer,
    TimeSequenceSerializer,
)
from evidence import blobs, uploads
from evidence import services as evidence_services
from evidence.http import RawBodyParser, idle_timeout, refusal, request_body
from evidence.models import Evidence
from evidence.selectors import deleted_evidence_of, get_deleted_evidence, get_evidence
from evidence.serializers import DeletedEvidenceSerializer, EvidenceUpdateSerializer, UploadErrorSerializer
from evidence.storage import UploadRefused
from incidents.selectors import get_incident
from whodunnet import registry

UPLOAD_RESPONSES = {
    201: EvidenceSerializer,
    400: OpenApiResponse(UploadErrorSerializer, description="The body ended before its Content-Length."),
    411: OpenApiResponse(UploadErrorSerializer, description="A chunked body this server cannot read to its end."),
    413: OpenApiResponse(UploadErrorSerializer, description="Over the size limit."),
    507: OpenApiResponse(UploadErrorSerializer, description="Over the team's quota, or the disk is full."),
}


class EvidenceListView(APIView):
    @extend_schema(responses={200: EvidenceSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        cards = list(selectors.cards_of(incident=incident))
        context = {"cards": {card.pk: card for card in cards}}
        return Response(EvidenceSerializer(cards, many=True, context=context).data)


class EvidenceUploadView(APIView):
    """The request body is the file. Works with XHR from the browser and ``curl -T``."""

    parser_classes = [RawBodyParser]

    @extend_schema(
        operation_id="evidence_upload",
        parameters=[OpenApiParameter("filename", OpenApiTypes.STR, required=True, description="Display name.")],
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses=UPLOAD_RESPONSES,
    )
    def post(self, request: Request, incident_id: int) -> Response:
        return self.receive(request, incident_id, request.query_params.get("filename", ""))

    def receive(self, request: Request, incident_id: int, filename: str) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        filename = filename.strip()
        if not filename:
            return Response({"detail": "Say the file's name with ?filename=..."}, status=400)
        try:
            body = request_body(request)
            with idle_timeout(request):
                evidence = uploads.receive_upload(
                    user=current_user(request),
                    incident=incident,
                    filename=filename,
                    stream=body.stream,
                    content_length=body.length,
                )
        except UploadRefused as exc:
            return refusal(exc)
        evidence = selectors.get_card(incident=incident, evidence_id=evidence.pk)
        return Response(EvidenceSerializer(evidence).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="evidence_upload_put",
        parameters=[OpenApiParameter("filename", OpenApiTypes.STR, required=True, description="Display name.")],
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses=UPLOAD_RESPONSES,
    )
    def put(self, request: Request, incident_id: int) -> Response:
        return self.post(request, incident_id)


class EvidenceNamedUploadView(EvidenceUploadView):
    """The same upload with the file name as the last path segment, as ``curl -T file URL/`` sends it."""

    @extend_schema(
        operation_id="evidence_upload_named",
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses=UPLOAD_RESPONSES,
    )
    def post(self, request: Request, incident_id: int, filename: str) -> Response:  # type: ignore[override]
        return self.receive(request, incident_id, filename)

    @extend_schema(
        operation_id="evidence_upload_named_put",
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses=UPLOAD_RESPONSES,
    )
    def put(self, request: Request, incident_id: int, filename: str) -> Response:  # type: ignore[override]
        return self.receive(request, incident_id, filename)


class EvidenceDetailView(APIView):
    @extend_schema(responses={200: EvidenceSerializer})
    def get(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(EvidenceSerializer(selectors.get_card(incident=incident, evidence_id=evidence_id)).data)

    @extend_schema(request=EvidenceUpdateSerializer, responses={200: EvidenceSerializer})
    def patch(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        """Correct the kind, say where the file comes from (host, role, taken at), or change a settings group."""
        user = current_user(request)
        incident = get_incident(user=user, incident_id=incident_id)
        evidence = get_evidence(incident=incident, evidence_id=evidence_id)
        form = EvidenceUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        evidence_services.set_provenance(user=user, evidence=evidence, changes=form.validated_data)
        if "excluded" in form.validated_data:
            evidence_services.set_excluded(user=user, evidence=evidence, excluded=form.validated_data["excluded"])
        if "kind" in form.validated_data:
            evidence_services.reanalyse(user=user, evidence=evidence, kind=form.validated_data["kind"])
        for name, group in registry.settings_groups().items():
            if name in form.validated_data:
                evidence_services.change_settings(
                    user=user, evidence=evidence, group=group, change=form.validated_data[name]
                )
        return Response(EvidenceSerializer(selectors.get_card(incident=incident, evidence_id=evidence_id)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        """Delete the file from the incident (anyone in the team): it goes at once, with its findings, and can be
        restored until WHODUNNET_EVIDENCE_DELETE_GRACE_SECONDS later, when its bytes are removed for good."""
        user = current_user(request)
        incident = get_incident(user=user, incident_id=incident_id)
        evidence_services.delete_evidence(user=user, evidence=get_evidence(incident=incident, evidence_id=evidence_id))
        return Response(status=204)


class DeletedEvidenceListView(APIView):
    @extend_schema(responses={200: DeletedEvidenceSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        """The incident's deleted files that can still be restored, the latest deleted first."""
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(DeletedEvidenceSerializer(deleted_evidence_of(incident=incident), many=True).data)


class EvidenceRestoreView(APIView):
    @extend_schema(request=None, responses={200: EvidenceSerializer})
    def post(self, request: Request, incident_id: int, evidence_id: int) -> Response:
        """Bring back a deleted file (its findings and card return as they were)."""
        user = current_user(request)
        incident = get_incident(user=user, incident_id=incident_id)
        evidence = get_deleted_evidence(incident=incident, evidence_id=evidence_id)
        evidence_services.restore_evidence(user=user, evidence=evidence)
        return Response(EvidenceSerializer(selectors.get_card(incident=incident, evidence_id=evidence_id)).data)


FLAGS = {
    "retransmissions": Q(retrans_c2s__gt=0) | Q(retrans_s2c__gt=0),
    "rst": Q(has_rst=True),
    "zero_window": Q(zero_windows__gt=0),
    "syn_retries": Q(syn_count__gt=1) | Q(synack_count__gt=1),
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
    """Re-reads the capture for one connection (its stretch of the file only), so the UI asks on demand."""

    @extend_schema(
        parameters=[
            OpenApiParameter("sender", OpenApiTypes.STR, enum=["auto", "client", "server"], required=False),
            OpenApiParameter("max_points", OpenApiTypes.INT, required=False, description="At most 100,000."),
        ],
        responses={200: TimeSequenceSerializer},
    )
    def get(self, request: Request, incident_id: int, evidence_id: int, conn_id: int) -> Response:
        from whodunnet.capture.timeseq import Span, time_sequence

        evidence, index, conn, d = _packet_target(request, incident_id, evidence_id, conn_id)
        sender = request.query_params.get("sender", "auto")
        if sender not in ("auto", "client", "server"):
            return Response({"sender": ["auto, client or server."]}, status=400)
        try:
            max_points = min(max(int(request.query_params.get("max_points", "20000")), 100), 100_000)
        except ValueError:
            return Response({"max_points": ["A number."]}, status=400)
        # Only the connection's stretch of the capture is read (from the packet index's checkpoint before its first
        # packet to its last), as a stream, never copied.
        span = Span(index, conn, d["first_packet"], d["last_packet"])
        with blobs.store().open(evidence.storage_name) as stored:
            series = time_sequence(stored, conn_id, max_points=max_points, sender=sender, span=span)  # type: ignore[arg-type]
        return Response(TimeSequenceSerializer(dataclasses.asdict(series)).data)


_PACKET_PARAMS = [
    OpenApiParameter("start", OpenApiTypes.INT, required=False, description="First packet number wanted."),
    OpenApiParameter("time_from", OpenApiTypes.DOUBLE, required=False, description="Seconds since the epoch."),
    OpenApiParameter("time_to", OpenApiTypes.DOUBLE, required=False, description="Seconds since the epoch."),
]


def _packet_query(request: Request) -> tuple[int, float | None, float | None, int]:
    """start, time range and page size from the query (ValueError when one is not a number)."""
    q = request.query_params

    def number(name: str) -> float | None:
        return float(q[name]) if q.get(name) not in (None, "") else None

    start = int(q.get("start", "1"))
    limit = min(max(int(q.get("limit", "100")), 1), 1000)
    return start, number("time_from"), number("time_to"), limit


def _packet_target(request: Request, incident_id: int, evidence_id: int, conn_id: int) -> tuple[Any, ...]:
    from whodunnet.capture.packets import Endpoints, index_from_json

    evidence = _evidence(request, incident_id, evidence_id)
    run = _latest_done_run(evidence)
    row = CaptureConnection.objects.filter(run=run, conn_id=conn_id).first()
    if run is None or row is None:
        raise Http404("No such connection.")
    d = row.detail
    conn = Endpoints(
        d["client_ip"],
        d["client_port"],
        d["server_ip"],
        d["server_port"],
        d["c2s"].get("base_seq", -1),
        d["s2c"].get("base_seq", -1),
    )
    return evidence, index_from_json(run.packet_index), conn, d


def _read_packets(request: Request, incident_id: int, evidence_id: int, conn_id: int, limit: int | None) -> Any:
    """(evidence, index, connection, its detail row, page) for the query's range; ValueError for a bad query."""
    from whodunnet.capture.packets import read_page

    evidence, index, conn, d = _packet_target(request, incident_id, evidence_id, conn_id)
    start, time_from, time_to, asked = _packet_query(request)
    with blobs.store().open(evidence.storage_name) as stored:  # a local file, or ranged reads from the store
        page = read_page(
            stored,
            index,
            conn,
            first_packet=d["first_packet"],
            last_packet=d["last_packet"],
            start=start,
            time_from=time_from,
            time_to=time_to,
            limit=asked if limit is None else limit,
        )
    return evidence, index, conn, d, page


class ConnectionPacketsView(APIView):
    """One connection's packets, a page at a time, read from the capture (a seek + a short scan)."""

    @extend_schema(
        parameters=[
            *_PACKET_PARAMS,
            OpenApiParameter("limit", OpenApiTypes.INT, required=False, description="At most 1,000."),
        ],
        responses={200: PacketPageSerializer},
    )
    def get(self, request: Request, incident_id: int, evidence_id: int, conn_id: int) -> Response:
        try:
            _, index, conn, d, page = _read_packets(request, incident_id, evidence_id, conn_id, None)
        except ValueError:
            return Response({"start": ["start, time_from, time_to and limit are numbers."]}, status=400)
        body = dataclasses.asdict(page)
        body.update(
            first_packet=d["first_packet"],
            last_packet=d["last_packet"],
            indexed=len(index) > 1,
            client=f"{conn.client_ip}:{conn.client_port}",
            server=f"{conn.server_ip}:{conn.server_port}",
        )
        return Response(PacketPageSerializer(body).data)


class ConnectionPacketsPcapView(APIView):
    """The same packets (every page of the range) as a pcap file, streamed."""

    @extend_schema(parameters=_PACKET_PARAMS, responses={(200, "application/vnd.tcpdump.pcap"): OpenApiTypes.BINARY})
    def get(self, request: Request, incident_id: int, evidence_id: int, conn_id: int) -> HttpResponseBase:
        from whodunnet.capture.packets import MAX_EXPORT, write_pcap

        try:
            evidence, index, _, _, page = _read_packets(request, incident_id, evidence_id, conn_id, MAX_EXPORT)
        except ValueError:
            return Response({"start": ["start, time_from and time_to are numbers."]}, status=400)
        numbers = [p.number for p in page.packets]
        out = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 - FileResponse closes it
        try:
            with blobs.store().open(evidence.storage_name) as stored:
                write_pcap(stored, index, numbers, out)
        except ValueError:
            return Response({"detail": "This capture is compressed: download the whole file instead."}, status=409)
        out.seek(0)
        name = f"connection-{conn_id}-packets-{numbers[0] if numbers else 0}-{numbers[-1] if numbers else 0}.pcap"
        response = FileResponse(out, as_attachment=True, filename=name, content_type="application/vnd.tcpdump.pcap")
        response["X-Content-Type-Options"] = "nosniff"
        return response


class FindingListView(APIView):
    @extend_schema(responses={200: FindingSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(FindingSerializer(selectors.findings_of(incident=incident), many=True).data)
