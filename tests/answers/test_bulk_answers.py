"""One answer for several items of one company: each item its own single answer, each outcome reported.

The API (``POST /api/answers``), the page (``/answers/bulk/``) and the list's ticks.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, CompanyAssignment
from tests import factories
from tests.answers.conftest import (
    ASKED_AT,
    assert_foreign_keys_untouched,
    book,
    conversation,
    history,
    make_conversation,
    moved_item,
    stored_context,
)
from tests.html import page_of

pytestmark = pytest.mark.django_db

MISSING = uuid.UUID("00000000-0000-4000-8000-000000000000")
TAXI = {"question": "context", "text": "Taxi till kundmötet hos Volvo"}


def api(client: Client, items: list[Any], answer: Any, **headers: Any) -> Any:
    body = {"items": [str(i) for i in items], "answer": answer}
    return client.post(reverse("api_answers"), json.dumps(body), content_type="application/json", **headers)


def context_items(company: Company, n: int) -> list[InboxItem]:
    return [moved_item("context", company=company) for _ in range(n)]


def restricted_bookkeeper(company: Company) -> User:
    """A bookkeeper assigned ``company`` only."""
    user = factories.make_user(roles.BOOKKEEPER)
    CompanyAssignment.objects.create(user=user, company_id=company.pk)
    return User.objects.get(pk=user.pk)


# --- The API ---------------------------------------------------------------------------


def test_each_item_is_written_as_its_own_answer_with_its_own_event_and_conversation_mark(bookkeeper_client, company):
    items = context_items(company, 3)
    conversations = [make_conversation(item) for item in items]
    response = api(bookkeeper_client, [i.pk for i in items], TAXI)
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["id"] for r in results] == [str(i.pk) for i in items]
    assert [r["status"] for r in results] == [200, 200, 200]
    for item, conversation_id, result in zip(items, conversations, results, strict=True):
        ctx = stored_context(item)
        assert ctx["user_note"] == "Taxi till kundmötet hos Volvo"
        assert ctx["pending_question"]["status"] == "answered"
        assert "context_answer" not in ctx  # the firm's answer is never the customer's own words
        assert_foreign_keys_untouched(ctx)
        events = history(item)
        assert len(events) == 1
        assert result["history_event_id"] == str(events[0].pk)
        assert events[0].payload == {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": "context"}
        assert conversation(conversation_id)[0]["recent_questions"][0]["status"] == "answered"
    assert ClarificationEvent.objects.filter(item_id__in=[i.pk for i in items]).count() == 3


def test_another_companys_item_is_a_404_of_its_own_and_changes_nothing(company):
    ours = context_items(company, 2)
    theirs = moved_item("context")
    client = Client()
    client.force_login(restricted_bookkeeper(company))
    response = api(client, [ours[0].pk, theirs.pk, ours[1].pk], TAXI)
    assert response.status_code == 200
    assert [(r["id"], r["status"]) for r in response.json()["results"]] == [
        (str(ours[0].pk), 200),
        (str(theirs.pk), 404),
        (str(ours[1].pk), 200),
    ]
    assert stored_context(theirs)["pending_question"]["status"] == "moved_to_app"
    assert "user_note" not in stored_context(theirs)
    assert history(theirs) == []
    assert "Företag" not in response.content.decode().replace(company.name, "")


def test_a_missing_id_is_a_404_like_another_companys(bookkeeper_client, company):
    item = moved_item("context", company=company)
    results = api(bookkeeper_client, [MISSING, item.pk], TAXI).json()["results"]
    assert [r["status"] for r in results] == [404, 200]
    assert [results[0]["id"], results[0]["error"]] == [str(MISSING), "No such item."]


def test_an_item_answered_first_elsewhere_is_a_409_and_the_others_are_saved(bookkeeper_client, company):
    first, taken, booked = context_items(company, 3)
    api(bookkeeper_client, [taken.pk], {"question": "context", "text": "Först"})
    book(booked)
    results = api(bookkeeper_client, [first.pk, taken.pk, booked.pk], TAXI).json()["results"]
    assert [(r["status"], r.get("reason")) for r in results] == [(200, None), (409, "not_open"), (409, "booked")]
    assert stored_context(taken)["user_note"] == "Först"
    assert stored_context(first)["user_note"] == "Taxi till kundmötet hos Volvo"


def test_an_item_refused_or_gone_at_its_turn_is_reported_by_its_own_id(bookkeeper_client, company, monkeypatch):
    from reviewapp.answers import bulk
    from reviewapp.answers.validation import AnswerInvalid

    first, refused, gone = context_items(company, 3)
    real = bulk.answer_question

    # What the single-answer path may do to one item at its turn (after the bulk checks passed):
    # refuse the answer for that item, or find the item deleted since the list was read.
    def answer_question(*, item_id, **kwargs):  # type: ignore[no-untyped-def]
        if item_id == refused.pk:
            raise AnswerInvalid({"text": ["Not for this item."]})
        if item_id == gone.pk:
            raise InboxItem.DoesNotExist
        return real(item_id=item_id, **kwargs)

    monkeypatch.setattr(bulk, "answer_question", answer_question)
    results = api(bookkeeper_client, [first.pk, refused.pk, gone.pk], TAXI).json()["results"]
    assert [(r["id"], r["status"], r.get("error")) for r in results] == [
        (str(first.pk), 200, None),
        (str(refused.pk), 400, "The answer is not valid."),
        (str(gone.pk), 404, "No such item."),
    ]
    assert results[1]["errors"] == {"text": ["Not for this item."]}


def test_an_item_waiting_for_another_question_is_a_409_of_its_own(bookkeeper_client, company):
    context = moved_item("context", company=company)
    representation = moved_item("representation", company=company)
    results = api(bookkeeper_client, [context.pk, representation.pk], TAXI).json()["results"]
    assert [(r["status"], r.get("reason")) for r in results] == [(200, None), (409, "other_question")]


def test_resend_readable_settles_each_item(bookkeeper_client, company):
    items = [moved_item("resend", company=company, quality={"resend_requested_at": ASKED_AT}) for _ in range(2)]
    results = api(bookkeeper_client, [i.pk for i in items], {"question": "resend", "readable": True}).json()
    assert [r["status"] for r in results["results"]] == [200, 200]
    for item in items:
        ctx = stored_context(item)
        assert ctx["pending_question"]["status"] == "answered"
        assert ctx["quality"] == {"resend_requested_at": ASKED_AT}


def test_more_than_a_hundred_items_are_refused_whole(bookkeeper_client, company):
    item = moved_item("context", company=company)
    response = api(bookkeeper_client, [item.pk] + [uuid.uuid4() for _ in range(100)], TAXI)
    assert response.status_code == 400
    assert "At most 100" in response.json()["errors"]["items"][0]
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_a_hundred_items_are_accepted(bookkeeper_client, company):
    item = moved_item("context", company=company)
    response = api(bookkeeper_client, [item.pk] + [uuid.uuid4() for _ in range(99)], TAXI)
    assert response.status_code == 200
    assert len(response.json()["results"]) == 100


@pytest.mark.parametrize(
    "answer",
    [
        {"question": "representation", "participants": [{"name": "Anna"}], "purpose": "Möte"},
        {"question": "resend", "replaced_by": "5eed1e55"},
        {"question": "context", "text": "Taxi", "amend": True, "answer_version": "a" * 16},
        {"question": "context", "text": "   "},
        {"question": "context", "text": "Taxi", "surprise": 1},
    ],
)
def test_an_answer_that_is_not_given_in_bulk_or_breaks_a_rule_is_refused_before_anything_is_written(
    bookkeeper_client, company, answer
):
    item = moved_item("context", company=company)
    response = api(bookkeeper_client, [item.pk], answer)
    assert response.status_code == 400
    assert response.json()["errors"]
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


@pytest.mark.parametrize(
    "body",
    [
        '{"items": "abc", "answer": {"question": "context", "text": "x"}}',
        '{"items": []}',
        "[1]",
        "nej",
        '{"items": ["1"], "answer": {}}',
    ],
)
def test_a_malformed_body_is_a_400(bookkeeper_client, body):
    response = bookkeeper_client.post(reverse("api_answers"), body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]


def test_the_same_item_twice_is_refused(bookkeeper_client, company):
    item = moved_item("context", company=company)
    response = api(bookkeeper_client, [item.pk, item.pk], TAXI)
    assert response.status_code == 400
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_items_of_two_companies_the_user_sees_are_refused_whole(bookkeeper_client, company):
    ours = moved_item("context", company=company)
    other = moved_item("context")
    response = api(bookkeeper_client, [ours.pk, other.pk], TAXI)
    assert response.status_code == 400
    assert response.json()["code"] == "mixed_companies"
    assert stored_context(ours)["pending_question"]["status"] == "moved_to_app"
    assert stored_context(other)["pending_question"]["status"] == "moved_to_app"


def test_support_may_not_answer_in_bulk(support_client, company):
    item = moved_item("context", company=company)
    assert api(support_client, [item.pk], TAXI).status_code == 403


def test_the_api_needs_the_csrf_token_with_a_session(bookkeeper, company):
    item = moved_item("context", company=company)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    assert api(client, [item.pk], TAXI).status_code == 403
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_get_is_405(bookkeeper_client):
    assert bookkeeper_client.get(reverse("api_answers")).status_code == 405


# --- The page --------------------------------------------------------------------------


def bulk_url(items: list[InboxItem]) -> str:
    return reverse("answers_bulk") + "?" + "&".join(f"items={i.pk}" for i in items)


def test_the_page_lists_the_ticked_items_and_offers_one_context_answer(bookkeeper_client, company):
    items = context_items(company, 2)
    page = page_of(bookkeeper_client.get(bulk_url(items)))
    assert page.text("bulk-items-title") == f"2 items of {company.name}"
    assert [value for name, value in page.form("bulk-form").fields if name == "items"] == [str(i.pk) for i in items]
    assert page.has("bulk-text")


def test_saving_the_page_answers_each_item_and_shows_each_outcome(bookkeeper_client, company):
    fresh, taken = context_items(company, 2)
    api(bookkeeper_client, [taken.pk], {"question": "context", "text": "Först"})
    data = {"items": [str(fresh.pk), str(taken.pk)], "text": "Taxi", "list_query": "state=needs_answer"}
    response = bookkeeper_client.post(reverse("answers_bulk"), data)
    assert response.status_code == 200
    page = page_of(response)
    assert page.text("bulk-outcomes-title") == "1 of 2 answers saved"
    outcomes = page.texts(cls="bulk-outcome")
    assert "Saved" in outcomes[0]
    assert "Someone else answered this question first" in outcomes[1]
    assert stored_context(fresh)["user_note"] == "Taxi"
    assert stored_context(taken)["user_note"] == "Först"


def test_items_answered_elsewhere_after_the_page_was_shown_are_each_a_409_not_a_refusal(bookkeeper_client, company):
    items = context_items(company, 2)
    form = page_of(bookkeeper_client.get(bulk_url(items))).form("bulk-form")
    api(bookkeeper_client, [i.pk for i in items], {"question": "context", "text": "Först"})
    data: dict[str, Any] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data["text"] = ["Taxi"]
    page = page_of(bookkeeper_client.post(reverse("answers_bulk"), data))
    assert page.text("bulk-outcomes-title") == "0 of 2 answers saved"
    assert all(stored_context(i)["user_note"] == "Först" for i in items)


def test_an_empty_text_is_said_once_under_the_field_and_nothing_is_written(bookkeeper_client, company):
    items = context_items(company, 2)
    response = bookkeeper_client.post(reverse("answers_bulk"), {"items": [str(i.pk) for i in items], "text": " "})
    page = page_of(response)
    assert "Write what the purchase was for." in page.text("bulk-text_error")
    assert all(stored_context(i)["pending_question"]["status"] == "moved_to_app" for i in items)


def test_the_page_refuses_items_of_two_companies_with_a_clear_message(bookkeeper_client, company):
    items = [moved_item("context", company=company), moved_item("context")]
    response = bookkeeper_client.get(bulk_url(items))
    assert response.status_code == 400
    assert "Answer the items of one company at a time" in page_of(response).text("bulk-refusal")
    assert not page_of(response).has("bulk-form")
    post = bookkeeper_client.post(reverse("answers_bulk"), {"items": [str(i.pk) for i in items], "text": "Taxi"})
    assert post.status_code == 400
    assert all(stored_context(i)["pending_question"]["status"] == "moved_to_app" for i in items)


def test_the_page_refuses_items_waiting_for_different_questions(bookkeeper_client, company):
    items = [moved_item("context", company=company), moved_item("representation", company=company)]
    response = bookkeeper_client.get(bulk_url(items))
    assert response.status_code == 400
    assert "same question" in page_of(response).text("bulk-refusal")


def test_the_page_offers_readable_for_resend_questions(bookkeeper_client, company):
    items = [moved_item("resend", company=company) for _ in range(2)]
    page = page_of(bookkeeper_client.get(bulk_url(items)))
    assert "All 2 documents are readable" in page.text("bulk-form")
    bookkeeper_client.post(reverse("answers_bulk"), {"items": [str(i.pk) for i in items]})
    assert all(stored_context(i)["pending_question"]["status"] == "answered" for i in items)


def test_another_companys_item_on_the_page_is_left_out_and_not_written(company):
    ours = moved_item("context", company=company)
    theirs = moved_item("context")
    client = Client()
    client.force_login(restricted_bookkeeper(company))
    page = page_of(client.get(bulk_url([ours, theirs])))
    assert "1 of the ticked items cannot be found" in page.text("bulk-missing")
    assert theirs.supplier_name not in page.text("bulk-items")
    client.post(reverse("answers_bulk"), {"items": [str(ours.pk), str(theirs.pk)], "text": "Taxi"})
    assert stored_context(ours)["user_note"] == "Taxi"
    assert "user_note" not in stored_context(theirs)


def test_the_page_is_for_bookkeepers_only(support_client, company):
    assert support_client.get(bulk_url([moved_item("context", company=company)])).status_code == 403


def test_the_form_post_needs_the_csrf_token(bookkeeper, company):
    item = moved_item("context", company=company)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    response = client.post(reverse("answers_bulk"), {"items": [str(item.pk)], "text": "Taxi"})
    assert response.status_code == 403
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


# --- The list's ticks ------------------------------------------------------------------


def test_the_queue_offers_a_tick_for_context_and_resend_items_only(bookkeeper_client, company):
    context, resend = moved_item("context", company=company), moved_item("resend", company=company)
    representation = moved_item("representation", company=company)
    page = page_of(bookkeeper_client.get(reverse("inbox") + "?state=needs_answer"))
    ticks = [value for name, value in page.form("bulk-select").fields if name == "items"]
    assert sorted(ticks) == sorted([str(context.pk), str(resend.pk)])
    assert str(representation.pk) not in ticks
    # The ticks are the bulk form's, never the filters'.
    assert "items" not in [name for name, _ in page.form("inbox-filters").fields]


def test_support_sees_no_ticks(support_client, company):
    moved_item("context", company=company)
    page = page_of(support_client.get(reverse("inbox") + "?state=needs_answer"))
    assert not page.has("bulk-select")


@pytest.mark.parametrize("items", ["abc", "", [], {"a": 1}])
def test_items_that_are_not_a_list_of_ids_are_refused_with_what_to_send(bookkeeper_client, items):
    body = json.dumps({"items": items, "answer": {"question": "context", "text": "x"}})
    response = bookkeeper_client.post(reverse("api_answers"), body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"]["items"] == ["Send the items as a list of item ids."]


@pytest.mark.parametrize(
    "answer",
    [
        {"question": "representation", "participants": [{"name": "Anna"}], "purpose": "Möte"},
        {"question": "resend", "replaced_by": "5eed1e55"},
        {"question": "context", "text": "Taxi", "amend": True, "answer_version": "a" * 16},
    ],
)
def test_an_answer_not_given_in_bulk_is_refused_with_what_is(bookkeeper_client, company, answer):
    item = moved_item("context", company=company)
    response = api(bookkeeper_client, [item.pk], answer)
    assert response.status_code == 400
    assert response.json()["errors"]["question"] == [
        "Only a context answer, or “the current document is readable” for a resend question, "
        "is given to several items at once."
    ]
