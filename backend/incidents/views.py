"""Incident and timeline endpoints (the checklist's: checklist/views.py). Rules live in services/selectors."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user, teams_for
from incidents import cursors, selectors, services
from incidents.models import Status
from incidents.serializers import (
    EventSerializer,
    IncidentCreateSerializer,
    IncidentDetailSerializer,
    IncidentSerializer,
    IncidentUpdateSerializer,
    NoteSerializer,
    PinSerializer,
    TimelinePageSerializer,
)


class IncidentListView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("status", OpenApiTypes.STR, enum=Status.values, required=False)],
        responses={200: IncidentSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status") or None
        if wanted and wanted not in Status.values:
            return Response({"status": [f"Must be one of {', '.join(Status.values)}."]}, status=400)
        incidents = selectors.incidents_for(user=current_user(request), status=wanted)
        return Response(IncidentSerializer(incidents, many=True).data)

    @extend_schema(request=IncidentCreateSerializer, responses={201: IncidentDetailSerializer})
    def post(self, request: Request) -> Response:
        form = IncidentCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        team = teams_for(user=current_user(request)).filter(pk=data["team"]).first()
        if team is None:
            return Response({"team": ["Not one of your teams."]}, status=400)
        incident = services.open_incident(
            user=current_user(request),
            team=team,
            title=data["title"],
            symptom=data["symptom"],
            severity=data["severity"],
            started_at=data["started_at"],
        )
        incident = selectors.get_incident(user=current_user(request), incident_id=incident.pk)
        return Response(IncidentDetailSerializer(incident).data, status=status.HTTP_201_CREATED)


class IncidentDetailView(APIView):
    @extend_schema(responses={200: IncidentDetailSerializer})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        return Response(IncidentDetailSerializer(incident).data)

    @extend_schema(request=IncidentUpdateSerializer, responses={200: IncidentDetailSerializer})
    def patch(self, request: Request, incident_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        form = IncidentUpdateSerializer(data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        services.update_incident(user=current_user(request), incident=incident, changes=dict(form.validated_data))
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        return Response(IncidentDetailSerializer(incident).data)


class TimelineView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after", OpenApiTypes.STR, required=False, description="A page's next cursor: what came since."
            ),
            OpenApiParameter(
                "before", OpenApiTypes.STR, required=False, description="A page's earlier cursor: the page before."
            ),
        ],
        responses={200: TimelinePageSerializer},
        description="Without a cursor: the newest page. Pages hold at most 500 events (docs/decisions/0011).",
    )
    def get(self, request: Request, incident_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        raw_after, raw_before = request.query_params.get("after"), request.query_params.get("before")
        if raw_after and raw_before:
            return Response({"detail": "Give after= or before=, not both."}, status=400)
        try:
            cursor = (
                cursors.decode(raw_after or raw_before or "", incident_id=incident.pk)
                if raw_after or raw_before
                else None
            )
        except cursors.BadCursor as exc:
            return Response({"after" if raw_after else "before": [f"Not a valid cursor: {exc}."]}, status=400)
        if cursor is None:
            page = selectors.timeline_newest(incident=incident)
        elif isinstance(cursor, cursors.After) and raw_after:
            page = selectors.timeline_after(incident=incident, cursor=cursor)
        elif isinstance(cursor, cursors.Before) and raw_before:
            page = selectors.timeline_before(incident=incident, cursor=cursor)
        else:
            return Response({"detail": "That cursor belongs to the other parameter."}, status=400)
        body = {
            "events": EventSerializer(page.events, many=True).data,
            "next": cursors.encode(page.next, incident_id=incident.pk),
            "earlier": None if page.earlier is None else cursors.encode(page.earlier, incident_id=incident.pk),
            "more": page.more,
        }
        return Response(body)


class NoteView(APIView):
    @extend_schema(request=NoteSerializer, responses={201: EventSerializer})
    def post(self, request: Request, incident_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        form = NoteSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        event = services.add_note(user=current_user(request), incident=incident, text=form.validated_data["text"])
        return Response(EventSerializer(event).data, status=status.HTTP_201_CREATED)


class EventDetailView(APIView):
    @extend_schema(operation_id="incidents_timeline_event_retrieve", responses={200: EventSerializer})
    def get(self, request: Request, incident_id: int, event_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        return Response(EventSerializer(selectors.get_event(incident=incident, event_id=event_id)).data)

    @extend_schema(operation_id="incidents_timeline_event_pin", request=PinSerializer, responses={200: EventSerializer})
    def patch(self, request: Request, incident_id: int, event_id: int) -> Response:
        incident = selectors.get_incident(user=current_user(request), incident_id=incident_id)
        event = selectors.get_event(incident=incident, event_id=event_id)
        form = PinSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        event = services.pin_event(user=current_user(request), event=event, pinned=form.validated_data["pinned"])
        return Response(EventSerializer(event).data)
