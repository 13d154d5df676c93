"""``GET /healthz`` for the load balancer, and ``/favicon.ico``: no login, plain HTTP allowed."""

from __future__ import annotations

import socket

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.routers import BOOKKEEPING_DB


def test_healthz_answers_ok_without_a_login_when_both_databases_answer(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "databases": {"default": "ok", "bookkeeping": "ok"}}
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
    assert response.json() == {
        "status": "unavailable",
        "failed": [alias],
        "databases": {alias: "unavailable", other: "ok"},
    }


def test_favicon_is_served_without_a_login(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert body[:4] == b"\x00\x00\x01\x00"  # the ICO signature
    assert body == (settings.BASE_DIR / "static" / "favicon.ico").read_bytes()
    assert "max-age=86400" in response["Cache-Control"]
