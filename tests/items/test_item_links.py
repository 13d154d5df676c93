"""Linked items: an item whose resend question was settled with a newer item, and that newer item."""

from __future__ import annotations

import datetime as dt
import json

from django.db import connections
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import app_event, resend_answer

ASKED_AT = "2026-11-01T09:00:00.000Z"


def url(item) -> str:  # type: ignore[no-untyped-def]
    return reverse("item_detail", args=[item.pk])


def api(client, item):  # type: ignore[no-untyped-def]
    return client.get(reverse("api_item", args=[item.pk])).json()


def words(text: str) -> str:
    return " ".join(text.split())


def test_a_replaced_item_and_its_replacement_link_to_each_other(bookkeeper_client, bookkeeper, company):
    old = factories.make_item(company)
    new = factories.make_item(company)
    resend_answer(old, new, "2026-11-03T08:00:00Z", actor=bookkeeper)

    old_page = page_of(bookkeeper_client.get(url(old)))
    new_page = page_of(bookkeeper_client.get(url(new)))

    assert words(old_page.text("replaced-by")).startswith(f"Replaced by the newer item {new.pk} ({new.supplier_name})")
    assert "by bea 2026-11-03 09:00" in words(old_page.text("replaced-by"))
    assert {"href": url(new), "class": "mono"} in old_page.tags("a")
    (replaces,) = [attrs for tag, attrs in new_page.all_tags() if attrs.get("class") == "replaces"]
    assert replaces["data-item"] == str(old.pk)
    assert f"Replaces the older item {old.pk}" in words(new_page.text("linked-items"))
    assert {"href": url(old), "class": "mono"} in new_page.tags("a")


def test_the_api_gives_the_link_in_both_directions(bookkeeper_client, bookkeeper, company):
    old = factories.make_item(company)
    new = factories.make_item(company)
    resend_answer(old, new, "2026-11-03T08:00:00Z", actor=bookkeeper)

    old_data, new_data = api(bookkeeper_client, old), api(bookkeeper_client, new)

    assert old_data["replaced_by"] == {
        "item_id": str(new.pk),
        "kind": "replaced",
        "at": "2026-11-03T08:00:00Z",
        "by": "bea",
        "exists": True,
    }
    assert old_data["replaces"] == []
    assert new_data["replaced_by"] is None
    assert [(link["item_id"], link["kind"]) for link in new_data["replaces"]] == [(str(old.pk), "replaced")]


def test_an_uploaded_file_links_the_item_made_from_it(bookkeeper_client, company):
    old = factories.make_item(company)
    uploaded = factories.make_item(company, source="upload")
    resend_answer(old, uploaded, "2026-11-03T08:00:00Z", choice="upload")

    old_page = page_of(bookkeeper_client.get(url(old)))
    new_page = page_of(bookkeeper_client.get(url(uploaded)))

    assert "Replaced by a sharper file uploaded in the app, now item" in words(old_page.text("replaced-by"))
    assert f"Made from a sharper file uploaded in the app for item {old.pk}" in words(new_page.text("linked-items"))
    assert api(bookkeeper_client, old)["replaced_by"]["kind"] == "uploaded"
    assert api(bookkeeper_client, uploaded)["replaces"][0]["kind"] == "uploaded"


def test_a_linked_item_deleted_in_accounted_is_named_without_a_link(bookkeeper_client, company):
    old = factories.make_item(company)
    new = factories.make_item(company)
    resend_answer(old, new, "2026-11-03T08:00:00Z")
    InboxItem.objects.filter(pk=new.pk).delete()

    page = page_of(bookkeeper_client.get(url(old)))

    assert f"{new.pk} (no longer in the bookkeeping database)" in words(page.text("replaced-by"))
    assert {"href": url(new), "class": "mono"} not in page.tags("a")
    assert api(bookkeeper_client, old)["replaced_by"]["exists"] is False


def test_other_items_and_answers_make_no_link(bookkeeper_client, company):
    item = factories.make_item(company)
    old = factories.make_item(company)
    new = factories.make_item(company)
    resend_answer(old, new, "2026-11-03T08:00:00Z")
    # A resend declared readable names no newer item.
    readable = factories.make_item(company)
    app_event(
        readable,
        ClarificationEvent.ANSWERED,
        "2026-11-03T08:00:00Z",
        question_type="resend",
        payload={"before": {}, "after": {}, "resend": {"choice": "readable", "new_item_id": None, "document_id": None}},
    )

    for other in (item, readable):
        assert not page_of(bookkeeper_client.get(url(other))).has("linked-items")
        data = api(bookkeeper_client, other)
        assert (data["replaced_by"], data["replaces"]) == (None, [])


def test_a_resend_answered_in_the_app_links_both_items(bookkeeper_client, company):
    """The whole way: the answer path logs the link, both pages read it."""
    old = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "resend", "asked_at": ASKED_AT, "status": "moved_to_app"},
            "quality": {"resend_requested_at": ASKED_AT},
        },
    )
    new = factories.make_item(company, extracted_data=old.extracted_data)  # the same receipt, sharper
    with connections["bookkeeping"].cursor() as cursor:
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET created_at = %s WHERE id = %s",
            [old.created_at + dt.timedelta(minutes=1), new.pk],
        )

    response = bookkeeper_client.post(
        reverse("api_item_answer", args=[old.pk]),
        json.dumps({"question": "resend", "replaced_by": str(new.pk)}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content
    assert api(bookkeeper_client, old)["replaced_by"]["item_id"] == str(new.pk)
    assert [link["item_id"] for link in api(bookkeeper_client, new)["replaces"]] == [str(old.pk)]
    assert f"Replaces the older item {old.pk}" in words(page_of(bookkeeper_client.get(url(new))).text("linked-items"))
