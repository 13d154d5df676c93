"""One row's columns as the read model derives them (``rows.index_values``, ``moved_to_app_at``)."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest

from reviewapp.models import IndexedItem
from reviewapp.readmodel.rows import index_values
from tests import factories

AT = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)


def _row(extracted: object) -> tuple[object, ...]:
    return (
        uuid.uuid4(),
        uuid.uuid4(),
        "Firma AB",
        AT,
        AT,
        "null",
        json.dumps(extracted),
        False,
        None,
        None,
        None,
        False,
    )


@pytest.mark.parametrize(
    ("name", "shown"), [("Restaurang Tornet", "Restaurang Tornet"), ("   ", None), ("", None), (5, None)]
)
def test_a_blank_or_non_text_supplier_name_is_no_name(name, shown):
    assert index_values(_row({"supplier": {"name": name}}))["supplier_name"] == shown


@pytest.mark.parametrize(("total", "shown"), [(123.5, 123.5), (7, 7), (True, None), ("123", None), (10**400, None)])
def test_only_a_finite_number_is_a_total(total, shown):
    assert index_values(_row({"totals": {"total": total}}))["total"] == shown


@pytest.mark.parametrize(("currency", "shown"), [("EUR", "EUR"), ("", "SEK"), (None, "SEK")])
def test_the_receipts_currency_is_kept_and_sek_is_only_the_default(currency, shown):
    assert index_values(_row({"invoice": {"currency": currency}}))["currency"] == shown


@pytest.mark.django_db
def test_a_question_moved_without_an_expiry_event_moved_when_it_was_asked(company):
    asked = "2026-11-01T09:00:00Z"
    ctx = {"channel": "whatsapp", "pending_question": {"type": "context", "asked_at": asked, "status": "moved_to_app"}}
    item = factories.make_item(company, channel_context=ctx)
    moved = IndexedItem.objects.get(pk=item.pk).moved_to_app_at
    assert moved == dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
