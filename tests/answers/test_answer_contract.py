"""Each answer kind, written on the replica, compared field by field with the contract.

The contract (``../shared/bookkeeping/README.md``): steps 3 to 7 for
``channel_context``, the conversation's ``recent_questions`` /
``question_queue`` / ``pending_question``, and the ``ChannelQuestionAnswered``
row of ``processing_history``. Expected values are written out here from the
contract, never read back from the code.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import uuid
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from PIL import Image

import clarifications
from reviewapp.answers.channel_context import answer_value, answer_version
from reviewapp.answers.inputs import Answer, ContextAnswer, ParticipantInput, RepresentationAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid
from reviewapp.answers.writing import AnswerConflict, AnswerResult, answer_question
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.items.links import item_links
from reviewapp.models import AccountLink, ClarificationEvent, IndexedItem
from tests import factories
from tests.answers.conftest import (
    ASKED_AT,
    FOREIGN_KEYS,
    book,
    conversation,
    firm_wide_bookkeeper,
    history,
    make_conversation,
    moved_item,
    stored_context,
)

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 8, 12, 9, 31, 7, 123456, tzinfo=dt.UTC)
STAMP = "2026-08-12T09:31:07.123Z"  # new Date(NOW).toISOString()
NOW_MS = dt.datetime(2026, 8, 12, 9, 31, 7, 123000, tzinfo=dt.UTC)
# raw_answer without the customer's words (README, "raw_answer is evidence"): NOW in Stockholm summer time.
ENTERED = "Inmatat av byrån i granskningsappen 2026-08-12 11:31 CEST: "


def agent_lines(ctx: object) -> list[str]:
    """The lines accounted's agent reads for ``ctx``, by the project's byte-exact port of the seed's renderer."""
    summary = clarifications.analyse(ctx).summary
    return list(clarifications.render_lines(summary)) if summary is not None else []


def answer(item: InboxItem, user: Any, value: Answer) -> AnswerResult:
    return answer_question(item_id=item.pk, user=user, answer=value, now=NOW)


def with_other_keys(ctx: dict[str, Any]) -> dict[str, Any]:
    """The context the intake left, plus what an answer must leave exactly as it was."""
    return {"channel": "whatsapp", **FOREIGN_KEYS, **ctx}


def assert_history_row(item: InboxItem, user: Any, question: str, *, amended: bool = False) -> None:
    rows = history(item)
    assert len(rows) == 1
    row = rows[0]
    payload: dict[str, Any] = {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": question}
    if amended:
        payload["amended"] = True
    assert row.company_id == item.company_id
    assert row.correlation_id == item.correlation_id
    assert row.causation_id is None
    assert row.aggregate_type == "System"
    assert row.aggregate_id == item.pk
    assert row.event_type == "ChannelQuestionAnswered"
    assert row.payload == payload
    assert row.payload_schema_version == 1
    # Nobody in the tests above is linked to an accounted user: the app is the actor, never a name.
    assert row.actor == {"type": "system", "id": "review-app"}
    assert row.occurred_at == NOW_MS


def received_later(newer: InboxItem, than: InboxItem) -> None:
    """``newer`` arrived a minute after ``than`` (in one test transaction both got the same now())."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET created_at = %s WHERE id = %s",
            [than.created_at + dt.timedelta(minutes=1), newer.pk],
        )
    newer.refresh_from_db()


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (6, 6), "white").save(buffer, format="PNG")
    return buffer.getvalue()


# --- Step 3: representation -----------------------------------------------------------


# accounted's emptyResult() (extensions/general/invoice-inbox/lib/extract-invoice-fields.ts), typed
# in from accounted's source: what an item nobody read holds in extracted_data.
ACCOUNTED_EMPTY_RESULT = {
    "documentKind": None,
    "merchantCategory": None,
    "legibility": None,
    "purchaseTime": None,
    "payment": None,
    "supplier": {
        "name": None,
        "orgNumber": None,
        "vatNumber": None,
        "address": None,
        "bankgiro": None,
        "plusgiro": None,
        "iban": None,
        "bic": None,
    },
    "invoice": {
        "invoiceNumber": None,
        "invoiceDate": None,
        "dueDate": None,
        "paymentReference": None,
        "currency": "SEK",
        "servicePeriodStart": None,
        "servicePeriodEnd": None,
    },
    "lineItems": [],
    "totals": {"subtotal": None, "vatAmount": None, "total": None, "roundingAmount": None},
    "vatBreakdown": [],
    "prominentAmounts": [],
    "confidence": 0,
}


def test_a_representation_answer_is_step_3_with_the_conversation_and_the_history(bookkeeper):
    item = moved_item("representation")
    other = factories.make_item(company=item.company)
    conv = make_conversation(
        item,
        context={
            "pin_expires_at": "2026-08-12T17:31:07.123Z",
            "recent_questions": [
                {
                    "type": "representation",
                    "inbox_item_id": str(item.pk),
                    "asked_at": ASKED_AT,
                    "status": "moved_to_app",
                },
                {"type": "context", "inbox_item_id": str(other.pk), "asked_at": ASKED_AT, "status": "open"},
            ],
            "pending_question": {"type": "context", "inbox_item_id": str(other.pk), "asked_at": ASKED_AT},
            "question_queue": [
                {"type": "representation", "inbox_item_id": str(item.pk)},
                {"type": "resend", "inbox_item_id": str(other.pk)},
            ],
            "budget": {"day_key": "2026-08-12", "count": 2},
        },
        state="awaiting_context",
    )
    result = answer(
        item,
        bookkeeper,
        RepresentationAnswer(
            participants=(ParticipantInput("Anna Berg", "Kund AB"), ParticipantInput("Jakob W")),
            purpose="Projektmöte",
            event_date="2026-08-11",
        ),
    )

    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "representation", "asked_at": ASKED_AT, "status": "answered"},
            "representation": {
                "participants": [{"name": "Anna Berg", "company": "Kund AB"}, {"name": "Jakob W", "company": None}],
                "purpose": "Projektmöte",
                "event_date": "2026-08-11",
                "raw_answer": ENTERED
                + "Deltagare: Anna Berg (Kund AB), Jakob W; syfte: Projektmöte; datum: 2026-08-11",
                "answered_at": STAMP,
            },
        }
    )
    context, state, _ = conversation(conv)
    assert context == {
        "pin_expires_at": "2026-08-12T17:31:07.123Z",
        "recent_questions": [
            {"type": "representation", "inbox_item_id": str(item.pk), "asked_at": ASKED_AT, "status": "answered"},
            {"type": "context", "inbox_item_id": str(other.pk), "asked_at": ASKED_AT, "status": "open"},
        ],
        "pending_question": {"type": "context", "inbox_item_id": str(other.pk), "asked_at": ASKED_AT},
        # accounted's answer worker leaves the queue alone (process-inbound.ts, 66851ff).
        "question_queue": [
            {"type": "representation", "inbox_item_id": str(item.pk)},
            {"type": "resend", "inbox_item_id": str(other.pk)},
        ],
        "budget": {"day_key": "2026-08-12", "count": 2},
    }
    assert state == "awaiting_context"  # still waiting for the other item's answer
    assert_history_row(item, bookkeeper, "representation")

    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.channel == "app"
    assert event.actor == bookkeeper
    assert event.occurred_at == NOW_MS
    assert event.payload["after"] == stored_context(item)
    assert event.payload["raw_answer_source"] == "rendered"
    assert event.payload["raw_answer_via"] is None
    assert event.payload["raw_answer_added"] == stored_context(item)["representation"]["raw_answer"]
    assert event.payload["history_event_id"] == str(history(item)[0].pk)
    assert event.payload["conversations"] == [{"id": str(conv), "marked_answered": 1}]
    assert result.item.pk == item.pk
    # The list knows at once.
    indexed = IndexedItem.objects.get(pk=item.pk)
    assert indexed.state_answered
    assert not indexed.state_needs_answer


def test_the_customers_own_words_are_stored_verbatim_as_the_raw_answer(bookkeeper):
    item = moved_item("representation")
    answer(
        item,
        bookkeeper,
        RepresentationAnswer(
            participants=(ParticipantInput("Anna Berg"),),
            purpose="Kundmöte",
            raw_answer="Det var jag och Anna Berg,\nvi pratade om avtalet",
            raw_answer_via="phone",
        ),
    )
    ctx = stored_context(item)
    assert ctx["representation"]["raw_answer"] == "Det var jag och Anna Berg,\nvi pratade om avtalet"
    # Where the words came from is the app's to keep: accounted's row has no trace of it.
    assert "phone" not in json.dumps(ctx)
    payload = ClarificationEvent.objects.get(item_id=item.pk).payload
    assert payload["raw_answer_source"] == "customer"
    assert payload["raw_answer_via"] == "phone"
    assert payload["answer"]["customer_words_via"] == "phone"
    assert payload["raw_answer_added"] == "Det var jag och Anna Berg,\nvi pratade om avtalet"


@pytest.mark.parametrize("via", ["phone", "email", "message"])
def test_the_source_of_a_context_answers_words_is_kept_in_the_apps_log_only(bookkeeper, via):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi", raw_answer="taxin till Volvo", raw_answer_via=via))
    ctx = stored_context(item)
    assert ctx["context_answer"] == {"raw_answer": "taxin till Volvo", "answered_at": STAMP}
    assert via not in json.dumps(ctx)
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["raw_answer_via"] == via


def test_the_firms_text_never_names_the_bookkeeper():
    user = firm_wide_bookkeeper("anna.larsson", first_name="Anna", last_name="Larsson", email="anna@byran.se")
    item = moved_item("representation")
    answer(item, user, RepresentationAnswer(denied=True))
    # Exactly the firm, the app and the time: accounted's documentation trail, which the customer's company reads.
    assert stored_context(item)["representation"]["raw_answer"] == ENTERED + "Inte representation"


def test_words_without_a_source_are_refused_and_nothing_is_written(bookkeeper):
    item = moved_item("representation")
    before = stored_context(item)
    with pytest.raises(AnswerInvalid) as caught:
        answer(item, bookkeeper, RepresentationAnswer(denied=True, raw_answer="Nej, privat"))
    assert list(caught.value.errors) == ["raw_answer_via"]
    assert stored_context(item) == before
    assert history(item) == []
    assert not ClarificationEvent.objects.exists()


def test_an_item_without_a_conversation_is_answered_all_the_same(bookkeeper):
    item = moved_item("context")
    result = answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    assert result.conversations == []
    assert stored_context(item)["user_note"] == "Taxi"
    assert_history_row(item, bookkeeper, "context")


# --- Step 5: the denial ------------------------------------------------------------------


def test_a_denial_is_step_5(bookkeeper):
    item = moved_item("representation")
    conv = make_conversation(item)
    answer(item, bookkeeper, RepresentationAnswer(denied=True))
    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "representation", "asked_at": ASKED_AT, "status": "answered"},
            "representation": {
                "participants": [],
                "purpose": None,
                "event_date": None,
                "raw_answer": ENTERED + "Inte representation",
                "answered_at": STAMP,
                "denied": True,
            },
        }
    )
    assert conversation(conv)[0]["recent_questions"][0]["status"] == "answered"
    assert_history_row(item, bookkeeper, "representation")


# --- Step 6: context -----------------------------------------------------------------------


def test_a_context_answer_is_step_6(bookkeeper):
    item = moved_item("context")
    conv = make_conversation(item)
    answer(
        item, bookkeeper, ContextAnswer(text="Taxi till kundmöte", raw_answer="taxi till volvo", raw_answer_via="email")
    )
    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
            "user_note": "Taxi till kundmöte",
            "context_answer": {"raw_answer": "taxi till volvo", "answered_at": STAMP},
        }
    )
    assert conversation(conv)[0]["recent_questions"][0]["status"] == "answered"
    assert_history_row(item, bookkeeper, "context")


def test_without_the_customers_words_a_context_answer_is_the_note_alone(bookkeeper):
    # The agent reads context_answer.raw_answer as "användarens egna ord": the firm's text never goes there.
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Kontorsmaterial"))
    ctx = stored_context(item)
    assert "context_answer" not in ctx
    assert ctx["user_note"] == "Kontorsmaterial"
    assert agent_lines(ctx) == ["anteckning från användaren: Kontorsmaterial"]


def test_the_customers_words_given_by_phone_are_the_agents_own_words_line_verbatim(bookkeeper):
    item = moved_item("context")
    words = ContextAnswer(text="Taxi till kund", raw_answer="taxin till Volvo", raw_answer_via="phone")
    answer(item, bookkeeper, words)
    ctx = stored_context(item)
    assert ctx["context_answer"] == {"raw_answer": "taxin till Volvo", "answered_at": STAMP}
    assert agent_lines(ctx) == [
        "anteckning från användaren: Taxi till kund",
        "användarens egna ord: taxin till Volvo",
    ]


def test_a_context_answer_keeps_the_customers_words_the_chat_stored(bookkeeper):
    item = moved_item("context")
    ctx = stored_context(item)
    ctx["context_answer"] = {"raw_answer": "lunch med kund", "answered_at": "2026-08-01T10:00:00.000Z"}
    InboxItem.objects.filter(pk=item.pk).update(channel_context=ctx)
    answer(item, bookkeeper, ContextAnswer(text="Lunch med kund (Volvo)"))
    assert stored_context(item)["context_answer"] == {
        "raw_answer": "lunch med kund",
        "answered_at": "2026-08-01T10:00:00.000Z",
    }


# --- Step 7: resend ---------------------------------------------------------------------------


def test_readable_after_all_answers_the_question_and_supersedes_nothing(bookkeeper):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT, "blur_score": 0.7})
    conv = make_conversation(item)
    result = answer(item, bookkeeper, ResendAnswer(readable=True))
    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "resend", "asked_at": ASKED_AT, "status": "answered"},
            "quality": {"resend_requested_at": ASKED_AT, "blur_score": 0.7},
        }
    )
    assert result.new_item is None
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert conversation(conv)[0]["recent_questions"][0]["status"] == "answered"
    assert_history_row(item, bookkeeper, "resend")
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["resend"] == {
        "choice": "readable",
        "new_item_id": None,
        "document_id": None,
    }


def test_replaced_by_a_newer_item_supersedes_the_old_one(bookkeeper):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer = factories.make_item(
        company=item.company,
        channel_context={"channel": "whatsapp", "caption": "ny bild"},
        extracted_data=item.extracted_data,  # the same receipt, sharper (else it asks to confirm)
    )
    received_later(newer, item)
    answer(item, bookkeeper, ResendAnswer(replaced_by=str(newer.pk)))
    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "resend", "asked_at": ASKED_AT, "status": "answered"},
            "quality": {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True},
        }
    )
    # The new photo is an ordinary item: nothing links it to the old one in accounted's data.
    assert stored_context(newer) == {"channel": "whatsapp", "caption": "ny bild"}
    assert_history_row(item, bookkeeper, "resend")
    replaced_by = item_links(item.pk).replaced_by
    assert replaced_by is not None
    assert replaced_by.item_id == newer.pk
    assert [link.item_id for link in item_links(newer.pk).replaces] == [item.pk]


@pytest.mark.parametrize("which", ["older", "other_company", "itself", "missing"])
def test_only_a_newer_item_of_the_same_company_can_replace(bookkeeper, which):
    item = moved_item("resend")
    if which == "older":
        candidate = factories.make_item(company=item.company)
        received_later(item, candidate)
        candidate_id = candidate.pk
    elif which == "other_company":
        candidate = factories.make_item()
        received_later(candidate, item)
        candidate_id = candidate.pk
    else:
        candidate_id = item.pk if which == "itself" else uuid.uuid4()
    before = stored_context(item)
    with pytest.raises(AnswerInvalid) as caught:
        answer(item, bookkeeper, ResendAnswer(replaced_by=str(candidate_id)))
    assert "replaced_by" in caught.value.errors
    assert stored_context(item) == before
    assert history(item) == []
    assert not ClarificationEvent.objects.exists()


def test_an_upload_is_a_document_a_new_item_and_the_old_one_superseded(bookkeeper, documents_bucket):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    content = png_bytes()
    upload = SimpleUploadedFile("Skarpare kvitto åäö.png", content, content_type="application/octet-stream")
    result = answer(item, bookkeeper, ResendAnswer(upload=upload))

    document = DocumentAttachment.objects.get()
    epoch_ms = int(NOW_MS.timestamp() * 1000)
    # accounted's sanitizeFileName("Skarpare kvitto åäö.png"), run in node: "Skarpare_kvitto.png".
    assert document.storage_path == f"documents/{item.company_id}/{item.user_id}/{epoch_ms}_Skarpare_kvitto.png"
    assert document.file_name == "Skarpare kvitto åäö.png"
    assert document.sha256_hash == hashlib.sha256(content).hexdigest()
    assert document.file_size_bytes == len(content)
    assert document.mime_type == "image/png"
    assert document.upload_source == "file_upload"
    assert document.uploaded_by is None  # the bookkeeper is linked to no accounted user
    assert document.is_current_version is True
    assert document.version == 1
    assert document.user_id == item.user_id
    assert document.company_id == item.company_id
    assert (documents_bucket / document.storage_path).read_bytes() == content

    new = InboxItem.objects.exclude(pk=item.pk).get()
    assert result.new_item is not None
    assert result.new_item.pk == new.pk
    # What accounted's upload writes when it does not extract (processArchivedDocumentInner's
    # synchronous skip path): nothing outside accounted's process can start its extraction.
    assert new.status == "received"
    assert new.extracted_data == ACCOUNTED_EMPTY_RESULT
    assert new.extraction_skipped is True
    assert new.source == "upload"
    assert new.user_id == item.user_id
    assert new.company_id == item.company_id
    assert new.document_id == document.pk
    assert new.correlation_id is not None
    assert new.correlation_id != item.correlation_id
    assert new.channel_context is None
    assert new.whatsapp_message_id is None

    ingested = ProcessingHistory.objects.get(event_type="DocumentIngested")
    assert ingested.company_id == item.company_id
    assert ingested.correlation_id == new.correlation_id
    assert ingested.causation_id is None
    assert ingested.aggregate_type == "Document"
    assert ingested.aggregate_id == document.pk
    assert ingested.payload == {
        "channel": "upload",
        "document_id": str(document.pk),
        "mime_type": "image/png",
        "size_bytes": len(content),
    }
    assert ingested.payload_schema_version == 1
    assert ingested.actor == {"type": "system", "id": "review-app"}
    assert ingested.occurred_at == NOW_MS

    # mirrorExtractionToDocument with skipped set: no data, when, and the reason.
    document.refresh_from_db()
    assert (document.extracted_data, document.extracted_at, document.extraction_model) == (
        None,
        NOW_MS,
        "skipped:client_opt_out",
    )
    attempted = ProcessingHistory.objects.get(event_type="DocumentExtractionAttempted")
    assert (attempted.company_id, attempted.correlation_id, attempted.causation_id) == (
        item.company_id,
        new.correlation_id,
        None,
    )
    assert (attempted.aggregate_type, attempted.aggregate_id) == ("Document", document.pk)
    assert attempted.payload == {
        "document_id": str(document.pk),
        "inbox_item_id": str(new.pk),
        "succeeded": False,
        "extracted_total": None,
        "has_org_number": False,
        "has_ocr": False,
        "skipped": True,
        "skip_reason": "client_opt_out",
        "page_count": None,
    }
    assert attempted.payload_schema_version == 1
    # The app's pseudonymous actor, never accounted's {"type": "system", "id": "invoice-inbox-extract"}.
    assert attempted.actor == {"type": "system", "id": "review-app"}
    assert attempted.occurred_at == NOW_MS

    assert stored_context(item) == with_other_keys(
        {
            "pending_question": {"type": "resend", "asked_at": ASKED_AT, "status": "answered"},
            "quality": {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True},
        }
    )
    assert_history_row(item, bookkeeper, "resend")
    log = ClarificationEvent.objects.get(item_id=item.pk)
    assert log.payload["resend"] == {
        "choice": "upload",
        "new_item_id": str(new.pk),
        "document_id": str(document.pk),
        "ingested_event_id": str(ingested.pk),
        "extraction_event_id": str(attempted.pk),
    }
    assert IndexedItem.objects.filter(pk=new.pk).exists()


def test_an_upload_by_a_linked_bookkeeper_names_their_accounted_user_and_nobody_else(bookkeeper, documents_bucket):
    own_user = factories.make_auth_user()
    AccountLink.objects.create(user=bookkeeper, accounted_user_id=own_user)
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    answer(item, bookkeeper, ResendAnswer(upload=SimpleUploadedFile("kvitto.png", png_bytes())))

    document = DocumentAttachment.objects.get()
    assert document.uploaded_by == own_user
    assert document.user_id == item.user_id
    assert ProcessingHistory.objects.get(event_type="DocumentIngested").actor == {"type": "user", "id": str(own_user)}
    attempted = ProcessingHistory.objects.get(event_type="DocumentExtractionAttempted")
    assert attempted.actor == {"type": "user", "id": str(own_user)}
    assert history(item)[0].actor == {"type": "user", "id": str(own_user)}


def test_the_document_keeps_the_original_name_without_control_characters(bookkeeper, documents_bucket):
    item = moved_item("resend")
    name = "Kvitto\x1b[31m\u202egnp.\x7fexe (2).png"
    answer(item, bookkeeper, ResendAnswer(upload=SimpleUploadedFile(name, png_bytes())))
    document = DocumentAttachment.objects.get()
    assert document.file_name == "Kvitto[31mgnp.exe (2).png"
    # accounted's sanitizeFileName of that name, run in node.
    assert document.storage_path.endswith("_Kvitto_31mgnp.exe_2.png")


def test_an_upload_rolled_back_leaves_no_file_no_document_and_no_item(bookkeeper, documents_bucket, monkeypatch):
    from reviewapp.answers import writing

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the audit log refused the row")

    item = moved_item("resend")
    monkeypatch.setattr(writing, "append_question_event", broken)
    with pytest.raises(RuntimeError):
        answer(item, bookkeeper, ResendAnswer(upload=SimpleUploadedFile("a.png", png_bytes())))
    assert not [path for path in documents_bucket.rglob("*") if path.is_file()]
    assert not DocumentAttachment.objects.exists()
    assert not ProcessingHistory.objects.exists()  # no DocumentIngested either
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"
    assert not ClarificationEvent.objects.exists()


# --- Booked items, the actor -----------------------------------------------------------------------


def test_a_booked_item_refuses_every_answer_and_writes_nothing(bookkeeper):
    item = moved_item("context")
    conv = make_conversation(item)
    book(item)
    before = stored_context(item)
    with pytest.raises(AnswerConflict) as caught:
        answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    assert caught.value.reason == "booked"
    assert stored_context(item) == before
    assert conversation(conv)[0]["recent_questions"][0]["status"] == "moved_to_app"
    assert history(item) == []
    assert not ClarificationEvent.objects.exists()


@pytest.mark.parametrize("linked", [False, True])
def test_the_actor_is_the_linked_accounted_user_or_the_app_and_never_a_name(linked):
    user = firm_wide_bookkeeper("anna198501011234", first_name="Anna", last_name="Berg", email="anna@byra.se")
    own_user = factories.make_auth_user()
    if linked:
        AccountLink.objects.create(user=user, accounted_user_id=own_user)
    item = moved_item("context")
    answer_question(item_id=item.pk, user=user, answer=ContextAnswer(text="Taxi"), now=NOW)
    row = history(item)[0]
    assert row.actor == ({"type": "user", "id": str(own_user)} if linked else {"type": "system", "id": "review-app"})
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT row_to_json(h)::text FROM public.processing_history h WHERE event_id = %s", [row.pk])
        whole_row = cursor.fetchone()[0]
    for personal in ("anna", "Anna", "Berg", "byra.se", "19850101", f"review-app:{user.pk}", "label"):
        assert personal not in whole_row
    # Who it was stays in the app's own log.
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert (event.actor_id, event.payload["history_event_id"]) == (user.pk, str(row.pk))


# --- Amendments ------------------------------------------------------------------------------------


def test_a_context_amendment_replaces_the_note_and_logs_amended(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi till kund"))
    version = answer_version(answer_value(stored_context(item), "context"))
    later = NOW + dt.timedelta(minutes=5)
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=ContextAnswer(text="Taxi till kundmöte hos Volvo", amend=True, expected_version=version),
        now=later,
    )
    ctx = stored_context(item)
    assert ctx["user_note"] == "Taxi till kundmöte hos Volvo"
    assert "context_answer" not in ctx
    # One current answer in front of the agent: the replaced one is only in the app's log.
    assert agent_lines(ctx) == ["anteckning från användaren: Taxi till kundmöte hos Volvo"]
    assert ctx["pending_question"] == {"type": "context", "asked_at": ASKED_AT, "status": "answered"}
    rows = history(item)
    assert [row.payload.get("amended") for row in rows] == [None, True]
    assert rows[1].payload == {
        "channel": "whatsapp",
        "inbox_item_id": str(item.pk),
        "question_type": "context",
        "amended": True,
    }
    events = list(ClarificationEvent.objects.filter(item_id=item.pk).order_by("occurred_at"))
    assert [e.payload["amended"] for e in events] == [False, True]
    assert events[1].payload["before"]["user_note"] == "Taxi till kund"
    assert events[1].payload["after"]["user_note"] == "Taxi till kundmöte hos Volvo"
    assert events[1].payload["after"] == ctx


def test_a_representation_amendment_keeps_the_first_text_and_adds_the_customers_words(bookkeeper):
    item = moved_item("representation")
    answer(item, bookkeeper, RepresentationAnswer(participants=(ParticipantInput("Anna Berg"),), purpose="Avtal"))
    first = stored_context(item)["representation"]["raw_answer"]
    assert first == ENTERED + "Deltagare: Anna Berg; syfte: Avtal"
    version = answer_version(answer_value(stored_context(item), "representation"))
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=RepresentationAnswer(
            participants=(ParticipantInput("Anna Berg"), ParticipantInput("Bo Ek")),
            purpose="Avtal",
            raw_answer="Rättelse: Bo Ek var också med",
            raw_answer_via="message",
            amend=True,
            expected_version=version,
        ),
        now=NOW + dt.timedelta(hours=2),
    )
    rep = stored_context(item)["representation"]
    assert rep == {
        "participants": [{"name": "Anna Berg", "company": None}, {"name": "Bo Ek", "company": None}],
        "purpose": "Avtal",
        "event_date": None,
        "raw_answer": first + "\nRättelse: Bo Ek var också med",
        "answered_at": "2026-08-12T11:31:07.123Z",
    }
    last = ClarificationEvent.objects.filter(item_id=item.pk).order_by("occurred_at").last()
    assert last is not None
    assert last.payload["raw_answer_via"] == "message"
    assert last.payload["raw_answer_added"] == "Rättelse: Bo Ek var också med"


def test_an_amendment_to_a_denial_keeps_the_first_answer(bookkeeper):
    item = moved_item("representation")
    answer(item, bookkeeper, RepresentationAnswer(participants=(ParticipantInput("Anna"),), purpose="Möte"))
    version = answer_version(answer_value(stored_context(item), "representation"))
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=RepresentationAnswer(denied=True, amend=True, expected_version=version),
        now=NOW + dt.timedelta(minutes=1),
    )
    rep = stored_context(item)["representation"]
    assert rep["denied"] is True
    assert rep["participants"] == []
    assert rep["raw_answer"] == (
        ENTERED + "Deltagare: Anna; syfte: Möte\n"
        "Inmatat av byrån i granskningsappen 2026-08-12 11:32 CEST: Inte representation"
    )


def test_an_amendment_changing_nothing_is_refused_even_though_the_raw_answer_would_grow(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    before = stored_context(item)
    version = answer_version(answer_value(before, "context"))
    with pytest.raises(AnswerInvalid) as caught:
        answer_question(
            item_id=item.pk,
            user=bookkeeper,
            answer=ContextAnswer(text="Taxi", amend=True, expected_version=version),
            now=NOW + dt.timedelta(minutes=1),
        )
    assert list(caught.value.errors) == ["amend"]
    assert stored_context(item) == before


def amend(item: InboxItem, user: Any, correction: Any, *, minutes: int) -> None:
    version = answer_version(answer_value(stored_context(item), correction.question))
    fields = {"amend": True, "expected_version": version}
    answer_question(
        item_id=item.pk,
        user=user,
        answer=type(correction)(**{**_fields(correction), **fields}),
        now=NOW + dt.timedelta(minutes=minutes),
    )


def _fields(answer: Any) -> dict[str, Any]:
    names = [name for name in answer.__dataclass_fields__ if name != "question"]
    return {name: getattr(answer, name) for name in names}


def test_after_corrections_of_every_answer_type_the_agent_reads_only_the_current_answer(bookkeeper):
    item = moved_item("representation")
    first = RepresentationAnswer(participants=(ParticipantInput("Anna Berg", "Volvo"),), purpose="Möte")
    answer(item, bookkeeper, first)
    amend(item, bookkeeper, RepresentationAnswer(denied=True), minutes=1)
    assert agent_lines(stored_context(item)) == [
        "svar från användaren: detta är INTE representation. Fråga varken om deltagare eller syfte."
    ]
    amend(
        item,
        bookkeeper,
        RepresentationAnswer(participants=(ParticipantInput("Bo Ek"),), purpose="Avtalsmöte", event_date="2026-08-10"),
        minutes=2,
    )
    ctx = stored_context(item)
    assert agent_lines(ctx) == [
        "deltagare (uppgivna av användaren): Bo Ek",
        "syfte (uppgivet av användaren): Avtalsmöte",
        "datum (uppgivet av användaren): 2026-08-10",
    ]
    # accounted's documentation trail keeps every version, one per line; the agent never reads it.
    assert ctx["representation"]["raw_answer"].count("\n") == 2


def test_after_a_context_correction_with_new_words_the_agent_reads_only_the_new_words(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi", raw_answer="taxi till kunden", raw_answer_via="phone"))
    amend(
        item,
        bookkeeper,
        ContextAnswer(text="Taxi till mässan", raw_answer="nej, till mässan", raw_answer_via="email"),
        minutes=3,
    )
    assert agent_lines(stored_context(item)) == [
        "anteckning från användaren: Taxi till mässan",
        "användarens egna ord: nej, till mässan",
    ]
    # Every earlier version stays in the app's own log.
    logged = ClarificationEvent.objects.filter(item_id=item.pk)
    befores = [event.payload["before"].get("context_answer") for event in logged]
    assert {"raw_answer": "taxi till kunden", "answered_at": STAMP} in befores


def test_after_a_context_correction_without_words_the_replaced_words_leave_the_agents_lines(bookkeeper):
    # The customer's words given with the first answer belong to it: a correction that brings no
    # words of its own leaves the agent the corrected note alone, not the old words beside it.
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi", raw_answer="taxi till kunden", raw_answer_via="phone"))
    amend(item, bookkeeper, ContextAnswer(text="Taxi till mässan"), minutes=3)
    ctx = stored_context(item)
    assert "context_answer" not in ctx
    assert agent_lines(ctx) == ["anteckning från användaren: Taxi till mässan"]
    logged = ClarificationEvent.objects.filter(item_id=item.pk)
    assert {"raw_answer": "taxi till kunden", "answered_at": STAMP} in [
        event.payload["before"].get("context_answer") for event in logged
    ]


def test_an_amendment_adding_only_the_customers_words_is_a_correction(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    version = answer_version(answer_value(stored_context(item), "context"))
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=ContextAnswer(
            text="Taxi", raw_answer="taxi till kunden", raw_answer_via="phone", amend=True, expected_version=version
        ),
        now=NOW + dt.timedelta(minutes=1),
    )
    assert stored_context(item)["context_answer"] == {
        "raw_answer": "taxi till kunden",
        # The correction's own time, as accounted's intake stamps a second message.
        "answered_at": "2026-08-12T09:32:07.123Z",
    }


def test_an_answer_over_the_chats_half_answer_keeps_the_customers_chat_words(bookkeeper):
    half = {"participants": [{"name": "Elias", "company": None}], "purpose": None, "raw_answer": "Elias"}
    item = moved_item("representation", representation=half)
    answer(item, bookkeeper, RepresentationAnswer(participants=(ParticipantInput("Elias"),), purpose="Säljmöte"))
    assert (
        stored_context(item)["representation"]["raw_answer"]
        == "Elias\n" + ENTERED + "Deltagare: Elias; syfte: Säljmöte"
    )


# --- Step 7 quality: exactly accounted's three keys -----------------------------------------------


@pytest.mark.parametrize("how", ["replaced", "upload"])
def test_a_resend_moved_over_budget_gets_its_asked_at_as_resend_requested_at(bookkeeper, how):
    # Moved to the app over the day's budget: the chat never asked, so no resend_requested_at.
    item = moved_item("resend", quality={"blur_score": 0.9, "reason": "blurry"})
    if how == "replaced":
        newer = factories.make_item(company=item.company, extracted_data=item.extracted_data)
        received_later(newer, item)
        settled = ResendAnswer(replaced_by=str(newer.pk))
    else:
        settled = ResendAnswer(upload=SimpleUploadedFile("b.png", png_bytes()))
    answer(item, bookkeeper, settled)
    assert stored_context(item)["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}


def test_an_asked_resend_keeps_its_own_resend_requested_at_and_nothing_else(bookkeeper):
    requested = "2026-07-31T08:00:00.000Z"
    item = moved_item("resend", quality={"resend_requested_at": requested, "blur_score": 0.9})
    newer = factories.make_item(company=item.company, extracted_data=item.extracted_data)
    received_later(newer, item)
    answer(item, bookkeeper, ResendAnswer(replaced_by=str(newer.pk)))
    assert stored_context(item)["quality"] == {"resend_requested_at": requested, "resent": True, "superseded": True}


def test_an_amendment_of_a_changed_answer_is_refused(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    stale = answer_version(answer_value(stored_context(item), "context"))
    version = stale
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=ContextAnswer(text="Taxi 2", amend=True, expected_version=version),
        now=NOW + dt.timedelta(minutes=1),
    )
    with pytest.raises(AnswerConflict) as caught:
        answer_question(
            item_id=item.pk,
            user=bookkeeper,
            answer=ContextAnswer(text="Taxi 3", amend=True, expected_version=stale),
        )
    assert caught.value.reason == "changed"
    assert stored_context(item)["user_note"] == "Taxi 2"
    assert len(history(item)) == 2


def test_an_answer_given_in_the_chat_is_never_amended_in_the_app(bookkeeper):
    chat_answer = {"raw_answer": "Lunch med kund", "answered_at": "2026-08-01T10:00:00.000Z"}
    item = moved_item("context", status="answered", user_note="Lunch med kund", context_answer=chat_answer)
    version = answer_version(answer_value(stored_context(item), "context"))
    with pytest.raises(AnswerConflict) as caught:
        answer_question(
            item_id=item.pk,
            user=bookkeeper,
            answer=ContextAnswer(text="Något annat", amend=True, expected_version=version),
        )
    assert caught.value.reason == "answered_in_chat"
    assert stored_context(item)["user_note"] == "Lunch med kund"
    assert history(item) == []


def test_an_unanswered_question_is_answered_not_amended(bookkeeper):
    item = moved_item("context")
    version = answer_version(answer_value(stored_context(item), "context"))
    with pytest.raises(AnswerConflict) as caught:
        answer_question(
            item_id=item.pk,
            user=bookkeeper,
            answer=ContextAnswer(text="Taxi", amend=True, expected_version=version),
        )
    assert caught.value.reason == "not_answered"


def test_an_amendment_that_changes_nothing_is_refused(bookkeeper):
    item = moved_item("context")
    answer(item, bookkeeper, ContextAnswer(text="Taxi"))
    version = answer_version(answer_value(stored_context(item), "context"))
    with pytest.raises(AnswerInvalid) as caught:
        answer_question(
            item_id=item.pk,
            user=bookkeeper,
            answer=ContextAnswer(text=" Taxi ", amend=True, expected_version=version),
        )
    assert "amend" in caught.value.errors
    assert len(history(item)) == 1
