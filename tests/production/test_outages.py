"""A database that does not answer, refused or hung: pages and the API answer 503 with
Retry-After, naming which database, and nothing is written anywhere (reviewapp/web/outages.py)."""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from django.db import ProgrammingError, connections
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent, Reservation
from reviewapp.web import outages
from tests import factories
from tests.answers.conftest import moved_item, representation_post

pytestmark = pytest.mark.django_db(transaction=True)

ACCOUNTED = "accounted's database does not answer; nothing was saved."
ACCOUNTED_JSON = {"error": "accounted's database does not answer; nothing was saved"}
REVIEW_DB = "The review app's database does not answer; nothing was saved."


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Pointer:
    """Points a database alias somewhere else for a test, and back.

    ``point(alias, port)`` aims it at 127.0.0.1:``port`` (a closed port, a
    server that never answers); ``point(alias, **options)`` keeps its server
    (a TCP port, or the embedded server's Unix socket) and adds connection
    options; ``point.back(alias)`` restores what the settings said.
    """

    _KEYS = ("HOST", "PORT", "OPTIONS")

    def __init__(self) -> None:
        self.originals: dict[str, dict[str, Any]] = {}

    def __call__(self, alias: str, port: int | None = None, **options: Any) -> None:
        connection = connections[alias]
        connection.close()
        original = self.originals.setdefault(alias, {key: connection.settings_dict[key] for key in self._KEYS})
        if port is not None:
            connection.settings_dict.update(HOST="127.0.0.1", PORT=str(port))
        connection.settings_dict["OPTIONS"] = {**original["OPTIONS"], **options}

    def back(self, alias: str) -> None:
        connection = connections[alias]
        connection.close()
        connection.settings_dict.update(self.originals.pop(alias))


@pytest.fixture
def point() -> Iterator[Pointer]:
    pointer = Pointer()
    yield pointer
    for alias in list(pointer.originals):
        pointer.back(alias)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says a word, like a hung PostgreSQL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join(timeout=5)
    for sock in held:
        sock.close()
    listener.close()


@pytest.fixture
def admin_client() -> Client:
    # Every page and permission: the raw download and the preview need view_raw_context and use_preview.
    user = factories.make_user(username="root", is_superuser=True, is_staff=True)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _pages(item: InboxItem) -> dict[str, Callable[[Client], Any]]:
    answer = reverse("item_answer", args=[item.pk])
    return {
        "item page": lambda c: c.get(reverse("item_detail", args=[item.pk])),
        "answer page": lambda c: c.get(answer),
        "answer post": lambda c: c.post(answer, representation_post([("Anna Berg", "Volvo")], purpose="Lunch")),
        "raw download": lambda c: c.get(reverse("item_raw", args=[item.pk, "channel_context"])),
        "preview ?item=": lambda c: c.get(reverse("preview") + f"?item={item.pk}"),
    }


def _nothing_written(item: InboxItem, before: Any) -> None:
    assert Reservation.objects.count() == 0
    assert ClarificationEvent.objects.count() == 0
    assert InboxItem.objects.get(pk=item.pk).channel_context == before
    assert not ProcessingHistory.objects.filter(aggregate_id=item.pk).exists()


@pytest.mark.parametrize("page", ["item page", "answer page", "answer post", "raw download", "preview ?item="])
def test_pages_that_read_accounted_answer_503_when_its_database_refuses_connections(admin_client, point, page):
    item = moved_item("representation")
    before = item.channel_context
    point(BOOKKEEPING_DB, _unused_port())
    response = _pages(item)[page](admin_client)
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    body = text(response)
    assert "<h1>accounted does not answer</h1>" in body
    assert ACCOUNTED in body
    # The list reads only the review app's read model: it still answers.
    assert admin_client.get(reverse("inbox")).status_code == 200
    point.back(BOOKKEEPING_DB)
    _nothing_written(item, before)


@pytest.mark.parametrize("api", ["item", "answer"])
def test_the_json_api_answers_503_with_an_error_when_accounted_is_down(admin_client, point, api):
    item = moved_item("representation")
    point(BOOKKEEPING_DB, _unused_port())
    if api == "item":
        response = admin_client.get(reverse("api_item", args=[item.pk]))
    else:
        body = {"question": "representation", "participants": [{"name": "Anna Berg"}], "purpose": "Lunch"}
        response = admin_client.post(reverse("api_item_answer", args=[item.pk]), body, content_type="application/json")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response.json() == ACCOUNTED_JSON


def test_htmx_gets_the_outage_message_aimed_at_the_pages_refusal_region(admin_client, point):
    item = moved_item("representation")
    point(BOOKKEEPING_DB, _unused_port())
    data = representation_post([("Anna Berg", "Volvo")], purpose="Lunch")
    response = admin_client.post(reverse("item_answer", args=[item.pk]), data, headers={"HX-Request": "true"})
    assert response.status_code == 503
    assert response["HX-Retarget"] == "#request-refused"
    assert "<html" not in text(response)
    assert ACCOUNTED in text(response)


def test_the_outage_page_speaks_swedish(admin_client, point):
    item = moved_item("representation")
    point(BOOKKEEPING_DB, _unused_port())
    response = admin_client.get(reverse("item_detail", args=[item.pk]), headers={"Accept-Language": "sv"})
    assert response.status_code == 503
    assert "accounteds databas svarar inte; inget sparades." in text(response)


def test_a_server_that_accepts_and_never_answers_is_given_up_on_after_the_connect_timeout(
    admin_client, point, silent_server
):
    item = moved_item("representation")
    point(BOOKKEEPING_DB, silent_server, connect_timeout=2)
    started = time.monotonic()
    response = admin_client.get(reverse("item_detail", args=[item.pk]))
    waited = time.monotonic() - started
    assert response.status_code == 503
    assert ACCOUNTED in text(response)
    assert waited < 10  # one connect timeout (psycopg may try twice: with and without TLS)
    assert Reservation.objects.count() == 0


def test_accounted_connections_carry_the_connect_and_statement_timeouts_from_the_settings():
    connection = connections[BOOKKEEPING_DB]
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone() == ("15s",)
    assert connection.get_connection_params()["connect_timeout"] == 5
    # The review app's own database only gets the connect timeout: migrations may take long.
    assert connections["default"].get_connection_params()["connect_timeout"] == 5
    with connections["default"].cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone() == ("0",)


@pytest.fixture
def row_lock_holder() -> Iterator[Callable[[str, list[Any]], None]]:
    """Another session of accounted's database, holding locks until the test ends."""
    params = connections[BOOKKEEPING_DB].settings_dict
    holder = psycopg.connect(
        host=params["HOST"] or "127.0.0.1",
        port=int(params["PORT"] or 5432),
        dbname=params["NAME"],
        user=params["USER"],
        password=params["PASSWORD"] or None,
    )

    def hold(sql: str, args: list[Any]) -> None:
        holder.execute(sql, args)  # opens a transaction that stays open

    yield hold
    holder.rollback()
    holder.close()


def test_an_answer_stuck_behind_a_lock_is_given_up_after_the_statement_timeout_and_saves_nothing(
    admin_client, point, row_lock_holder
):
    item = moved_item("representation")
    before = item.channel_context
    point(BOOKKEEPING_DB, options="-c statement_timeout=1s")
    # Someone else holds the row: the answer's SELECT … FOR UPDATE waits on it.
    row_lock_holder("SELECT id FROM public.invoice_inbox_items WHERE id = %s FOR UPDATE", [item.pk])
    data = representation_post([("Anna Berg", "Volvo")], purpose="Lunch")
    started = time.monotonic()
    response = admin_client.post(reverse("item_answer", args=[item.pk]), data)
    assert time.monotonic() - started < 10
    assert response.status_code == 503
    assert ACCOUNTED in text(response)
    _nothing_written(item, before)


def test_an_item_page_stuck_behind_a_table_lock_reserves_nothing(admin_client, point, row_lock_holder):
    item = moved_item("representation")
    point(BOOKKEEPING_DB, options="-c statement_timeout=1s")
    row_lock_holder("LOCK TABLE public.invoice_inbox_items IN ACCESS EXCLUSIVE MODE", [])
    response = admin_client.get(reverse("item_detail", args=[item.pk]))
    assert response.status_code == 503
    assert Reservation.objects.count() == 0


def test_with_the_review_database_down_pages_answer_a_static_503_and_healthz_503(admin_client, point):
    item = moved_item("representation")
    point("default", _unused_port())
    for url in (reverse("inbox"), reverse("item_detail", args=[item.pk])):
        response = admin_client.get(url)
        assert response.status_code == 503, url
        assert response["Retry-After"] == "30"
        body = text(response)
        assert "<h1>The review app's database does not answer</h1>" in body
        assert REVIEW_DB in body
    api = admin_client.get(reverse("api_items"))
    assert api.status_code == 503
    assert api.json() == {"error": "the review app's database does not answer; nothing was saved"}
    health = Client().get(reverse("healthz"))
    assert health.status_code == 503
    assert health.json()["failed"] == ["default"]


def test_an_error_in_a_query_is_no_outage(db):
    # A bad query is a bug to fix (a 500, logged), not a database to wait for.
    with pytest.raises(ProgrammingError) as raised, connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM public.companies")
    assert outages.failed_alias(raised.value) is None


def test_a_hung_review_database_is_given_up_on_after_the_connect_timeout(admin_client, point, silent_server):
    point("default", silent_server, connect_timeout=2)
    started = time.monotonic()
    response = admin_client.get(reverse("inbox"))
    assert time.monotonic() - started < 10
    assert response.status_code == 503
    assert REVIEW_DB in text(response)


def test_the_whole_table_export_is_not_cut_by_the_web_statement_timeout(point):
    from reviewapp.items import transfer

    item = moved_item("representation")
    point(BOOKKEEPING_DB, options="-c statement_timeout=5s")
    lines = transfer.export_lines(state_keys=[])
    assert str(item.pk) in next(lines)
    # While the export reads (its transaction open), its statements have no time limit ...
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone() == ("0",)
    assert list(lines) == []
    # ... and afterwards web requests have theirs again.
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone() == ("5s",)
