"""Reads about the signed-in user."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


def current_user(request: Request) -> User:
    """The signed-in user; the default IsAuthenticated permission has already let only them in."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
