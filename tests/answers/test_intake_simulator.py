"""The intake simulator (``devtools.intake_simulator``, ``simulate_intake``) against the contract's steps 2 to 9."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from django.urls import reverse

from devtools import intake_simulator as intake
from reviewapp.answers.inputs import ContextAnswer, ParticipantInput, RepresentationAnswer
from reviewapp.answers.log import app_answers, replaced_answer
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories
from tests.answers.conftest import conversation, history, make_conversation, stored_context
from tests.html import Page

pytestmark = pytest.mark.django_db

ASKED = dt.datetime(2026, 8, 10, 8, 0, 0, 250000, tzinfo=dt.UTC)
ASKED_STAMP = "2026-08-10T08:00:00.250Z"
LATER = ASKED + dt.timedelta(hours=49)


def conversation_of(item) -> object:  # type: ignore[no-untyped-def]
    conversation_id = intake._conversation_of(str(item.pk))
    assert conversation_id is not None
    return conversation_id


def test_asking_writes_the_item_the_conversation_and_the_event():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    assert stored_context(item) == {
        "channel": "whatsapp",
        "pending_question": {"type": "representation", "asked_at": ASKED_STAMP, "status": "open"},
    }
    context, state, _ = conversation(conversation_of(item))
    assert state == "awaiting_representation"
    assert context["pending_question"] == {
        "type": "representation",
        "inbox_item_id": str(item.pk),
        "asked_at": ASKED_STAMP,
    }
    assert context["recent_questions"] == [
        {"type": "representation", "inbox_item_id": str(item.pk), "asked_at": ASKED_STAMP, "status": "open"}
    ]
    assert context["budget"] == {"day_key": "2026-08-10", "count": 1}
    (event,) = history(item, "ChannelQuestionAsked")
    assert event.actor == {"type": "system", "id": "whatsapp-inbound"}
    assert event.payload == {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": "representation"}


def test_a_resend_question_records_when_it_was_requested():
    item = factories.make_item(channel_context={"channel": "whatsapp", "quality": {"blur_score": 0.9}})
    intake.ask(item.pk, "resend", now=ASKED)
    assert stored_context(item)["quality"] == {"blur_score": 0.9, "resend_requested_at": ASKED_STAMP}


def test_over_the_budget_a_question_goes_straight_to_the_app():
    item = factories.make_item()
    intake.ask(item.pk, "context", over_budget=True, now=ASKED)
    assert stored_context(item)["pending_question"] == {
        "type": "context",
        "asked_at": ASKED_STAMP,
        "status": "moved_to_app",
    }
    assert intake._conversation_of(str(item.pk)) is None
    assert history(item, "ChannelQuestionAsked") == []


def test_a_representation_answer_in_the_chat_is_step_3():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    at = ASKED + dt.timedelta(minutes=3)
    intake.answer_representation(
        item.pk,
        text="  Anna Berg från Kund AB, projektmöte ",
        participants=[intake.Participant("Anna Berg", "Kund AB")],
        purpose="Projektmöte",
        now=at,
    )
    ctx = stored_context(item)
    assert ctx["representation"] == {
        "participants": [{"name": "Anna Berg", "company": "Kund AB"}],
        "purpose": "Projektmöte",
        "event_date": None,
        "raw_answer": "Anna Berg från Kund AB, projektmöte",
        "answered_at": "2026-08-10T08:03:00.250Z",
    }
    assert ctx["pending_question"]["status"] == "answered"
    context, state, _ = conversation(conversation_of(item))
    assert state == "idle"
    assert "pending_question" not in context
    assert context["recent_questions"][0]["status"] == "answered"
    assert [e.actor for e in history(item)] == [{"type": "system", "id": "whatsapp-inbound"}]


def test_a_half_answer_stays_open_and_the_next_message_is_appended():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    intake.half_answer(item.pk, text="Anna Berg", participants=[intake.Participant("Anna Berg")], now=ASKED)
    ctx = stored_context(item)
    assert ctx["representation"]["purpose"] is None
    assert ctx["pending_question"]["status"] == "open"
    # accounted settles the conversation entry and logs the answer all the same; the awaited question stays.
    context, state, _ = conversation(conversation_of(item))
    assert state == "awaiting_representation"
    assert context["pending_question"]["inbox_item_id"] == str(item.pk)
    assert context["recent_questions"][0]["status"] == "answered"
    assert len(history(item)) == 1
    intake.answer_representation(item.pk, text="kundmöte", purpose="Kundmöte", now=ASKED)
    rep = stored_context(item)["representation"]
    assert rep["raw_answer"] == "Anna Berg\nkundmöte"
    assert rep["purpose"] == "Kundmöte"
    assert rep["participants"] == []  # the second message named nobody: accounted keeps what it read now


def test_a_denial_in_the_chat_is_step_5():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    intake.deny(item.pk, text="Nej", now=ASKED)
    assert stored_context(item)["representation"] == {
        "participants": [],
        "purpose": None,
        "event_date": None,
        "raw_answer": "Nej",
        "answered_at": ASKED_STAMP,
        "denied": True,
    }


def test_a_context_answer_in_the_chat_is_step_6():
    item = factories.make_item()
    intake.ask(item.pk, "context", now=ASKED)
    intake.answer_context(item.pk, text="det var taxi till kunden", note="Taxi till kund", now=ASKED)
    ctx = stored_context(item)
    assert ctx["user_note"] == "Taxi till kund"
    assert ctx["context_answer"] == {"raw_answer": "det var taxi till kunden", "answered_at": ASKED_STAMP}


def test_expiry_moves_the_question_to_the_app_and_idles_the_conversation():
    item = factories.make_item()
    intake.ask(item.pk, "context", now=ASKED)
    intake.expire(item.pk, now=LATER)
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"
    context, state, _ = conversation(conversation_of(item))
    assert state == "idle"
    assert "pending_question" not in context
    assert context["recent_questions"][0]["status"] == "moved_to_app"
    (event,) = history(item, "ChannelQuestionExpired")
    assert event.actor == {"type": "system", "id": "whatsapp-inbound"}  # sweep.ts appends with the intake's actor


def test_without_the_app_a_late_reply_overwrites_a_moved_question():
    """Step 9: routed to the newest entry not answered, moved_to_app included."""
    item = factories.make_item()
    intake.ask(item.pk, "context", now=ASKED)
    intake.expire(item.pk, now=LATER)
    routed = intake.late_reply(item.pk, text="parkering", now=LATER + dt.timedelta(hours=1))
    assert routed.outcome == "answered"
    assert stored_context(item)["user_note"] == "parkering"


def test_a_late_reply_after_an_app_answer_is_a_follow_up_and_the_answer_stays(bookkeeper):
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    intake.expire(item.pk, now=LATER)
    answer_question(
        item_id=item.pk,
        user=bookkeeper,
        answer=RepresentationAnswer(participants=(ParticipantInput("Anna Berg"),), purpose="Avtal"),
    )
    answered = stored_context(item)["representation"]
    routed = intake.late_reply(item.pk, text="ok", now=LATER + dt.timedelta(hours=2))
    assert routed.outcome == "follow_up"
    ctx = stored_context(item)
    assert ctx["representation"] == answered
    assert ctx["user_note"] == "ok"
    item.refresh_from_db()
    assert replaced_answer(item, app_answers(item.pk)) is None


def test_an_unquoted_late_reply_goes_to_the_newest_question_not_answered_even_if_older():
    first = factories.make_item()
    company = first.company
    second = factories.make_item(company=company)
    intake.ask(first.pk, "context", now=ASKED)
    intake.expire(first.pk, now=ASKED + dt.timedelta(hours=49))
    intake.ask(second.pk, "context", now=ASKED + dt.timedelta(hours=50))
    intake.answer_context(second.pk, text="kontorsmaterial", now=ASKED + dt.timedelta(hours=51))
    routed = intake.late_reply(first.pk, text="lunch", quoted=False, now=ASKED + dt.timedelta(hours=52))
    # The newest entry (the second item's) is answered: accounted skips it and answers the first.
    assert (routed.outcome, routed.item_id) == ("answered", str(first.pk))
    assert stored_context(second)["user_note"] == "kontorsmaterial"
    assert stored_context(first)["context_answer"]["raw_answer"] == "lunch"


def test_a_reply_after_seven_days_is_not_routed():
    item = factories.make_item()
    intake.ask(item.pk, "context", now=ASKED)
    intake.expire(item.pk, now=LATER)
    with pytest.raises(intake.IntakeError):
        intake.late_reply(item.pk, text="sent svar", now=ASKED + dt.timedelta(days=8))


# --- The six ways the simulator copies accounted (contract, last bullet) ------------------------


def test_only_an_exact_nej_is_a_denial_without_the_interpreter():
    denied = factories.make_item()
    intake.ask(denied.pk, "representation", now=ASKED)
    intake.answer_representation(denied.pk, text="  NEJ ", now=ASKED)
    assert stored_context(denied)["representation"] == {
        "participants": [],
        "purpose": None,
        "event_date": None,
        "raw_answer": "NEJ",
        "answered_at": ASKED_STAMP,
        "denied": True,
    }
    # "nej tack" goes to the interpreter; read as nothing, it is the unreadable reply, not a denial.
    other = factories.make_item(company=denied.company)
    intake.ask(other.pk, "representation", now=ASKED)
    intake.answer_representation(other.pk, text="nej tack", now=ASKED)
    assert "denied" not in stored_context(other)["representation"]


def test_an_unreadable_representation_reply_keeps_the_text_as_the_note_and_settles_the_question():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    intake.answer_representation(item.pk, text="Vet inte riktigt, fråga Bo", now=ASKED)
    ctx = stored_context(item)
    assert ctx["user_note"] == "Vet inte riktigt, fråga Bo"
    assert ctx["representation"] == {
        "participants": [],
        "purpose": None,
        "event_date": None,
        "raw_answer": "Vet inte riktigt, fråga Bo",
        "answered_at": ASKED_STAMP,
    }
    assert ctx["pending_question"]["status"] == "answered"
    assert conversation(conversation_of(item))[1] == "idle"


def test_a_half_answer_keeps_the_question_open_only_on_the_first_answer():
    item = factories.make_item()
    intake.ask(item.pk, "representation", now=ASKED)
    intake.half_answer(item.pk, text="Anna Berg", participants=[intake.Participant("Anna Berg")], now=ASKED)
    assert stored_context(item)["pending_question"]["status"] == "open"
    intake.half_answer(item.pk, text="och Bo Ek", participants=[intake.Participant("Bo Ek")], now=ASKED)
    ctx = stored_context(item)
    assert ctx["pending_question"]["status"] == "answered"
    assert ctx["representation"]["raw_answer"] == "Anna Berg\noch Bo Ek"
    assert ctx["representation"]["purpose"] is None
    assert conversation(conversation_of(item))[1] == "idle"


def test_the_daily_budget_counts_stockholm_days():
    before = factories.make_item()
    after = factories.make_item(company=before.company)
    # 23:30 and 00:30 in Stockholm (summer time, UTC+2): two civil days, one UTC day.
    intake.ask(before.pk, "context", now=dt.datetime(2026, 8, 10, 21, 30, tzinfo=dt.UTC))
    context, _, _ = conversation(conversation_of(before))
    assert context["budget"] == {"day_key": "2026-08-10", "count": 1}
    intake.ask(after.pk, "context", now=dt.datetime(2026, 8, 10, 22, 30, tzinfo=dt.UTC))
    context, _, _ = conversation(conversation_of(after))
    assert context["budget"] == {"day_key": "2026-08-11", "count": 1}


def _moved(company, question: str, asked: dt.datetime):  # type: ignore[no-untyped-def]
    stamp = asked.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    pending = {"type": question, "asked_at": stamp, "status": "moved_to_app"}
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "pending_question": pending})
    return item, {"type": question, "inbox_item_id": str(item.pk), "asked_at": stamp, "status": "moved_to_app"}


def test_an_unquoted_reply_goes_to_the_newest_other_open_question_never_to_a_resend(bookkeeper):
    now = ASKED + dt.timedelta(days=8)
    company = factories.make_company()
    too_old, too_old_entry = _moved(company, "context", now - dt.timedelta(days=7, hours=1))
    target, target_entry = _moved(company, "context", now - dt.timedelta(days=3))
    answered, answered_entry = _moved(company, "representation", now - dt.timedelta(days=2))
    resend, resend_entry = _moved(company, "resend", now - dt.timedelta(days=1))
    conv = make_conversation(
        answered, context={"recent_questions": [too_old_entry, target_entry, answered_entry, resend_entry]}
    )
    answer_question(
        item_id=answered.pk,
        user=bookkeeper,
        answer=RepresentationAnswer(participants=(ParticipantInput("Anna Berg"),), purpose="Avtal"),
    )
    routed = intake.late_reply(answered.pk, text="det var parkering", quoted=False, now=now)
    assert (routed.outcome, routed.item_id, routed.question) == ("answered", str(target.pk), "context")
    assert stored_context(target)["context_answer"]["raw_answer"] == "det var parkering"
    for untouched in (too_old, resend):
        assert "user_note" not in stored_context(untouched)
    assert "user_note" not in stored_context(answered)
    context, state, _ = conversation(conv)
    assert [e["status"] for e in context["recent_questions"]] == [
        "moved_to_app",
        "answered",
        "answered",
        "moved_to_app",
    ]
    assert state == "idle"


def test_a_quoted_reply_to_an_answered_question_is_a_follow_up_on_the_note(bookkeeper):
    company = factories.make_company()
    item, entry = _moved(company, "context", ASKED)
    make_conversation(item, context={"recent_questions": [entry]})
    words = ContextAnswer(text="Taxi till kund", raw_answer="taxin till kunden", raw_answer_via="phone")
    answer_question(item_id=item.pk, user=bookkeeper, answer=words)
    routed = intake.late_reply(item.pk, text="  och tillbaka ", now=ASKED + dt.timedelta(days=3))
    assert (routed.outcome, routed.item_id) == ("follow_up", str(item.pk))
    ctx = stored_context(item)
    assert ctx["user_note"] == "Taxi till kund\noch tillbaka"
    # The follow-up goes on the note only: the customer's words given to the firm stay as written.
    assert ctx["context_answer"]["raw_answer"] == "taxin till kunden"


def test_a_text_while_a_resend_is_awaited_is_a_note_on_that_item():
    item = factories.make_item()
    intake.ask(item.pk, "resend", now=ASKED)
    routed = intake.late_reply(item.pk, text="kan inte ta ny bild", quoted=False, now=ASKED)
    assert (routed.outcome, routed.item_id, routed.question) == ("follow_up", str(item.pk), "resend")
    ctx = stored_context(item)
    assert ctx["user_note"] == "kan inte ta ny bild"
    assert ctx["pending_question"]["status"] == "open"


# --- The command ----------------------------------------------------------------------------


def run(*args: str) -> str:
    out = StringIO()
    call_command("simulate_intake", *args, stdout=out)
    return out.getvalue()


def test_the_commands_journey_late_reply_after_an_app_answer_lands_as_a_note(bookkeeper_client):
    item = factories.make_item()
    run("ask", "--item", str(item.pk), "--type", "context", "--at", "2026-08-10T08:00:00Z")
    run("expire", "--item", str(item.pk), "--at", "2026-08-12T08:01:00Z")
    response = bookkeeper_client.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"})
    assert response.status_code == 302
    reply = run("late-reply", "--item", str(item.pk), "--text", "och parkering", "--at", "2026-08-13T10:00:00Z")
    assert "follow_up" in reply
    ctx = stored_context(item)
    assert ctx["user_note"] == "Taxi\noch parkering"
    assert "context_answer" not in ctx  # the firm's answer is the note alone


def test_a_simulated_overwrite_is_detected_and_shown(bookkeeper_client):
    item = factories.make_item()
    run("ask", "--item", str(item.pk), "--type", "context", "--over-budget")
    bookkeeper_client.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"})
    run("answer", "--item", str(item.pk), "--text", "nej, lunch")
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert "was replaced by nej, lunch" in page.text("answer-replaced")


def test_the_command_refuses_a_database_that_is_not_a_replica():
    item = factories.make_item()
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("COMMENT ON SCHEMA public IS 'accounted production'")
    with pytest.raises(CommandError, match="not a replica"):
        run("ask", "--item", str(item.pk), "--type", "context")
    assert stored_context(item) == {"channel": "whatsapp"}


def test_the_command_says_what_is_missing():
    item = factories.make_item()
    with pytest.raises(CommandError, match="--type"):
        run("ask", "--item", str(item.pk))
    with pytest.raises(CommandError, match="no open question"):
        run("expire", "--item", str(item.pk))
