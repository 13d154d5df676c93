"""Every wait on accounted's database ends within the app's own limit, even when the server stops
answering on a connection that is already open (issue 35; reviewapp/bookkeeping/bounded_pg).

A relay (tests/relay.py) stands between the app and accounted's database
and is told to hang after the connection is up: the server's own timeouts
(connect_timeout, statement_timeout) can no longer help, since its answers
never arrive. Each wait runs in a thread of its own that the test waits
for with a limit, so a hang fails the test instead of stalling it.
"""

from __future__ import annotations

import ast
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import OperationalError, connections, transaction

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.readmodel import sync
from tests.relay import Relay
from tests.test_foundation import BOOKKEEPING_URL, REVIEW_URL, _load_settings

pytestmark = pytest.mark.django_db(transaction=True)

DEADLINE = 2  # seconds: the deadline these tests give accounted's connection
# The deadline, the cancel request's own limit (1 s) and room for a slow machine.
WITHIN = DEADLINE + 1 + 3


def _shorten(connection: Any) -> None:
    state = getattr(connection, "wait_state", None)  # None before the fix: nothing to shorten
    if state is not None:
        state.limits = dataclasses.replace(state.limits, query_deadline=DEADLINE, max_concurrent=0)


def _in_thread(work: Callable[[], Any], limit: float) -> tuple[str, float]:
    """What ``work`` did (``"returned"`` or its error's class; ``"still waiting"`` past ``limit``) and how long."""
    outcome: list[str] = []

    def run() -> None:
        try:
            work()
            outcome.append("returned")
        except Exception as error:
            outcome.append(type(error).__name__)
        finally:
            connections[BOOKKEEPING_DB].close()

    start = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    return (outcome[0] if outcome else "still waiting"), time.monotonic() - start


@pytest.fixture
def relay() -> Iterator[Relay]:
    settings_dict = connections[BOOKKEEPING_DB].settings_dict  # shared by every thread's connection
    host, port = settings_dict["HOST"] or "127.0.0.1", int(settings_dict["PORT"] or 5432)
    relay = Relay(f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port))
    original = {key: settings_dict[key] for key in ("HOST", "PORT")}
    connections[BOOKKEEPING_DB].close()
    settings_dict.update(HOST="127.0.0.1", PORT=str(relay.port))
    try:
        yield relay
    finally:
        relay.close()
        settings_dict.update(original)


def _hung_after_connecting(relay: Relay, query: Callable[[], Any], *, after: int = 0) -> Callable[[], Any]:
    def work() -> None:
        connection = connections[BOOKKEEPING_DB]
        _shorten(connection)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # connected, through the relay, and answering
        relay.hang(after=after)
        query()

    return work


def _select(sql: str) -> Callable[[], Any]:
    def run() -> None:
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(sql)
            cursor.fetchall()

    return run


def test_a_query_to_a_server_that_stops_answering_ends_within_the_deadline(relay):
    outcome, took = _in_thread(_hung_after_connecting(relay, _select("SELECT 1")), WITHIN)
    assert outcome == "OperationalError", (outcome, round(took, 1))
    assert took < WITHIN


def test_a_result_that_stops_halfway_ends_within_the_deadline(relay):
    big = "SELECT repeat('x', 1000) FROM generate_series(1, 200000)"  # some 200 MB: far more than gets through
    outcome, took = _in_thread(_hung_after_connecting(relay, _select(big), after=300_000), WITHIN)
    assert outcome == "OperationalError", (outcome, round(took, 1))


def test_the_sync_reading_a_hung_accounted_gives_up_within_the_deadline(relay):
    # The sync reads through the same alias, so the same limits hold for it (it backs off and tries again).
    outcome, took = _in_thread(_hung_after_connecting(relay, sync.refresh_companies), WITHIN)
    assert outcome == "OperationalError", (outcome, round(took, 1))


def test_code_that_lifts_the_statement_timeout_may_wait_longer_until_its_transaction_ends():
    # The sync's whole-table pass and the export say SET LOCAL statement_timeout = 0 for a sort
    # that may take a while; outside that transaction the deadline holds again.
    waits: dict[str, str] = {}

    def work() -> None:
        connection = connections[BOOKKEEPING_DB]
        _shorten(connection)
        with transaction.atomic(using=BOOKKEEPING_DB), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 0")
            cursor.execute("SELECT pg_sleep(%s)", [DEADLINE + 1])
            waits["lifted"] = "answered"
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(%s)", [DEADLINE + 1])
            waits["after"] = "answered"
        except OperationalError:
            waits["after"] = "cut at the deadline"

    outcome, _took = _in_thread(work, 2 * WITHIN)
    assert waits == {"lifted": "answered", "after": "cut at the deadline"}, outcome


def _limits(monkeypatch: pytest.MonkeyPatch, **env: str) -> Any:
    show = "print(s.DATABASES['bookkeeping'].get('LIMITS'))"
    return _load_settings(
        monkeypatch, show, DEBUG="1", DATABASE_URL=REVIEW_URL, BOOKKEEPING_DATABASE_URL=BOOKKEEPING_URL, **env
    )


def test_accounted_work_leaves_gunicorn_a_thread_and_outlasts_the_statement_timeout_by_default(monkeypatch):
    result = _limits(monkeypatch, GUNICORN_THREADS="8", BOOKKEEPING_STATEMENT_TIMEOUT="10")
    assert result.returncode == 0, result.stderr
    limits = ast.literal_eval(result.stdout)
    assert limits["max_concurrent"] == 7
    assert limits["query_deadline"] == 12
    assert limits["health_check"] == 2


def test_a_negative_limit_is_refused_at_start(monkeypatch):
    result = _limits(monkeypatch, BOOKKEEPING_MAX_CONCURRENT="-1")
    assert result.returncode != 0
    assert "BOOKKEEPING_MAX_CONCURRENT must be 0 (no limit) or more" in result.stderr
