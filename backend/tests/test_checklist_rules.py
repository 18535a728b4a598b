"""The console's checklist is the engine's (``whodunnet.verdicts``, each rule tested in workers/tests/test_verdicts.py):
the adapter hands it the incident's evidence with provenance and its findings, and maps the answer back to rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from analysis.models import Finding
from checklist.rules import advise
from tests.conftest import DATA, client_for
from tests.test_correlation import upload_and_analyse

SEED000 = DATA / "seed000"


@pytest.mark.django_db
def test_the_console_suggests_what_the_engine_rules_say_and_cites_finding_rows(owner: User, incident: Any) -> None:
    for name in ("before.txt", "after.txt", "client.strace"):
        upload_and_analyse(incident, owner, SEED000 / name)
    services.correlate(incident_id=incident.pk)

    advice = advise(incident=incident)
    application = advice["application"].suggestion
    assert application is not None and application.verdict == "suspect"
    assert "client.strace sets SO_RCVBUF 65,536 at line 2" in application.reason
    cited = Finding.objects.filter(pk__in=application.findings)
    assert "app.rcvbuf_pinned" in set(cited.values_list("kind", flat=True))
    assert all(f.incident_id == incident.pk for f in cited)
    # No capture: the network step has no suggestion and says which files would settle it.
    assert advice["network"].suggestion is None
    assert advice["network"].needs == ("upload a client-side and a server-side capture of the same traffic",)

    steps = client_for(owner).get(f"/api/incidents/{incident.pk}/checklist/").json()
    by_layer = {s["layer"]: s for s in steps}
    assert by_layer["application"]["suggestion"]["reason"] == application.reason
    assert by_layer["application"]["suggestion"]["findings"] == list(application.findings)
    assert by_layer["network"]["suggestion"] is None and by_layer["network"]["needs"] == list(advice["network"].needs)


@pytest.mark.django_db
def test_the_checklist_names_the_host_a_person_gave(owner: User, teammate: User, incident: Any) -> None:
    strace = upload_and_analyse(incident, owner, SEED000 / "client.strace", "app.strace")
    client = client_for(teammate)
    url = f"/api/incidents/{incident.pk}/evidence/{strace.pk}/"
    assert client.patch(url, {"host": "kafka-connect-7", "role": "client"}, format="json").status_code == 200
    services.correlate(incident_id=incident.pk)
    steps = {s["layer"]: s for s in client.get(f"/api/incidents/{incident.pk}/checklist/").json()}
    assert "app.strace (kafka-connect-7) sets SO_RCVBUF 65,536" in steps["application"]["suggestion"]["reason"]
