from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import FileResponse, Http404, HttpRequest, HttpResponseBase
from django.urls import path, re_path

from accounts import views as accounts
from analysis import views as analysis
from bisects import views as bisects
from checklist import views as checklist
from evidence import views as evidence
from incidents import views as incidents
from postmortem import views as postmortem

incident = "api/incidents/<int:incident_id>/"


def spa(request: HttpRequest) -> HttpResponseBase:
    """The React app: every non-API path gets index.html; the router takes it from there."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.is_file():
        raise Http404("The frontend is not built: run `make install`.")
    return FileResponse(open(index, "rb"), content_type="text/html")


urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/auth/csrf/", accounts.csrf),
    path("api/auth/login/", accounts.login_view),
    path("api/auth/logout/", accounts.logout_view),
    path("api/auth/me/", accounts.me),
    path("api/auth/token/", accounts.rotate_token),
    path("api/teams/", accounts.teams),
    path("api/incidents/", incidents.IncidentListView.as_view()),
    path(incident, incidents.IncidentDetailView.as_view()),
    path(incident + "checklist/", checklist.ChecklistView.as_view()),
    path(incident + "checklist/<str:layer>/", checklist.ChecklistStepView.as_view()),
    path(incident + "timeline/", incidents.TimelineView.as_view()),
    path(incident + "timeline/<int:event_id>/", incidents.EventDetailView.as_view()),
    path(incident + "notes/", incidents.NoteView.as_view()),
    path(incident + "postmortem.md", postmortem.PostmortemMarkdownView.as_view()),
    path(incident + "postmortem.html", postmortem.PostmortemHtmlView.as_view()),
    path(incident + "findings/", analysis.FindingListView.as_view()),
    path(incident + "evidence/", analysis.EvidenceListView.as_view()),
    path(incident + "evidence/upload/", analysis.EvidenceUploadView.as_view()),
    # `curl -T file URL/` appends the file's name to a URL ending in "/": accept it as the name.
    path(incident + "evidence/upload/<str:filename>", analysis.EvidenceNamedUploadView.as_view()),
    # Resumable uploads (tus 1.0, decision 0009): POST here starts one, its Location takes HEAD/PATCH/DELETE.
    path(incident + "evidence/uploads/", evidence.UploadCreateView.as_view()),
    # An upload's URL has no trailing slash, so `curl -T file URL` does not append the file's name to it.
    re_path(
        r"^api/incidents/(?P<incident_id>[0-9]+)/evidence/uploads/(?P<upload_id>[0-9a-f-]{36})/?$",
        evidence.UploadDetailView.as_view(),
    ),
    path(incident + "evidence/<int:evidence_id>/", analysis.EvidenceDetailView.as_view()),
    path(incident + "evidence/deleted/", analysis.DeletedEvidenceListView.as_view()),
    path(incident + "evidence/<int:evidence_id>/restore/", analysis.EvidenceRestoreView.as_view()),
    path("api/evidence-kinds/", evidence.EvidenceKindListView.as_view()),
    path(incident + "evidence/<int:evidence_id>/download/", evidence.EvidenceDownloadView.as_view()),
    path(incident + "evidence/<int:evidence_id>/lines/", evidence.EvidenceLinesView.as_view()),
    path(incident + "evidence/<int:evidence_id>/connections/", analysis.ConnectionListView.as_view()),
    path(
        incident + "evidence/<int:evidence_id>/connections/<int:conn_id>/",
        analysis.ConnectionDetailView.as_view(),
    ),
    path(
        incident + "evidence/<int:evidence_id>/connections/<int:conn_id>/time-sequence/",
        analysis.TimeSequenceView.as_view(),
    ),
    path(
        incident + "evidence/<int:evidence_id>/connections/<int:conn_id>/packets/",
        analysis.ConnectionPacketsView.as_view(),
    ),
    path(
        incident + "evidence/<int:evidence_id>/connections/<int:conn_id>/packets.pcap",
        analysis.ConnectionPacketsPcapView.as_view(),
    ),
    path("api/bisects/kernel-tags/", bisects.KernelTagView.as_view()),
    path(incident + "bisects/", bisects.BisectListView.as_view()),
    path(incident + "bisects/<int:bisect_id>/", bisects.BisectDetailView.as_view()),
    path(incident + "bisects/<int:bisect_id>/cancel/", bisects.BisectCancelView.as_view()),
    path(incident + "bisects/<int:bisect_id>/steps/<int:step_id>/retry/", bisects.BisectStepRetryView.as_view()),
    path(incident + "bisect-schedules/", bisects.ScheduleListView.as_view()),
    path(incident + "bisect-schedules/<int:schedule_id>/", bisects.ScheduleDetailView.as_view()),
    re_path(r"^(?!api/|admin/|static/).*$", spa),
]

# Errors Django answers itself (unknown routes, crashes, a bad Host): JSON under /api/, Django's pages elsewhere.
handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
