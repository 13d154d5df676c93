"""A resend settled by another item: picked from the company's newer items, or named by its short id (form and API)."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest
from django.urls import reverse
from django.utils import timezone

from reviewapp.answers.resend import distinct_prefixes
from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import ASKED_AT, HTMX, answer_url, moved_item, png_bytes, stored_context
from tests.html import Page
from tests.items.bookkeeping import make_document

pytestmark = pytest.mark.django_db

SETTLED = {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}


def newer_item(old: InboxItem, item_id: str, company: Company | None = None) -> InboxItem:
    """An item with this id received a minute after ``old``, of ``old``'s company unless another is given."""
    # The same receipt read again (else the replacement asks for a confirmation: test_resend_confirm).
    item = factories.make_item(company=company or old.company, id=uuid.UUID(item_id), extracted_data=old.extracted_data)
    InboxItem.objects.filter(pk=item.pk).update(created_at=old.created_at + dt.timedelta(minutes=1))
    return item


def post_form(client, item: InboxItem, replaced_by: str):  # type: ignore[no-untyped-def]
    data = {"question": "resend", "choice": "replaced", "replaced_by": replaced_by}
    return client.post(answer_url(item), data, **HTMX)


def test_the_eight_characters_the_list_shows_name_the_replacing_item(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer = newer_item(item, "5eed1e55-0000-4000-8000-000000000001")
    response = post_form(bookkeeper_client, item, " 5EED1E55 ")
    assert response.status_code == 200
    assert response.headers["HX-Redirect"]
    assert stored_context(item)["quality"] == SETTLED
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["resend"]["new_item_id"] == str(newer.pk)


def test_a_longer_start_with_its_dash_is_accepted_too(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer_item(item, "5eed1e55-0000-4000-8000-000000000001")
    newer_item(item, "5eed1e55-9999-4000-8000-000000000002")
    post_form(bookkeeper_client, item, "5eed1e55-99")
    assert stored_context(item)["quality"] == SETTLED
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["resend"]["new_item_id"] == "5eed1e55-9999-4000-8000-000000000002"
    # The log keeps what was entered too, as typed.
    assert event.payload["answer"] == {"choice": "replaced", "replaced_by": "5eed1e55-99"}


def test_a_short_id_two_items_share_is_refused_naming_both(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer_item(item, "5eed1e55-1000-4000-8000-000000000001")
    newer_item(item, "5eed1e55-2000-4000-8000-000000000002")
    response = post_form(bookkeeper_client, item, "5eed1e55")
    error = Page(response.content.decode()).text("id_replaced_by_error")
    assert " ".join(error.split()) == (
        "5eed1e55 starts the id of several items of this company: 5eed1e551, 5eed1e552. Type more of the id."
    )
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_another_companys_item_neither_matches_nor_makes_a_short_id_ambiguous(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    other = factories.make_company()
    newer_item(item, "5eed1e55-1000-4000-8000-000000000001", company=other)
    response = post_form(bookkeeper_client, item, "5eed1e55")
    assert "No item has this id" in Page(response.content.decode()).text("id_replaced_by_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"

    own = newer_item(item, "5eed1e55-2000-4000-8000-000000000002")
    post_form(bookkeeper_client, item, "5eed1e55")
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["resend"]["new_item_id"] == str(own.pk)


def test_another_companys_item_by_its_whole_id_is_refused_saying_so(bookkeeper_client):
    # A firm-wide bookkeeper sees the other company's item, so its whole id finds it; it still cannot replace.
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    other = newer_item(item, "5eed1e55-1000-4000-8000-000000000001", company=factories.make_company())
    response = post_form(bookkeeper_client, item, str(other.pk))
    error = Page(response.content.decode()).text("id_replaced_by_error")
    assert " ".join(error.split()) == "That item belongs to another company."
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


@pytest.mark.parametrize("typed", ["5eed1e5", "5eed1e5g", "kvitto-1"])
def test_fewer_than_eight_hex_characters_is_a_message_not_a_lookup(bookkeeper_client, typed):
    item = moved_item("resend")
    response = post_form(bookkeeper_client, item, typed)
    assert "first 8 or more characters" in Page(response.content.decode()).text("id_replaced_by_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_the_api_takes_a_short_id_and_names_the_matches_of_an_ambiguous_one(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer_item(item, "5eed1e55-1000-4000-8000-000000000001")
    second = newer_item(item, "5eed1e55-2000-4000-8000-000000000002")
    url = reverse("api_item_answer", args=[item.pk])
    body = {"question": "resend", "replaced_by": "5eed1e55"}
    response = bookkeeper_client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert "5eed1e551, 5eed1e552" in response.json()["errors"]["replaced_by"][0]
    body["replaced_by"] = "5eed1e552"
    response = bookkeeper_client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    assert response.json()["replaced_by_item"] == str(second.pk)


# --- The picker of newer items ---------------------------------------------------------


def test_the_resend_form_offers_the_companys_newer_items_with_thumbnail_received_supplier_and_amount(
    bookkeeper_client,
):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    older = factories.make_item(company=item.company)
    InboxItem.objects.filter(pk=older.pk).update(created_at=item.created_at - dt.timedelta(minutes=1))
    photo = newer_item(item, "5eed1e55-0000-4000-8000-000000000001")
    InboxItem.objects.filter(pk=photo.pk).update(
        document=make_document(item.company, content=png_bytes()),
        extracted_data={"supplier": {"name": "Taxi Kurir"}, "totals": {"total": 249.5}, "invoice": {"currency": "SEK"}},
    )
    theirs = newer_item(item, "5eed1e55-0000-4000-8000-000000000002", company=factories.make_company())
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    picks = [tag["data-pick-replacement"] for tag in page.tags("button") if tag.get("data-pick-replacement")]
    assert picks == [str(photo.pk)]
    offered = " ".join(page.text("newer-items").split())
    photo.refresh_from_db()
    assert "5eed1e55" in offered
    assert "Taxi Kurir" in offered
    assert "249.50 SEK" in offered
    # The day in Stockholm, as the page gives it (not the UTC day, for an hour or two before midnight).
    assert timezone.localtime(photo.created_at).strftime("%Y-%m-%d") in offered
    assert [tag["src"] for tag in page.tags("img") if "newer-item-thumb" in (tag.get("class") or "")] == [
        reverse("item_document", args=[photo.pk])
    ]
    assert str(older.pk) not in picks
    assert str(theirs.pk) not in picks


def test_a_question_of_another_type_offers_no_newer_items(bookkeeper_client):
    item = moved_item("context")
    newer_item(item, "5eed1e55-0000-4000-8000-000000000001")
    assert not Page(bookkeeper_client.get(answer_url(item)).content.decode()).has("newer-items")


def test_the_ids_offered_are_each_cut_past_what_was_typed():
    # They differ from the second digit on, but the person typed nine: each shown id is longer.
    ids = [uuid.UUID("1a345678-9abc-4def-8123-456789abcdef"), uuid.UUID("1b345678-9abc-4def-8123-456789abcdef")]
    assert distinct_prefixes(ids, 9) == ["1a3456789a", "1b3456789a"]
