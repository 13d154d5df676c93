"""Answering in the browser: each question type end to end through the views."""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from PIL import Image

from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.models import ClarificationEvent, IndexedItem
from tests import factories
from tests.answers.conftest import ASKED_AT, FOREIGN_KEYS, history, moved_item
from tests.items.html import Page

HTMX = {"HTTP_HX_REQUEST": "true"}

pytestmark = pytest.mark.django_db


def answer_url(item: InboxItem) -> str:
    return reverse("item_answer", args=[item.pk])


def preview_url(item: InboxItem) -> str:
    return reverse("item_answer_preview", args=[item.pk])


def representation_post(rows: list[tuple[str, str]], purpose: str = "", event_date: str = "", **extra: str) -> dict:
    data: dict[str, Any] = {
        "question": "representation",
        "participants-TOTAL_FORMS": str(len(rows)),
        "participants-INITIAL_FORMS": "0",
        "participants-MIN_NUM_FORMS": "0",
        "participants-MAX_NUM_FORMS": "20",
        "purpose": purpose,
        "event_date": event_date,
        "action": "save",
    }
    for index, (name, company) in enumerate(rows):
        data[f"participants-{index}-name"] = name
        data[f"participants-{index}-company"] = company
    data.update(extra)
    return data


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def stored(item: InboxItem) -> dict[str, Any]:
    item.refresh_from_db()
    assert isinstance(item.channel_context, dict)
    return item.channel_context


def assert_foreign_keys_untouched(ctx: dict[str, Any]) -> None:
    for key, value in FOREIGN_KEYS.items():
        assert ctx[key] == value
    assert ctx["channel"] == "whatsapp"


# --- The panel on the item page ----------------------------------------------------


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
    values = {tag.get("name"): tag.get("value") for tag in page.tags("input")}
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


# --- Representation ------------------------------------------------------------------


def test_saving_a_representation_writes_the_chat_shape_and_nothing_else(bookkeeper_client, bookkeeper):
    item = moved_item("representation")
    data = representation_post(
        [("Anna Berg", "Volvo"), ("Jakob W", "")], purpose="Avtalsförhandling", event_date="2026-07-29"
    )
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    ctx = stored(item)
    rep = ctx["representation"]
    assert rep["participants"] == [{"name": "Anna Berg", "company": "Volvo"}, {"name": "Jakob W", "company": None}]
    assert rep["purpose"] == "Avtalsförhandling"
    assert rep["event_date"] == "2026-07-29"
    assert rep["raw_answer"] == "Deltagare: Anna Berg (Volvo), Jakob W\nSyfte: Avtalsförhandling\nDatum: 2026-07-29"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", rep["answered_at"])
    assert "denied" not in rep
    assert ctx["pending_question"] == {"type": "representation", "asked_at": ASKED_AT, "status": "answered"}
    assert_foreign_keys_untouched(ctx)
    indexed = IndexedItem.objects.get(pk=item.pk)
    assert indexed.state_answered
    assert not indexed.state_needs_answer
    assert len(history(item)) == 1


def test_the_customers_own_words_field_is_stored_as_the_raw_answer(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna Berg", "")], purpose="Kundmöte", raw_answer="Jag åt med Anna Berg\r\nom avtalet")
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    assert stored(item)["representation"]["raw_answer"] == "Jag åt med Anna Berg\nom avtalet"


def test_the_form_offers_the_customers_own_words_as_optional(bookkeeper_client):
    item = moved_item("context")
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    textarea = next(tag for tag in page.tags("textarea") if tag.get("name") == "raw_answer")
    assert "required" not in textarea
    assert "own words" in page.text("answer-form")


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
    assert event.payload["after"] == stored(item)
    assert event.payload["answer"]["participants"] == [{"name": "Anna", "company": None}]


def test_not_representation_first_asks_and_shows_the_denials_preview(bookkeeper_client):
    half = {"participants": [{"name": "Elias", "company": None}], "purpose": None, "raw_answer": "Elias"}
    item = moved_item("representation", representation=half)
    data = representation_post([("Elias", "Canguro")], purpose="Möte", action="deny")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert page.has("answer-confirm-deny")
    assert "INTE representation" in page.text("preview-agent-after")
    hidden = {tag.get("name"): tag.get("value") for tag in page.tags("input") if tag.get("type") == "hidden"}
    assert hidden["participants-0-name"] == "Elias"
    assert hidden["participants-0-company"] == "Canguro"
    assert hidden["purpose"] == "Möte"
    buttons = {tag.get("value") for tag in page.tags("button")}
    assert {"deny_confirm", "edit"} <= buttons
    # Nothing is saved yet.
    assert stored(item)["representation"] == half
    assert not ClarificationEvent.objects.exists()
    assert history(item) == []


def test_confirming_saves_the_denial_even_over_a_prefilled_half_answer(bookkeeper_client):
    half = {"participants": [{"name": "Elias", "company": None}], "purpose": None, "raw_answer": "Elias"}
    item = moved_item("representation", representation=half)
    data = representation_post([("Elias", "")], action="deny_confirm")
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    rep = stored(item)["representation"]
    assert rep["participants"] == []
    assert rep["purpose"] is None
    assert rep["event_date"] is None
    assert rep["denied"] is True
    assert rep["raw_answer"] == "Inte representation"
    assert IndexedItem.objects.get(pk=item.pk).state_denied


def test_cancelling_the_denial_gives_back_everything_typed(bookkeeper_client):
    item = moved_item("representation")
    typed = representation_post(
        [("Anna Berg", "Volvo")], purpose="Avtal", event_date="2026-07-29", raw_answer="Anna och jag"
    )
    confirm = Page(bookkeeper_client.post(answer_url(item), {**typed, "action": "deny"}).content.decode())
    # Without JavaScript: the confirmation's form posts back exactly its hidden fields.
    carried = {tag.get("name"): tag.get("value") for tag in confirm.tags("input") if tag.get("type") == "hidden"}
    carried["action"] = "edit"
    response = bookkeeper_client.post(answer_url(item), carried)
    assert response.status_code == 200
    page = Page(response.content.decode())
    values = {tag.get("name"): tag.get("value") for tag in page.tags("input")}
    assert values["participants-0-name"] == "Anna Berg"
    assert values["participants-0-company"] == "Volvo"
    assert values["event_date"] == "2026-07-29"
    assert "Avtal" in page.text("id_purpose")
    assert "Anna och jag" in page.text("id_raw_answer")
    assert not page.has("id_purpose_error")
    assert "representation" not in stored(item)


def test_a_denial_keeps_the_customers_words_when_given(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("", "")], action="deny_confirm", raw_answer="Nej, det var privat")
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    assert stored(item)["representation"]["raw_answer"] == "Nej, det var privat"


def test_participants_without_a_purpose_are_refused_and_everything_typed_stays(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna Berg", "Volvo")], event_date="2026-07-29")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "Write the purpose" in page.text("id_purpose_error")
    purpose = next(tag for tag in page.tags("textarea") if tag.get("name") == "purpose")
    assert "id_purpose_error" in (purpose.get("aria-describedby") or "")
    values = {tag.get("name"): tag.get("value") for tag in page.tags("input")}
    assert values["participants-0-name"] == "Anna Berg"
    assert values["participants-0-company"] == "Volvo"
    assert values["event_date"] == "2026-07-29"
    assert stored(item)["pending_question"]["status"] == "moved_to_app"
    assert "representation" not in stored(item)
    assert not ClarificationEvent.objects.exists()


def test_a_purpose_without_participants_is_refused(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("", "")], purpose="Kundmöte"), **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "at least one participant" in page.text("answer-form_error")
    assert "Kundmöte" in page.text("id_purpose")
    assert stored(item)["pending_question"]["status"] == "moved_to_app"


def test_a_white_space_name_gets_a_message_under_that_name(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", ""), ("   ", "Volvo")], purpose="Möte")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    page = Page(response.content.decode())
    assert "alone are not a name" in page.text("id_participants-1-name_error")
    assert not page.has("id_participants-0-name_error")
    assert "representation" not in stored(item)


def test_a_nul_character_is_a_message_not_a_server_error(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte\x00med kund")
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert page.has("id_purpose_error")
    assert "representation" not in stored(item)


def test_a_malformed_date_is_refused_under_the_date(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte", event_date="29/07/2026")
    page = Page(bookkeeper_client.post(answer_url(item), data, **HTMX).content.decode())
    assert "YYYY-MM-DD" in page.text("id_event_date_error")
    assert "representation" not in stored(item)


def test_removed_and_blank_rows_are_not_participants(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", ""), ("Bertil", "X"), ("", "")], purpose="Möte")
    data["participants-1-DELETE"] = "on"
    bookkeeper_client.post(answer_url(item), data)
    assert stored(item)["representation"]["participants"] == [{"name": "Anna", "company": None}]


def test_add_a_participant_without_javascript_shows_one_more_row_and_keeps_the_typed_ones(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "Volvo")], purpose="Mö", action="add_row")
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 200
    page = Page(response.content.decode())
    values = {tag.get("name"): tag.get("value") for tag in page.tags("input")}
    assert values["participants-0-name"] == "Anna"
    assert values["participants-TOTAL_FORMS"] == "2"
    assert "participants-1-name" in values
    assert not page.has("id_purpose_error")
    assert "representation" not in stored(item)


def test_a_tampered_management_form_is_a_message(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte")
    del data["participants-TOTAL_FORMS"]
    response = bookkeeper_client.post(answer_url(item), data, **HTMX)
    assert response.status_code == 200
    assert Page(response.content.decode()).has("answer-form_error")
    assert "representation" not in stored(item)


# --- Context ---------------------------------------------------------------------------------


def test_a_context_answer_becomes_the_note_and_the_raw_answer(bookkeeper_client):
    item = moved_item("context", user_note="gammal not")
    response = bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "  Taxi till kundmöte\r\nmed Volvo  "}
    )
    assert response.status_code == 302
    ctx = stored(item)
    assert ctx["user_note"] == "Taxi till kundmöte\nmed Volvo"
    assert ctx["context_answer"]["raw_answer"] == "Taxi till kundmöte\nmed Volvo"
    assert ctx["context_answer"]["answered_at"].endswith("Z")
    assert ctx["pending_question"]["status"] == "answered"
    assert_foreign_keys_untouched(ctx)


def test_an_empty_context_answer_is_refused(bookkeeper_client):
    item = moved_item("context")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "   "}, **HTMX)
    assert "Write what the purchase was for" in Page(response.content.decode()).text("id_text_error")
    assert "user_note" not in stored(item)


def test_an_over_long_context_answer_is_refused_and_kept(bookkeeper_client):
    item = moved_item("context")
    text = "x" * 2001
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": text}, **HTMX)
    page = Page(response.content.decode())
    assert "at most 2000" in page.text("id_text_error")
    assert text in page.text("id_text")


# --- Resend ------------------------------------------------------------------------------------


def test_declaring_the_document_readable_settles_the_resend_question(bookkeeper_client):
    item = moved_item("resend", quality={"blur_score": 0.7, "resend_requested_at": ASKED_AT})
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "readable"})
    assert response.status_code == 302
    ctx = stored(item)
    assert ctx["quality"] == {"blur_score": 0.7, "resend_requested_at": ASKED_AT}
    assert ctx["pending_question"]["status"] == "answered"
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["resend"]["choice"] == "readable"
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1


def test_uploading_a_sharper_file_makes_a_new_item_and_supersedes_the_old(bookkeeper_client, documents_bucket):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    upload = io.BytesIO(png_bytes())
    upload.name = "skarpare.png"
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})
    assert response.status_code == 302
    new = InboxItem.objects.exclude(pk=item.pk).get(company_id=item.company_id)
    assert new.source == "upload"
    assert new.status == "received"
    assert new.channel_context is None
    document = DocumentAttachment.objects.get(pk=new.document_id)
    assert (documents_bucket / document.storage_path).read_bytes() == png_bytes()
    ctx = stored(item)
    assert ctx["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    assert ctx["pending_question"]["status"] == "answered"
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["resend"]["choice"] == "upload"
    assert event.payload["resend"]["new_item_id"] == str(new.pk)
    # Both pages show the link.
    old_page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    assert str(new.pk) in old_page.text("resend-links")
    new_page = Page(bookkeeper_client.get(answer_url(new)).content.decode())
    assert str(item.pk) in new_page.text("resend-links")


def test_naming_the_newer_item_supersedes_the_old_one(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer = factories.make_item(company=item.company)
    InboxItem.objects.filter(pk=newer.pk).update(created_at=item.created_at + dt.timedelta(minutes=1))
    data = {"question": "resend", "choice": "replaced", "replaced_by": f"  {newer.pk}  "}
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    assert stored(item)["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 2


def test_naming_no_item_is_a_message_under_the_field(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "replaced"}, **HTMX)
    assert Page(response.content.decode()).has("id_replaced_by_error")
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "replaced", "replaced_by": str(item.pk)}, **HTMX
    )
    assert "cannot replace itself" in Page(response.content.decode()).text("id_replaced_by_error")
    assert stored(item)["pending_question"]["status"] == "moved_to_app"


def test_a_file_that_only_claims_to_be_an_image_is_refused(bookkeeper_client):
    item = moved_item("resend")
    upload = io.BytesIO(b"<html><script>alert(1)</script></html>")
    upload.name = "kvitto.png"
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": upload}, **HTMX
    )
    assert response.status_code == 200
    assert "JPEG, PNG or PDF" in Page(response.content.decode()).text("id_file_error")
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert stored(item)["pending_question"]["status"] == "moved_to_app"


def test_a_file_over_the_size_limit_is_refused(bookkeeper_client, settings):
    settings.RECEIPT_UPLOAD_MAX_BYTES = 50
    item = moved_item("resend")
    upload = io.BytesIO(png_bytes() + b"\0" * 100)
    upload.name = "stor.png"
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": upload}, **HTMX
    )
    assert "the limit is" in Page(response.content.decode()).text("id_file_error")
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1


def test_upload_chosen_without_a_file_is_refused(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload"}, **HTMX)
    assert Page(response.content.decode()).has("id_file_error")
    assert stored(item)["pending_question"]["status"] == "moved_to_app"


# --- htmx, next item, messages -------------------------------------------------------------------


def test_an_htmx_save_redirects_the_browser_to_the_next_item_needing_an_answer(bookkeeper_client):
    first = moved_item("context")
    second = moved_item("context")
    moved_item("context", status="answered")
    query = "state=needs_answer&sort=oldest"
    response = bookkeeper_client.post(
        answer_url(first), {"question": "context", "text": "Taxi", "list_query": query}, **HTMX
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("item_detail", args=[second.pk]) + "?" + query


def test_after_the_last_answer_the_bookkeepers_queue_says_it_is_empty(bookkeeper_client, bookkeeper):
    item = moved_item("context")
    # Opened from nowhere (no list query): the list is the bookkeeper's own queue.
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"}, follow=True)
    assert response.redirect_chain[-1][0] == "/?state=needs_answer&sort=queue"
    html = response.content.decode()
    assert "Answer saved." in html
    assert "The queue is empty: nothing else in this list is waiting for an answer." in html


def test_at_the_end_of_a_filtered_queue_no_item_outside_the_filter_is_opened(bookkeeper_client):
    item = moved_item("context")
    moved_item("resend")  # waiting too, but not in the list the bookkeeper chose
    response = bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "Taxi", "list_query": "type=context"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("inbox") + "?type=context"
    assert "The queue is empty" in response.content.decode()


# --- Conflicts --------------------------------------------------------------------------------------


def settle_elsewhere(item: InboxItem, by: Client) -> None:
    """Another bookkeeper answers first."""
    response = by.post(answer_url(item), {"question": "context", "text": "Kontorsmaterial"})
    assert response.status_code == 302


def test_a_question_answered_meanwhile_shows_the_winner_and_keeps_what_was_typed(bookkeeper_client, db):
    from reviewapp import roles

    item = moved_item("context")
    other = Client()
    other.force_login(factories.make_user(roles.BOOKKEEPER, username="olle"))
    settle_elsewhere(item, other)
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch med kund"}, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    conflict = page.text("answer-conflict")
    assert "olle" in conflict
    assert "Kontorsmaterial" in conflict
    assert "Lunch med kund" in page.text("id_text")
    textarea = next(tag for tag in page.tags("textarea") if tag.get("name") == "text")
    assert "readonly" in textarea
    assert stored(item)["user_note"] == "Kontorsmaterial"
    assert ClarificationEvent.objects.filter(item_id=item.pk).count() == 1


def test_a_conflict_without_htmx_is_a_409_page(bookkeeper_client):
    item = moved_item("context", status="answered", user_note="Från chatten")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    page = Page(response.content.decode())
    assert "Från chatten" in page.text("answer-conflict")
    assert "the chat settled it" in page.text("answer-conflict")
    assert stored(item)["user_note"] == "Från chatten"


def test_answering_another_question_than_the_open_one_is_refused(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "user_note" not in stored(item)
    assert not ClarificationEvent.objects.exists()


def test_a_question_still_open_in_the_chat_cannot_be_answered_here(bookkeeper_client):
    item = moved_item("context", status="open")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert stored(item)["pending_question"]["status"] == "open"


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
    assert "user_note" not in stored(item)


# --- Live preview ----------------------------------------------------------------------------------


def test_the_preview_shows_the_agent_view_after_saving_and_saves_nothing(bookkeeper_client):
    item = moved_item("representation")
    before = dict(item.channel_context)
    data = representation_post([("Anna Berg", "Volvo")], purpose="Avtalsförhandling")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    after = page.text("answer-preview")
    assert "Anna Berg (Volvo)" in after
    assert "Avtalsförhandling" in after
    # The current view still carries the open question's line, the preview no longer does.
    agent_now = page.text("preview-agent-now")
    agent_after = page.text("preview-agent-after")
    assert "- OBESVARAD FRÅGA: deltagare och syfte" in agent_now
    assert "OBESVARAD FRÅGA:" not in agent_after
    assert stored(item) == before
    assert not ClarificationEvent.objects.exists()


def test_the_preview_of_a_half_typed_answer_says_what_is_missing(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(preview_url(item), representation_post([("Anna", "")]), **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "Write the purpose" in page.text("answer-preview")
    assert "Anna" in page.text("answer-preview")


@pytest.mark.parametrize(
    "data",
    [
        {"question": "context", "text": "a\x00b"},
        {"question": "context", "text": "x" * 5000},
        {"question": "context"},
    ],
)
def test_invalid_input_in_the_preview_shows_the_current_view_and_a_note(bookkeeper_client, data):
    item = moved_item("context")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "preview-agent-now" in html
    assert "preview-note" in html or "Type an answer" in html
    assert "user_note" not in stored(item)


# --- Permissions, methods, CSRF ----------------------------------------------------------------------


@pytest.mark.parametrize("role_client", ["support_client", "qa_client"])
@pytest.mark.parametrize("view", ["item_answer", "item_answer_preview"])
def test_support_and_qa_may_not_answer(request, role_client, view):
    client = request.getfixturevalue(role_client)
    item = moved_item("context")
    response = client.post(reverse(view, args=[item.pk]), {"question": "context", "text": "Lunch"}, **HTMX)
    assert response.status_code == 403
    assert "user_note" not in stored(item)


def test_anonymous_visitors_are_sent_to_log_in(client):
    item = moved_item("context")
    response = client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert "user_note" not in stored(item)


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
    assert "user_note" not in stored(item)


def test_an_htmx_post_with_the_csrf_header_is_accepted(bookkeeper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    item = moved_item("context")
    client.get(reverse("item_detail", args=[item.pk]))
    token = client.cookies["csrftoken"].value
    response = client.post(answer_url(item), {"question": "context", "text": "Lunch"}, HTTP_X_CSRFTOKEN=token, **HTMX)
    assert response.status_code == 200
    assert "HX-Redirect" in response
    assert stored(item)["user_note"] == "Lunch"


def test_the_preview_is_exactly_what_the_item_page_shows_after_saving(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna Berg", "Volvo"), ("Jakob W", "")], purpose="Avtal\nförhandling")
    preview = Page(bookkeeper_client.post(preview_url(item), data, **HTMX).content.decode())
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert preview.text("preview-agent-after") == page.text("agent-view-text")
    assert preview.text("preview-notes-after") == page.text("notes-text")
    assert "\n    - " in page.text("agent-view-text")  # one line per entry, as the model gets them


def test_a_question_of_an_unknown_type_is_explained_not_offered(bookkeeper_client):
    item = moved_item("survey")
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert "survey" in page.text("answer-panel")
    assert not page.has("answer-form")
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert "user_note" not in stored(item)


def test_an_upload_whose_write_fails_leaves_no_file_and_no_item(bookkeeper_client, monkeypatch, documents_bucket):
    from reviewapp.answers import writing

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("database went away")

    item = moved_item("resend")
    monkeypatch.setattr(writing.history, "append_question_event", broken)
    upload = io.BytesIO(png_bytes())
    upload.name = "skarpare.png"
    with pytest.raises(RuntimeError):
        bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert stored(item)["pending_question"]["status"] == "moved_to_app"
    assert not [path for path in documents_bucket.rglob("*") if path.is_file()]


def test_after_a_refused_save_the_preview_still_shows_the_half_answer(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("Anna Berg", "")]), **HTMX)
    page = Page(response.content.decode())
    assert page.has("id_purpose_error")
    assert "Anna Berg" in page.text("preview-agent-after")
    assert "Write the purpose" in page.text("answer-preview")
