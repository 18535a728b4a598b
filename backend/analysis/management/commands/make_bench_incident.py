"""A large incident for timing the incident page (``bench/incident_page.mjs``): every file of the four demo incidents
(30 files: captures, strace, counters, sysctl, nft, latency, kernel versions), analysed here in-process, and
their findings copied until the incident holds ``--findings`` of them, spread over the files and the layers.

The copies are the engine's own findings from these files with a numbered key and title, so each is a line of its
own on the page (nothing merges them) with real explanations, tables and references.
"""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from accounts.models import Team
from analysis import services
from analysis.models import AnalysisRun, Finding
from evidence.uploads import receive_upload
from incidents.services import open_incident

DEMO = Path(__file__).resolve().parents[4] / "demo"


class Command(BaseCommand):
    help = "Open an incident with the demo's 30 files, analysed, and --findings findings (for bench/incident_page.mjs)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", required=True, help="who opens it; must be in --team")
        parser.add_argument("--team", required=True, help="the team's name")
        parser.add_argument("--findings", type=int, default=200, help="how many findings the incident ends with")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.get(username=options["username"])
        team = Team.objects.get(name=options["team"])
        incident = open_incident(
            user=user,
            team=team,
            title=f"Page timing: 30 files, {options['findings']} findings",
            symptom="Every file of the four demo incidents in one incident, for timing the incident page.",
            severity="sev3",
            started_at=timezone.now() - dt.timedelta(hours=1),
        )
        files = sorted(p for p in DEMO.glob("*/*") if p.is_file())
        for path in files:
            with open(path, "rb") as stream:
                evidence = receive_upload(
                    user=user,
                    incident=incident,
                    filename=f"{path.parent.name}-{path.name}",
                    stream=stream,
                    content_length=None,
                )
            services.execute_run(run_id=AnalysisRun.objects.filter(evidence=evidence).latest("id").pk)
        services.correlate(incident_id=incident.pk)
        own = list(Finding.objects.filter(incident=incident, run__isnull=False).order_by("id"))
        missing = options["findings"] - Finding.objects.filter(incident=incident).count()
        copies = []
        for n, finding in zip(range(missing), itertools.cycle(own), strict=False):
            copies.append(
                Finding(
                    run=finding.run,
                    incident=incident,
                    evidence=finding.evidence,
                    kind=finding.kind,
                    key=f"{finding.key}-copy-{n}",
                    layer=finding.layer,
                    severity=finding.severity,
                    title=f"{finding.title} (copy {n + 1})",
                    explanation=finding.explanation,
                    refs=finding.refs,
                    data=finding.data,
                )
            )
        Finding.objects.bulk_create(copies)
        total = Finding.objects.filter(incident=incident).count()
        self.stdout.write(f"incident {incident.pk}: {len(files)} files, {total} findings")
