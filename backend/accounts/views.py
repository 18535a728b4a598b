"""Sign-in for the browser (session + CSRF) and API tokens for scripts."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.selectors import current_user, teams_for
from accounts.serializers import LoginSerializer, MeSerializer, TeamSerializer, TokenSerializer


@extend_schema(responses={204: None}, description="Sets the csrftoken cookie.")
@api_view(["GET"])
@permission_classes([AllowAny])
@ensure_csrf_cookie
def csrf(request: Request) -> Response:
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    request=LoginSerializer,
    responses={200: MeSerializer},
    description="Needs the csrftoken cookie (GET /api/auth/csrf/) echoed in X-CSRFToken. After "
    "WHODUNNET_LOGIN_FAILURE_LIMIT failures for one username from one address: 429 with Retry-After.",
)
@api_view(["POST"])
@permission_classes([AllowAny])
def login_view(request: Request) -> Response:
    # DRF exempts views from CSRF and checks it only for a session that is already signed in: a sign-in form
    # on another site could otherwise sign a browser into an account of the attacker's choosing.
    SessionAuthentication().enforce_csrf(request)
    form = LoginSerializer(data=request.data)
    form.is_valid(raise_exception=True)
    # The Django request, not DRF's: django-axes marks it when the sign-in is locked out, and its middleware
    # answers 429 (accounts/lockout.py).
    user = authenticate(
        request._request, username=form.validated_data["username"], password=form.validated_data["password"]
    )
    if user is None:
        raise ValidationError({"detail": "Wrong username or password."})
    login(request._request, user)
    return Response(MeSerializer(user).data)


@extend_schema(request=None, responses={204: None})
@api_view(["POST"])
def logout_view(request: Request) -> Response:
    logout(request._request)
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(responses={200: MeSerializer, 204: None}, description="204 when nobody is signed in.")
@api_view(["GET"])
@permission_classes([AllowAny])
def me(request: Request) -> Response:
    # Not a 403 for the signed-out: the app asks on every load, and a browser logs every 4xx as an error.
    if not request.user.is_authenticated:
        return Response(status=status.HTTP_204_NO_CONTENT)
    return Response(MeSerializer(current_user(request)).data)


@extend_schema(request=None, responses={201: TokenSerializer})
@api_view(["POST"])
def rotate_token(request: Request) -> Response:
    """Create the user's API token, replacing any earlier one."""
    Token.objects.filter(user=current_user(request)).delete()
    token = Token.objects.create(user=current_user(request))
    return Response(TokenSerializer({"token": token.key}).data, status=status.HTTP_201_CREATED)


@extend_schema(responses={200: TeamSerializer(many=True)})
@api_view(["GET"])
def teams(request: Request) -> Response:
    return Response(TeamSerializer(teams_for(user=current_user(request)), many=True).data)
