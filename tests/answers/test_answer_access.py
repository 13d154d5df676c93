"""A bookkeeper assigned some companies never answers another company's item: every answer path is a 404.

Rita is a bookkeeper assigned "Vår Klient AB" only. "Hemlig Kund AB" has an
item whose question waits for an answer in the app, with a conversation.
Each test tries one answer path with that item's id and expects what a
missing id gets (404, nothing of the item in the answer) and nothing
written: not the item's JSON, its conversation, accounted's
``processing_history``, the app's log, a new item or a stored file. The
same paths on Rita's own company's item work, so the refusals are about
the company, not the path.
"""

from __future__ import annotations

import io
import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from reviewapp.answers.inputs import ContextAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.models import Company, InboxItem, ProcessingHistory
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, CompanyAssignment, Reservation
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.answers.conftest import (
    ASKED_AT,
    HTMX,
    answer_url,
    conversation,
    make_conversation,
    moved_item,
    png_bytes,
    preview_url,
    representation_post,
    stored_context,
)
from tests.html import Page
from tests.items.bookkeeping import resend_answer

pytestmark = pytest.mark.django_db

SECRET_SUPPLIER = "Hemlig Leverantör"
MISSING = uuid.UUID("00000000-0000-4000-8000-000000000000")


@dataclass
class World:
    ours: Company
    theirs: Company
    rita: User

    def client(self) -> Client:
        client = Client()
        client.force_login(self.rita)
        return client


@pytest.fixture
def world() -> World:
    ours = factories.make_company(name="Vår Klient AB")
    theirs = factories.make_company(name="Hemlig Kund AB")
    rita = factories.make_user(roles.BOOKKEEPER, username="rita")
    CompanyAssignment.objects.create(user=rita, company_id=ours.pk)
    return World(ours, theirs, rita)


def their_item(world: World, question: str = "context") -> InboxItem:
    item = moved_item(question, company=world.theirs)
    InboxItem.objects.filter(pk=item.pk).update(extracted_data={"supplier": {"name": SECRET_SUPPLIER}})
    item.refresh_from_db()
    return item


def everything_about(item: InboxItem, conversation_id: uuid.UUID) -> dict[str, Any]:
    """All an answer could write about ``item``, to compare before and after."""
    return {
        "channel_context": stored_context(item),
        "conversation": conversation(conversation_id),
        "history": list(ProcessingHistory.objects.filter(aggregate_id=item.pk).values_list("pk", flat=True)),
        "log": list(ClarificationEvent.objects.filter(item_id=item.pk).values_list("pk", flat=True)),
        "items": InboxItem.objects.filter(company_id=item.company_id).count(),
        "reservations": Reservation.objects.filter(item_id=item.pk).count(),
    }


def assert_hidden(response: Any) -> None:
    """What a missing item gets: 404, and nothing of the item in the answer."""
    assert response.status_code == 404
    assert SECRET_SUPPLIER not in response.content.decode()


def test_rita_is_restricted_and_answers_her_own_companys_items(world):
    # Guards every test below: the same paths work for Rita's own company.
    mine = moved_item("context", company=world.ours)
    client = world.client()
    assert client.get(answer_url(mine)).status_code == 200
    assert client.post(preview_url(mine), {"question": "context", "text": "Taxi"}, **HTMX).status_code == 200
    assert client.post(answer_url(mine), {"question": "context", "text": "Taxi"}).status_code == 302
    assert stored_context(mine)["user_note"] == "Taxi"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_the_answer_form_of_another_companys_item_is_a_404_and_reserves_nothing(world, headers):
    item = their_item(world)
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    assert_hidden(world.client().get(answer_url(item), **headers))
    assert everything_about(item, conversation_id) == before


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
@pytest.mark.parametrize(
    ("question", "data"),
    [
        ("context", {"question": "context", "text": "intrång"}),
        ("representation", representation_post([("Anna", "")], purpose="Möte")),
        ("representation", representation_post([("Anna", "")], purpose="Möte", action="deny")),
        ("representation", representation_post([("Anna", "")], purpose="Möte", action="deny_confirm")),
        ("representation", representation_post([("Anna", "")], purpose="Möte", action="add_row")),
        ("resend", {"question": "resend", "choice": "readable"}),
    ],
    ids=["context", "representation", "deny", "deny_confirm", "add_row", "resend"],
)
def test_saving_an_answer_to_another_companys_item_is_a_404_and_writes_nothing(world, headers, question, data):
    item = their_item(world, question)
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    assert_hidden(world.client().post(answer_url(item), data, **headers))
    assert everything_about(item, conversation_id) == before


def test_uploading_a_file_for_another_companys_item_stores_nothing(world, documents_bucket):
    item = their_item(world, "resend")
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    upload = io.BytesIO(png_bytes())
    upload.name = "skarpare.png"
    response = world.client().post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})
    assert_hidden(response)
    assert everything_about(item, conversation_id) == before
    assert not [path for path in documents_bucket.rglob("*") if path.is_file()]


def test_the_preview_of_another_companys_item_is_a_404(world):
    item = their_item(world)
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    response = world.client().post(preview_url(item), {"question": "context", "text": "intrång"}, **HTMX)
    assert_hidden(response)
    assert everything_about(item, conversation_id) == before


@pytest.mark.parametrize("by", ["session", "token"])
def test_the_api_answers_another_companys_item_exactly_as_a_missing_one(world, by):
    item = their_item(world)
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    client = world.client() if by == "session" else Client()
    headers = {} if by == "session" else {"HTTP_AUTHORIZATION": f"Bearer {create_token(world.rita)}"}
    body = json.dumps({"question": "context", "text": "intrång"})

    def post(item_id: uuid.UUID) -> Any:
        url = reverse("api_item_answer", args=[item_id])
        return client.post(url, body, content_type="application/json", **headers)

    hidden, missing = post(item.pk), post(MISSING)
    assert (
        (hidden.status_code, hidden.json()) == (missing.status_code, missing.json()) == (404, {"error": "no such item"})
    )
    assert everything_about(item, conversation_id) == before


def test_answer_question_itself_treats_another_companys_item_as_missing(world):
    item = their_item(world)
    conversation_id = make_conversation(item)
    before = everything_about(item, conversation_id)
    with pytest.raises(InboxItem.DoesNotExist):
        answer_question(item_id=item.pk, user=world.rita, answer=ContextAnswer(text="intrång"))
    with pytest.raises(InboxItem.DoesNotExist):
        answer_question(item_id=MISSING, user=world.rita, answer=ContextAnswer(text="intrång"))
    assert everything_about(item, conversation_id) == before


def test_another_companys_item_cannot_be_named_as_the_newer_one(world):
    mine = moved_item("resend", company=world.ours, quality={"resend_requested_at": ASKED_AT})
    hidden = factories.make_item(world.theirs)
    with pytest.raises(AnswerInvalid) as refused:
        answer_question(item_id=mine.pk, user=world.rita, answer=ResendAnswer(replaced_by=str(hidden.pk)))
    # The same words as for an id that does not exist: the hidden item's company is not given away.
    assert refused.value.errors == {"replaced_by": ["No item has this id."]}
    assert stored_context(mine)["pending_question"]["status"] == "moved_to_app"


def test_the_panel_and_the_api_leave_out_links_to_another_companys_items(world, bookkeeper):
    mine = moved_item("context", company=world.ours)
    older, newer = factories.make_item(world.theirs), factories.make_item(world.theirs)
    resend_answer(older, mine, "2026-11-02T08:00:00Z", actor=bookkeeper)
    resend_answer(mine, newer, "2026-11-03T08:00:00Z", actor=bookkeeper)
    client = world.client()
    page = Page(client.get(answer_url(mine)).content.decode())
    assert not page.has("resend-links")
    # The API's state after a conflict lists no links either.
    response = client.post(
        reverse("api_item_answer", args=[mine.pk]),
        json.dumps({"question": "resend", "readable": True}),
        content_type="application/json",
    )
    assert response.status_code == 409
    current = response.json()["current"]
    assert (current["replaced_by_item"], current["replaces_items"]) == (None, [])
    # Someone who sees every company sees both links: the test is about the restriction.
    firm_wide = Client()
    firm_wide.force_login(bookkeeper)
    assert str(newer.pk) in Page(firm_wide.get(answer_url(mine)).content.decode()).text("resend-links")


def test_save_and_next_never_sends_a_bookkeeper_to_a_company_they_are_not_assigned(world):
    query = "type=context&sort=oldest"
    mine = moved_item("context", company=world.ours)
    theirs = their_item(world)
    response = world.client().post(
        answer_url(mine), {"question": "context", "text": "Taxi", "list_query": query}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("inbox") + "?" + query
    assert "The queue is empty" in response.content.decode()
    assert not Reservation.objects.filter(item_id=theirs.pk).exists()
