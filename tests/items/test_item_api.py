"""GET /api/items/<uuid>: the item page's content as JSON."""

from __future__ import annotations

import uuid

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import clarifications
from clarifications import phrases
from reviewapp.models import ClarificationEvent
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.items.bookkeeping import PNG, accounted_event, app_event, book, make_document
from tests.items.page import ASKED_AT, CRON

MOVED = {
    "channel": "whatsapp",
    "representation": {
        "participants": [{"name": "Elias", "company": None}],
        "purpose": None,
        "raw_answer": "Elias",
        "answered_at": "2026-08-01T10:00:00Z",
    },
    "pending_question": {"type": "representation", "asked_at": ASKED_AT, "status": "moved_to_app"},
}


def api_url(item_id: object) -> str:
    return reverse("api_item", args=[item_id])


def test_it_returns_the_five_outputs_of_the_library_for_the_item(bookkeeper_client, company):
    item = factories.make_item(company, document=make_document(company, id=uuid.UUID(int=7)), channel_context=MOVED)

    data = bookkeeper_client.get(api_url(item.pk)).json()

    assert data["lines"] == [
        phrases.PARTICIPANTS_PREFIX + "Elias",
        phrases.PURPOSE_MISSING_LINE,
        phrases.OPEN_QUESTION_LINE.format(
            what=phrases.ASK_REPRESENTATION,
            where=phrases.WHERE_MOVED_TO_APP.format(via=phrases.WHATSAPP_LABEL),
        ),
    ]
    assert data["agent_view"][0].startswith("  • invoice_inbox: document_id=00000000-0000-0000-0000-000000000007, ")
    assert data["notes"] == "Representation: Elias"
    assert data["problems"] == []
    assert data["summary"]["representationPurposeMissing"] is True
    printed = clarifications.render_case(
        {
            "channel_context": MOVED,
            "item": {"document_id": "00000000-0000-0000-0000-000000000007", "extracted_data": item.extracted_data},
        }
    )
    assert {key: data[key] for key in printed} == printed


def test_it_returns_the_open_question_with_its_owner_and_deadlines(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=MOVED)
    accounted_event(item, ClarificationEvent.EXPIRED, "2026-08-03T09:05:00Z", actor=CRON)

    question = bookkeeper_client.get(api_url(item.pk)).json()["open_question"]

    assert question["type"] == "representation"
    assert question["status"] == "moved_to_app"
    assert question["owner"] == "app"
    assert question["asked_at"] == ASKED_AT
    assert question["gave_up_at"] == "2026-08-03T09:05:00Z"
    assert question["chat_keeps_until"] is None


def test_an_open_question_is_owned_by_the_chat_for_48_hours(bookkeeper_client, company):
    ctx = {"channel": "whatsapp", "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "open"}}
    item = factories.make_item(company, channel_context=ctx)

    question = bookkeeper_client.get(api_url(item.pk)).json()["open_question"]

    assert question["owner"] == "chat"
    assert question["chat_keeps_until"] == "2026-08-03T09:00:00Z"
    assert question["gave_up_at"] is None


def test_no_open_question_is_null(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "hej"})

    assert bookkeeper_client.get(api_url(item.pk)).json()["open_question"] is None


def test_it_returns_the_events_with_what_an_app_answer_changed(bookkeeper_client, bookkeeper, company):
    after = {"channel": "whatsapp", "user_note": "Pärmar"}
    item = factories.make_item(company, channel_context=after)
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT, question_type="context")
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00Z",
        question_type="context",
        actor=bookkeeper,
        payload={"before": {"channel": "whatsapp"}, "after": after},
    )

    events = bookkeeper_client.get(api_url(item.pk)).json()["events"]

    assert [(e["event_type"], e["channel"], e["occurred_at"]) for e in events] == [
        ("ChannelQuestionAsked", "whatsapp", ASKED_AT),
        ("ChannelQuestionAnswered", "app", "2026-08-04T07:00:00Z"),
    ]
    assert events[0]["actor"] == "whatsapp-inbound"
    assert events[1]["actor"] == "bea"
    assert events[0]["change"] is None
    assert events[1]["change"] == {
        "changed_keys": [{"key": "user_note", "change": "added"}],
        "lines_before": [],
        "lines_after": [phrases.USER_NOTE_PREFIX + "Pärmar"],
    }


def test_it_says_whether_the_item_is_booked(bookkeeper_client, company):
    booked = book(factories.make_item(company, channel_context=MOVED))
    open_item = factories.make_item(company, channel_context=MOVED)

    booked_data = bookkeeper_client.get(api_url(booked.pk)).json()
    open_data = bookkeeper_client.get(api_url(open_item.pk)).json()

    assert (booked_data["booked"], open_data["booked"]) == (True, False)
    assert "booked" in booked_data["states"]
    assert "needs_answer" not in booked_data["states"]
    assert "needs_answer" in open_data["states"]


def test_it_returns_the_document_id_and_file_name(bookkeeper_client, company):
    document = make_document(company, content=PNG, file_name="IMG_2041.png", mime_type="image/png")
    item = factories.make_item(company, document=document)
    bare = factories.make_item(company)

    data = bookkeeper_client.get(api_url(item.pk)).json()

    assert data["document_id"] == str(document.pk)
    assert data["document"] == {
        "id": str(document.pk),
        "file_name": "IMG_2041.png",
        "mime_type": "image/png",
        "size_bytes": len(PNG),
    }
    assert bookkeeper_client.get(api_url(bare.pk)).json()["document"] is None


def test_a_malformed_record_returns_its_problems(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": 12345})

    response = bookkeeper_client.get(api_url(item.pk))

    assert response.status_code == 200
    assert any(problem.startswith("user_note") for problem in response.json()["problems"])


@pytest.mark.parametrize("client_fixture", ["support_client", "qa_client"])
def test_support_and_qa_get_the_raw_channel_context(request, client_fixture, company):
    item = factories.make_item(company, channel_context=MOVED)

    data = request.getfixturevalue(client_fixture).get(api_url(item.pk)).json()

    assert data["channel_context"] == MOVED


def test_bookkeepers_do_not_get_the_raw_channel_context(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=MOVED)

    data = bookkeeper_client.get(api_url(item.pk)).json()

    assert "channel_context" not in data
    # What the human said is still there, read for the page.
    assert data["human"]["participants"] == [{"name": "Elias", "company": None}]


def test_it_returns_the_header_fields(bookkeeper_client, company):
    item = factories.make_item(
        company,
        extracted_data={
            "supplier": {"name": "Pelikan"},
            "invoice": {"invoiceDate": "2026-07-30", "currency": "SEK"},
            "totals": {"total": 812, "vatAmount": 87},
        },
    )

    data = bookkeeper_client.get(api_url(item.pk)).json()

    assert data["id"] == str(item.pk)
    assert data["company"] == {"id": str(company.pk), "name": company.name}
    header = (data["supplier"], data["total"], data["vat_amount"], data["invoice_date"])
    assert header == ("Pelikan", 812, 87, "2026-07-30")


def test_a_token_works_without_a_session(company, bookkeeper):
    item = factories.make_item(company)
    token = create_token(bookkeeper)

    response = Client().get(api_url(item.pk), headers={"Authorization": f"Bearer {token}"})

    assert response.status_code == 200
    assert response.json()["id"] == str(item.pk)


def test_anonymous_requests_get_a_json_401(client, company):
    item = factories.make_item(company)

    response = client.get(api_url(item.pk))

    assert response.status_code == 401
    assert "error" in response.json()


def test_a_user_without_a_role_gets_a_json_403(client, company):
    item = factories.make_item(company)
    client.force_login(factories.make_user())

    response = client.get(api_url(item.pk))

    assert response.status_code == 403
    assert "error" in response.json()


def test_a_missing_item_is_a_json_404(bookkeeper_client):
    response = bookkeeper_client.get(api_url(uuid.uuid4()))

    assert response.status_code == 404
    assert response.json() == {"error": "no such item"}


def test_it_refuses_post_with_a_json_405(bookkeeper_client, company):
    item = factories.make_item(company)

    response = bookkeeper_client.post(api_url(item.pk))

    assert response.status_code == 405
    assert response["Allow"] == "GET"


def test_the_api_needs_the_same_queries_however_long_the_history(bookkeeper_client, bookkeeper, company):
    quiet = factories.make_item(company)
    busy = factories.make_item(company)
    for n in range(20):
        app_event(busy, ClarificationEvent.ANSWERED, f"2026-08-{1 + n:02d}T09:00:00Z", actor=bookkeeper)
        accounted_event(busy, ClarificationEvent.ASKED, f"2026-07-{1 + n:02d}T09:00:00Z")
    bookkeeper_client.get(api_url(quiet.pk))

    counts = []
    for item in (quiet, busy):
        with (
            CaptureQueriesContext(connections["default"]) as ours,
            CaptureQueriesContext(connections["bookkeeping"]) as theirs,
        ):
            bookkeeper_client.get(api_url(item.pk))
        counts.append(len(ours) + len(theirs))

    assert counts[0] == counts[1]
