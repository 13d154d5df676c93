"""Whether the customer was ever asked in the chat, from accounted's own events (issue 37 point 8).

accounted logs ``ChannelQuestionAsked`` when the chat asks and ``ChannelQuestionExpired`` when its
sweep moves the question to the app 48 h later; over the question budget it writes the question
straight as ``moved_to_app`` with no event (the contract, steps 2 and 8).
"""

from __future__ import annotations

from django.urls import reverse

from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import HTMX, moved_item
from tests.html import page_of
from tests.inbox.helpers import pending
from tests.items.bookkeeping import accounted_event
from tests.items.page import ASKED_AT, CRON, url


def test_a_question_over_the_budget_says_it_was_never_asked_in_the_chat(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT))

    page = page_of(bookkeeper_client.get(url(item)))

    panel = page.words("open-question")
    assert (
        "Never asked in the chat (WhatsApp): over the day's question budget it went straight to the app at "
        "2026-08-01 11:00; the app owns it." in panel
    )
    assert "gave up" not in panel
    assert (
        "2026-08-01 11:00 Moved to the app, never asked in the chat: What the purchase was for "
        "— over the day's question budget · accounted's channel_context" in page.words("history")
    )


def test_a_question_asked_and_expired_says_when_it_was_asked_and_that_nobody_replied(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT))
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT, question_type="context")
    accounted_event(item, ClarificationEvent.EXPIRED, "2026-08-03T09:01:00Z", actor=CRON, question_type="context")

    page = page_of(bookkeeper_client.get(url(item)))

    assert (
        "Asked in the chat (WhatsApp) at 2026-08-01 11:00, no reply within 48 h: "
        "the app owns it since 2026-08-03 11:01." in page.words("open-question")
    )
    assert "never asked" not in page.words("history")


def test_the_api_says_whether_the_customer_was_asked(bookkeeper_client, company):
    unasked = factories.make_item(company, channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT))
    asked = factories.make_item(company, channel_context=pending("moved_to_app", type_="context", asked_at=ASKED_AT))
    accounted_event(asked, ClarificationEvent.ASKED, ASKED_AT, question_type="context")

    def question(item):  # type: ignore[no-untyped-def]
        return bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["open_question"]

    assert question(unasked)["asked_in_chat"] is False
    assert question(unasked)["asked_at"] is None
    assert question(asked)["asked_in_chat"] is True
    assert question(asked)["gave_up_at"] == "2026-08-03T09:00:00Z"


def test_after_the_app_answers_an_unasked_question_the_history_still_says_it_was_never_asked(bookkeeper_client):
    item = moved_item("context")
    response = bookkeeper_client.post(
        reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Lunch med kund"}, **HTMX
    )
    assert response.status_code == 200
    history = page_of(bookkeeper_client.get(url(item))).words("history")
    moved = history.index("Moved to the app, never asked in the chat")
    answered = history.index("Question answered")
    assert moved < answered
