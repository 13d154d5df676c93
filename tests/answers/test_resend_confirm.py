"""A resend settled by "replaced by" an item that differs sharply from this one is confirmed first.

The rule (docs/screens.md, "Replaced by"): a different supplier after
normalisation, an amount more than 1.00 and more than 10 % apart, another
currency, receipt dates more than 7 days apart. Until confirmed nothing is
written, neither to accounted's tables nor to the app's log.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import ASKED_AT, HTMX, answer_url, moved_item, stored_context
from tests.html import Page

pytestmark = pytest.mark.django_db


def _extracted(supplier: str, total: float, currency: str, date: str) -> dict[str, Any]:
    return {
        "supplier": {"name": supplier},
        "invoice": {"invoiceDate": date, "currency": currency},
        "totals": {"total": total, "vatAmount": 12},
    }


OLD = _extracted("Restaurang Prinsen AB", 1240.0, "SEK", "2026-11-20")


def _pair(new_data: dict[str, Any]) -> tuple[InboxItem, InboxItem]:
    old = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    InboxItem.objects.filter(pk=old.pk).update(extracted_data=OLD)
    old.refresh_from_db()
    newer = factories.make_item(company=old.company, extracted_data=new_data)
    InboxItem.objects.filter(pk=newer.pk).update(created_at=old.created_at + dt.timedelta(minutes=1))
    return old, newer


def _written_nothing(old: InboxItem, newer: InboxItem, before: dict[str, Any], updated_at: dt.datetime) -> None:
    assert stored_context(old) == before
    assert old.updated_at == updated_at
    assert not ProcessingHistory.objects.filter(aggregate_id=old.pk).exists()
    assert not ClarificationEvent.objects.filter(item_id=old.pk).exists()
    newer.refresh_from_db()
    assert newer.channel_context == {"channel": "whatsapp"}


def _superseded(old: InboxItem) -> bool:
    ctx = stored_context(old)
    return ctx["pending_question"]["status"] == "answered" and ctx["quality"].get("superseded") is True


SHARP = _extracted("Pressbyrån", 89.0, "EUR", "2026-10-01")


def test_a_sharply_different_item_is_confirmed_on_the_page_before_anything_is_written(bookkeeper_client):
    old, newer = _pair(SHARP)
    before, updated_at = stored_context(old), old.updated_at
    data = {"question": "resend", "choice": "replaced", "replaced_by": str(newer.pk)}
    asked = bookkeeper_client.post(answer_url(old), data, **HTMX)
    assert asked.status_code == 200
    page = Page(asked.content.decode())
    assert page.table("resend-differences")[1:] == [
        ["Supplier", "Restaurang Prinsen AB", "Pressbyrån"],
        ["Amount", "1,240.00", "89.00"],
        ["Currency", "SEK", "EUR"],
        ["Receipt date", "2026-11-20", "2026-10-01"],
    ]
    _written_nothing(old, newer, before, updated_at)
    # The button posts the same form again with "confirm" (no JavaScript: a plain submit).
    button = next(b for b in page.form("answer-form").submit_buttons if b.get("name") == "confirm")
    assert button.get("hx-post") == answer_url(old)
    confirmed = bookkeeper_client.post(answer_url(old), {**data, "confirm": button.get("value")})
    assert confirmed.status_code == 302
    assert _superseded(old)
    event = ClarificationEvent.objects.get(item_id=old.pk)
    assert event.payload["resend"]["choice"] == "replaced"


def test_a_confirmation_for_another_id_than_the_one_typed_now_asks_again(bookkeeper_client):
    old, newer = _pair(SHARP)
    before, updated_at = stored_context(old), old.updated_at
    data = {"question": "resend", "choice": "replaced", "replaced_by": str(newer.pk), "confirm": str(old.pk)}
    response = bookkeeper_client.post(answer_url(old), data)
    assert response.status_code == 200
    assert Page(response.content.decode()).has("resend-differences")
    _written_nothing(old, newer, before, updated_at)


@pytest.mark.parametrize(
    "new_data",
    [
        # The same receipt read again: legal form and case aside, a few kronor, a day.
        _extracted("RESTAURANG PRINSEN", 1239.0, "SEK", "2026-11-21"),
        _extracted("Prinsen", 1300.0, "sek", "2026-11-25"),
        # Not read yet by accounted: nothing to compare.
        {},
    ],
)
def test_a_similar_or_unread_item_replaces_at_once(bookkeeper_client, new_data):
    old, newer = _pair(new_data)
    data = {"question": "resend", "choice": "replaced", "replaced_by": str(newer.pk)}
    response = bookkeeper_client.post(answer_url(old), data)
    assert response.status_code == 302
    assert _superseded(old)


@pytest.mark.parametrize(
    ("new_data", "field"),
    [
        (_extracted("Pressbyrån", 1240.0, "SEK", "2026-11-20"), "supplier"),
        (_extracted("Prinsen", 1100.0, "SEK", "2026-11-20"), "amount"),
        (_extracted("Prinsen", 1240.0, "EUR", "2026-11-20"), "currency"),
        (_extracted("Prinsen", 1240.0, "SEK", "2026-11-30"), "date"),
    ],
)
def test_each_sharp_difference_alone_asks(bookkeeper_client, new_data, field):
    old, newer = _pair(new_data)
    data = {"question": "resend", "choice": "replaced", "replaced_by": str(newer.pk)}
    response = bookkeeper_client.post(answer_url(old), data, **HTMX)
    rows = [e.attrs.get("data-difference") for e in Page(response.content.decode()).elements if e.tag == "tr"]
    assert [row for row in rows if row] == [field]
    assert stored_context(old)["pending_question"]["status"] == "moved_to_app"


# --- The JSON API ----------------------------------------------------------------------


def _api(client: Any, item: InboxItem, body: dict[str, Any]) -> Any:
    url = reverse("api_item_answer", args=[item.pk])
    return client.post(url, json.dumps(body), content_type="application/json")


def test_the_api_names_the_differences_and_writes_only_with_confirm(bookkeeper_client):
    old, newer = _pair(_extracted("Pressbyrån", 1240.0, "SEK", "2026-11-20"))
    before, updated_at = stored_context(old), old.updated_at
    asked = _api(bookkeeper_client, old, {"question": "resend", "replaced_by": str(newer.pk)})
    assert asked.status_code == 409
    body = asked.json()
    assert body["reason"] == "differs"
    assert body["differences"] == [
        {"field": "supplier", "this_item": "Restaurang Prinsen AB", "replacing_item": "Pressbyrån"}
    ]
    assert body["confirm_with"] == {"confirm": True}
    (message,) = body["errors"]["confirm"]
    assert message.startswith(f"Item {newer.pk} differs sharply from this one (")
    assert "Restaurang Prinsen AB here, Pressbyrån there" in message
    assert message.endswith("). Confirm that it is the same receipt to settle the question with it.")
    _written_nothing(old, newer, before, updated_at)
    done = _api(bookkeeper_client, old, {"question": "resend", "replaced_by": str(newer.pk), "confirm": True})
    assert done.status_code == 200
    assert done.json()["replaced_by_item"] == str(newer.pk)
    assert _superseded(old)


def test_the_api_replaces_a_similar_item_at_once(bookkeeper_client):
    old, newer = _pair(_extracted("Prinsen AB", 1240.0, "SEK", "2026-11-20"))
    response = _api(bookkeeper_client, old, {"question": "resend", "replaced_by": str(newer.pk)})
    assert response.status_code == 200
    assert _superseded(old)


def test_the_api_refuses_a_confirm_that_is_not_a_boolean(bookkeeper_client):
    old, newer = _pair(SHARP)
    response = _api(bookkeeper_client, old, {"question": "resend", "replaced_by": str(newer.pk), "confirm": "yes"})
    assert response.status_code == 400
    assert "confirm" in response.json()["errors"]
    assert stored_context(old)["pending_question"]["status"] == "moved_to_app"


def test_a_supplier_name_of_any_length_is_named_cut(bookkeeper_client):
    old, newer = _pair(_extracted("Pressbyrån " + "x" * 5000, 1240.0, "SEK", "2026-11-20"))
    response = _api(bookkeeper_client, old, {"question": "resend", "replaced_by": str(newer.pk)})
    assert response.status_code == 409
    named = response.json()["differences"][0]["replacing_item"]
    assert named.startswith("Pressbyrån xxx")
    assert len(named) <= 120
    assert len(response.content) < 2000
