"""Sign-in: CSRF on the form, lockout after repeated failures (API and admin), security headers, deploy check."""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.test import APIClient

BACKEND = Path(__file__).resolve().parent.parent


def signed_out(address: str = "203.0.113.7") -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True, REMOTE_ADDR=address)
    assert client.get("/api/auth/csrf/").status_code == 204
    return client, client.cookies["csrftoken"].value


def sign_in(client: APIClient, token: str, password: str) -> Any:
    return client.post(
        "/api/auth/login/", {"username": "olive", "password": password}, format="json", HTTP_X_CSRFTOKEN=token
    )


@pytest.mark.django_db
def test_it_refuses_a_sign_in_posted_without_the_csrf_token(owner: User) -> None:
    client = APIClient(enforce_csrf_checks=True)  # a form on another site: no cookie, no header

    response = client.post("/api/auth/login/", {"username": "olive", "password": "olive-pw"}, format="json")

    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_it_locks_out_the_api_sign_in_after_five_failures_even_with_the_right_password(owner: User) -> None:
    client, token = signed_out()
    for _ in range(4):
        assert sign_in(client, token, "guess").status_code == 400
    assert sign_in(client, token, "guess").status_code == 429  # the fifth failure locks

    response = sign_in(client, token, "olive-pw")

    assert response.status_code == 429
    assert int(response["Retry-After"]) > 60
    assert "Too many failed sign-ins" in response.json()["detail"]
    assert client.get("/api/auth/me/").status_code == 204


@pytest.mark.django_db
def test_it_keeps_the_lockout_to_one_address_so_the_owner_still_signs_in_elsewhere(owner: User) -> None:
    attacker, token = signed_out("198.51.100.9")
    for _ in range(6):
        sign_in(attacker, token, "guess")

    client, token = signed_out("203.0.113.7")
    assert sign_in(client, token, "olive-pw").status_code == 200


@pytest.mark.django_db
def test_it_forgets_failures_after_a_successful_sign_in(owner: User) -> None:
    client, token = signed_out()
    for _ in range(4):
        sign_in(client, token, "guess")
    assert sign_in(client, token, "olive-pw").status_code == 200
    client, token = signed_out()
    for _ in range(4):
        sign_in(client, token, "guess")
    assert sign_in(client, token, "olive-pw").status_code == 200


@pytest.mark.django_db
def test_it_locks_out_the_admin_sign_in_too(owner: User) -> None:
    owner.is_staff = True
    owner.save()
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(4):
        page = client.post("/admin/login/?next=/admin/", {"username": "olive", "password": "guess"})
        assert page.status_code == 200  # the form again, with its error
    client.post("/admin/login/?next=/admin/", {"username": "olive", "password": "guess"})

    page = client.post("/admin/login/?next=/admin/", {"username": "olive", "password": "olive-pw"})

    assert page.status_code == 429
    assert "Retry-After" in page
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_it_locks_out_behind_a_proxy_by_the_forwarded_address(owner: User, settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    attacker, token = signed_out("10.0.0.2")
    for _ in range(5):
        attacker.post(
            "/api/auth/login/",
            {"username": "olive", "password": "guess"},
            format="json",
            HTTP_X_CSRFTOKEN=token,
            HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9",  # the client wrote the first; the proxy the last
        )
    owner_client, token = signed_out("10.0.0.2")  # same proxy, another client behind it
    ok = owner_client.post(
        "/api/auth/login/",
        {"username": "olive", "password": "olive-pw"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
        HTTP_X_FORWARDED_FOR="203.0.113.7",
    )
    assert ok.status_code == 200


@pytest.mark.django_db
def test_it_answers_no_content_to_who_am_i_when_signed_out() -> None:
    response = APIClient().get("/api/auth/me/")

    assert response.status_code == 204


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/incidents/42", "/admin/login/", "/api/incidents/"])
def test_it_sends_a_content_security_policy(path: str) -> None:
    response = Client().get(path)

    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


class _InlineScripts(HTMLParser):
    """Collects the scripts a browser would run from the page itself (not data blocks like json_script's)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        if tag == "script" and "src" not in given and given.get("type") != "application/json":
            self.found.append(given.get("id") or "(no id)")
        self.found += [f"{tag} {name}" for name, _ in attrs if name.startswith("on")]


@pytest.mark.django_db
def test_it_serves_every_admin_page_without_an_inline_script_the_policy_would_block(client: Client) -> None:
    root = User.objects.create_superuser("root", "root@example.com", "root-pw")
    client.force_login(root)
    request = RequestFactory().get("/admin/")
    request.user = root
    paths = ["/admin/"]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        paths.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        if model_admin.has_add_permission(request):
            paths.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))

    blocked = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        page = _InlineScripts()
        page.feed(response.content.decode())
        if page.found:
            blocked[path] = page.found

    assert blocked == {}


def deploy_check(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BACKEND,
        env={
            **base,
            "DJANGO_SECRET_KEY": "a-production-secret-key-that-is-long-and-random-9f8e7d6c5b4a3",
            "DATABASE_URL": "postgres://unused/x",
            "CELERY_BROKER_URL": "redis://unused",
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
    )


PRODUCTION = {
    "DJANGO_ALLOWED_HOSTS": "whodunnet.example.com",
    "DJANGO_SECURE_COOKIES": "true",
    "DJANGO_SECURE_SSL_REDIRECT": "true",
    "DJANGO_SECURE_HSTS_SECONDS": "31536000",
    "DJANGO_SECURE_HSTS_PRELOAD": "true",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto: https",
}


def test_it_passes_the_deploy_check_with_the_production_settings_of_env_example() -> None:
    result = deploy_check(**PRODUCTION)

    assert result.returncode == 0, result.stdout + result.stderr


def test_it_fails_the_deploy_check_with_the_development_defaults() -> None:
    result = deploy_check()

    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr


@pytest.mark.parametrize(
    "variable, value",
    [
        ("DJANGO_SECURE_HSTS_SECONDS", "a year"),
        ("DJANGO_SECURE_SSL_REDIRECT", "maybe"),
        ("DJANGO_SECURE_PROXY_SSL_HEADER", "https"),
        ("WHODUNNET_LOGIN_FAILURE_LIMIT", "0"),
    ],
)
def test_it_stops_at_start_up_on_a_malformed_security_setting(variable: str, value: str) -> None:
    result = deploy_check(**{**PRODUCTION, variable: value})

    assert result.returncode != 0
    assert variable in result.stderr
