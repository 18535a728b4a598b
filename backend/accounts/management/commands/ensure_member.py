"""Create (or update) a user and put them in a team: used by `make dev` and the e2e tests."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.utils.text import slugify

from accounts.models import Membership, Team


class Command(BaseCommand):
    help = "Create or update a user with a password and make them a member of a team (created if missing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--team", required=True, help="team name; its slug is derived from it")
        parser.add_argument("--role", choices=Membership.Role.values, default=Membership.Role.MEMBER)

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        team, _ = Team.objects.get_or_create(slug=slugify(options["team"]), defaults={"name": options["team"]})
        user, _ = User.objects.get_or_create(username=options["username"])
        user.set_password(options["password"])
        user.save()
        Membership.objects.update_or_create(team=team, user=user, defaults={"role": options["role"]})
        self.stdout.write(f"{user.username} is a {options['role']} of {team.name}")
