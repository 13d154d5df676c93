"""accounted's database hangs on connections that are already open (issue 35), under a real gunicorn.

A relay (tests/relay.py) sits between gunicorn and accounted's database.
After the threads have opened their persistent connections through it, it
stops passing anything on, with every socket left open: a stuck server, a
saturated pooler, a silent network path. Item requests must then get their
503 with Retry-After within the app's own limit, and the list, which reads
only the review database, must keep answering all along.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connections

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.web.api_auth import create_token
from tests.answers.conftest import moved_item
from tests.production.test_proxy import _database_url, _free_port, _start_gunicorn, _stop
from tests.relay import Relay

pytestmark = pytest.mark.django_db(transaction=True)

STATEMENT_TIMEOUT = 3  # seconds; the app's deadline is this + 2 (settings.BOOKKEEPING_QUERY_DEADLINE)
# The deadline (5 s), the cancel request's own limit (1 s), and room for a slow machine.
ITEM_LIMIT = 10.0
# An ordinary page on an idle machine takes milliseconds; this is "answers", not "fast".
LIST_LIMIT = 3.0
THREADS = 4


def _relay_target() -> tuple[str, int] | str:
    params = connections[BOOKKEEPING_DB].settings_dict
    host, port = params.get("HOST") or "127.0.0.1", int(params.get("PORT") or 5432)
    return f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port)


def _get(port: int, path: str, token: str, timeout: float) -> tuple[int | None, float, dict[str, str]]:
    """(status, seconds, headers) of one GET; status None when no answer came within ``timeout``."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": "127.0.0.1", "Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - start, dict(response.getheaders())
    except OSError:  # TimeoutError included: the request was held
        return None, time.monotonic() - start, {}
    finally:
        conn.close()


@pytest.fixture
def relayed_app(django_db_blocker: Any, tmp_path: Path) -> Iterator[tuple[int, Relay]]:
    relay = Relay(_relay_target())
    with django_db_blocker.unblock():
        url = _database_url(BOOKKEEPING_DB)
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    relayed = urlunsplit(parts._replace(netloc=f"{auth}@127.0.0.1:{relay.port}"))
    port = _free_port()
    gunicorn = None
    try:
        gunicorn, _log = _start_gunicorn(
            django_db_blocker,
            port,
            tmp_path / "gunicorn.log",
            ALLOWED_HOSTS="127.0.0.1",
            WEB_CONCURRENCY="1",
            GUNICORN_THREADS=str(THREADS),
            GUNICORN_GRACEFUL_TIMEOUT="2",
            BOOKKEEPING_DATABASE_URL=relayed,
            BOOKKEEPING_STATEMENT_TIMEOUT=str(STATEMENT_TIMEOUT),
            BOOKKEEPING_HEALTH_CHECK_TIMEOUT="1",
            CONN_MAX_AGE="60",  # persistent connections with Django's health check, as in production
        )
        yield port, relay
    finally:
        relay.close()  # frees any thread still waiting on it, so gunicorn stops at once
        if gunicorn is not None:
            _stop(gunicorn)


def test_a_hung_accounted_gets_item_requests_a_quick_503_while_the_list_keeps_answering(relayed_app, bookkeeper):
    port, relay = relayed_app
    token = create_token(bookkeeper)
    item = moved_item("representation")
    detail = f"/api/items/{item.pk}"

    # Every thread opens its persistent connection to accounted, through the relay.
    warm = [threading.Thread(target=_get, args=(port, detail, token, 10)) for _ in range(THREADS)]
    for thread in warm:
        thread.start()
    for thread in warm:
        thread.join()
    assert _get(port, detail, token, 10)[0] == 200

    relay.hang()
    items: list[tuple[int | None, float, dict[str, str]]] = []
    # Twice the threads a worker has: before the fix, these alone held every thread.
    senders = [threading.Thread(target=lambda: items.append(_get(port, detail, token, 20))) for _ in range(2 * THREADS)]
    for thread in senders:
        thread.start()
    lists, health = [], []
    while any(thread.is_alive() for thread in senders):
        time.sleep(0.3)
        # What reads only the review database: the list and the overview (their API: the test
        # server has no collected static files for the HTML pages).
        lists.append(_get(port, "/api/items", token, LIST_LIMIT))
        lists.append(_get(port, "/api/overview", token, LIST_LIMIT))
        health.append(_get(port, "/healthz", token, LIST_LIMIT))
    for thread in senders:
        thread.join()

    slow = [(status, round(took, 1)) for status, took, _ in items if status != 503 or took > ITEM_LIMIT]
    assert not slow, f"item requests not refused with 503 within {ITEM_LIMIT} s: {slow}"
    assert all(headers.get("Retry-After") == "30" for _, _, headers in items)
    assert [status for status, _, _ in lists] == [200] * len(lists), [(s, round(t, 1)) for s, t, _ in lists]
    # /healthz answers too, saying accounted is down rather than hanging with it.
    assert [status for status, _, _ in health] == [503] * len(health), [(s, round(t, 1)) for s, t, _ in health]

    relay.forward()  # accounted answers again: new connections get through, the hung ones were closed
    deadline = time.monotonic() + 15
    while _get(port, detail, token, 10)[0] != 200:
        assert time.monotonic() < deadline, "the item page did not come back after accounted did"
        time.sleep(0.5)
