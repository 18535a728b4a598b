"""Checklist endpoints: read the four steps, give one a verdict. Rules live in checklist/rules.py."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from checklist import selectors, services
from checklist.serializers import StepSerializer, VerdictSerializer
from incidents.models import Layer
from incidents.selectors import get_incident


class ChecklistView(APIView):
    @extend_schema(responses={200: StepSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(StepSerializer(selectors.checklist(incident=incident), many=True).data)


class ChecklistStepView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("layer", OpenApiTypes.STR, OpenApiParameter.PATH, enum=Layer.values)],
        request=VerdictSerializer,
        responses={200: StepSerializer},
    )
    def patch(self, request: Request, incident_id: int, layer: str) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        if layer not in Layer.values:
            raise Http404("No such checklist step.")
        form = VerdictSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.set_verdict(
            user=current_user(request),
            incident=incident,
            layer=layer,
            verdict=form.validated_data["verdict"],
            rationale=form.validated_data["rationale"],
        )
        return Response(StepSerializer(selectors.get_step(incident=incident, layer=layer)).data)
