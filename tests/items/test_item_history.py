"""The item page's history: accounted's processing_history and the app's own answer log, in one timeline."""

from __future__ import annotations

import datetime as dt
import uuid

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clarifications import phrases
from reviewapp.answers.inputs import ContextAnswer, ResendAnswer
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.models import ProcessingHistory
from reviewapp.models import AccountLink, ClarificationEvent
from tests import factories
from tests.answers.conftest import moved_item
from tests.html import page_of
from tests.items.bookkeeping import (
    accounted_event,
    app_event,
    at,
    make_document,
    make_message,
    make_phone_link,
    real_png,
    whatsapp_item,
)

ASKED_AT = "2026-08-01T09:00:00Z"  # 11:00 in Stockholm (CEST)
CRON = {"type": "cron", "id": "whatsapp-question-expiry"}


def document_event(item, event_type: str, when: str, *, document_id=None, **extra) -> ProcessingHistory:  # type: ignore[no-untyped-def]
    """accounted's event about the item's document (aggregate ``Document``), as its ingestion writes it."""
    return ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id,
        aggregate_type="Document",
        aggregate_id=document_id or item.document_id,
        event_type=event_type,
        payload={"file_name": "kvitto.jpg"},
        actor=extra.get("actor", {"type": "system", "id": "whatsapp-inbound"}),
        occurred_at=at(when),
    )


def url(item) -> str:  # type: ignore[no-untyped-def]
    return reverse("item_detail", args=[item.pk])


def history_lines(client, item) -> list[str]:  # type: ignore[no-untyped-def]
    text = page_of(client.get(url(item))).text("history")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return [line for line in lines if line][1:]  # without the heading


def test_both_logs_are_merged_in_time_order_each_with_its_actor(bookkeeper_client, bookkeeper, company):
    bookkeeper.first_name, bookkeeper.last_name = "Bea", "Bokförare"
    bookkeeper.save()
    item = factories.make_item(company)
    # Written out of order, in two databases.
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00Z",
        actor=bookkeeper,
        payload={"before": {"channel": "whatsapp"}, "after": {"channel": "whatsapp"}},
    )
    accounted_event(item, ClarificationEvent.EXPIRED, "2026-08-03T09:00:00Z", actor=CRON)
    accounted_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-05T08:00:00Z",
        question_type="context",
        actor={"type": "system", "id": "whatsapp-inbound"},
    )
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT, actor={"type": "system", "id": "whatsapp-outbound"})

    lines = history_lines(bookkeeper_client, item)

    heads = [line for line in lines if line[:4] == "2026"]
    assert heads == [
        "2026-08-01 11:00",
        "2026-08-03 11:00",
        "2026-08-04 09:00",
        "2026-08-05 10:00",
    ]
    assert lines[:9] == [
        "2026-08-01 11:00",
        "Question asked: Representation (participants and purpose)",
        "· via WhatsApp · by whatsapp-outbound (system) · accounted's log",
        "2026-08-03 11:00",
        "The chat gave up: Representation (participants and purpose)",
        "· via WhatsApp · by whatsapp-question-expiry (cron) · accounted's log",
        "2026-08-04 09:00",
        "Question answered: Representation (participants and purpose)",
        "· via App · by Bea Bokförare · this app's log",
    ]
    assert lines[-3:] == [
        "2026-08-05 10:00",
        "Question answered: What the purchase was for",
        "· via WhatsApp · by whatsapp-inbound (system) · accounted's log",
    ]


def test_the_api_gives_the_merged_history_with_source_and_actor_type(bookkeeper_client, bookkeeper, company):
    item = factories.make_item(company)
    app_event(item, ClarificationEvent.ANSWERED, "2026-08-04T07:00:00Z", actor=bookkeeper)
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT)

    events = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    assert [(e["event_type"], e["source"], e["actor"], e["actor_type"], e["occurred_at"]) for e in events] == [
        ("ChannelQuestionAsked", "accounted", "whatsapp-inbound", "system", ASKED_AT),
        ("ChannelQuestionAnswered", "app", "bea", "review_user", "2026-08-04T07:00:00Z"),
    ]


def test_an_app_answer_recorded_in_both_logs_is_shown_once_with_the_reviewer(bookkeeper_client, bookkeeper, company):
    item = factories.make_item(company)
    app_event(item, ClarificationEvent.ANSWERED, "2026-08-04T07:00:00.000Z", question_type="context", actor=bookkeeper)
    # accounted's log gets its own ChannelQuestionAnswered for the same answer.
    accounted_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00.120Z",
        question_type="context",
        actor={"type": "system", "id": "review-app"},
    )

    events = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    assert len(events) == 1
    assert (events[0]["source"], events[0]["actor"], events[0]["also_in_accounted"]) == ("app", "bea", True)
    assert "this app's log and accounted's" in " ".join(
        page_of(bookkeeper_client.get(url(item))).text("history").split()
    )


def test_events_of_other_events_types_are_shown_under_their_own_name(bookkeeper_client, company):
    item = factories.make_item(company)
    accounted_event(item, "DocumentIngested", "2026-08-01T08:59:00Z", question_type=None)

    lines = history_lines(bookkeeper_client, item)

    assert lines[:3] == [
        "2026-08-01 10:59",
        "DocumentIngested",
        "· via WhatsApp · by whatsapp-inbound (system) · accounted's log",
    ]


def test_events_about_another_item_are_not_shown(bookkeeper_client, company):
    item = factories.make_item(company)
    other = factories.make_item(company)
    accounted_event(other, ClarificationEvent.ASKED, ASKED_AT)
    app_event(other, ClarificationEvent.ANSWERED, "2026-08-04T07:00:00Z")

    assert "Nothing is recorded about this item yet." in page_of(bookkeeper_client.get(url(item))).text("history")


def test_the_history_keeps_the_most_recent_200_entries(bookkeeper_client, bookkeeper, company):
    item = factories.make_item(company)
    ProcessingHistory.objects.bulk_create(
        ProcessingHistory(
            company_id=company.pk,
            correlation_id=item.correlation_id,
            aggregate_type="System",
            aggregate_id=item.pk,
            event_type=ClarificationEvent.ASKED,
            payload={"channel": "whatsapp", "question_type": "context"},
            actor={"type": "system", "id": f"asker-{n:03d}"},
            occurred_at=at(ASKED_AT) + dt.timedelta(minutes=n),
        )
        for n in range(210)
    )
    app_event(item, ClarificationEvent.ANSWERED, "2026-09-01T09:00:00Z", actor=bookkeeper)

    events = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["events"]
    page = page_of(bookkeeper_client.get(url(item)))

    assert len(events) == 200
    # The 11 oldest of the 211 fell off; the newest, the app's answer, is last.
    assert events[0]["actor"] == "asker-011"
    assert events[-1]["source"] == "app"
    assert "Only the most recent 200 entries are shown." in page.text("history")


def test_an_app_answer_shows_what_it_changed_and_the_agent_lines_before_and_after(bookkeeper_client, company):
    before = {
        "channel": "whatsapp",
        "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
    }
    after = {
        "channel": "whatsapp",
        "user_note": "Pärmar till kontoret",
        "context_answer": {"raw_answer": "pärmar", "answered_at": "2026-08-04T07:00:00Z"},
        "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
    }
    item = factories.make_item(company, channel_context=after)
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00Z",
        question_type="context",
        payload={"before": before, "after": after, "answer": "pärmar"},
    )

    history = page_of(bookkeeper_client.get(url(item))).words("history")

    assert "user_note (added), context_answer (added), pending_question (changed)" in history
    moved_context = phrases.OPEN_QUESTION_LINE.format(
        what=phrases.ASK_CONTEXT, where=phrases.WHERE_MOVED_TO_APP.format(via=phrases.WHATSAPP_LABEL)
    )
    assert f"Agent lines before {moved_context}" in history
    assert (
        f"Agent lines after {phrases.USER_NOTE_PREFIX}Pärmar till kontoret {phrases.CONTEXT_ANSWER_PREFIX}pärmar"
    ) in history


def test_an_actor_that_is_not_an_object_does_not_break_the_history(bookkeeper_client, company):
    item = factories.make_item(company)
    ProcessingHistory.objects.create(
        company_id=company.pk,
        correlation_id=uuid.uuid4(),
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type=ClarificationEvent.EXPIRED,
        payload=[1, 2],
        actor="cron",
        occurred_at=at("2026-08-03T09:00:00Z"),
    )

    response = bookkeeper_client.get(url(item))

    assert response.status_code == 200
    assert "The chat gave up · by ? · accounted's log" in page_of(response).words("history")


def test_an_item_without_events_says_so(bookkeeper_client, company):
    item = factories.make_item(company)

    assert "Nothing is recorded about this item yet." in page_of(bookkeeper_client.get(url(item))).text("history")


# --- Every source: the item, its document, the app's log and the conversation ---------


def test_every_source_is_merged_in_one_timeline_each_with_its_actor(support_client, qa, company):
    qa.first_name, qa.last_name = "Qarin", "Kvist"
    qa.save()
    phone = make_phone_link(company, masked="+46 70*** **34")
    document = make_document(company)
    item = whatsapp_item(
        company, when="2026-08-01T08:58:00Z", wamid="wamid.PHOTO", phone_link_id=phone, document=document
    )
    # Written out of order, in two databases and three logs.
    make_message(item_id=item.pk, when="2026-08-03T08:00:00Z", body="Nej", phone_link_id=phone, wamid="wamid.R")
    app_event(item, ClarificationEvent.ANSWERED, "2026-08-04T07:00:00Z", actor=qa)
    document_event(item, "DocumentClassified", "2026-08-01T08:59:30Z", actor={"type": "llm", "id": "classifier"})
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT, actor={"type": "system", "id": "whatsapp-outbound"})
    make_message(
        item_id=item.pk,
        when="2026-08-01T09:00:01Z",
        direction="outbound",
        message_type="template",
        raw_payload={"template": "representation_question"},
    )
    document_event(item, "DocumentIngested", "2026-08-01T08:59:00Z")
    # The same kind of event about another document is not this item's.
    document_event(item, "DocumentArchived", "2026-08-02T08:00:00Z", document_id=make_document(company).pk)

    events = support_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    assert [
        (e["occurred_at"], e["label"], e["detail"] or e["question_type"], e["actor"], e["source"]) for e in events
    ] == [
        ("2026-08-01T08:58:00Z", "Message received", "image: kvitto.jpg", "+46 70*** **34", "chat"),
        ("2026-08-01T08:59:00Z", "DocumentIngested", None, "whatsapp-inbound", "accounted"),
        ("2026-08-01T08:59:30Z", "DocumentClassified", None, "classifier", "accounted"),
        ("2026-08-01T09:00:00Z", "Question asked", "representation", "whatsapp-outbound", "accounted"),
        ("2026-08-01T09:00:01Z", "Question sent", "template representation_question", "whatsapp-outbound", "chat"),
        ("2026-08-03T08:00:00Z", "Message received", "text", "+46 70*** **34", "chat"),
        ("2026-08-04T07:00:00Z", "Question answered", "representation", "Qarin Kvist", "app"),
    ]
    assert [e["about_document"] for e in events] == [False, True, True, False, False, False, False]
    assert [e["actor_type"] for e in events] == [
        "customer",
        "system",
        "llm",
        "system",
        "system",
        "customer",
        "review_user",
    ]


def test_the_page_says_which_entries_are_about_the_document_and_the_chat(support_client, company):
    phone = make_phone_link(company, masked="+46 70*** **34")
    item = whatsapp_item(
        company, when="2026-08-01T08:58:00Z", wamid="wamid.P2", phone_link_id=phone, document=make_document(company)
    )
    document_event(item, "DocumentIngested", "2026-08-01T08:59:00Z")

    lines = history_lines(support_client, item)

    assert lines == [
        "2026-08-01 10:58",
        "Message received: image: kvitto.jpg",
        "· via WhatsApp · by +46 70*** **34 (customer) · the WhatsApp chat",
        "2026-08-01 10:59",
        "DocumentIngested",
        "· about its document · by whatsapp-inbound (system) · accounted's log",
    ]


def test_at_the_same_moment_a_received_message_comes_first_then_accounted_then_the_app(
    support_client, bookkeeper, company
):
    item = factories.make_item(company)
    app_event(item, "SomethingTheAppDid", ASKED_AT, actor=bookkeeper)
    make_message(item_id=item.pk, when=ASKED_AT, body="Hej")
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT)
    make_message(item_id=item.pk, when=ASKED_AT, direction="outbound", message_type="template")

    events = support_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    assert [(e["source"], e["label"]) for e in events] == [
        ("chat", "Message received"),
        ("accounted", "Question asked"),
        ("chat", "Message sent"),
        ("app", "SomethingTheAppDid"),
    ]


# --- Events the app wrote to accounted's log: the reviewer's name from the app's own log ---------------


def _linked(user) -> uuid.UUID:  # type: ignore[no-untyped-def]
    own = factories.make_auth_user()
    AccountLink.objects.create(user=user, accounted_user_id=own)
    return own


def test_an_answer_written_for_a_linked_reviewer_shows_their_name_never_the_accounted_id(
    bookkeeper_client, bookkeeper, company
):
    bookkeeper.first_name, bookkeeper.last_name = "Bea", "Bokförare"
    bookkeeper.save()
    own = _linked(bookkeeper)
    item = moved_item("context", company=company)
    answer_question(item_id=item.pk, user=bookkeeper, answer=ContextAnswer(text="Taxi"))

    lines = history_lines(bookkeeper_client, item)
    events = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    answered = [e for e in events if e["event_type"] == "ChannelQuestionAnswered"]
    assert [(e["actor"], e["also_in_accounted"]) for e in answered] == [("Bea Bokförare", True)]
    # accounted's row holds only the id; the page shows the name from the app's log, never the id.
    row = ProcessingHistory.objects.get(aggregate_id=item.pk, event_type="ChannelQuestionAnswered")
    assert row.actor == {"type": "user", "id": str(own)}
    assert str(own) not in " ".join(lines)


def test_the_new_items_document_ingested_names_the_reviewer_who_uploaded_it(bookkeeper_client, bookkeeper, company):
    own = _linked(bookkeeper)
    item = moved_item("resend", company=company)
    result = answer_question(
        item_id=item.pk, user=bookkeeper, answer=ResendAnswer(upload=SimpleUploadedFile("skarp.png", real_png()))
    )
    assert result.new_item is not None

    events = bookkeeper_client.get(reverse("api_item", args=[result.new_item.pk])).json()["events"]

    assert sorted((e["event_type"], e["actor"], e["actor_type"], e["source"]) for e in events) == [
        ("DocumentExtractionAttempted", "bea", "review_user", "accounted"),
        ("DocumentIngested", "bea", "review_user", "accounted"),
    ]
    assert str(own) not in bookkeeper_client.get(url(result.new_item)).content.decode()


def test_an_app_answer_is_paired_with_the_row_it_wrote_not_with_a_chat_answer_beside_it(
    bookkeeper_client, bookkeeper, company
):
    item = factories.make_item(company)
    chat = accounted_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00.000Z",
        actor={"type": "system", "id": "whatsapp-inbound"},
    )
    ours = accounted_event(
        item, ClarificationEvent.ANSWERED, "2026-08-04T07:00:03.000Z", actor={"type": "system", "id": "review-app"}
    )
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:03.000Z",
        actor=bookkeeper,
        payload={"before": {}, "after": {}, "history_event_id": str(ours.pk)},
    )
    assert chat.pk != ours.pk

    events = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["events"]

    assert [(e["source"], e["actor"], e["also_in_accounted"]) for e in events] == [
        ("accounted", "whatsapp-inbound", False),
        ("app", "bea", True),
    ]
