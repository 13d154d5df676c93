"""Login throttling: repeated failures for one username from one address are refused for a while."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from reviewapp import throttle
from tests import factories

WRONG = "not-the-password"


@pytest.fixture
def user(db):  # type: ignore[no-untyped-def]
    return factories.make_user(username="tilda")


def _login(client: Client, username: str, password: str, address: str = "10.0.0.1"):  # type: ignore[no-untyped-def]
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        headers={"Accept-Language": "en"},
    )


def _fail_until_locked(client: Client, username: str, address: str = "10.0.0.1") -> None:
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        response = _login(client, username, WRONG, address)
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()


def test_the_correct_password_is_refused_after_five_failures(client, user):
    assert settings.LOGIN_THROTTLE_ATTEMPTS == 5
    _fail_until_locked(client, "tilda")
    response = _login(client, "tilda", factories.PASSWORD)
    assert response.status_code == 429
    body = response.content.decode()
    # Windows are aligned to the clock, so the wait is at most the 15-minute window.
    wait = re.search(r"Too many failed login attempts\. Try again in (\d+) minutes?\.", body)
    assert wait is not None
    assert 1 <= int(wait.group(1)) <= 15
    assert "_auth_user_id" not in client.session


def test_failures_below_the_limit_do_not_stop_a_correct_login(client, user):
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    response = _login(client, "tilda", factories.PASSWORD)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)


def test_a_successful_login_clears_the_earlier_failures(client, user):
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    assert _login(client, "tilda", factories.PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    assert _login(client, "tilda", factories.PASSWORD).status_code == 302


def test_the_lock_is_per_username_and_address(client, user):
    other = factories.make_user(username="otto")
    _fail_until_locked(client, "tilda", "10.0.0.1")
    # Same user from another address, and another user from the same address, still get in.
    assert _login(Client(), "tilda", factories.PASSWORD, "10.0.0.2").status_code == 302
    assert _login(Client(), other.username, factories.PASSWORD, "10.0.0.1").status_code == 302
    # Case and spaces do not make a new username for the throttle.
    assert _login(Client(), " TILDA ", factories.PASSWORD, "10.0.0.1").status_code == 429


def test_unknown_usernames_are_throttled_like_real_ones(client, db):
    _fail_until_locked(client, "nobody-here")
    assert _login(client, "nobody-here", WRONG).status_code == 429


def test_the_counts_live_in_the_shared_database_cache(client, user):
    # Every gunicorn process reads the same table, so the limit holds across processes.
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    _fail_until_locked(client, "tilda")
    table = connection.ops.quote_name(settings.CACHES["default"]["LOCATION"])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table} WHERE cache_key LIKE %s", ["%login-throttle%"])  # noqa: S608
        assert cursor.fetchone()[0] == settings.LOGIN_THROTTLE_ATTEMPTS


def test_attempts_are_allowed_again_when_the_window_has_passed(db):
    window = settings.LOGIN_THROTTLE_WINDOW
    start = 1_000 * window  # the start of a window
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        assert throttle.claim_attempt("tilda", "10.0.0.1", now=start + 1).allowed
    refused = throttle.claim_attempt("tilda", "10.0.0.1", now=start + 60)
    assert not refused.allowed
    assert refused.retry_after == window - 60
    assert throttle.claim_attempt("tilda", "10.0.0.1", now=start + window).allowed


def test_admin_login_failures_count_against_the_same_limit(client, user):
    admin_login = reverse("admin:login")
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        client.post(admin_login, {"username": "tilda", "password": WRONG}, REMOTE_ADDR="10.0.0.1")
    assert _login(client, "tilda", factories.PASSWORD).status_code == 429


def test_the_address_comes_from_the_proxy_header_when_configured(rf, settings):
    settings.LOGIN_THROTTLE_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 192.0.2.7")
    assert throttle.client_address(request) == "192.0.2.7"
    settings.LOGIN_THROTTLE_IP_HEADER = ""
    assert throttle.client_address(request) == "127.0.0.1"
