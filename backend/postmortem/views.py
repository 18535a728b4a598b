"""The postmortem export: Markdown (a download) and a printable HTML page with a strict CSP."""

from __future__ import annotations

import re

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.selectors import current_user
from incidents.selectors import get_incident
from postmortem import render, selectors


def _filename(title: str, incident_id: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "incident"
    return f"postmortem-{incident_id}-{slug}.md"


class PostmortemMarkdownView(APIView):
    @extend_schema(
        responses={(200, "text/markdown"): OpenApiTypes.STR},
        description="The postmortem as Markdown: summary, impact window, checklist with chains of evidence, key "
        "findings, pinned events, fixes.",
    )
    def get(self, request: Request, incident_id: int) -> HttpResponse:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        pm = selectors.postmortem(incident=incident, now=timezone.now())
        response = HttpResponse(render.markdown(pm), content_type="text/markdown; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_filename(incident.title, incident.pk)}"'
        response["X-Content-Type-Options"] = "nosniff"
        return response


class PostmortemHtmlView(APIView):
    @extend_schema(
        responses={(200, "text/html"): OpenApiTypes.STR},
        description="The same postmortem as a printable page: no script, every text escaped, a strict CSP.",
    )
    def get(self, request: Request, incident_id: int) -> HttpResponse:
        incident = get_incident(user=current_user(request), incident_id=incident_id)
        pm = selectors.postmortem(incident=incident, now=timezone.now())
        response = HttpResponse(render.html(pm), content_type="text/html; charset=utf-8")
        response["Content-Security-Policy"] = render.CSP
        response["X-Content-Type-Options"] = "nosniff"
        response["Cache-Control"] = "no-store"
        return response
