"""List endpoints stay at a fixed number of queries however many rows they return."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from analysis import services
from analysis.models import AnalysisRun
from evidence.uploads import receive_upload
from incidents.services import add_note, open_incident
from tests.conftest import DATA, client_for


def fill(incident: Any, user: User, files: int) -> None:
    for n in range(files):
        with open(DATA / "retransmit-fast009.pcap", "rb") as stream:
            evidence = receive_upload(
                user=user, incident=incident, filename=f"c{n}.pcap", stream=stream, content_length=None
            )
        services.execute_run(run_id=AnalysisRun.objects.get(evidence=evidence).pk)
        add_note(user=user, incident=incident, text=f"note {n}")


@pytest.mark.django_db
@pytest.mark.parametrize("files", [1, 6])
def test_it_keeps_list_endpoints_at_a_fixed_query_count(
    owner: User, team: Any, incident: Any, files: int, django_assert_max_num_queries: Any
) -> None:
    fill(incident, owner, files)
    for n in range(files):
        open_incident(user=owner, team=team, title=f"other {n}", symptom="", severity="sev4", started_at=timezone.now())
    client = client_for(owner)
    base = f"/api/incidents/{incident.pk}/"
    for url, ceiling in [
        ("/api/incidents/", 6),
        (base + "evidence/", 8),
        (base + "timeline/", 7),  # the incident is looked up with its checklist steps (one query, any size)
        (base + "findings/", 6),
        (base + "checklist/", 9),  # and its steps, as for the timeline
    ]:
        with django_assert_max_num_queries(ceiling):
            assert client.get(url).status_code == 200
