"""The flow after a save: the toast names the saved item and links to it; a correction is called one."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from tests.answers.conftest import answer_url, moved_item
from tests.html import Page

pytestmark = pytest.mark.django_db


def _named(item: InboxItem, supplier: str, total: float) -> InboxItem:
    from reviewapp.readmodel import sync

    data = {**item.extracted_data, "supplier": {"name": supplier}, "totals": {"total": total, "vatAmount": 0}}
    InboxItem.objects.filter(pk=item.pk).update(extracted_data=data)
    sync.index_items([item.pk])
    return item


def test_the_toast_after_a_save_names_the_saved_item_and_links_to_correct_and_open_it(bookkeeper_client):
    saved = _named(moved_item("context"), "Restaurang Tegel", 1234.5)
    moved_item("context")
    response = bookkeeper_client.post(answer_url(saved), {"question": "context", "text": "Lunch"}, follow=True)
    page = Page(response.content.decode())
    toast = " ".join(page.texts(cls="message-success"))
    assert toast.startswith("Saved: Restaurang Tegel, 1,234.50 SEK")
    url = reverse("item_detail", args=[saved.pk])
    html = response.content.decode()
    assert re.search(rf'<a href="{re.escape(url)}#answer-form">Correct it</a>', html)
    assert re.search(rf'<a href="{re.escape(url)}">Open it</a>', html)


def test_a_correction_is_called_answer_corrected_in_the_history(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    hidden = page.values(type="hidden")
    bookkeeper_client.post(
        answer_url(item),
        {
            "question": "context",
            "text": "Taxi till kund",
            "amend": hidden["amend"],
            "answer_version": hidden["answer_version"],
        },
    )
    history = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode()).text("history")
    assert "Answer corrected" in history
    # The correction's change shows what it was and what it became.
    assert "Taxi till kund" in history
    assert history.count("Question answered") >= 1  # the first answer keeps its name


def test_the_queue_header_counts_what_the_signed_in_bookkeeper_answered_since_stockholm_midnight(
    bookkeeper, bookkeeper_client
):
    import datetime as dt

    from reviewapp.models import ClarificationEvent
    from tests import factories

    for _ in range(3):
        moved_item("context")
    mine = [moved_item("context") for _ in range(2)]
    for item in mine:
        bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Lunch"})
    # Yesterday's answer (before Stockholm midnight) and a colleague's do not count.
    yesterday = moved_item("context")
    bookkeeper_client.post(answer_url(yesterday), {"question": "context", "text": "Taxi"})
    ClarificationEvent.objects.filter(item_id=yesterday.pk).update(occurred_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    colleague = factories.make_user(roles.BOOKKEEPER, username="karin")
    ClarificationEvent.objects.create(
        item_id=yesterday.pk,
        event_type="ChannelQuestionAnswered",
        actor=colleague,
        channel="app",
        occurred_at=dt.datetime.now(dt.UTC),
    )
    page = Page(bookkeeper_client.get("/?state=needs_answer&sort=queue").content.decode())
    assert page.words("done-today") == "· Done today: 2"


def test_n_opens_the_oldest_free_item_of_the_queue_skipping_one_someone_else_holds(bookkeeper_client):
    from reviewapp.inbox import reservations
    from reviewapp.models import IndexedItem
    from tests import factories

    held, free, later = (moved_item("context") for _ in range(3))
    # The queue's order: the question that moved to the app first (as the sweep's event sets it in the index).
    for hour, item in ((7, later), (6, free), (5, held)):
        IndexedItem.objects.filter(pk=item.pk).update(moved_to_app_at=dt.datetime(2026, 11, 1, hour, tzinfo=dt.UTC))
    reservations.reserve(held.pk, factories.make_user(roles.BOOKKEEPER, username="karin"))
    response = bookkeeper_client.get(reverse("next_free"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("item_detail", args=[free.pk]) + "?")


def test_n_with_nothing_free_goes_to_the_queue_and_says_so(bookkeeper_client):
    response = bookkeeper_client.get(reverse("next_free"), follow=True)
    assert response.redirect_chain[-1][0] == "/?state=needs_answer&sort=queue"
    assert "No free item is waiting for an answer." in response.content.decode()


def test_only_a_person_who_answers_has_a_next_free_item(support_client):
    assert support_client.get(reverse("next_free")).status_code == 403
    body = support_client.get(reverse("inbox")).content.decode()
    assert "data-next-free" not in body


def _representation(**fields: str) -> dict[str, str]:
    return {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": "Anna Berg",
        "participants-0-company": "",
        "purpose": "Kundmöte",
        "event_date": "",
        "action": "save",
        **fields,
    }


def test_a_purpose_past_its_limit_is_refused_with_how_many_characters_over_never_cut(bookkeeper_client):
    item = moved_item("representation")
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    purpose = next(tag for tag in page.tags("textarea") if tag.get("name") == "purpose")
    # No maxlength for the browser to cut a paste with; the limit is there for the counter.
    assert "maxlength" not in purpose
    assert purpose["data-max-chars"] == "2000"
    response = bookkeeper_client.post(answer_url(item), _representation(purpose="x" * 2003))
    assert response.status_code == 200
    assert "3 characters over the limit: use at most 2000 (this has 2003)." in Page(response.content.decode()).text(
        "id_purpose_error"
    )
    item.refresh_from_db()
    assert "representation" not in item.channel_context


def test_an_event_date_in_the_future_is_saved_with_a_warning(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), _representation(event_date="2099-05-02"), follow=True)
    item.refresh_from_db()
    assert item.channel_context["representation"]["event_date"] == "2099-05-02"
    assert "The event date 2099-05-02 is in the future. It is saved as typed: check it." in response.content.decode()


def test_an_event_date_more_than_a_year_before_the_receipt_is_warned_about_in_the_preview(bookkeeper_client):
    item = moved_item("representation")  # the receipt is dated 2026-11-20 (tests.factories.make_item)
    preview = bookkeeper_client.post(
        reverse("item_answer_preview", args=[item.pk]), _representation(event_date="2025-11-19"), HTTP_HX_REQUEST="true"
    )
    assert "more than a year before the receipt's date (2026-11-20)" in Page(preview.content.decode()).text(
        "event-date-warning"
    )
    close = bookkeeper_client.post(
        reverse("item_answer_preview", args=[item.pk]), _representation(event_date="2025-11-21"), HTTP_HX_REQUEST="true"
    )
    assert "event-date-warning" not in close.content.decode()
