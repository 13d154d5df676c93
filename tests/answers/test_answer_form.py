"""The answer form (``item_answer``): representation and context answers saved, refused with their errors,
conflicts, and who may post it how. The resend question: test_answer_resend.py."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent, IndexedItem
from tests import factories
from tests.answers.conftest import (
    ASKED_AT,
    HTMX,
    answer_url,
    assert_foreign_keys_untouched,
    entered_by_firm,
    firm_wide_bookkeeper,
    history,
    moved_item,
    preview_url,
    representation_post,
    stored_context,
)
from tests.html import Page

pytestmark = pytest.mark.django_db


# --- Representation ---------------------------------------------------------------------------


def test_saving_a_representation_writes_the_chat_shape_and_nothing_else(bookkeeper_client, bookkeeper):
    item = moved_item("representation")
    data = representation_post(
        [("Anna Berg", "Volvo"), ("Jakob W", "")], purpose="Avtalsförhandling", event_date="2026-07-29"
    )
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    ctx = stored_context(item)
    rep = ctx["representation"]
    assert rep["participants"] == [{"name": "Anna Berg", "company": "Volvo"}, {"name": "Jakob W", "company": None}]
    assert rep["purpose"] == "Avtalsförhandling"
    assert rep["event_date"] == "2026-07-29"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", rep["answered_at"])
    assert rep["raw_answer"] == entered_by_firm(
        rep["answered_at"], "Deltagare: Anna Berg (Volvo), Jakob W; syfte: Avtalsförhandling; datum: 2026-07-29"
    )
    assert "denied" not in rep
    assert ctx["pending_question"] == {"type": "representation", "asked_at": ASKED_AT, "status": "answered"}
    assert_foreign_keys_untouched(ctx)
    indexed = IndexedItem.objects.get(pk=item.pk)
    assert indexed.state_answered
    assert not indexed.state_needs_answer
    assert len(history(item)) == 1


def test_the_customers_own_words_field_is_stored_as_the_raw_answer(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post(
        [("Anna Berg", "")], purpose="Kundmöte", raw_answer="Jag åt med Anna Berg\r\nom avtalet", raw_answer_via="phone"
    )
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    assert stored_context(item)["representation"]["raw_answer"] == "Jag åt med Anna Berg\nom avtalet"
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["raw_answer_via"] == "phone"


def test_the_form_offers_the_customers_own_words_as_optional_with_their_source(bookkeeper_client):
    item = moved_item("context")
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    textarea = next(tag for tag in page.tags("textarea") if tag.get("name") == "raw_answer")
    assert "required" not in textarea
    assert "own words" in page.text("answer-form")
    sources = [tag.get("value") for tag in page.tags("input") if tag.get("name") == "raw_answer_via"]
    assert sources == ["phone", "email", "message"]
    assert "Where the customer's words came from" in page.text("answer-form")


@pytest.mark.parametrize("question", ["representation", "context"])
def test_words_without_a_source_are_refused_under_the_source_and_kept(bookkeeper_client, question):
    item = moved_item(question)
    if question == "representation":
        data = representation_post([("Anna Berg", "")], purpose="Kundmöte", raw_answer="Anna och jag")
    else:
        data = {"question": "context", "text": "Taxi", "raw_answer": "Anna och jag"}
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "Say where the customer's words came from" in page.text("id_raw_answer_via_error")
    assert "Anna och jag" in page.text("id_raw_answer")
    assert question not in stored_context(item) or stored_context(item)["pending_question"]["status"] == "moved_to_app"
    assert not ClarificationEvent.objects.exists()
    assert history(item) == []


def test_a_source_without_words_is_refused_under_the_source(bookkeeper_client):
    item = moved_item("context")
    data = {"question": "context", "text": "Taxi", "raw_answer": "", "raw_answer_via": "email"}
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    assert "A source belongs to the customer's words" in Page(response.content.decode()).text("id_raw_answer_via_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_a_forged_source_is_refused_under_the_source(bookkeeper_client):
    item = moved_item("context")
    data = {"question": "context", "text": "Taxi", "raw_answer": "taxin", "raw_answer_via": "carrier pigeon"}
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    assert Page(response.content.decode()).text("id_raw_answer_via_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_saving_appends_one_event_with_before_and_after(bookkeeper_client, bookkeeper):
    item = moved_item("representation")
    before = dict(item.channel_context)
    bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], purpose="Kundmöte"))
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.event_type == "ChannelQuestionAnswered"
    assert event.question_type == "representation"
    assert event.channel == "app"
    assert event.actor == bookkeeper
    assert event.actor_label == "bea"
    assert event.payload["before"] == before
    assert event.payload["after"] == stored_context(item)
    assert event.payload["answer"]["participants"] == [{"name": "Anna", "company": None}]
    assert event.payload["answer"]["purpose"] == "Kundmöte"


def test_not_representation_first_asks_and_shows_the_denials_preview(bookkeeper_client):
    half = {"participants": [{"name": "Elias", "company": None}], "purpose": None, "raw_answer": "Elias"}
    item = moved_item("representation", representation=half)
    data = representation_post([("Elias", "Canguro")], purpose="Möte", action="deny")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert page.has("answer-confirm-deny")
    assert "INTE representation" in page.text("preview-agent-after")
    hidden = page.values(type="hidden")
    assert hidden["participants-0-name"] == "Elias"
    assert hidden["participants-0-company"] == "Canguro"
    assert hidden["purpose"] == "Möte"
    buttons = {tag.get("value") for tag in page.tags("button")}
    assert {"deny_confirm", "edit"} <= buttons
    # Nothing is saved yet.
    assert stored_context(item)["representation"] == half
    assert not ClarificationEvent.objects.exists()
    assert history(item) == []


def test_confirming_saves_the_denial_even_over_a_prefilled_half_answer(bookkeeper_client):
    half = {"participants": [{"name": "Elias", "company": None}], "purpose": None, "raw_answer": "Elias"}
    item = moved_item("representation", representation=half)
    data = representation_post([("Elias", "")], action="deny_confirm")
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    rep = stored_context(item)["representation"]
    assert rep["participants"] == []
    assert rep["purpose"] is None
    assert rep["event_date"] is None
    assert rep["denied"] is True
    # The chat's half answer was the customer's words: kept, the firm's denial after it.
    assert rep["raw_answer"] == "Elias\n" + entered_by_firm(rep["answered_at"], "Inte representation")
    assert IndexedItem.objects.get(pk=item.pk).state_denied


def test_cancelling_the_denial_gives_back_everything_typed(bookkeeper_client):
    item = moved_item("representation")
    typed = representation_post(
        [("Anna Berg", "Volvo")],
        purpose="Avtal",
        event_date="2026-07-29",
        raw_answer="Anna och jag",
        raw_answer_via="email",
    )
    confirm = Page(bookkeeper_client.post(answer_url(item), {**typed, "action": "deny"}).content.decode())
    # Without JavaScript: the confirmation's form posts back exactly its hidden fields.
    carried = confirm.values(type="hidden")
    carried["action"] = "edit"
    response = bookkeeper_client.post(answer_url(item), carried)
    assert response.status_code == 200
    page = Page(response.content.decode())
    values = page.values()
    assert values["participants-0-name"] == "Anna Berg"
    assert values["participants-0-company"] == "Volvo"
    assert values["event_date"] == "2026-07-29"
    assert "Avtal" in page.text("id_purpose")
    assert "Anna och jag" in page.text("id_raw_answer")
    assert "checked" in next(tag for tag in page.tags("input") if tag.get("value") == "email")
    assert not page.has("id_purpose_error")
    assert "representation" not in stored_context(item)


def test_a_denial_keeps_the_customers_words_when_given(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post(
        [("", "")], action="deny_confirm", raw_answer="Nej, det var privat", raw_answer_via="message"
    )
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    assert stored_context(item)["representation"]["raw_answer"] == "Nej, det var privat"
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["raw_answer_via"] == "message"


def test_a_denial_without_the_customers_words_names_the_firm(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("", "")], action="deny_confirm")
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    rep = stored_context(item)["representation"]
    assert rep["raw_answer"] == entered_by_firm(rep["answered_at"], "Inte representation")


def test_a_denial_with_words_but_no_source_is_refused(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("", "")], action="deny_confirm", raw_answer="Nej, det var privat")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    assert "Say where the customer's words came from" in Page(response.content.decode()).text("id_raw_answer_via_error")
    assert "representation" not in stored_context(item)


def test_participants_without_a_purpose_are_refused_and_everything_typed_stays(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna Berg", "Volvo")], event_date="2026-07-29")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "Write the purpose" in page.text("id_purpose_error")
    purpose = next(tag for tag in page.tags("textarea") if tag.get("name") == "purpose")
    assert "id_purpose_error" in (purpose.get("aria-describedby") or "")
    values = page.values()
    assert values["participants-0-name"] == "Anna Berg"
    assert values["participants-0-company"] == "Volvo"
    assert values["event_date"] == "2026-07-29"
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"
    assert "representation" not in stored_context(item)
    assert not ClarificationEvent.objects.exists()


def test_a_purpose_without_participants_is_refused(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("", "")], purpose="Kundmöte"), **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "at least one participant" in page.text("answer-form_error")
    assert "Kundmöte" in page.text("id_purpose")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_a_white_space_name_gets_a_message_under_that_name(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", ""), ("   ", "Volvo")], purpose="Möte")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    page = Page(response.content.decode())
    assert "alone are not a name" in page.text("id_participants-1-name_error")
    assert not page.has("id_participants-0-name_error")
    assert "representation" not in stored_context(item)


def test_a_nul_character_is_a_message_not_a_server_error(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte\x00med kund")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert page.has("id_purpose_error")
    assert "representation" not in stored_context(item)


def test_a_malformed_date_is_refused_under_the_date(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte", event_date="29/07/2026")
    page = Page(bookkeeper_client.post(answer_url(item), data, **HTMX).content.decode())
    assert "YYYY-MM-DD" in page.text("id_event_date_error")
    assert "representation" not in stored_context(item)


def test_removed_and_blank_rows_are_not_participants(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", ""), ("Bertil", "X"), ("", "")], purpose="Möte")
    data["participants-1-DELETE"] = "on"
    bookkeeper_client.post(answer_url(item), data)
    assert stored_context(item)["representation"]["participants"] == [{"name": "Anna", "company": None}]


def test_add_a_participant_without_javascript_shows_one_more_row_and_keeps_the_typed_ones(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "Volvo")], purpose="Mö", action="add_row")
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 200
    page = Page(response.content.decode())
    values = page.values()
    assert values["participants-0-name"] == "Anna"
    assert values["participants-TOTAL_FORMS"] == "2"
    assert "participants-1-name" in values
    assert not page.has("id_purpose_error")
    assert "representation" not in stored_context(item)


def test_a_tampered_management_form_is_a_message(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte")
    del data["participants-TOTAL_FORMS"]
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    assert Page(response.content.decode()).has("answer-form_error")
    assert "representation" not in stored_context(item)


# --- Context ----------------------------------------------------------------------------------


def test_a_context_answer_becomes_the_note_and_nothing_the_agent_reads_as_the_customers_words(bookkeeper_client):
    item = moved_item("context", user_note="gammal not")
    response = bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "  Taxi till kundmöte\r\nmed Volvo  "}
    )
    assert response.status_code == 302
    ctx = stored_context(item)
    assert ctx["user_note"] == "Taxi till kundmöte\nmed Volvo"
    assert "context_answer" not in ctx
    assert ctx["pending_question"]["status"] == "answered"
    assert_foreign_keys_untouched(ctx)


def test_an_empty_context_answer_is_refused(bookkeeper_client):
    item = moved_item("context")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "   "}, **HTMX)
    assert "Write what the purchase was for" in Page(response.content.decode()).text("id_text_error")
    assert "user_note" not in stored_context(item)


def test_an_over_long_context_answer_is_refused_and_kept(bookkeeper_client):
    item = moved_item("context")
    text = "x" * 2001
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": text}, **HTMX)
    page = Page(response.content.decode())
    assert "at most 2000" in page.text("id_text_error")
    assert text in page.text("id_text")


# --- Conflicts --------------------------------------------------------------------------------


def settle_elsewhere(item: InboxItem, by: Client) -> None:
    """Another bookkeeper answers first."""
    response = by.post(answer_url(item), {"question": "context", "text": "Kontorsmaterial"})
    assert response.status_code == 302


def test_a_question_answered_meanwhile_shows_the_winner_and_keeps_what_was_typed(bookkeeper_client, db):

    item = moved_item("context")
    other = Client()
    other.force_login(firm_wide_bookkeeper("olle"))
    settle_elsewhere(item, other)
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch med kund"}, **HTMX)
    # htmx gets the panel alone, with the real status (base.html's htmx-config swaps a 409 in).
    assert response.status_code == 409
    assert response.content.decode().strip().startswith('<section id="answer-panel"')
    page = Page(response.content.decode())
    conflict = page.text("answer-conflict")
    assert "olle" in conflict
    assert "Kontorsmaterial" in conflict
    assert "Lunch med kund" in page.text("id_text")
    textarea = next(tag for tag in page.tags("textarea") if tag.get("name") == "text")
    assert "readonly" in textarea
    assert stored_context(item)["user_note"] == "Kontorsmaterial"
    assert ClarificationEvent.objects.filter(item_id=item.pk).count() == 1


def test_a_conflict_without_htmx_is_a_409_page(bookkeeper_client):
    item = moved_item("context", status="answered", user_note="Från chatten")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "<html" in response.content.decode()
    page = Page(response.content.decode())
    assert "Från chatten" in page.text("answer-conflict")
    assert "the chat settled it" in page.text("answer-conflict")
    assert stored_context(item)["user_note"] == "Från chatten"


def test_answering_another_question_than_the_open_one_is_refused(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "user_note" not in stored_context(item)
    assert not ClarificationEvent.objects.exists()


def test_a_question_still_open_in_the_chat_cannot_be_answered_here(bookkeeper_client):
    item = moved_item("context", status="open")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert stored_context(item)["pending_question"]["status"] == "open"


def test_an_item_without_any_question_cannot_be_answered(bookkeeper_client):
    item = factories.make_item()
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    item.refresh_from_db()
    assert item.channel_context == {"channel": "whatsapp"}


@pytest.mark.parametrize("question", ["", "note", "representation2", "__proto__"])
def test_a_forged_question_type_is_a_400_and_writes_nothing(bookkeeper_client, question):
    item = moved_item("context")
    response = bookkeeper_client.post(answer_url(item), {"question": question, "text": "Lunch"})
    assert response.status_code == 400
    assert "user_note" not in stored_context(item)


# --- Permissions, methods, CSRF ---------------------------------------------------------------


@pytest.mark.parametrize("role_client", ["support_client", "qa_client"])
@pytest.mark.parametrize("view", ["item_answer", "item_answer_preview"])
def test_support_and_qa_may_not_answer(request, role_client, view):
    client = request.getfixturevalue(role_client)
    item = moved_item("context")
    response = client.post(reverse(view, args=[item.pk]), {"question": "context", "text": "Lunch"}, **HTMX)
    assert response.status_code == 403
    assert "user_note" not in stored_context(item)


def test_anonymous_visitors_are_sent_to_log_in(client):
    item = moved_item("context")
    response = client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert "user_note" not in stored_context(item)


def test_the_answer_url_refuses_other_methods(bookkeeper_client):
    item = moved_item("context")
    assert bookkeeper_client.put(answer_url(item)).status_code == 405
    assert bookkeeper_client.get(preview_url(item)).status_code == 405


def test_get_on_the_answer_url_shows_the_form_on_its_own_page(bookkeeper_client):
    item = moved_item("context")
    response = bookkeeper_client.get(answer_url(item))
    assert response.status_code == 200
    assert Page(response.content.decode()).has("answer-form")


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_post_without_the_csrf_token_is_refused(bookkeeper, headers):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    item = moved_item("context")
    response = client.post(answer_url(item), {"question": "context", "text": "Lunch"}, **headers)
    assert response.status_code == 403
    assert "user_note" not in stored_context(item)


def test_an_htmx_post_with_the_csrf_header_is_accepted(bookkeeper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    item = moved_item("context")
    client.get(reverse("item_detail", args=[item.pk]))
    token = client.cookies["csrftoken"].value
    response = client.post(answer_url(item), {"question": "context", "text": "Lunch"}, HTTP_X_CSRFTOKEN=token, **HTMX)
    assert response.status_code == 200
    assert "HX-Redirect" in response
    assert stored_context(item)["user_note"] == "Lunch"
