"""A bulk change (one statement, one ``now()``) is read once, and a transaction that commits late is still seen.

These tests commit (``transaction=True``): a poll records the snapshot of
accounted's database it read in, which only a poll outside the caller's own
transaction can do. The rows read from accounted are counted where they are
fetched (``sync.fetch``), not taken from the poll's own report.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connections

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = 20_000  # 200 000 by hand: bench/README.md


@pytest.fixture
def fetched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows each ``_fetch`` returned, in order (cleared by the test between polls)."""
    counts: list[int] = []
    fetch = sync.fetch

    def counting(*args: Any) -> list[tuple[Any, ...]]:
        rows = fetch(*args)
        counts.append(len(rows))
        return rows

    monkeypatch.setattr(sync, "fetch", counting)
    return counts


def _run(statement: str, params: list[Any] | None = None) -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(statement, params or [])


def _poll_reading(fetched: list[int]) -> tuple[sync.PassReport, int]:
    fetched.clear()
    report = sync.poll()
    return report, sum(fetched)


def test_one_statement_that_changes_every_row_is_read_by_one_poll_not_by_every_poll(fetched: list[int]) -> None:
    company = factories.make_company()
    _run(
        """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)
           SELECT %s, %s, 'whatsapp', '{"supplier": {"name": "Taxi"}}'::jsonb,
                  jsonb_build_object('channel', 'whatsapp', 'user_note', 'resa ' || n)
           FROM generate_series(1, %s) AS n""",
        [company.created_by, company.id, ROWS],
    )
    assert sync.poll().indexed == ROWS  # the first poll: the whole table

    # accounted's backfill: one transaction, one now() for every row.
    _run('UPDATE public.invoice_inbox_items SET channel_context = channel_context || \'{"user_note": "flygresa"}\'')
    report, read = _poll_reading(fetched)
    assert (report.indexed, report.read, read) == (ROWS, ROWS, ROWS)
    assert IndexedItem.objects.filter(search_text__contains="flygresa").count() == ROWS

    # Nothing changed since: the later polls, inside the overlap, read none of them again.
    for _ in range(2):
        report, read = _poll_reading(fetched)
        assert (report.indexed, report.read, read) == (0, 0, 0)

    # One more change: that row alone.
    first = IndexedItem.objects.order_by("id").values_list("id", flat=True).first()
    _run("UPDATE public.invoice_inbox_items SET channel_context = channel_context || '{\"user_note\": \"tåg\"}' "
         "WHERE id = %s", [first])  # fmt: skip
    report, read = _poll_reading(fetched)
    assert (report.indexed, read) == (1, 1)
    assert IndexedItem.objects.get(pk=first).search_text.count("tåg") >= 1


@pytest.fixture
def late_writer() -> Iterator[psycopg.Connection[Any]]:
    """A connection of its own to accounted's database: a transaction there stays open while the polls run."""
    database = connections[BOOKKEEPING_DB].settings_dict
    with psycopg.connect(
        dbname=database["NAME"],
        user=database["USER"],
        password=database.get("PASSWORD") or None,
        host=database["HOST"] or None,
        port=database["PORT"] or None,
    ) as connection:
        yield connection


@pytest.mark.parametrize("savepoint", [False, True], ids=["plain", "in-a-savepoint"])
def test_a_transaction_that_commits_after_a_poll_moved_the_watermark_past_its_now_is_still_read(
    fetched: list[int], late_writer: psycopg.Connection[Any], savepoint: bool
) -> None:
    company = factories.make_company()
    late = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "taxi"})
    other = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "buss"})
    sync.poll()

    # It writes now, with this now(), and commits only after the next poll. In a
    # savepoint (a PL/pgSQL EXCEPTION block makes one) the row's xmin is a
    # subtransaction's id, which pg_current_snapshot() does not list.
    late_writer.execute("SELECT txid_current()")  # the transaction's own id first, as PostgreSQL assigns them
    if savepoint:
        late_writer.execute("SAVEPOINT inner_block")
    late_writer.execute(
        'UPDATE public.invoice_inbox_items SET channel_context = channel_context || \'{"user_note": "sen"}\' '
        "WHERE id = %s",
        [late.id],
    )
    if savepoint:
        late_writer.execute("RELEASE SAVEPOINT inner_block")
    (held_at,) = late_writer.execute("SELECT now()").fetchone() or (None,)
    _run("UPDATE public.invoice_inbox_items SET channel_context = channel_context || '{\"user_note\": \"tidig\"}' "
         "WHERE id = %s", [other.id])  # fmt: skip
    report, read = _poll_reading(fetched)
    assert (report.indexed, read) == (1, 1)
    assert sync._state().watermark > held_at  # the watermark is past the late row's updated_at
    assert "sen" not in IndexedItem.objects.get(pk=late.id).search_text

    late_writer.commit()
    report, read = _poll_reading(fetched)
    assert report.indexed == 1
    assert "sen" in IndexedItem.objects.get(pk=late.id).search_text
    assert IndexedItem.objects.get(pk=late.id).source_updated_at == held_at  # its older now()

    # And once: the next poll reads nothing.
    report, read = _poll_reading(fetched)
    assert (report.indexed, read) == (0, 0)
