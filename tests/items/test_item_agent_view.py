"""The item page's agent view and verifikat notes, verbatim, and why either is empty."""

from __future__ import annotations

import uuid

from django.urls import reverse

from clarifications import phrases
from tests import factories
from tests.html import page_of
from tests.inbox.helpers import denial
from tests.items.bookkeeping import (
    make_document,
)
from tests.items.page import url

# --- Agent view and notes -------------------------------------------------------


def test_the_agent_view_is_shown_verbatim_with_a_copy_button(bookkeeper_client, company):
    item = factories.make_item(
        company,
        document=make_document(company, id=uuid.UUID("0b5f7f43-51a4-4c52-9a3c-0d1e2f3a4b5c")),
        extracted_data={"supplier": {"name": "Clas Ohlson"}, "totals": {"total": 99}},
        channel_context={"channel": "whatsapp", "user_note": "  pärmar\n\n# och   papper  "},
    )

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("agent-view-text").split("\n")[:2] == [
        "  • invoice_inbox: document_id=0b5f7f43-51a4-4c52-9a3c-0d1e2f3a4b5c, leverantör=Clas Ohlson, total=99 SEK",
        phrases.AGENT_CLARIFICATION_INDENT + phrases.USER_NOTE_PREFIX + "pärmar # och papper",
    ]
    buttons = [b for b in page.tags("button") if b.get("data-copy-from") == "agent-view-text"]
    assert len(buttons) == 1


def test_the_notes_keep_the_humans_line_breaks(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "rad ett\n\trad två"})

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("notes-text") == "rad ett\n\trad två"


def test_a_denial_explains_why_the_verifikat_gets_nothing(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=denial("nej, bara jag", answered_at="2026-08-01T10:00:00Z"),
    )

    page = page_of(bookkeeper_client.get(url(item)))

    assert not page.has("notes-text")
    explanation = page.text("notes-empty")
    assert "denial puts nothing on the voucher by design" in explanation
    assert "not to ask again" in explanation
    assert "INTE representation" in page.text("agent-view-text")


def test_a_caption_only_record_explains_that_the_caption_never_reaches_the_prompt(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "caption": "lunch igår"})

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("notes-text") == "lunch igår"
    assert "lunch" not in page.text("agent-view-text")
    assert "never reaches the prompt" in page.text("agent-view")


def test_a_record_without_answers_explains_that_there_is_nothing_for_the_voucher(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=None)

    page = page_of(bookkeeper_client.get(url(item)))

    assert "nobody has answered anything" in page.text("notes-empty")


def test_a_lone_surrogate_in_the_notes_does_not_break_the_page(bookkeeper_client, company):
    # The notes cap counts UTF-16 units like the reference and can cut an
    # emoji in half; the page must still render.
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "caption": "x" * 218 + "😀😀"})

    response = bookkeeper_client.get(url(item))

    assert response.status_code == 200
    assert page_of(response).text("notes-text") == "x" * 218 + "\ufffd…"


def test_preview_users_get_an_open_in_preview_link(support_client, bookkeeper_client, company):
    item = factories.make_item(company)
    preview_link = f"{reverse('preview')}?item={item.pk}"

    assert preview_link in support_client.get(url(item)).content.decode()
    assert preview_link not in bookkeeper_client.get(url(item)).content.decode()
