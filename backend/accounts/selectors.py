"""Reads about the signed-in user and their teams."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from accounts.models import Team


def current_user(request: Request) -> User:
    """The signed-in user; the default IsAuthenticated permission has already let only them in."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def teams_for(*, user: User | AnonymousUser) -> QuerySet[Team]:
    """The teams the user is a member of, by name."""
    return Team.objects.filter(memberships__user_id=user.pk or 0).order_by("name")
