"""The answer panel after an answer: correcting it, a booked item, an answer another program replaced."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.urls import reverse

from devtools import intake_simulator as intake
from reviewapp.answers.channel_context import answer_value, answer_version
from reviewapp.answers.log import app_answers, replaced_answer
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent
from tests.answers.conftest import (
    HTMX,
    answer_url,
    book,
    history,
    moved_item,
    representation_post,
    stored_context,
)
from tests.html import Page

pytestmark = pytest.mark.django_db


def page_of(client: Any, item: InboxItem) -> Page:
    response = client.get(reverse("item_detail", args=[item.pk]))
    assert response.status_code == 200
    return Page(response.content.decode())


def quoted(page: Page) -> list[str]:
    """The texts the page sets as quotations."""
    return [element.text for element in page.elements if element.tag == "q"]


# --- The panel on the item page ---------------------------------------------------------------


def test_the_item_page_offers_the_representation_form_to_a_bookkeeper(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.get(reverse("item_detail", args=[item.pk]))
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert page.has("answer-form")
    names = {tag.get("name") for tag in page.tags("input")}
    assert {"participants-0-name", "participants-0-company", "event_date"} <= names
    buttons = {tag.get("value") for tag in page.tags("button")}
    assert {"save", "deny"} <= buttons


def test_the_form_is_prefilled_from_a_half_answer(bookkeeper_client):
    half = {
        "participants": [{"name": "Elias Karlsson", "company": "Canguro Media"}],
        "purpose": None,
        "event_date": None,
        "raw_answer": "Elias Karlsson från Canguro Media",
        "answered_at": "2026-08-01T10:00:00Z",
    }
    item = moved_item("representation", representation=half)
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    values = page.values()
    assert values["participants-0-name"] == "Elias Karlsson"
    assert values["participants-0-company"] == "Canguro Media"
    # And a spare row to type the next person into.
    assert values["participants-1-name"] in (None, "")


def test_support_sees_the_question_but_no_form(support_client):
    item = moved_item("context")
    page = Page(support_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert page.has("answer-panel")
    assert not page.has("answer-form")


def test_a_question_still_open_in_whatsapp_is_read_only_with_the_window_end(bookkeeper_client):
    item = moved_item("representation", status="open")
    response = bookkeeper_client.get(reverse("item_detail", args=[item.pk]))
    page = Page(response.content.decode())
    assert not page.has("answer-form")
    # asked 2026-08-01 09:00 UTC + 48 h = 2026-08-03 09:00 UTC = 11:00 in Stockholm.
    assert "2026-08-03 11:00" in page.text("answer-waiting")


def test_an_answered_item_shows_no_answer_form(bookkeeper_client):
    item = moved_item("context", status="answered")
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert not page.has("answer-panel")


def test_a_question_of_an_unknown_type_is_explained_not_offered(bookkeeper_client):
    item = moved_item("survey")
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert "survey" in page.text("answer-panel")
    assert not page.has("answer-form")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "user_note" not in stored_context(item)


# --- Correcting an answer given in the app -------------------------------------------------


def test_an_app_answer_is_shown_with_a_form_to_correct_it(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi till kund"})
    page = page_of(bookkeeper_client, item)
    assert "Answered in the app by bea" in page.text("answer-answered")
    assert "Taxi till kund" in page.text("answer-answered")
    assert page.has("answer-amend")
    assert "Taxi till kund" in page.text("id_text")
    hidden = page.values(type="hidden")
    assert hidden["amend"] == "1"
    assert hidden["answer_version"] == answer_version(answer_value(stored_context(item), "context"))


def test_a_bookkeeper_corrects_a_typo_and_the_history_says_amended(bookkeeper_client):
    item = moved_item("representation")
    first = {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": "Ana Berg",
        "participants-0-company": "",
        "purpose": "Avtal",
        "event_date": "",
        "action": "save",
    }
    assert bookkeeper_client.post(answer_url(item), first).status_code == 302
    form = page_of(bookkeeper_client, item).values(type="hidden")
    fixed = {
        **first,
        "participants-0-name": "Anna Berg",
        "amend": form["amend"],
        "answer_version": form["answer_version"],
    }
    response = bookkeeper_client.post(answer_url(item), fixed, follow=True)
    assert response.redirect_chain[-1][0] == reverse("item_detail", args=[item.pk])
    assert "Corrected: " in response.content.decode()
    assert stored_context(item)["representation"]["participants"] == [{"name": "Anna Berg", "company": None}]
    events = list(ClarificationEvent.objects.filter(item_id=item.pk).order_by("occurred_at", "id"))
    assert [e.payload["amended"] for e in events] == [False, True]
    assert events[1].payload["before"]["representation"]["participants"][0]["name"] == "Ana Berg"
    assert [row.payload.get("amended") for row in history(item)] == [None, True]


def test_a_correction_of_an_answer_changed_meanwhile_is_refused_and_kept(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    version = page_of(bookkeeper_client, item).values(type="hidden")["answer_version"]
    assert version is not None
    mine = {"question": "context", "amend": "1", "answer_version": version}
    bookkeeper_client.post(answer_url(item), {**mine, "text": "Taxi till Volvo"})
    response = bookkeeper_client.post(answer_url(item), {**mine, "text": "Taxi till Saab"}, **HTMX)
    page = Page(response.content.decode())
    assert "changed since you opened the form" in page.text("answer-conflict")
    assert "Taxi till Saab" in page.text("id_text")
    assert stored_context(item)["user_note"] == "Taxi till Volvo"


def test_an_answer_given_in_the_chat_offers_no_correction(bookkeeper_client):
    chat = {"raw_answer": "Lunch med kund", "answered_at": "2026-08-01T10:00:00.000Z"}
    item = moved_item("context", status="answered", user_note="Lunch med kund", context_answer=chat)
    page = page_of(bookkeeper_client, item)
    assert not page.has("answer-amend")
    assert not page.has("answer-form")


def test_support_sees_the_app_answer_but_no_correction_form(bookkeeper_client, support_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    page = page_of(support_client, item)
    assert "Taxi" in page.text("answer-answered")
    assert not page.has("answer-amend")


def test_the_panel_labels_the_customers_words_with_their_source(bookkeeper_client):
    item = moved_item("context")
    words = {"question": "context", "text": "Taxi", "raw_answer": "taxin till kund", "raw_answer_via": "phone"}
    bookkeeper_client.post(answer_url(item), words)
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    raw = page.text("answer-raw")
    assert "The customer's words (by phone)" in raw
    assert "taxin till kund" in raw
    assert "Entered by the firm" not in raw
    assert quoted(page) == ["taxin till kund"]


def test_the_panel_labels_the_firms_text_as_entered_in_the_review_app_not_as_the_customers(bookkeeper_client):
    item = moved_item("representation")
    bookkeeper_client.post(answer_url(item), representation_post([("Anna Berg", "")], purpose="Möte"))
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    raw = page.text("answer-raw")
    assert "Entered by the firm in the review app" in raw
    assert "Inmatat av byrån i granskningsappen" in raw
    assert "customer's words" not in raw
    assert quoted(page) == []  # the firm's text is never set as a quote


def test_a_correction_without_new_words_leaves_the_agent_the_corrected_note_alone(bookkeeper_client):
    item = moved_item("context")
    words = {"question": "context", "text": "Taxi", "raw_answer": "taxin", "raw_answer_via": "email"}
    bookkeeper_client.post(answer_url(item), words)
    page = page_of(bookkeeper_client, item)
    # The words field starts empty: words given now replace the customer's words, none drops them with the
    # answer they came with (the agent reads one current answer; the app's log keeps them).
    assert page.text("id_raw_answer") == ""
    version = page.values(type="hidden")["answer_version"]
    bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "Taxi till Volvo", "amend": "1", "answer_version": version}
    )
    stored = stored_context(item)
    assert stored["user_note"] == "Taxi till Volvo"
    assert "context_answer" not in stored


def test_a_denial_can_be_corrected_after_confirming(bookkeeper_client):
    item = moved_item("representation")
    base = {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": "",
        "participants-0-company": "",
        "purpose": "",
        "event_date": "",
    }
    assert bookkeeper_client.post(answer_url(item), {**base, "action": "deny_confirm"}).status_code == 302
    form = page_of(bookkeeper_client, item).values(type="hidden")
    fixed = {
        **base,
        "participants-0-name": "Anna",
        "purpose": "Kundmöte",
        "amend": form["amend"],
        "answer_version": form["answer_version"],
        "action": "save",
    }
    assert bookkeeper_client.post(answer_url(item), fixed).status_code == 302
    rep = stored_context(item)["representation"]
    assert "denied" not in rep
    assert rep["purpose"] == "Kundmöte"


# --- Booked --------------------------------------------------------------------------------------


def test_a_booked_item_shows_no_form_and_refuses_a_post_with_409(bookkeeper_client):
    item = moved_item("context")
    book(item)
    page = page_of(bookkeeper_client, item)
    assert page.has("answer-booked")
    assert not page.has("answer-form")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "booked" in Page(response.content.decode()).text("answer-conflict")
    assert "user_note" not in stored_context(item)


# --- Nothing silently lost --------------------------------------------------------------------------


def test_an_answer_overwritten_by_the_intake_is_detected_and_shown_with_both(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi till kundmöte"})
    # The intake writes a reply over it (routed to this item before it knew of the answer).
    intake.answer_context(item.pk, text="nej det var lunch")
    item.refresh_from_db()
    replaced = replaced_answer(item, app_answers(item.pk))
    assert replaced is not None
    assert replaced.question == "context"
    assert replaced.yours.summary == "Taxi till kundmöte"
    assert replaced.replaced_by is not None
    assert replaced.replaced_by.summary == "nej det var lunch"
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert replaced.answered_at == event.occurred_at
    assert replaced.replaced_at is not None
    assert replaced.replaced_at >= event.occurred_at

    page = page_of(bookkeeper_client, item)
    text = page.text("answer-replaced")
    assert "Your answer of" in text
    assert "was replaced by nej det var lunch" in text
    assert "Taxi till kundmöte" in page.text("answer-replaced-yours")
    assert "nej det var lunch" in page.text("answer-replaced-now")
    # Not the app's answer any more: nothing to correct here.
    assert not page.has("answer-amend")


def test_a_removed_answer_is_shown_as_removed(bookkeeper_client):
    item = moved_item("representation")
    answers_post = {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": "Anna",
        "purpose": "Möte",
        "action": "save",
    }
    bookkeeper_client.post(answer_url(item), answers_post)
    intake.update_item(item.pk, lambda ctx: {k: v for k, v in ctx.items() if k != "representation"})
    page = page_of(bookkeeper_client, item)
    assert "nothing (the answer was removed)" in page.text("answer-replaced")


def test_the_apps_own_correction_is_no_replacement(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    version = page_of(bookkeeper_client, item).values(type="hidden")["answer_version"]
    assert version is not None
    bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "Taxi 2", "amend": "1", "answer_version": version}
    )
    item.refresh_from_db()
    assert replaced_answer(item, app_answers(item.pk)) is None
    assert not page_of(bookkeeper_client, item).has("answer-replaced")


def test_a_follow_up_note_is_no_replacement(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    intake.follow_up(item.pk, text="och parkering")
    item.refresh_from_db()
    assert stored_context(item)["user_note"] == "Taxi\noch parkering"
    assert replaced_answer(item, app_answers(item.pk)) is None


def test_the_api_reports_a_replaced_answer(bookkeeper_client):
    import json

    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    intake.answer_context(item.pk, text="Lunch")
    response = bookkeeper_client.post(
        reverse("api_item_answer", args=[item.pk]),
        json.dumps({"question": "context", "text": "x"}),
        content_type="application/json",
    )
    current = response.json()["current"]
    assert "context_answer" not in ClarificationEvent.objects.get(item_id=item.pk).payload["after"]
    assert current["replaced_answer"]["yours"] == {"summary": "Taxi", "raw_answer": None}
    assert current["replaced_answer"]["replaced_by"] == {"summary": "Lunch", "raw_answer": "Lunch"}
    assert current["answered_by"] is None
    # Who gave the replaced answer (the logged-in bookkeeper, bea), and when it was replaced: after it was given.
    assert current["replaced_answer"]["actor"] == "bea"
    replaced_at = dt.datetime.fromisoformat(current["replaced_answer"]["replaced_at"])
    assert replaced_at >= dt.datetime.fromisoformat(current["replaced_answer"]["answered_at"])


def test_an_item_whose_json_cannot_be_read_is_shown_and_refused_not_crashed(bookkeeper_client):
    import json

    from django.db import connections

    from reviewapp.bookkeeping.routers import BOOKKEEPING_DB

    item = moved_item("context")
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET channel_context = ('{\"n\": ' || repeat('9', 5000) || '}')::jsonb"
            " WHERE id = %s",
            [item.pk],
        )
    assert bookkeeper_client.get(answer_url(item)).status_code == 200
    response = bookkeeper_client.post(
        reverse("api_item_answer", args=[item.pk]),
        json.dumps({"question": "context", "text": "Taxi"}),
        content_type="application/json",
    )
    assert response.status_code == 409
    assert response.json()["reason"] == "not_open"
    assert "malformed" in response.json()["current"]["states"]
    assert history(item) == []
