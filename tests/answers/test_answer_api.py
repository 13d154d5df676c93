"""POST /api/items/<id>/answer: the same write as the page, for scripts."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from django.urls import reverse

from clarifications import phrases
from reviewapp.answers.channel_context import answer_value, answer_version
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.answers.conftest import (
    ASKED_AT,
    FOREIGN_KEYS,
    book,
    entered_by_firm,
    history,
    make_conversation,
    moved_item,
)

pytestmark = pytest.mark.django_db


def url(item: InboxItem) -> str:
    return reverse("api_item_answer", args=[item.pk])


def post(client: Client, item: InboxItem, body: Any, **headers: Any) -> Any:
    return client.post(url(item), json.dumps(body), content_type="application/json", **headers)


def stored(item: InboxItem) -> dict[str, Any]:
    item.refresh_from_db()
    assert isinstance(item.channel_context, dict)
    return item.channel_context


@pytest.fixture
def token(bookkeeper) -> str:  # type: ignore[no-untyped-def]
    return create_token(bookkeeper)


def bearer(raw: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


# --- Each body -------------------------------------------------------------------------


def test_a_representation_answer_returns_the_new_summary_and_lines(bookkeeper_client):
    item = moved_item("representation")
    body = {
        "question": "representation",
        "participants": [{"name": "Anna Berg", "company": "Volvo"}, {"name": "Jakob W"}],
        "purpose": "Avtalsförhandling",
        "event_date": "2026-07-29",
    }
    response = post(bookkeeper_client, item, body)
    assert response.status_code == 200
    data = response.json()
    assert data["summary"]["representation"] == {
        "participants": [{"name": "Anna Berg", "company": "Volvo"}, {"name": "Jakob W", "company": None}],
        "purpose": "Avtalsförhandling",
    }
    assert data["summary"]["openQuestion"] is None
    assert data["summary"]["eventDate"] == "2026-07-29"
    assert phrases.PARTICIPANTS_PREFIX + "Anna Berg (Volvo), Jakob W" in data["lines"]
    assert data["answered_by"]["actor"] == "bea"
    assert data["answered_by"]["channel"] == "App"
    ctx = stored(item)
    assert ctx["representation"]["participants"][1] == {"name": "Jakob W", "company": None}
    assert ctx["pending_question"] == {"type": "representation", "asked_at": ASKED_AT, "status": "answered"}
    for key, value in FOREIGN_KEYS.items():
        assert ctx[key] == value
    assert ClarificationEvent.objects.get(item_id=item.pk).channel == "app"


def test_a_denial_through_the_api(bookkeeper_client):
    item = moved_item("representation")
    response = post(bookkeeper_client, item, {"question": "representation", "denied": True})
    assert response.status_code == 200
    assert response.json()["summary"]["representationDenied"] is True
    rep = stored(item)["representation"]
    assert rep["denied"] is True
    assert rep["participants"] == []
    assert rep["purpose"] is None
    assert rep["raw_answer"] == entered_by_firm(rep["answered_at"], "Inte representation")


def test_a_context_answer_through_the_api(bookkeeper_client):
    item = moved_item("context")
    response = post(bookkeeper_client, item, {"question": "context", "text": "Taxi till kund"})
    assert response.status_code == 200
    assert response.json()["summary"]["userNote"] == "Taxi till kund"
    assert "context_answer" not in stored(item)


def test_declaring_readable_through_the_api(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    response = post(bookkeeper_client, item, {"question": "resend", "readable": True})
    assert response.status_code == 200
    ctx = stored(item)
    assert ctx["pending_question"]["status"] == "answered"
    assert ctx["quality"] == {"resend_requested_at": ASKED_AT}
    assert response.json()["new_item_id"] is None


def test_naming_the_replacing_item_through_the_api(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer = factories.make_item(company=item.company, extracted_data=item.extracted_data)
    InboxItem.objects.filter(pk=newer.pk).update(created_at=item.created_at + dt.timedelta(minutes=1))
    response = post(bookkeeper_client, item, {"question": "resend", "replaced_by": str(newer.pk)})
    assert response.status_code == 200
    assert stored(item)["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    assert response.json()["replaced_by_item"] == str(newer.pk)


def test_the_customers_own_words_and_their_source_through_the_api(bookkeeper_client):
    item = moved_item("context")
    body = {
        "question": "context",
        "text": "Taxi till kund",
        "raw_answer": "taxin till volvo igår",
        "raw_answer_via": "email",
    }
    assert post(bookkeeper_client, item, body).status_code == 200
    ctx = stored(item)
    assert ctx["user_note"] == "Taxi till kund"
    assert ctx["context_answer"]["raw_answer"] == "taxin till volvo igår"
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["raw_answer_via"] == "email"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"question": "context", "text": "Taxi", "raw_answer": "taxin"},
            "Say where the customer's words came from: phone, e-mail or a message.",
        ),
        (
            {"question": "representation", "denied": True, "raw_answer": "Nej", "raw_answer_via": None},
            "Say where the customer's words came from: phone, e-mail or a message.",
        ),
        (
            {"question": "context", "text": "Taxi", "raw_answer_via": "phone"},
            "A source belongs to the customer's words: write them, or leave the source empty.",
        ),
        (
            {"question": "context", "text": "Taxi", "raw_answer": "taxin", "raw_answer_via": "sms"},
            "Unknown source; use one of: phone, email, message.",
        ),
    ],
)
def test_the_source_of_the_customers_words_is_a_per_field_400(bookkeeper_client, body, message):
    item = moved_item(body["question"])
    before = stored(item)
    response = post(bookkeeper_client, item, body)
    assert response.status_code == 400
    assert response.json()["errors"] == {"raw_answer_via": [message]}
    assert stored(item) == before
    assert not ClarificationEvent.objects.exists()


def test_an_api_amendment_appends_to_the_raw_answer(bookkeeper_client):
    item = moved_item("representation")
    first = {"question": "representation", "participants": [{"name": "Ana Berg"}], "purpose": "Avtal"}
    version = post(bookkeeper_client, item, first).json()["answer_version"]
    earlier = stored(item)["representation"]["raw_answer"]
    fixed = {
        **first,
        "participants": [{"name": "Anna Berg"}],
        "raw_answer": "Hon heter Anna, inte Ana",
        "raw_answer_via": "phone",
        "amend": True,
        "answer_version": version,
    }
    assert post(bookkeeper_client, item, fixed).status_code == 200
    assert stored(item)["representation"]["raw_answer"] == earlier + "\nHon heter Anna, inte Ana"


def test_the_answer_writes_the_conversation_and_the_audit_log(bookkeeper_client, bookkeeper):
    item = moved_item("context")
    conv = make_conversation(item)
    response = post(bookkeeper_client, item, {"question": "context", "text": "Taxi"})
    assert response.status_code == 200
    rows = history(item)
    assert [row.actor for row in rows] == [{"type": "system", "id": "review-app"}]
    assert response.json()["history_event_id"] == str(rows[0].pk)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT context->'recent_questions'->0->>'status' FROM whatsapp_conversations WHERE id = %s", [conv]
        )
        assert cursor.fetchone()[0] == "answered"


# --- 400 with per-field errors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": "representation", "participants": [{"name": "Anna"}]}, "purpose"),
        ({"question": "representation", "purpose": "Möte"}, "participants"),
        ({"question": "representation", "participants": [{"name": "  "}], "purpose": "M"}, "participants.0.name"),
        (
            {"question": "representation", "participants": [{"name": "A", "company": 5}], "purpose": "M"},
            "participants.0.company",
        ),
        (
            {"question": "representation", "participants": [{"name": "A", "age": 5}], "purpose": "M"},
            "participants.0.age",
        ),
        ({"question": "representation", "participants": "Anna", "purpose": "M"}, "participants"),
        ({"question": "representation", "participants": [{"name": "A"}] * 21, "purpose": "M"}, "participants"),
        (
            {"question": "representation", "participants": [{"name": "A"}], "purpose": "M", "event_date": "2026-02-30"},
            "event_date",
        ),
        ({"question": "representation", "denied": "yes"}, "denied"),
        ({"question": "representation", "denied": True, "participants": [{"name": "A"}]}, "participants"),
        ({"question": "context", "text": "a\u0000b"}, "text"),
        ({"question": "context", "text": "\ud800"}, "text"),
        ({"question": "context", "text": 12}, "text"),
        ({"question": "context"}, "text"),
        ({"question": "context", "text": "ok", "user_note": "sneaky"}, "user_note"),
        ({"question": "resend", "readable": False}, "readable"),
        ({"question": "resend"}, "readable"),
        ({"question": "resend", "replaced_by": "nej"}, "replaced_by"),
        ({"question": "resend", "readable": True, "raw_answer": "x"}, "raw_answer"),
        ({"question": "context", "text": "ok", "raw_answer": "a\u0000b", "raw_answer_via": "phone"}, "raw_answer"),
        ({"question": "context", "text": "ok", "raw_answer": "ja", "raw_answer_via": 1}, "raw_answer_via"),
        ({"question": "resend", "readable": True, "raw_answer_via": "phone"}, "raw_answer_via"),
        ({"question": "context", "text": "ok", "amend": True}, "answer_version"),
        ({"question": "context", "text": "ok", "amend": "yes", "answer_version": "0" * 32}, "amend"),
        ({"question": "nonsense"}, "question"),
        ({}, "question"),
    ],
)
def test_invalid_answers_get_per_field_errors_and_write_nothing(bookkeeper_client, body, field):
    question = body.get("question") if body.get("question") in ("representation", "context", "resend") else "context"
    item = moved_item(question)
    before = stored(item)
    response = post(bookkeeper_client, item, body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors[field]
    assert all(isinstance(message, str) and message for message in errors[field])
    assert stored(item) == before
    assert not ClarificationEvent.objects.exists()


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"not json", "application/json"),
        (b'{"question": "context", "text": "a"', "application/json"),
        (b"\xff\xfe", "application/json"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json"),
        (b"question=context&text=a", "application/x-www-form-urlencoded"),
        (b'{"question": "context", "text": "a"}', "text/plain"),
    ],
)
def test_a_body_that_is_not_json_is_a_400_with_a_message(bookkeeper_client, raw, content_type):
    item = moved_item("context")
    response = bookkeeper_client.post(url(item), raw, content_type=content_type)
    assert response.status_code == 400
    assert response.json()["error"]
    assert "user_note" not in stored(item)


def test_a_json_array_body_is_a_400(bookkeeper_client):
    item = moved_item("context")
    response = post(bookkeeper_client, item, [{"question": "context", "text": "a"}])
    assert response.status_code == 400
    assert "question" in response.json()["errors"]


def test_an_oversized_body_is_a_413(bookkeeper_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    item = moved_item("context")
    response = post(bookkeeper_client, item, {"question": "context", "text": "x" * 2000})
    assert response.status_code == 413
    assert response.json()["error"]
    assert "user_note" not in stored(item)


# --- 409 ---------------------------------------------------------------------------------------


def test_an_answered_question_is_a_409_with_the_current_state(bookkeeper_client):
    item = moved_item("context")
    assert post(bookkeeper_client, item, {"question": "context", "text": "Först"}).status_code == 200
    response = post(bookkeeper_client, item, {"question": "context", "text": "Sen"})
    assert response.status_code == 409
    data = response.json()
    assert data["reason"] == "not_open"
    assert data["current"]["summary"]["userNote"] == "Först"
    assert data["current"]["pending_question"]["status"] == "answered"
    assert data["current"]["answered_by"]["actor"] == "bea"
    assert stored(item)["user_note"] == "Först"
    assert ClarificationEvent.objects.filter(item_id=item.pk).count() == 1


def test_answering_a_question_still_open_in_the_chat_is_a_409(bookkeeper_client):
    item = moved_item("context", status="open")
    response = post(bookkeeper_client, item, {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert response.json()["reason"] == "in_chat"
    assert stored(item)["pending_question"]["status"] == "open"


def test_answering_another_question_than_the_open_one_is_a_409(bookkeeper_client):
    item = moved_item("representation")
    response = post(bookkeeper_client, item, {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    assert response.json()["reason"] == "other_question"
    assert "user_note" not in stored(item)


def test_an_item_without_a_question_is_a_409(bookkeeper_client):
    item = factories.make_item()
    response = post(bookkeeper_client, item, {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    item.refresh_from_db()
    assert item.channel_context == {"channel": "whatsapp"}


def test_a_booked_item_is_a_409_booked_and_nothing_is_written(bookkeeper_client):
    item = moved_item("context")
    book(item)
    response = post(bookkeeper_client, item, {"question": "context", "text": "Lunch"})
    assert response.status_code == 409
    data = response.json()
    assert data["reason"] == "booked"
    assert "booked" in data["current"]["states"]
    assert "needs_answer" not in data["current"]["states"]
    assert "user_note" not in stored(item)
    assert history(item) == []
    assert not ClarificationEvent.objects.exists()


def test_an_app_answer_is_amended_with_its_version(bookkeeper_client):
    item = moved_item("representation")
    first = {"question": "representation", "participants": [{"name": "Ana Berg"}], "purpose": "Avtal"}
    version = post(bookkeeper_client, item, first).json()["answer_version"]
    assert version
    fixed = {**first, "participants": [{"name": "Anna Berg"}], "amend": True, "answer_version": version}
    response = post(bookkeeper_client, item, fixed)
    assert response.status_code == 200
    assert stored(item)["representation"]["participants"] == [{"name": "Anna Berg", "company": None}]
    assert response.json()["answer_version"] != version
    assert [row.payload.get("amended") for row in history(item)] == [None, True]
    again = post(bookkeeper_client, item, {**fixed, "participants": [{"name": "Anna B"}]})
    assert again.status_code == 409
    assert again.json()["reason"] == "changed"


def test_a_chat_answer_has_no_version_and_cannot_be_amended(bookkeeper_client):
    chat = {"raw_answer": "Lunch", "answered_at": "2026-08-01T10:00:00.000Z"}
    item = moved_item("context", status="answered", user_note="Lunch", context_answer=chat)
    current = post(bookkeeper_client, item, {"question": "context", "text": "x"}).json()["current"]
    assert current["answer_version"] is None

    version = answer_version(answer_value(stored(item), "context"))
    response = post(
        bookkeeper_client, item, {"question": "context", "text": "Annat", "amend": True, "answer_version": version}
    )
    assert response.status_code == 409
    assert response.json()["reason"] == "answered_in_chat"
    assert stored(item)["user_note"] == "Lunch"


def test_an_unknown_item_is_a_404(bookkeeper_client):
    response = bookkeeper_client.post(
        reverse("api_item_answer", args=["00000000-0000-0000-0000-000000000000"]),
        json.dumps({"question": "context", "text": "a"}),
        content_type="application/json",
    )
    assert response.status_code == 404


# --- Who may, and how ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", [roles.SUPPORT, roles.QA])
def test_support_and_qa_get_403_with_a_token(role):
    item = moved_item("context")
    raw = create_token(factories.make_user(role))
    response = post(Client(), item, {"question": "context", "text": "a"}, **bearer(raw))
    assert response.status_code == 403
    assert "user_note" not in stored(item)


@pytest.mark.parametrize("role_client", ["support_client", "qa_client"])
def test_support_and_qa_get_403_with_a_session(request, role_client):
    item = moved_item("context")
    response = post(request.getfixturevalue(role_client), item, {"question": "context", "text": "a"})
    assert response.status_code == 403
    assert "user_note" not in stored(item)


def test_a_bookkeeper_token_answers_without_csrf(token):
    item = moved_item("context")
    client = Client(enforce_csrf_checks=True)
    response = post(client, item, {"question": "context", "text": "Via skript"}, **bearer(token))
    assert response.status_code == 200
    assert stored(item)["user_note"] == "Via skript"
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.actor_label == "bea"


def test_a_session_post_without_the_csrf_token_is_refused(bookkeeper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    item = moved_item("context")
    response = post(client, item, {"question": "context", "text": "a"})
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]
    assert "user_note" not in stored(item)


def test_a_session_post_with_the_csrf_header_is_accepted(bookkeeper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    item = moved_item("context")
    client.get(reverse("item_detail", args=[item.pk]))
    response = post(
        client, item, {"question": "context", "text": "a"}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value
    )
    assert response.status_code == 200


def test_anonymous_calls_get_a_json_401():
    item = moved_item("context")
    response = post(Client(), item, {"question": "context", "text": "a"})
    assert response.status_code == 401
    assert "user_note" not in stored(item)


def test_get_is_a_405(bookkeeper_client):
    item = moved_item("context")
    assert bookkeeper_client.get(url(item)).status_code == 405


# --- A sharper file, as multipart/form-data ----------------------------------------------------


def _png() -> bytes:
    from tests.answers.conftest import png_bytes

    return png_bytes()


def upload(client: Client, item: InboxItem, name: str, content: bytes, **headers: Any) -> Any:
    return client.post(url(item), {"question": "resend", "file": SimpleUploadedFile(name, content)}, **headers)


def test_a_sharper_file_uploaded_through_the_api_is_staged_like_the_pages(bookkeeper_client, token):
    item = moved_item("resend")
    response = upload(Client(), item, "skarp.png", _png(), **bearer(token))
    assert response.status_code == 200
    new = InboxItem.objects.get(pk=response.json()["new_item_id"])
    # Written as accounted writes an upload it does not extract: received, its fields empty, marked skipped.
    assert (new.status, new.extraction_skipped, new.source) == ("received", True, "upload")
    assert new.extracted_data["supplier"]["name"] is None
    assert stored(item)["pending_question"]["status"] == "answered"


def test_a_file_the_company_already_has_is_a_400_naming_the_item_that_holds_it(bookkeeper_client):
    first = moved_item("resend")
    second = moved_item("resend", company=first.company)
    made = upload(bookkeeper_client, first, "a.png", _png()).json()["new_item_id"]

    response = upload(bookkeeper_client, second, "b.png", _png())

    assert response.status_code == 400
    body = response.json()
    assert made in body["errors"]["file"][0]
    assert body["existing_item_id"] == made
    assert stored(second)["pending_question"]["status"] == "moved_to_app"
    assert InboxItem.objects.filter(company_id=first.company_id).count() == 3


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"question": "context"},
            "question",
            "Only a resend question is answered with a file; send other answers as JSON.",
        ),
        ({"note": "x"}, "note", "Unknown field for this question."),
        ({}, None, "Send exactly one file, in the field named file."),
    ],
)
def test_a_multipart_body_other_than_one_file_for_a_resend_is_a_400(bookkeeper_client, fields, field, message):
    item = moved_item("resend")
    data = {"question": "resend", **fields}
    if field is not None:
        data["file"] = SimpleUploadedFile("a.png", _png())
    response = bookkeeper_client.post(url(item), data)
    assert response.status_code == 400
    assert response.json()["errors"][field or "file"] == [message]
    assert stored(item)["pending_question"]["status"] == "moved_to_app"
