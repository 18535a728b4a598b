"""Load the demo incidents (``demo/``: evidence recorded once in network namespaces by ``demo/record.py``).

`make demo` runs this before the workers start: each incident is opened, its files uploaded as a person would
(the analyses are queued and the workers do them once they are up) and its first note pinned. An incident whose
title the team already has is left alone, so running `make demo` again adds nothing twice.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from accounts.models import Team
from evidence.uploads import receive_upload
from incidents.services import add_note, open_incident, pin_event


class Command(BaseCommand):
    help = "Open the demo incidents and upload their recorded evidence (analysed by the running workers)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--folder", type=Path, required=True, help="the demo folder (incidents.json and files)")
        parser.add_argument("--username", required=True, help="who opens them; must be in --team")
        parser.add_argument("--team", required=True, help="the team's name")

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        user = User.objects.get(username=options["username"])
        team = Team.objects.get(name=options["team"])
        now = timezone.now()
        for spec in json.loads((folder / "incidents.json").read_text()):
            if team.incidents.filter(title=spec["title"]).exists():
                self.stdout.write(f"already loaded: {spec['title']}")
                continue
            incident = open_incident(
                user=user,
                team=team,
                title=spec["title"],
                symptom=spec["symptom"],
                severity=spec["severity"],
                started_at=now - dt.timedelta(hours=spec["hours_ago"]),
            )
            note = add_note(user=user, incident=incident, text=spec["note"])
            pin_event(user=user, event=note, pinned=True)
            files = sorted((folder / spec["folder"]).iterdir())
            for path in files:
                with open(path, "rb") as stream:
                    receive_upload(user=user, incident=incident, filename=path.name, stream=stream, content_length=None)
            self.stdout.write(f"loaded: {spec['title']} ({len(files)} files)")
