"""What an app answer does to the WhatsApp conversation: accounted's ``markRecentQuestion``, nothing more.

accounted (``erp-mafia/accounted`` 66851ff, ``whatsapp-inbox/lib/process-inbound.ts``
and ``conversation.ts``): every ``recent_questions`` entry of the item becomes
``'answered'`` whatever its type; ``question_queue``, ``pending_question`` and
the state are left to the intake and its sweep.
"""

from __future__ import annotations

import datetime as dt

import pytest

from reviewapp.answers.inputs import ContextAnswer, ParticipantInput, RepresentationAnswer
from reviewapp.answers.writing import answer_question
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import ASKED_AT, conversation, make_conversation, moved_item

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 8, 3, 10, 0, tzinfo=dt.UTC)


def test_every_entry_of_the_item_is_marked_whatever_its_type(bookkeeper):
    item = moved_item("context")
    other = factories.make_item(company=item.company)
    older = "2026-07-30T08:00:00.000Z"
    conv = make_conversation(
        item,
        context={
            "recent_questions": [
                # An earlier question about the same item, of another type: accounted marks it too.
                {"type": "resend", "inbox_item_id": str(item.pk), "asked_at": older, "status": "moved_to_app"},
                {"type": "context", "inbox_item_id": str(other.pk), "asked_at": older, "status": "moved_to_app"},
                {"type": "context", "inbox_item_id": str(item.pk), "asked_at": ASKED_AT, "status": "moved_to_app"},
            ]
        },
    )
    answer_question(item_id=item.pk, user=bookkeeper, answer=ContextAnswer(text="Taxi"), now=NOW)
    context, _state, _ = conversation(conv)
    assert [entry["status"] for entry in context["recent_questions"]] == ["answered", "moved_to_app", "answered"]
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["conversations"] == [{"id": str(conv), "marked_answered": 2}]


def test_a_conversation_still_awaiting_the_item_keeps_its_question_state_and_queue(bookkeeper):
    """The answer is a late one in accounted's terms: only the sweep idles the conversation."""
    item = moved_item("context")
    queued = factories.make_item(company=item.company)
    pending = {"type": "context", "inbox_item_id": str(item.pk), "asked_at": ASKED_AT}
    queue = [{"type": "representation", "inbox_item_id": str(queued.pk)}]
    conv = make_conversation(
        item,
        context={
            "recent_questions": [{**pending, "status": "open"}],
            "pending_question": pending,
            "question_queue": queue,
        },
        state="awaiting_context",
    )
    answer_question(item_id=item.pk, user=bookkeeper, answer=ContextAnswer(text="Taxi"), now=NOW)
    context, state, _ = conversation(conv)
    assert state == "awaiting_context"
    assert context["pending_question"] == pending
    assert context["question_queue"] == queue
    assert context["recent_questions"] == [{**pending, "status": "answered"}]


def test_a_conversation_already_marked_is_not_written_but_is_logged(bookkeeper):
    item = moved_item("representation")
    entry = {"type": "representation", "inbox_item_id": str(item.pk), "asked_at": ASKED_AT, "status": "answered"}
    conv = make_conversation(item, context={"recent_questions": [entry]})
    _context, _state, updated_before = conversation(conv)
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=RepresentationAnswer(participants=(ParticipantInput("Anna Berg"),), purpose="Avtal"),
        now=NOW,
    )
    assert conversation(conv)[2] == updated_before
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["conversations"] == [{"id": str(conv), "marked_answered": 0}]


def test_a_conversation_with_only_a_queued_or_pending_entry_is_not_touched(bookkeeper):
    """accounted marks ``recent_questions`` only; a conversation with no entry of the item is not the item's."""
    item = moved_item("context")
    context = {
        "pending_question": {"type": "context", "inbox_item_id": str(item.pk), "asked_at": ASKED_AT},
        "question_queue": [{"type": "context", "inbox_item_id": str(item.pk)}],
    }
    conv = make_conversation(item, context=context, state="awaiting_context")
    _c, _s, updated_before = conversation(conv)
    result = answer_question(item_id=item.pk, user=bookkeeper, answer=ContextAnswer(text="Taxi"), now=NOW)
    assert result.conversations == []
    assert conversation(conv) == (context, "awaiting_context", updated_before)
