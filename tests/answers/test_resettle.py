"""Re-settle: every sync poll puts back the conversation mark of an app answer that accounted's sweep undid.

The race (accounted 66851ff, ``whatsapp-inbox/lib/sweep.ts`` pass 3): the sweep
reads the conversation, the app answers and marks the item's entry
``'answered'``, the sweep writes back what it read (no compare on
``updated_at``). A late reply is then routed onto the app's answer
(``conversation.ts`` ``resolveAnswerTarget``) unless the mark is put back.
"""

from __future__ import annotations

import datetime as dt
import logging
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from devtools import intake_simulator as intake
from reviewapp.answers.inputs import ContextAnswer, ParticipantInput, RepresentationAnswer
from reviewapp.answers.resettle import resettle_app_answers
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent
from reviewapp.readmodel import sync
from tests import factories
from tests.answers.conftest import conversation, stored_context

pytestmark = pytest.mark.django_db

APP_ANSWER = RepresentationAnswer(participants=(ParticipantInput("Anna Berg", "Kund AB"),), purpose="Avtalsmöte")


def unmarked_by_the_sweep(user: Any, answer: Any = APP_ANSWER, *, days_ago: float = 2) -> tuple[InboxItem, Any]:
    """An item the app answered while the sweep ran, the sweep's stale write landing after the app's commit."""
    now = timezone.now()
    asked = now - dt.timedelta(days=days_ago + 2)
    item = factories.make_item()
    question = "context" if isinstance(answer, ContextAnswer) else "representation"
    intake.ask(item.pk, question, now=asked)
    answered_at = now - dt.timedelta(days=days_ago)
    intake.expire(
        item.pk,
        now=asked + dt.timedelta(hours=49),
        between=lambda: answer_question(item_id=item.pk, user=user, answer=answer, now=answered_at),
    )
    conversation_id = intake._conversation_of(str(item.pk))
    assert entry_status(conversation_id) == "moved_to_app"  # the sweep undid the app's mark
    return item, conversation_id


def entry_status(conversation_id: Any) -> str:
    (entry,) = conversation(conversation_id)[0]["recent_questions"]
    return str(entry["status"])


def run_sync_command() -> str:
    out = StringIO()
    call_command("sync_index", stdout=out)
    return out.getvalue()


def test_a_poll_marks_the_app_answer_again_and_counts_it_once(bookkeeper):
    _item, conv = unmarked_by_the_sweep(bookkeeper)
    assert "re-settled 1" in run_sync_command()
    assert entry_status(conv) == "answered"
    written = conversation(conv)[2]
    assert "re-settled 0" in run_sync_command()
    assert conversation(conv)[2] == written  # nothing written the second time


def test_with_re_settle_in_between_a_late_reply_is_a_follow_up_and_the_app_answer_survives(bookkeeper):
    item, _conv = unmarked_by_the_sweep(bookkeeper)
    answered = stored_context(item)["representation"]
    assert sync.poll().resettled == 1
    routed = intake.late_reply(item.pk, text="Bo Ek var också med", now=timezone.now())
    assert (routed.outcome, routed.item_id) == ("follow_up", str(item.pk))
    ctx = stored_context(item)
    assert ctx["representation"] == answered
    assert ctx["user_note"] == "Bo Ek var också med"


def test_without_re_settle_the_same_late_reply_is_written_over_the_app_answer(bookkeeper):
    """Why re-settle exists: this is what accounted does on its own."""
    item, _conv = unmarked_by_the_sweep(bookkeeper)
    routed = intake.late_reply(
        item.pk, text="Bo Ek", participants=[intake.Participant("Bo Ek")], purpose="Lunch", now=timezone.now()
    )
    assert routed.outcome == "answered"
    assert stored_context(item)["representation"]["participants"] == [{"name": "Bo Ek", "company": None}]


def test_an_item_whose_answer_the_chat_replaced_is_left_to_the_chat(bookkeeper, caplog):
    item, conv = unmarked_by_the_sweep(bookkeeper, ContextAnswer(text="Taxi"))
    intake.write_key(item.pk, "user_note", "nej, lunch")  # the intake's own write replaced the app's answer
    with caplog.at_level(logging.INFO, logger="reviewapp.answers.resettle"):
        assert "re-settled 0" in run_sync_command()
    assert entry_status(conv) == "moved_to_app"
    # The operator's log names the item left to the chat.
    assert f"re-settle: item {item.pk} no longer holds the app's answer; left to the chat" in caplog.messages


def test_an_item_whose_question_the_chat_reopened_is_left_to_the_chat(bookkeeper):
    item, conv = unmarked_by_the_sweep(bookkeeper)
    pending = stored_context(item)["pending_question"]
    intake.write_key(item.pk, "pending_question", {**pending, "status": "open"})
    assert resettle_app_answers() == 0
    assert entry_status(conv) == "moved_to_app"


def test_an_answer_older_than_the_late_reply_window_is_not_looked_at(bookkeeper):
    _item, conv = unmarked_by_the_sweep(bookkeeper, days_ago=8)
    assert resettle_app_answers() == 0
    assert entry_status(conv) == "moved_to_app"


def test_a_poll_without_recent_app_answers_reads_no_conversation(bookkeeper):
    unmarked_by_the_sweep(bookkeeper, days_ago=8)
    with CaptureQueriesContext(connections[BOOKKEEPING_DB]) as queries:
        assert resettle_app_answers() == 0
    assert len(queries) == 0


@pytest.mark.django_db(transaction=True)  # an answer's index lock lasts until its transaction commits
def test_re_settle_runs_only_in_the_pass_holding_the_lock(bookkeeper):
    """Many hosts: the host that does not get the advisory lock neither indexes nor re-settles."""
    _item, conv = unmarked_by_the_sweep(bookkeeper)
    other_host = connections.create_connection("default")
    try:
        with other_host.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [sync.LOCK_KEY])
        assert sync.poll().ran is False
        assert entry_status(conv) == "moved_to_app"
        with other_host.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [sync.LOCK_KEY])
        assert sync.poll().resettled == 1
    finally:
        other_host.close()
    assert entry_status(conv) == "answered"


def test_a_log_entry_naming_no_real_conversation_breaks_nothing(bookkeeper):
    _item, conv = unmarked_by_the_sweep(bookkeeper)
    ClarificationEvent.objects.create(
        item_id=factories.make_item().pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type="context",
        channel=ClarificationEvent.Channel.APP,
        payload={"conversations": [{"id": "not-a-uuid"}, "junk", {"id": 7}]},
        occurred_at=timezone.now(),
    )
    # Entries whose conversations are missing (an answer logged before they were) or not a list.
    for payload in ({}, {"conversations": 7}, {"conversations": {"id": str(conv)}}):
        ClarificationEvent.objects.create(
            item_id=factories.make_item().pk,
            event_type=ClarificationEvent.ANSWERED,
            question_type="context",
            channel=ClarificationEvent.Channel.APP,
            payload=payload,
            occurred_at=timezone.now(),
        )
    assert resettle_app_answers() == 1
    assert entry_status(conv) == "answered"
