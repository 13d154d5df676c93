"""Previous and next on the item page, in the list's filter and order."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.readmodel import sync
from tests import factories
from tests.html import page_of
from tests.items.page import ASKED_AT, received, url

# --- Previous / next within the list ------------------------------------------------


def test_previous_and_next_follow_the_list_filter_and_keep_it(bookkeeper_client, company):
    waiting = {"channel": "whatsapp", "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "open"}}
    newest = received(factories.make_item(company, channel_context=waiting), "2026-08-05T10:00:00Z")
    received(factories.make_item(company, channel_context=None), "2026-08-04T10:00:00Z")
    middle = received(factories.make_item(company, channel_context=waiting), "2026-08-03T10:00:00Z")
    received(factories.make_item(company, channel_context=None), "2026-08-02T10:00:00Z")
    oldest = received(factories.make_item(company, channel_context=waiting), "2026-08-01T10:00:00Z")
    query = "state=waiting_in_chat&sort=received"

    page = page_of(bookkeeper_client.get(url(middle, query)))

    links = {a.get("data-nav"): a["href"] for a in page.tags("a") if a.get("data-nav")}
    assert links == {
        "list": f"{reverse('inbox')}?{query}",
        "prev": url(newest, query),
        "next": url(oldest, query),
    }


def test_the_first_item_of_the_list_has_no_previous(bookkeeper_client, company):
    first = received(factories.make_item(company), "2026-08-05T10:00:00Z")
    received(factories.make_item(company), "2026-08-04T10:00:00Z")

    page = page_of(bookkeeper_client.get(url(first)))

    navigation = {a.get("data-nav") for a in page.tags("a")}
    assert "prev" not in navigation
    assert "next" in navigation
    assert {a["href"] for a in page.tags("a") if a.get("data-nav") == "list"} == {reverse("inbox")}


def test_an_item_rewritten_behind_the_apps_back_keeps_its_place_in_the_list_until_the_sync_sees_it(
    bookkeeper_client, company
):
    def asked(day: str) -> dict[str, Any]:
        pending = {"type": "context", "asked_at": f"2026-08-{day}T09:00:00Z", "status": "moved_to_app"}
        return {"channel": "whatsapp", "pending_question": pending}

    first = factories.make_item(company, channel_context=asked("01"))
    rewritten = factories.make_item(company, channel_context=asked("02"))
    third = factories.make_item(company, channel_context=asked("03"))
    # Another program moves the question to the 4th with plain SQL.
    InboxItem.objects.filter(pk=rewritten.pk).update(channel_context=asked("04"))
    query = "state=needs_answer&sort=question_age"

    def links() -> dict[str | None, str | None]:
        page = page_of(bookkeeper_client.get(url(rewritten, query)))
        return {a.get("data-nav"): a["href"] for a in page.tags("a") if a.get("data-nav")}

    # j/k walk the list as the bookkeeper sees it: the read model's order.
    assert (links().get("prev"), links().get("next")) == (url(first, query), url(third, query))
    sync.index_items([rewritten.pk])  # what sync_index does within seconds
    assert (links().get("prev"), links().get("next")) == (url(third, query), None)


def test_an_item_the_sync_has_not_indexed_yet_opens_without_previous_or_next(bookkeeper_client, company):
    factories.make_item(company)
    fresh = factories.make_item(company, indexed=False, extracted_data={"supplier": {"name": "Ny AB"}})

    response = bookkeeper_client.get(url(fresh))

    assert response.status_code == 200
    assert "<h1>Ny AB</h1>" in response.content.decode()
    assert {a.get("data-nav") for a in page_of(response).tags("a")} == {"list", None}
