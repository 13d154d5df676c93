"""Error pages never show a traceback; every request and log line carries a request id."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from reviewapp.web.request_id import RequestIdFilter, accept_or_new

pytestmark = pytest.mark.urls("tests.production.urls_errors")

_ID = re.compile(r"[0-9a-f]{32}")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.addFilter(RequestIdFilter())
        self.setFormatter(logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"]))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def log_lines() -> Iterator[list[str]]:
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.lines
    finally:
        root.removeHandler(handler)


@pytest.fixture
def english_client(bookkeeper) -> Client:  # type: ignore[no-untyped-def]
    client = Client(raise_request_exception=False, headers={"Accept-Language": "en"})
    client.force_login(bookkeeper)
    return client


def test_every_response_carries_a_fresh_request_id(client):
    first = client.get(reverse("login"))["X-Request-ID"]
    second = client.get(reverse("login"))["X-Request-ID"]
    assert _ID.fullmatch(first)
    assert first != second


def test_a_sane_incoming_request_id_is_kept(client):
    response = client.get(reverse("login"), headers={"X-Request-ID": "lb-7f3a9c1e-0001"})
    assert response["X-Request-ID"] == "lb-7f3a9c1e-0001"


@pytest.mark.parametrize(
    "bad", ["", "short", "has space in it", "x" * 129, "line\nFAKE ERROR 12345678", "ä-unicode-1234"]
)
def test_an_insane_incoming_request_id_is_replaced(bad):
    assert _ID.fullmatch(accept_or_new(bad))


def test_a_redirect_carries_the_request_id_too(client):
    response = client.get(reverse("inbox"))
    assert response.status_code == 302
    assert _ID.fullmatch(response["X-Request-ID"])


def test_the_500_page_shows_the_request_id_and_no_traceback(english_client, log_lines):
    response = english_client.get("/test-errors/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    rid = response["X-Request-ID"]
    assert f"<code>{rid}</code>" in body
    assert "Something went wrong" in body
    assert "Traceback" not in body
    assert "secret internal detail" not in body
    assert "RuntimeError" not in body


def test_the_error_and_the_lines_before_it_are_logged_with_the_request_id(english_client, log_lines):
    response = english_client.get("/test-errors/boom/", headers={"X-Request-ID": "support-ticket-4711"})
    assert response["X-Request-ID"] == "support-ticket-4711"
    tagged = [line for line in log_lines if "[support-ticket-4711]" in line]
    assert any("about to fail" in line for line in tagged)
    assert any("Internal Server Error" in line for line in tagged)


def test_log_lines_outside_a_request_show_a_dash(log_lines):
    logging.getLogger("tests.production").warning("from a management command")
    assert any("[-] tests.production from a management command" in line for line in log_lines)


def test_the_404_page_is_plain_and_shows_the_request_id(english_client):
    response = english_client.get("/test-errors/missing/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Page not found" in body
    assert "secret lookup detail" not in body
    assert f"<code>{response['X-Request-ID']}</code>" in body


def test_the_403_page_does_not_reveal_the_reason(english_client):
    response = english_client.get("/test-errors/forbidden/")
    assert response.status_code == 403
    body = response.content.decode()
    assert "Access denied" in body
    assert "secret reason" not in body


def test_a_request_for_an_unknown_host_gets_the_plain_400_page(db):
    client = Client(raise_request_exception=False, headers={"Accept-Language": "en"})
    response = client.get(reverse("login"), HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    body = response.content.decode()
    assert "Bad request" in body
    assert "evil.example.com" not in body
