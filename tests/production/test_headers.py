"""Security headers, cookies and the CSP on real responses (production settings, DEBUG off)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests import factories

TEMPLATES_DIR = Path(settings.BASE_DIR) / "templates"


def _csp(response) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    header = response["Content-Security-Policy"]
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.django_db
def test_pages_send_a_csp_without_unsafe_inline_or_eval(bookkeeper_client):
    response = bookkeeper_client.get(reverse("inbox"), secure=True)
    header = response["Content-Security-Policy"]
    assert "unsafe-inline" not in header
    assert "unsafe-eval" not in header
    csp = _csp(response)
    assert csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'self'"]


@pytest.mark.django_db
def test_the_login_page_sends_the_security_headers_over_https(client):
    response = client.get(reverse("login"), secure=True)
    assert response.status_code == 200
    hsts = response["Strict-Transport-Security"]
    max_age = int(re.search(r"max-age=(\d+)", hsts).group(1))  # type: ignore[union-attr]
    assert max_age >= 365 * 24 * 3600
    assert "includeSubDomains" in hsts
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "Content-Security-Policy" in response


@pytest.mark.django_db
def test_hsts_is_not_sent_over_plain_http(client):
    # Browsers ignore HSTS over http; sending it there would be a misconfiguration sign.
    response = client.get(reverse("login"))
    assert "Strict-Transport-Security" not in response


@pytest.mark.django_db
def test_the_session_and_csrf_cookies_are_secure_and_the_session_cookie_is_httponly(db):
    user = factories.make_user(username="cookie-user")
    client = Client()
    page = client.get(reverse("login"), secure=True)
    csrf_cookie = page.cookies[settings.CSRF_COOKIE_NAME]
    assert csrf_cookie["secure"] is True
    response = client.post(
        reverse("login"),
        {"username": user.username, "password": factories.PASSWORD},
        secure=True,
    )
    assert response.status_code == 302
    session_cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert session_cookie["secure"] is True
    assert session_cookie["httponly"] is True
    assert session_cookie["samesite"] == "Lax"


def test_production_settings_redirect_to_https_by_default(monkeypatch):
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "DEBUG": "0",
        "SECRET_KEY": "x" * 60,
        "ALLOWED_HOSTS": "review.example.com",
        # Parsed, never connected to.
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/review",
        "BOOKKEEPING_DATABASE_URL": "postgres://postgres@127.0.0.1:5432/bookkeeping",
    }
    code = "import reviewapp.settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=settings.BASE_DIR
    )
    assert out.stdout.split() == ["True", "True", "True"]


@pytest.mark.django_db
def test_the_htmx_config_forbids_eval_and_inline_styles(client):
    # htmx reads this meta tag; without it htmx would inject a <style> the CSP blocks.
    body = client.get(reverse("login"), secure=True).content.decode()
    match = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", body)
    assert match is not None
    import json

    config = json.loads(match.group(1))
    switches = {key: config[key] for key in ("includeIndicatorStyles", "allowEval", "allowScriptTags")}
    assert switches == {"includeIndicatorStyles": False, "allowEval": False, "allowScriptTags": False}


def test_the_bundled_htmx_honours_the_config_that_keeps_it_inside_the_csp():
    # A django-htmx upgrade that renamed these switches would silently put
    # inline styles and eval back; the CSP would then break htmx in browsers.
    import django_htmx

    source = (Path(django_htmx.__file__).parent / "static/django_htmx/htmx-2.min.js").read_text()
    assert "includeIndicatorStyles" in source
    assert "allowEval" in source
    assert "allowScriptTags" in source


_INLINE_PATTERNS = {
    "style attribute": re.compile(r"\sstyle\s*=", re.IGNORECASE),
    "inline event handler": re.compile(r"\son[a-z]+\s*=", re.IGNORECASE),
    "hx-on (needs eval)": re.compile(r"\shx-on", re.IGNORECASE),
    "hx-vars (needs eval)": re.compile(r"\shx-vars", re.IGNORECASE),
    "javascript: URL": re.compile(r"javascript:", re.IGNORECASE),
    "inline <style>": re.compile(r"<style[\s>]", re.IGNORECASE),
    "inline <script>": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE),
}


def test_no_template_needs_unsafe_inline_or_eval():
    found = []
    for template in sorted(TEMPLATES_DIR.rglob("*.html")):
        text = template.read_text()
        for what, pattern in _INLINE_PATTERNS.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{template.relative_to(TEMPLATES_DIR)}:{line}: {what}")
    assert found == []
