"""The postmortem export of a receive-window incident made from its files (kernel versions before and after,
the client's strace): the checklist with its chain of evidence, the key findings, the pinned events and the fixes
the findings point to, as Markdown and as a printable page that runs no script."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from analysis import services
from tests.conftest import DATA, client_for
from tests.test_correlation import upload_and_analyse

SEED000 = DATA / "seed000"


@pytest.fixture
def investigated(owner: User, teammate: User, incident: Any) -> Any:
    for name in ("before.txt", "after.txt", "client.strace"):
        upload_and_analyse(incident, owner, SEED000 / name)
    services.correlate(incident_id=incident.pk)
    client = client_for(teammate)
    base = f"/api/incidents/{incident.pk}/"
    verdict = {"verdict": "culprit", "rationale": "6.6 halves the window of sockets with SO_RCVBUF"}
    assert client.patch(base + "checklist/kernel/", verdict, format="json").status_code == 200
    key = client.post(base + "notes/", {"text": "Rolled back to 6.5.13 at 10:40: *timeouts stopped*"}, format="json")
    client.post(base + "notes/", {"text": "coffee break"}, format="json")
    pinned = client.patch(base + f"timeline/{key.json()['id']}/", {"pinned": True}, format="json")
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    assert client.patch(base, {"status": "mitigated"}, format="json").status_code == 200
    return incident


@pytest.mark.django_db
def test_it_exports_the_investigation_as_markdown(owner: User, investigated: Any) -> None:
    response = client_for(owner).get(f"/api/incidents/{investigated.pk}/postmortem.md")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    assert text.startswith("# Postmortem: Cross-region timeouts")
    assert "30 s timeouts" in text  # the summary is the symptom
    assert re.search(r"Impact window:\*\* \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC → .* UTC \(\d+ min", text)
    # The checklist: a person's verdict with its rationale, and the engine's chain of evidence with numbers.
    assert "Blame the kernel: **culprit**" in text
    assert "Verdict by tom: 6.6 halves the window" in text
    assert "client.strace sets SO_RCVBUF 65,536" in text
    # A key finding with its numbers and its source file.
    assert "SO_RCVBUF set to 65,536" in text
    assert "from client.strace" in text
    # A key finding drawn across files names them (never "several files").
    assert "Kernel · from before.txt, after.txt" in text or "Kernel · from after.txt, before.txt" in text
    assert "several files" not in text
    # The pinned note and not the other one.
    assert "Rolled back to 6.5.13 at 10:40" in text and "coffee break" not in text
    # Fixes from the findings: the kernel's series gets its backports, the client its setting.
    fixes = text[text.index("## Fixes") :]
    assert "`a kernel ≥ 6.6.45`" in fixes and "6.6.33" in fixes
    assert "`receive.buffer.bytes=-1`" in fixes
    assert "ecncapability" not in fixes and "nf_conntrack_max" not in fixes  # nothing here points to them


@pytest.mark.django_db
def test_it_serves_a_printable_page_that_runs_nothing_and_escapes_everything(owner: User, investigated: Any) -> None:
    client = client_for(owner)
    base = f"/api/incidents/{investigated.pk}/"
    client.patch(base, {"title": "<script>alert(1)</script> & timeouts"}, format="json")
    note = client.post(base + "notes/", {"text": '<img src=x onerror="alert(2)">'}, format="json").json()
    client.patch(base + f"timeline/{note['id']}/", {"pinned": True}, format="json")
    response = client.get(base + "postmortem.html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    csp = response["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'none'" in csp and "unsafe-inline" not in csp
    page = response.content.decode()
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; timeouts" in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    assert "<code>a kernel ≥ 6.6.45</code>" in page


@pytest.mark.django_db
def test_an_incident_with_nothing_yet_exports_plain_empty_sections(owner: User, incident: Any) -> None:
    text = client_for(owner).get(f"/api/incidents/{incident.pk}/postmortem.md").content.decode()
    assert "still open" in text
    assert "No event was pinned." in text and "No finding points to a known fix." in text


@pytest.mark.django_db
def test_a_pin_can_be_taken_back_and_an_event_read_alone(owner: User, incident: Any) -> None:
    client = client_for(owner)
    base = f"/api/incidents/{incident.pk}/"
    note = client.post(base + "notes/", {"text": "first look"}, format="json").json()
    assert client.get(base + f"timeline/{note['id']}/").json()["summary"] == "first look"
    client.patch(base + f"timeline/{note['id']}/", {"pinned": True}, format="json")
    client.patch(base + f"timeline/{note['id']}/", {"pinned": False}, format="json")
    assert "first look" not in client.get(base + "postmortem.md").content.decode()
    assert client.get(base + "timeline/999999/").status_code == 404
