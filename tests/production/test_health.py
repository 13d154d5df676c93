"""``GET /healthz`` for the load balancer, and ``/favicon.ico``: no login, plain HTTP allowed."""

from __future__ import annotations

import datetime as dt
import socket

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import SyncState


def test_healthz_answers_ok_without_a_login_when_both_databases_answer(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert {key: data[key] for key in ("status", "databases")} == {
        "status": "ok",
        "databases": {"default": "ok", "bookkeeping": "ok"},
    }
    assert "no-cache" in response["Cache-Control"]


def test_healthz_answers_head_and_refuses_post(client, db):
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


def test_healthz_is_not_redirected_to_https_but_pages_are(settings, db):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/healthz").status_code == 200
    page = client.get(reverse("inbox"))
    assert page.status_code == 301
    assert page["Location"] == "https://testserver/"


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def unreachable(monkeypatch):  # type: ignore[no-untyped-def]
    """Point one database alias at a closed port for the rest of the test."""
    changed: list[str] = []

    def make(alias: str) -> None:
        connection = connections[alias]
        connection.close()
        monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        monkeypatch.setitem(connection.settings_dict, "PORT", str(_unused_port()))
        changed.append(alias)

    yield make
    monkeypatch.undo()
    for alias in changed:
        connections[alias].close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("alias", ["default", BOOKKEEPING_DB])
def test_healthz_answers_503_naming_the_database_that_does_not_answer(alias, unreachable):
    unreachable(alias)
    response = Client().get("/healthz")
    assert response.status_code == 503
    other = "default" if alias == BOOKKEEPING_DB else BOOKKEEPING_DB
    data = response.json()
    assert {key: data[key] for key in ("status", "failed", "databases")} == {
        "status": "unavailable",
        "failed": [alias],
        "databases": {alias: "unavailable", other: "ok"},
    }
    # The read model's age comes from the review database: unknown without it.
    assert (data["read_model"] is None) == (alias == "default")


def _polled(ago: dt.timedelta) -> dt.datetime:
    at = timezone.now() - ago
    SyncState.objects.update_or_create(pk=1, defaults={"last_poll_at": at})
    return at


def test_healthz_reports_how_many_seconds_ago_the_read_model_was_last_polled(client, db):
    at = _polled(dt.timedelta(seconds=3, milliseconds=400))
    data = client.get("/healthz").json()
    assert data["read_model"] == {
        "last_poll_at": at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "age_seconds": 3,
        "stale_after_seconds": 60,
        "stale": False,
    }


def test_a_stale_read_model_is_reported_but_the_host_stays_healthy(client, db):
    _polled(dt.timedelta(minutes=10))
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["read_model"]["stale"] is True
    assert 600 <= response.json()["read_model"]["age_seconds"] <= 602


def test_a_read_model_never_built_has_no_age_and_counts_as_stale(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["read_model"] == {
        "last_poll_at": None,
        "age_seconds": None,
        "stale_after_seconds": 60,
        "stale": True,
    }


def test_sync_stale_after_sets_when_the_read_model_counts_as_stale(client, db, settings):
    settings.SYNC_STALE_AFTER = 900
    _polled(dt.timedelta(minutes=10))
    read_model = client.get("/healthz").json()["read_model"]
    assert (read_model["stale"], read_model["stale_after_seconds"]) == (False, 900)


def test_favicon_is_served_without_a_login(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert body[:4] == b"\x00\x00\x01\x00"  # the ICO signature
    assert body == (settings.BASE_DIR / "static" / "favicon.ico").read_bytes()
    assert "max-age=86400" in response["Cache-Control"]
