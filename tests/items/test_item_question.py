"""The item page's open question: who owns it, since when, and the answer panel under it."""

from __future__ import annotations

from clarifications import phrases
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.html import page_of
from tests.inbox.helpers import pending
from tests.items.bookkeeping import (
    accounted_event,
)
from tests.items.page import ASKED_AT, CRON, url

# --- The open question ----------------------------------------------------------


def test_an_open_question_is_owned_by_the_chat_until_48_hours_after_it_was_asked(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=pending("open", type_="context", asked_at=ASKED_AT),
    )

    page = page_of(bookkeeper_client.get(url(item)))

    panel = page.words("open-question")
    assert "What the purchase was for" in panel
    assert "Asked in WhatsApp at 2026-08-01 11:00; the chat keeps it until 2026-08-03 11:00." in panel


def test_a_moved_question_says_when_the_chat_gave_up_from_the_expiry_event(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=pending("moved_to_app", type_="representation", asked_at=ASKED_AT),
    )
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT)
    # accounted's expiry cron ran a little late: its own record wins over asked_at + 48 h.
    accounted_event(item, ClarificationEvent.EXPIRED, "2026-08-03T09:30:00Z", actor=CRON)

    panel = page_of(bookkeeper_client.get(url(item))).words("open-question")

    assert "Who attended and why (representation)" in panel
    assert (
        "Asked in the chat (WhatsApp) at 2026-08-01 11:00, no reply within 48 h: "
        "the app owns it since 2026-08-03 11:30." in panel
    )


def test_a_moved_question_without_an_expiry_event_gave_up_48_hours_after_asking(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=pending("moved_to_app", type_="resend", asked_at="2026-12-01T09:00:00Z"),
    )
    accounted_event(item, ClarificationEvent.ASKED, "2026-12-01T09:00:00Z", question_type="resend")

    panel = page_of(bookkeeper_client.get(url(item))).words("open-question")

    assert "A sharper photo of the receipt" in panel
    # Winter time: UTC+1.
    assert "no reply within 48 h: the app owns it since 2026-12-03 10:00." in panel


def test_the_open_question_panel_names_the_prompt_line(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT),
    )

    panel = page_of(bookkeeper_client.get(url(item))).text("open-question")

    assert f"{phrases.OPEN_QUESTION_MARKER}: {phrases.ASK_CONTEXT}." in panel


def test_an_answered_question_leaves_no_open_question(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "user_note": "kontorsmaterial",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
        },
    )

    panel = page_of(bookkeeper_client.get(url(item))).text("open-question")

    assert "No open question." in panel


def test_the_answer_panel_slot_follows_the_open_question(bookkeeper_client, company):
    # templates/items/_answer_panel.html sits right under the open question
    # and reads the permission from Django's ``perms``.
    item = factories.make_item(company)

    response = bookkeeper_client.get(url(item))

    # No open question, so no panel: only its script, printed where the panel goes.
    html = response.content.decode()
    page = page_of(response)
    assert "No open question." in page.text("open-question")
    assert not page.has("answer-panel")
    assert html.index('id="open-question"') < html.index("js/answer.js") < html.index('id="agent-view"')
    # A question the app owns: the bookkeeper holds perms.reviewapp.answer_question, so the panel offers the form.
    moved = factories.make_item(company, channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT))
    answering = page_of(bookkeeper_client.get(url(moved)))
    assert answering.has("answer-form")
    assert "a bookkeeper answers it here" not in answering.words("answer-panel")
