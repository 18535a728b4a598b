"""Bisect endpoints under an incident. Rules live in services/selectors; outsiders get 404."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import current_user
from bisects import selectors
from bisects.kernel import upstream_tag
from bisects.models import SPEC_FIELDS
from bisects.serializers import (
    BisectCreateSerializer,
    BisectDetailSerializer,
    BisectJobSerializer,
    BisectStepSerializer,
    KernelTagSerializer,
    ScheduleInputSerializer,
    ScheduleSerializer,
)
from bisects.services import jobs, schedules
from incidents.selectors import get_incident


class BisectListView(APIView):
    @extend_schema(responses={200: BisectJobSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(BisectJobSerializer(selectors.bisects_of(incident=incident), many=True).data)

    @extend_schema(request=BisectCreateSerializer, responses={201: BisectDetailSerializer})
    def post(self, request: Request, incident_id: int) -> Response:
        incident = selectors.incident_to_run_bisects(user=current_user(request), incident_id=incident_id)
        form = BisectCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        job = jobs.create_job(
            incident=incident,
            user=current_user(request),
            good=data["good"],
            bad=data["bad"],
            fields={name: data[name] for name in SPEC_FIELDS if name in data},
        )
        job = selectors.get_bisect(incident=incident, bisect_id=job.pk)
        return Response(BisectDetailSerializer(job).data, status=status.HTTP_201_CREATED)


class BisectDetailView(APIView):
    @extend_schema(responses={200: BisectDetailSerializer})
    def get(self, request: Request, incident_id: int, bisect_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(BisectDetailSerializer(selectors.get_bisect(incident=incident, bisect_id=bisect_id)).data)


class BisectCancelView(APIView):
    @extend_schema(
        request=None,
        responses={200: BisectDetailSerializer, 409: OpenApiResponse(description="The job already ended.")},
    )
    def post(self, request: Request, incident_id: int, bisect_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        job = selectors.get_bisect(incident=incident, bisect_id=bisect_id)
        jobs.cancel_job(user=current_user(request), job=job)
        return Response(BisectDetailSerializer(selectors.get_bisect(incident=incident, bisect_id=bisect_id)).data)


class BisectStepRetryView(APIView):
    @extend_schema(
        request=None,
        responses={
            201: BisectStepSerializer,
            409: OpenApiResponse(description="Only the last step of a failed bisect can be retried."),
        },
    )
    def post(self, request: Request, incident_id: int, bisect_id: int, step_id: int) -> Response:
        incident = selectors.incident_to_run_bisects(user=current_user(request), incident_id=incident_id)
        job = selectors.get_bisect(incident=incident, bisect_id=bisect_id)
        step = selectors.get_step(job=job, step_id=step_id)
        new = jobs.retry_step(user=current_user(request), job=job, step=step)
        return Response(BisectStepSerializer(new).data, status=status.HTTP_201_CREATED)


class ScheduleListView(APIView):
    @extend_schema(responses={200: ScheduleSerializer(many=True)})
    def get(self, request: Request, incident_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(ScheduleSerializer(selectors.schedules_of(incident=incident), many=True).data)

    @extend_schema(request=ScheduleInputSerializer, responses={201: ScheduleSerializer})
    def post(self, request: Request, incident_id: int) -> Response:
        incident = selectors.incident_to_run_bisects(user=current_user(request), incident_id=incident_id)
        form = ScheduleInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        schedule = schedules.create_schedule(user=current_user(request), incident=incident, values=form.validated_data)
        return Response(ScheduleSerializer(schedule).data, status=status.HTTP_201_CREATED)


class ScheduleDetailView(APIView):
    @extend_schema(responses={200: ScheduleSerializer})
    def get(self, request: Request, incident_id: int, schedule_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        return Response(ScheduleSerializer(selectors.get_schedule(incident=incident, schedule_id=schedule_id)).data)

    @extend_schema(request=ScheduleInputSerializer(partial=True), responses={200: ScheduleSerializer})
    def patch(self, request: Request, incident_id: int, schedule_id: int) -> Response:
        incident = selectors.incident_to_run_bisects(user=current_user(request), incident_id=incident_id)
        schedule = selectors.get_schedule(incident=incident, schedule_id=schedule_id)
        form = ScheduleInputSerializer(data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        schedule = schedules.update_schedule(user=current_user(request), schedule=schedule, changes=form.validated_data)
        return Response(ScheduleSerializer(schedule).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, incident_id: int, schedule_id: int) -> Response:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        schedule = selectors.get_schedule(incident=incident, schedule_id=schedule_id)
        schedules.delete_schedule(user=current_user(request), schedule=schedule)
        return Response(status=status.HTTP_204_NO_CONTENT)


class KernelTagView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "release",
                OpenApiTypes.STR,
                required=True,
                many=True,
                description="uname -r values (or uname -a lines), e.g. 6.6.10-1-aws; repeat for several.",
            )
        ],
        responses={200: KernelTagSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        releases = [r for r in request.query_params.getlist("release") if r.strip()]
        if not releases:
            return Response({"release": ["Give at least one kernel release, e.g. ?release=6.6.10-1-aws."]}, status=400)
        tags = [tag for tag in (upstream_tag(r) for r in releases) if tag is not None]
        return Response(KernelTagSerializer(tags, many=True).data)
