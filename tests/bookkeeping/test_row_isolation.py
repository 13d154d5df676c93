"""One row that breaks its derivation is one malformed item; the pass goes on and logs it once.

Any exception counts, not only the ones foreseen (an undecodable column is
already covered in test_sync.py): a rule that meets a value nobody thought
of must not stop the list, the queue and the counts for every company.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from django.db import connections
from django.test import Client

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.models import IndexedItem
from reviewapp.readmodel import rows, sync
from tests import factories

MOVED = {
    "channel": "whatsapp",
    "pending_question": {"type": "context", "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"},
}
# A channel_context the patched rule below refuses.
TRIPWIRE = {"channel": "whatsapp", "tripwire": True}


@pytest.fixture
def company(db):  # type: ignore[no-untyped-def]
    return factories.make_company()


@pytest.fixture
def tripwire(monkeypatch: pytest.MonkeyPatch) -> None:
    """A derivation rule that raises for one kind of row, as a rule with an unforeseen bug would."""
    compute = states.compute

    def failing(channel_context: object, *args: Any, **kwargs: Any) -> states.ItemStates:
        if isinstance(channel_context, dict) and channel_context.get("tripwire"):
            raise ZeroDivisionError("division by zero in a rule")
        return compute(channel_context, *args, **kwargs)

    monkeypatch.setattr(states, "compute", failing)


def _touch(item_id: uuid.UUID) -> None:
    """Another program writes the row again: accounted's trigger moves updated_at."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET error_message = 'again' WHERE id = %s",
            [item_id],
        )


def _malformed_logs(caplog: pytest.LogCaptureFixture, item_id: uuid.UUID) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "reviewapp.readmodel.sync" and str(item_id) in r.getMessage()]


@pytest.mark.usefixtures("tripwire")
def test_a_row_whose_derivation_raises_is_malformed_with_the_reason_and_every_other_row_is_indexed(
    company, support_client: Client
) -> None:  # type: ignore[no-untyped-def]
    before = factories.make_item(company, indexed=False, channel_context=MOVED)
    broken = factories.make_item(company, indexed=False, channel_context=TRIPWIRE, document_id=None)
    after = factories.make_item(company, indexed=False, channel_context=MOVED)

    report = sync.poll()

    assert report.ran
    assert report.indexed == 3
    assert IndexedItem.objects.get(pk=before.id).state_needs_answer
    assert IndexedItem.objects.get(pk=after.id).state_needs_answer
    row = IndexedItem.objects.get(pk=broken.id)
    assert row.state_malformed
    assert not row.state_needs_answer
    assert row.malformed_reason == "could not be indexed: ZeroDivisionError: division by zero in a rule"
    assert row.company_name == company.name
    assert row.source_updated_at == broken.updated_at
    listed = support_client.get("/api/items", {"state": "malformed"}).json()["results"]
    assert [(r["id"], r["malformed_reason"]) for r in listed] == [(str(broken.id), row.malformed_reason)]


@pytest.mark.usefixtures("tripwire")
def test_a_broken_booked_row_stays_booked_and_never_needs_an_answer(company) -> None:  # type: ignore[no-untyped-def]
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("INSERT INTO public.journal_entries (company_id) VALUES (%s) RETURNING id", [company.id])
        entry = cursor.fetchone()[0]
    broken = factories.make_item(
        company, indexed=False, channel_context={**MOVED, "tripwire": True}, created_journal_entry_id=entry
    )
    sync.poll()
    row = IndexedItem.objects.get(pk=broken.id)
    assert (row.state_booked, row.state_malformed, row.state_needs_answer) == (True, True, False)


# Committed transactions: accounted's trigger sets updated_at to now(), which
# only moves between transactions.
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("tripwire")
def test_each_broken_row_version_is_logged_once_however_often_it_is_read(company, caplog) -> None:  # type: ignore[no-untyped-def]
    broken = factories.make_item(company, indexed=False, channel_context=TRIPWIRE)
    caplog.set_level(logging.WARNING, logger="reviewapp.readmodel.sync")

    sync.poll()
    sync.poll()  # the overlap reads it again
    sync.reconcile()
    sync.index_items([broken.id])  # an explicit re-index of the same version
    [first] = _malformed_logs(caplog, broken.id)
    assert first.levelno == logging.WARNING
    assert "could not be indexed: ZeroDivisionError: division by zero in a rule" in first.getMessage()
    assert first.exc_info is not None  # the traceback, once

    _touch(broken.id)  # a new version, still broken
    sync.poll()
    sync.poll()
    assert len(_malformed_logs(caplog, broken.id)) == 2


def test_a_row_postgresql_refuses_to_store_is_malformed_and_the_rest_of_its_batch_is_indexed(
    company, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    good = factories.make_item(company, indexed=False, channel_context=MOVED)
    refused = factories.make_item(company, indexed=False, channel_context=MOVED)
    derive = rows.index_values

    def with_a_bad_time(row: Any) -> dict[str, Any]:
        values = derive(row)
        if row[0] == refused.id:
            values["open_question_asked_at"] = "the day after tomorrow"  # no timestamptz
        return values

    monkeypatch.setattr(rows, "index_values", with_a_bad_time)

    assert sync.poll().indexed == 2

    assert IndexedItem.objects.get(pk=good.id).state_needs_answer
    row = IndexedItem.objects.get(pk=refused.id)
    assert row.state_malformed
    assert row.malformed_reason.startswith("could not be indexed: DataError: invalid input syntax for type timestamp")


def test_a_long_exception_message_is_cut_in_the_reason(company, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company, indexed=False)

    def explode(row: Any) -> dict[str, Any]:
        raise ValueError("x" * 100_000)

    monkeypatch.setattr(rows, "index_values", explode)
    sync.poll()
    reason = IndexedItem.objects.get(pk=item.id).malformed_reason
    assert reason.startswith("could not be indexed: ValueError: xxx")
    assert len(reason) < 300
