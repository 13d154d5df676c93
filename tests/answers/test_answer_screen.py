"""The answer screen: save and next inside the chosen list, who else is answering, keys, dates, errors, the receipt."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.models import Reservation
from reviewapp.readmodel import sync
from tests import factories
from tests.answers.conftest import HTMX, answer_url, item_url, moved_item, representation_post
from tests.html import Page
from tests.items.bookkeeping import PDF, PNG, make_document

STOCKHOLM = zoneinfo.ZoneInfo("Europe/Stockholm")

pytestmark = pytest.mark.django_db


def received(item: InboxItem, when: str) -> InboxItem:
    """The item as received at ``when``: its place in a list sorted by arrival."""
    InboxItem.objects.filter(pk=item.pk).update(created_at=dt.datetime.fromisoformat(when))
    sync.index_items([item.pk])
    item.refresh_from_db()
    return item


def context_item(when: str, question: str = "context") -> InboxItem:
    return received(moved_item(question), when)


def save_context(client: Any, item: InboxItem, list_query: str, **extra: Any) -> Any:
    return client.post(answer_url(item), {"question": "context", "text": "Taxi", "list_query": list_query}, **extra)


@pytest.fixture
def colleague(db):  # type: ignore[no-untyped-def]
    return factories.make_user(roles.BOOKKEEPER, username="karin", first_name="Karin", last_name="Lund")


# --- Save and next stays in the list --------------------------------------------------------------

QUERY = "type=context&sort=oldest"


def test_save_and_next_skips_items_outside_the_filter(bookkeeper_client):
    first = context_item("2026-11-01T09:00:00+00:00")
    context_item("2026-11-02T09:00:00+00:00", question="resend")  # next by arrival, but not in the list
    third = context_item("2026-11-03T09:00:00+00:00")
    response = save_context(bookkeeper_client, first, QUERY, **HTMX)
    assert response["HX-Redirect"] == item_url(third, QUERY)


def test_save_and_next_skips_items_of_the_filter_that_need_no_answer_here(bookkeeper_client):
    first = context_item("2026-11-01T09:00:00+00:00")
    received(moved_item("context", status="open"), "2026-11-02T09:00:00+00:00")  # still the chat's
    third = context_item("2026-11-03T09:00:00+00:00")
    response = save_context(bookkeeper_client, first, "sort=oldest")
    assert response["Location"] == item_url(third, "sort=oldest")


def test_save_and_next_skips_an_item_someone_else_is_answering(bookkeeper_client, colleague):
    first = context_item("2026-11-01T09:00:00+00:00")
    second = context_item("2026-11-02T09:00:00+00:00")
    third = context_item("2026-11-03T09:00:00+00:00")
    reservations.reserve(second.pk, colleague)
    response = save_context(bookkeeper_client, first, QUERY)
    assert response["Location"] == item_url(third, QUERY)


def test_the_next_item_is_reserved_for_whoever_is_sent_there_and_the_answered_one_let_go(bookkeeper_client, bookkeeper):
    first = context_item("2026-11-01T09:00:00+00:00")
    second = context_item("2026-11-02T09:00:00+00:00")
    bookkeeper_client.get(item_url(first, QUERY))
    assert Reservation.objects.get(item_id=first.pk).user == bookkeeper
    save_context(bookkeeper_client, first, QUERY)
    assert not Reservation.objects.filter(item_id=first.pk).exists()
    assert Reservation.objects.get(item_id=second.pk).user == bookkeeper


def test_an_earlier_item_still_waiting_comes_after_the_end_of_the_list(bookkeeper_client):
    earlier = context_item("2026-11-01T09:00:00+00:00")
    last = context_item("2026-11-03T09:00:00+00:00")
    response = save_context(bookkeeper_client, last, QUERY)
    assert response["Location"] == item_url(earlier, QUERY)


def test_when_only_items_others_hold_are_left_the_list_says_so(bookkeeper_client, colleague):
    first = context_item("2026-11-01T09:00:00+00:00")
    second = context_item("2026-11-02T09:00:00+00:00")
    reservations.reserve(second.pk, colleague)
    response = save_context(bookkeeper_client, first, QUERY, follow=True)
    assert response.redirect_chain[-1][0] == reverse("inbox") + "?" + QUERY
    html = response.content.decode()
    assert "Saved: " in html
    assert "Nothing else in this list is free: the 1 item left is being answered by someone else." in html


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
    assert "Saved: " in html
    assert "The queue is empty: nothing else in this list is waiting for an answer." in html


def test_at_the_end_of_a_filtered_queue_no_item_outside_the_filter_is_opened(bookkeeper_client):
    item = moved_item("context")
    moved_item("resend")  # waiting too, but not in the list the bookkeeper chose
    response = bookkeeper_client.post(
        answer_url(item), {"question": "context", "text": "Taxi", "list_query": "type=context"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("inbox") + "?type=context"
    assert "The queue is empty" in response.content.decode()


def test_a_correction_goes_back_to_the_item_not_on(bookkeeper_client):
    item = context_item("2026-11-01T09:00:00+00:00")
    context_item("2026-11-02T09:00:00+00:00")
    save_context(bookkeeper_client, item, QUERY)
    page = Page(bookkeeper_client.get(item_url(item)).content.decode())
    version = next(tag["value"] for tag in page.tags("input") if tag.get("name") == "answer_version")
    response = bookkeeper_client.post(
        answer_url(item),
        {"question": "context", "text": "Buss", "amend": "1", "answer_version": version, "list_query": QUERY},
    )
    assert response["Location"] == item_url(item, QUERY)


# --- Someone else is answering --------------------------------------------------------------------


def test_opening_an_item_to_answer_reserves_it_on_the_item_page_and_the_answer_page(bookkeeper_client, bookkeeper):
    on_page, on_answer_page = moved_item("context"), moved_item("context")
    bookkeeper_client.get(item_url(on_page))
    bookkeeper_client.get(answer_url(on_answer_page))
    assert reservations.held_by_others(factories.make_user(roles.BOOKKEEPER)) == {on_page.pk, on_answer_page.pk}


@pytest.mark.parametrize("role_client", ["support_client", "qa_client"])
def test_looking_without_answering_reserves_nothing(request, role_client):
    item = moved_item("context")
    request.getfixturevalue(role_client).get(item_url(item))
    assert not Reservation.objects.exists()


def test_an_answered_item_is_not_reserved_by_opening_it(bookkeeper_client):
    item = moved_item("context", status="answered")
    bookkeeper_client.get(item_url(item))
    assert not Reservation.objects.exists()


def test_an_item_someone_else_holds_says_who_and_since_when_and_can_still_be_answered(bookkeeper_client, colleague):
    item = moved_item("context")
    reservations.reserve(item.pk, colleague)
    expires = Reservation.objects.get(item_id=item.pk).expires_at
    since = (expires - dt.timedelta(minutes=5)).astimezone(STOCKHOLM).strftime("%H:%M")
    page = Page(bookkeeper_client.get(item_url(item)).content.decode())
    assert page.text("answer-held").startswith(f"Karin Lund is answering this (since {since}).")
    assert page.has("answer-form")
    # Still theirs: opening it did not take it over.
    assert Reservation.objects.get(item_id=item.pk).user == colleague
    response = bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.channel_context["user_note"] == "Taxi"


def test_ones_own_reservation_is_not_announced(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.get(item_url(item))
    assert not Page(bookkeeper_client.get(item_url(item)).content.decode()).has("answer-held")


# --- Focus and keys -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "first_field"),
    [("representation", "participants-0-name"), ("context", "text"), ("resend", "choice")],
)
def test_the_form_opens_with_the_keyboard_in_its_first_field(bookkeeper_client, question, first_field):
    page = Page(bookkeeper_client.get(item_url(moved_item(question))).content.decode())
    focused = page.with_attribute("autofocus")
    assert len(focused) == 1
    assert focused[0]["name"] == first_field


def test_after_save_and_next_the_next_form_has_the_keyboard(bookkeeper_client):
    first = context_item("2026-11-01T09:00:00+00:00")
    context_item("2026-11-02T09:00:00+00:00")
    response = save_context(bookkeeper_client, first, QUERY, follow=True)
    focused = Page(response.content.decode()).with_attribute("autofocus")
    assert [attrs["name"] for attrs in focused] == ["text"]


def test_a_refused_save_puts_the_keyboard_on_the_first_field_in_error(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], event_date="1/2/2026"))
    focused = Page(response.content.decode()).with_attribute("autofocus")
    assert [attrs["name"] for attrs in focused] == ["purpose"]


def test_an_answer_without_participants_puts_the_keyboard_on_its_message(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([], purpose="Möte"), **HTMX)
    focused = Page(response.content.decode()).with_attribute("autofocus")
    assert [attrs["id"] for attrs in focused] == ["answer-form_error"]


def test_the_denials_confirmation_takes_the_keyboard_not_its_button(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([], action="deny"), **HTMX)
    focused = Page(response.content.decode()).with_attribute("autofocus")
    assert [attrs["id"] for attrs in focused] == ["answer-confirm-deny"]


def test_an_item_page_without_a_form_to_fill_in_takes_no_focus(bookkeeper_client):
    page = Page(bookkeeper_client.get(item_url(moved_item("context", status="open"))).content.decode())
    assert page.with_attribute("autofocus") == []


def test_the_page_lists_the_keys_for_saving_denying_and_going_back(bookkeeper_client):
    page = Page(bookkeeper_client.get(item_url(moved_item("representation"))).content.decode())
    keys = page.words("answer-keys")
    assert "Ctrl+Enter Save" in keys
    assert "Alt+D Not representation (asks first" in keys
    assert "Esc Leave the field; pressed again, back to the list" in keys
    deny = next(tag for tag in page.tags("button") if tag.get("value") == "deny")
    assert "data-answer-deny" in deny


def test_the_resend_keys_name_each_choice(bookkeeper_client):
    page = Page(bookkeeper_client.get(item_url(moved_item("resend"))).content.decode())
    keys = page.words("answer-keys")
    assert "Alt+1 The current document is readable after all" in keys
    assert "Alt+2 A newer item of this company replaces it" in keys
    assert "Alt+3 Upload a sharper file (JPEG, PNG or PDF)" in keys
    assert "Alt+D" not in keys


def test_the_answer_page_links_back_to_the_list_it_came_from(bookkeeper_client):
    item = moved_item("context")
    page = Page(bookkeeper_client.get(answer_url(item) + "?" + QUERY).content.decode())
    back = next(tag for tag in page.tags("a") if tag.get("data-nav") == "list")
    assert back["href"] == reverse("inbox") + "?" + QUERY


def test_save_is_the_first_button_of_the_form_that_submits_on_enter_once_rows_are_added_in_place(bookkeeper_client):
    # "Add a participant" submits only without JavaScript; answer.js makes it
    # type="button". Then Save must be the form's first submit button.
    html = bookkeeper_client.get(item_url(moved_item("representation"))).content.decode()
    form = html[html.index('<form id="answer-form"') : html.index("</form>", html.index('<form id="answer-form"'))]
    buttons = [tag for tag in Page(form).tags("button") if tag.get("type") == "submit"]
    assert ["data-add-participant" in tag for tag in buttons] == [True, False, False]
    assert [tag["value"] for tag in buttons[1:]] == ["save", "deny"]


# --- Dates typed as ISO ---------------------------------------------------------------------------


def test_the_event_date_is_typed_as_text_with_the_iso_format_shown(bookkeeper_client):
    page = Page(bookkeeper_client.get(item_url(moved_item("representation"))).content.decode())
    date = next(tag for tag in page.tags("input") if tag.get("name") == "event_date")
    assert date["type"] == "text"
    assert date["inputmode"] == "numeric"
    assert date["placeholder"] == "YYYY-MM-DD"
    assert date["pattern"] == r"\d{4}-?\d{2}-?\d{2}"


@pytest.mark.parametrize(("typed", "stored"), [("2026-11-20", "2026-11-20"), ("20261120", "2026-11-20")])
def test_a_date_typed_as_iso_is_saved_whatever_the_browser(bookkeeper_client, typed, stored):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], "Möte", typed))
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.channel_context["representation"]["event_date"] == stored


def test_a_date_in_a_local_format_is_refused_with_the_iso_form(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], "Möte", "20/11/2026"))
    page = Page(response.content.decode())
    assert page.text("id_event_date_error") == "Enter the date as YYYY-MM-DD, for example 2026-07-29."


# --- Errors go once fixed -------------------------------------------------------------------------


def test_a_reposted_valid_value_has_no_error_message(bookkeeper_client):
    item = moved_item("representation")
    first = Page(
        bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], "", "2026-13-01")).content.decode()
    )
    assert first.has("id_event_date_error")
    again = Page(
        bookkeeper_client.post(answer_url(item), representation_post([("Anna", "")], "", "2026-11-20")).content.decode()
    )
    assert not again.has("id_event_date_error")
    assert again.text("id_purpose_error") == "Write the purpose of the representation."


# --- The receipt beside the form ------------------------------------------------------------------


def test_the_receipt_image_sits_beside_the_form_on_the_item_page_and_the_answer_page(bookkeeper_client):
    company = factories.make_company()
    document = make_document(company, content=PNG)
    item = received(
        factories.make_item(company, document=document, channel_context=moved_item("context").channel_context),
        "2026-11-01T09:00:00+00:00",
    )
    for url in (item_url(item), answer_url(item)):
        page = Page(bookkeeper_client.get(url).content.decode())
        assert page.has("answer-receipt")
        images = [tag for tag in page.tags("img") if tag.get("class") == "receipt-image"]
        assert reverse("item_document", args=[item.pk]) in {tag["src"] for tag in images}
        assert not page.has("answer-no-receipt")


def test_a_pdf_receipt_is_shown_in_a_frame_beside_the_form(bookkeeper_client):
    company = factories.make_company()
    document = make_document(company, content=PDF, file_name="kvitto.pdf", mime_type="application/pdf")
    item = factories.make_item(company, document=document, channel_context=moved_item("context").channel_context)
    page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    frames = page.tags("iframe")
    assert [tag["src"] for tag in frames] == [reverse("item_document", args=[item.pk])]


def test_an_item_without_a_file_says_so_beside_the_form(bookkeeper_client):
    item = moved_item("context")
    for url in (item_url(item), answer_url(item)):
        page = Page(bookkeeper_client.get(url).content.decode())
        assert page.text("answer-no-receipt").strip() == "No receipt file for this item."


# --- One wording per question type ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("representation", "Representation (participants and purpose)"),
        ("context", "What the purchase was for"),
        ("resend", "A clearer photo"),
    ],
)
def test_each_question_type_is_named_the_same_on_the_item_and_the_answer_page(bookkeeper_client, question, label):
    item = moved_item(question)
    on_item = Page(bookkeeper_client.get(item_url(item)).content.decode())
    on_answer = bookkeeper_client.get(answer_url(item)).content.decode()
    assert on_item.text("answer-panel-title") == f"Answer in the app: {label}"
    assert Page(on_answer).text("answer-panel-title") == f"Answer in the app: {label}"
    assert f"<title>Answer: {label} ·" in on_answer
