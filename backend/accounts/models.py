"""Teams own incidents; users see only what their teams own."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class Team(models.Model):
    """A group of engineers that owns incidents."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(unique=True)
    members: models.ManyToManyField[Any, Any] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's place in a team."""

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="unique_team_member")]
