from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import serializers

from accounts.models import Team


class TeamSerializer(serializers.ModelSerializer[Team]):
    id = serializers.IntegerField(read_only=True, help_text="Team id.")
    name = serializers.CharField(read_only=True, help_text="Team name.")
    slug = serializers.SlugField(read_only=True, help_text="Short unique name.")

    class Meta:
        model = Team
        fields = ["id", "name", "slug"]


class MeSerializer(serializers.ModelSerializer[User]):
    id = serializers.IntegerField(read_only=True, help_text="User id.")
    username = serializers.CharField(read_only=True, help_text="Sign-in name.")
    teams = TeamSerializer(many=True, read_only=True, help_text="Teams the user belongs to.")

    class Meta:
        model = User
        fields = ["id", "username", "teams"]


class LoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(help_text="Sign-in name.")
    password = serializers.CharField(help_text="Password.", style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(read_only=True, help_text="API token for the Authorization: Token header.")
