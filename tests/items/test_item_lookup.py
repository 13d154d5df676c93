"""Lookups: an exact id names one item; the list's search matches what the customer said; the ids on the page."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from reviewapp.inbox.lookup import item_for_exact_id
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import make_document, make_message, whatsapp_item

# --- item_for_exact_id -------------------------------------------------------------


@pytest.fixture
def photo_item(company):  # type: ignore[no-untyped-def]
    return whatsapp_item(
        company,
        when="2026-11-02T08:59:00Z",
        wamid="wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUY=",
        document=make_document(company),
    )


def test_the_item_id_finds_the_item(photo_item):
    assert item_for_exact_id(str(photo_item.pk)) == photo_item.pk


def test_an_upper_case_id_with_spaces_around_finds_the_item(photo_item):
    assert item_for_exact_id(f"  {str(photo_item.pk).upper()}\n") == photo_item.pk


def test_the_document_id_finds_the_item(photo_item):
    assert item_for_exact_id(str(photo_item.document_id)) == photo_item.pk


def test_the_correlation_id_finds_the_item(photo_item):
    assert item_for_exact_id(str(photo_item.correlation_id)) == photo_item.pk


def test_the_whatsapp_message_id_finds_the_item(photo_item):
    assert item_for_exact_id(str(photo_item.whatsapp_message_id)) == photo_item.pk


def test_the_wamid_of_the_photo_finds_the_item(photo_item):
    assert item_for_exact_id("wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUY=") == photo_item.pk


def test_the_wamid_of_a_reply_finds_the_item_it_answers(photo_item):
    make_message(item_id=photo_item.pk, when="2026-11-02T09:05:00Z", body="Nej", wamid="wamid.REPLY=")

    assert item_for_exact_id("wamid.REPLY=") == photo_item.pk


def test_a_wamid_of_a_message_about_no_item_finds_nothing(company):
    make_message(item_id=None, when="2026-11-02T09:05:00Z", body="Hej", wamid="wamid.LONELY=")

    assert item_for_exact_id("wamid.LONELY=") is None


def test_a_wamid_is_compared_exactly(photo_item):
    # WhatsApp's ids are base64: case matters, and a part is not the whole.
    assert item_for_exact_id("wamid.hbglndy3mdeymzq1njcvagasgbqzquy=") is None
    assert item_for_exact_id("wamid.HBgLNDY3MDEy") is None
    assert item_for_exact_id("wamid.") is None


def test_an_id_two_items_share_is_ambiguous(company):
    document = make_document(company)
    correlation = uuid.uuid4()
    factories.make_item(company, document=document, correlation_id=correlation)
    factories.make_item(company, document=document, correlation_id=correlation)

    assert item_for_exact_id(str(document.pk)) is None
    assert item_for_exact_id(str(correlation)) is None


def test_an_id_naming_no_item_finds_nothing(photo_item):
    assert item_for_exact_id(str(uuid.uuid4())) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "nej",
        "volvo lunch",
        "3f2504e0",
        "3f2504e04f8911d39a0c0305e82c3301",
        "{3f2504e0-4f89-11d3-9a0c-0305e82c3301}",
    ],
)
def test_text_that_is_not_an_exact_id_finds_nothing(photo_item, text):
    assert item_for_exact_id(text) is None


def test_an_item_is_found_by_the_read_model(photo_item):
    # The list's read model is what the lookup reads: an item sync_index has
    # not reached yet is found a moment later, not from accounted's table.
    IndexedItem.objects.filter(pk=photo_item.pk).delete()
    assert item_for_exact_id(str(photo_item.document_id)) is None
    sync.index_items([photo_item.pk])
    assert item_for_exact_id(str(photo_item.document_id)) == photo_item.pk


# --- Search text -------------------------------------------------------------------


def denied(raw: str) -> dict[str, object]:
    return {
        "channel": "whatsapp",
        "pending_question": {"type": "representation", "asked_at": "2026-11-02T09:00:00.000Z", "status": "answered"},
        "representation": {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw,
            "answered_at": "2026-11-02T09:05:00.000Z",
            "denied": True,
        },
    }


def test_the_customers_own_words_are_searchable(company):
    denial = factories.make_item(company, channel_context=denied("Nej"))
    context = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "user_note": "Pärmar till kontoret",
            "context_answer": {"raw_answer": "pärmar o pennor", "answered_at": "2026-11-02T09:05:00.000Z"},
        },
    )
    other = factories.make_item(company)

    def found(word: str) -> set[uuid.UUID]:
        return set(IndexedItem.objects.filter(search_text__contains=word).values_list("pk", flat=True))

    assert found("nej") == {denial.pk}
    assert found("pennor") == {context.pk}
    assert found("kontoret") == {context.pk}
    assert other.pk not in found("nej") | found("pennor")


def test_the_list_search_finds_a_denial_by_nej(bookkeeper_client, company):
    denial = factories.make_item(company, channel_context=denied("Nej tack"))
    factories.make_item(company)

    html = bookkeeper_client.get(reverse("inbox"), {"q": "nej"}).content.decode()

    assert str(denial.pk) in html
    assert html.count(reverse("item_detail", args=[denial.pk])) >= 1


# --- The ids on the item page ------------------------------------------------------


def test_the_page_shows_every_id_with_a_copy_button(bookkeeper_client, photo_item):
    page = page_of(bookkeeper_client.get(reverse("item_detail", args=[photo_item.pk])))

    assert page.text("id-item") == str(photo_item.pk)
    assert page.text("id-document") == str(photo_item.document_id)
    assert page.text("id-correlation") == str(photo_item.correlation_id)
    assert page.text("id-whatsapp-message") == str(photo_item.whatsapp_message_id)
    assert page.text("id-photo-wamid") == "wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUY="
    buttons = {b["data-copy-from"] for b in page.tags("button") if b.get("data-copy-from", "").startswith("id-")}
    assert buttons == {"id-item", "id-document", "id-correlation", "id-whatsapp-message", "id-photo-wamid"}
    # The copy script is a static file: the page has no inline script (CSP).
    assert all(tag.get("src") for tag in page.tags("script"))


def test_ids_an_item_lacks_show_a_dash_without_a_copy_button(bookkeeper_client, company):
    item = factories.make_item(company, correlation_id=None)

    page = page_of(bookkeeper_client.get(reverse("item_detail", args=[item.pk])))

    assert page.text("id-item") == str(item.pk)
    assert not page.has("id-document")
    assert page.text("id-correlation-none") == "—"
    assert page.text("id-photo-wamid-none") == "—"
    assert "id-correlation" not in {b.get("data-copy-from") for b in page.tags("button")}


def test_the_api_gives_the_ids(bookkeeper_client, photo_item):
    ids = bookkeeper_client.get(reverse("api_item", args=[photo_item.pk])).json()["ids"]

    assert ids == {
        "item": str(photo_item.pk),
        "document": str(photo_item.document_id),
        "correlation": str(photo_item.correlation_id),
        "whatsapp_message": str(photo_item.whatsapp_message_id),
        "photo_wamid": "wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUY=",
    }
