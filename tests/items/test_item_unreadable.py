"""Rows whose JSON PostgreSQL stores but Python cannot decode: their own page, no 500 anywhere.

Written with plain SQL, as another program would: ``channel_context`` nested
10 000 deep, and ``extracted_data`` holding a 5 000-digit number.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.readmodel import sync
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import DEEP_JSON, HUGE_NUMBER_JSON, PNG, at, make_document, poison_item


def url(item_id) -> str:  # type: ignore[no-untyped-def]
    return reverse("item_detail", args=[item_id])


def api_url(item_id) -> str:  # type: ignore[no-untyped-def]
    return reverse("api_item", args=[item_id])


def _digits(text: str) -> str:
    return re.sub(r"[^\d]", "", text)


def test_a_context_nested_too_deep_gets_its_own_page_with_the_reason_and_size(support_client, company):
    item_id = poison_item(company, channel_context=DEEP_JSON)

    response = support_client.get(url(item_id))

    assert response.status_code == 200
    page = page_of(response)
    unreadable = page.words("unreadable")
    assert "channel_context: nested too deep to read" in unreadable
    assert "20000" in _digits(unreadable)  # the stored text: 10 000 "[" and 10 000 "]"
    assert "<h1>Giftig AB</h1>" in response.content.decode()


def test_an_unreadable_row_shows_no_agent_view_no_verifikat_line_and_no_raw_json(support_client, company):
    item_id = poison_item(company, channel_context=DEEP_JSON)

    page = page_of(support_client.get(url(item_id)))

    for region in ("agent-view", "agent-view-text", "notes", "human-said", "open-question", "raw-context", "problems"):
        assert not page.has(region), region
    assert page.has("history")


def test_a_huge_number_in_extracted_data_gets_its_own_page(bookkeeper_client, company):
    item_id = poison_item(
        company, channel_context='{"channel": "whatsapp", "user_note": "hej"}', extracted_data=HUGE_NUMBER_JSON
    )

    response = bookkeeper_client.get(url(item_id))

    assert response.status_code == 200
    page = page_of(response)
    unreadable = page.words("unreadable")
    assert "extracted_data:" in unreadable
    assert "4300 digits" in unreadable
    # Without the extracted data, what the agent is told cannot be known.
    assert not page.has("agent-view-text")
    badges = [attrs.get("class") for tag, attrs in page.all_tags() if tag == "span"]
    assert "badge badge-malformed" in badges


def test_the_api_answers_200_with_the_malformed_reason(support_client, company):
    item_id = poison_item(company, channel_context=DEEP_JSON)

    response = support_client.get(api_url(item_id))

    assert response.status_code == 200
    data = response.json()
    assert data["malformed"] == "channel_context: nested too deep to read"
    assert data["unreadable"] == [{"column": "channel_context", "reason": "nested too deep to read", "size": 20000}]
    assert data["agent_view"] is None
    assert data["lines"] is None
    assert data["notes"] is None
    assert "malformed" in data["states"]
    assert data["channel_context"] is None
    assert data["supplier"] == "Giftig AB"


def test_the_api_answers_200_for_a_huge_number(bookkeeper_client, company):
    item_id = poison_item(company, channel_context=None, extracted_data=HUGE_NUMBER_JSON)

    response = bookkeeper_client.get(api_url(item_id))

    assert response.status_code == 200
    data = response.json()
    assert data["malformed"].startswith("extracted_data: ")
    assert "5000 digits" in data["malformed"]
    assert data["agent_view"] is None
    assert data["supplier"] is None


def test_a_readable_item_says_it_is_not_malformed(bookkeeper_client, company):
    item = factories.make_item(company)

    data = bookkeeper_client.get(api_url(item.pk)).json()

    assert data["malformed"] is None
    assert data["unreadable"] == []


@pytest.mark.parametrize("poison", ["deep", "huge"])
def test_the_neighbours_pages_still_work_and_link_to_the_unreadable_row(bookkeeper_client, company, poison):
    before = factories.make_item(company)
    item_id = (
        poison_item(company, channel_context=DEEP_JSON)
        if poison == "deep"
        else poison_item(company, extracted_data=HUGE_NUMBER_JSON)
    )
    # Received one after the other (one test transaction gives both the same now()).
    InboxItem.objects.filter(pk=before.pk).update(created_at=at("2026-08-01T09:00:00Z"))
    InboxItem.objects.filter(pk=item_id).update(created_at=at("2026-08-02T09:00:00Z"))
    sync.index_items([before.pk, item_id])

    response = bookkeeper_client.get(url(before.pk))

    assert response.status_code == 200
    links = {a.get("data-nav"): a["href"] for a in page_of(response).tags("a") if a.get("data-nav")}
    assert links["prev"] == url(item_id)
    assert bookkeeper_client.get(links["prev"]).status_code == 200


def test_the_document_of_an_unreadable_row_is_still_shown_and_served(bookkeeper_client, company):
    document = make_document(company, content=PNG, file_name="kvitto.png")
    item_id = poison_item(company, channel_context=DEEP_JSON, document=document)

    page = page_of(bookkeeper_client.get(url(item_id)))
    response = bookkeeper_client.get(reverse("item_document", args=[item_id]))

    assert page.words("document-facts") == f"{document.pk} kvitto.png"
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PNG


def test_an_unreadable_extracted_data_with_a_question_for_the_app_still_opens(bookkeeper_client, company):
    # The answer panel sits on this page too; the row's channel_context is fine.
    pending = {"type": "context", "asked_at": "2026-08-01T09:00:00Z", "status": "moved_to_app"}
    moved = json.dumps({"channel": "whatsapp", "pending_question": pending})
    item_id = poison_item(company, channel_context=moved, extracted_data=HUGE_NUMBER_JSON)

    response = bookkeeper_client.get(url(item_id))

    assert response.status_code == 200
    assert "extracted_data:" in page_of(response).text("unreadable")
