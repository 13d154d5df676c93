"""Concurrent answers and concurrent writers on PostgreSQL: row locks and compare-and-set are real here.

The intake (simulated by ``devtools.intake_simulator``) reads ``channel_context``,
changes it and writes it back without a lock; conversations are written
with a compare-and-set on ``updated_at``. These tests run the app's answer
against both, in threads, at the points where the two can meet.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connections, transaction
from django.test import Client
from django.urls import reverse

from devtools import intake_simulator as intake
from reviewapp.answers import writing
from reviewapp.answers.channel_context import Written
from reviewapp.answers.inputs import ContextAnswer
from reviewapp.answers.log import app_answers, replaced_answer
from reviewapp.answers.writing import AnswerConflict, answer_question
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent
from tests.answers.conftest import conversation, history, make_conversation, moved_item, stored_context

CONCURRENT_ANSWERS = 16
RUNS = 12

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def answerer(username: str) -> User:
    """A user who may answer any company's items, by permission (independent of the role groups)."""
    user = User.objects.create_user(username=username)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["answer_question", "view_all_companies"], content_type__app_label="reviewapp"
        )
    )
    return User.objects.get(pk=user.pk)


def in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = target()
        except BaseException as error:  # reported by the test
            outcome["error"] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def join(thread: threading.Thread) -> None:
    thread.join(timeout=60)
    assert not thread.is_alive(), "a thread hung"


def waiting_on_a_lock() -> int:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


def wait_until(condition: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def answer_in_thread(item: InboxItem, user: User, text: str) -> tuple[threading.Thread, dict[str, Any]]:
    return in_thread(lambda: answer_question(item_id=item.pk, user=user, answer=ContextAnswer(text=text)))


# --- Many bookkeepers at once ---------------------------------------------------------------


def test_sixteen_answers_at_once_exactly_one_wins(monkeypatch):
    # Sixteen writers in one process stand for sixteen across many hosts: lift the per-process limit on
    # accounted's work (reviewapp.bookkeeping.bounded_pg; tested in tests/production/test_hung_accounted*.py),
    # which would refuse all but a few of them at once with a 503. Each thread's connection reads it.
    monkeypatch.setitem(connections.settings[BOOKKEEPING_DB]["LIMITS"], "max_concurrent", 0)
    item = moved_item("representation")
    conv = make_conversation(item)
    original = dict(item.channel_context)
    clients = []
    for index in range(CONCURRENT_ANSWERS):
        client = Client()
        client.force_login(answerer(f"bk{index}"))
        clients.append(client)
    real = writing.written_answer

    def slowly(*args: Any, **kwargs: Any) -> Written:
        time.sleep(0.03)  # widen the window between the check and the write
        return real(*args, **kwargs)

    monkeypatch.setattr(writing, "written_answer", slowly)
    start = threading.Barrier(CONCURRENT_ANSWERS)
    url = reverse("api_item_answer", args=[item.pk])

    def body(index: int) -> dict[str, Any]:
        return {
            "question": "representation",
            "participants": [{"name": f"Person {index}", "company": f"Bolag {index}"}],
            "purpose": f"Syfte {index}",
            "event_date": f"2026-07-{10 + index:02d}",
        }

    def answer(index: int) -> Callable[[], Any]:
        def run() -> Any:
            start.wait(timeout=30)
            return clients[index].post(url, json.dumps(body(index)), content_type="application/json")

        return run

    runs = [in_thread(answer(index)) for index in range(CONCURRENT_ANSWERS)]
    for thread, _ in runs:
        join(thread)
    assert all("error" not in outcome for _, outcome in runs), [o.get("error") for _, o in runs]
    statuses = [outcome["result"].status_code for _, outcome in runs]
    assert sorted(statuses) == [200] + [409] * (CONCURRENT_ANSWERS - 1)
    winner = statuses.index(200)

    ctx = stored_context(item)
    expected = body(winner)
    assert ctx["representation"]["participants"] == expected["participants"]
    assert ctx["representation"]["purpose"] == expected["purpose"]
    assert ctx["pending_question"]["status"] == "answered"
    assert {k: v for k, v in ctx.items() if k not in ("representation", "pending_question")} == {
        k: v for k, v in original.items() if k != "pending_question"
    }
    assert len(history(item)) == 1
    assert history(item)[0].actor == {"type": "system", "id": "review-app"}
    events = list(ClarificationEvent.objects.filter(item_id=item.pk))
    assert len(events) == 1
    assert events[0].actor_label == f"bk{winner}"
    assert events[0].payload["history_event_id"] == str(history(item)[0].pk)
    assert events[0].payload["after"] == ctx
    assert conversation(conv)[0]["recent_questions"][0]["status"] == "answered"
    for index, (_, outcome) in enumerate(runs):
        if index != winner:
            data = outcome["result"].json()
            assert data["reason"] == "not_open"
            assert data["current"]["summary"]["representation"]["purpose"] == expected["purpose"]


# --- The intake writing another key while the app answers --------------------------------------


def _pause_app_before_the_lock(monkeypatch: pytest.MonkeyPatch, go: threading.Event, paused: threading.Event) -> None:
    real = writing.validate

    def paused_validate(*args: Any, **kwargs: Any) -> Any:
        paused.set()
        assert go.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr(writing, "validate", paused_validate)


def _intake_writes_before_the_app_locks(item: InboxItem, user: User, run: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app has started (validating) when the intake reads and writes; then the app locks and reads."""
    go, paused = threading.Event(), threading.Event()
    _pause_app_before_the_lock(monkeypatch, go, paused)
    app, outcome = answer_in_thread(item, user, f"Svar {run}")
    assert paused.wait(timeout=30)
    intake.write_key(item.pk, "quality", {"blur_score": run})
    go.set()
    join(app)
    assert "error" not in outcome, outcome.get("error")


def _intake_write_in_flight_when_the_app_locks(item: InboxItem, user: User, run: int) -> None:
    """The intake's UPDATE holds the row when the app asks for it: the app waits, then reads the intake's row."""
    written, release = threading.Event(), threading.Event()

    def slow_write() -> None:
        with transaction.atomic(using=BOOKKEEPING_DB):
            intake.write_key(item.pk, "quality", {"blur_score": run})
            written.set()
            assert release.wait(timeout=30)

    writer, writer_outcome = in_thread(slow_write)
    assert written.wait(timeout=30)
    app, outcome = answer_in_thread(item, user, f"Svar {run}")
    wait_until(lambda: waiting_on_a_lock() >= 1)
    release.set()
    join(writer)
    join(app)
    assert "error" not in writer_outcome, writer_outcome.get("error")
    assert "error" not in outcome, outcome.get("error")


def _intake_reads_after_the_app_committed(item: InboxItem, user: User, run: int) -> None:
    """The intake's read comes after the answer's commit: its write carries the answer along."""
    read, release = threading.Event(), threading.Event()

    def between() -> None:
        read.set()
        assert release.wait(timeout=30)

    app, outcome = answer_in_thread(item, user, f"Svar {run}")
    join(app)
    assert "error" not in outcome, outcome.get("error")
    writer, writer_outcome = in_thread(
        lambda: intake.write_key(item.pk, "quality", {"blur_score": run}, between=between)
    )
    assert read.wait(timeout=30)
    release.set()
    join(writer)
    assert "error" not in writer_outcome, writer_outcome.get("error")


def test_an_intake_write_of_another_key_racing_an_answer_both_survive_12_of_12(monkeypatch):
    interleavings = [
        lambda item, user, run: _intake_writes_before_the_app_locks(item, user, run, monkeypatch),
        _intake_write_in_flight_when_the_app_locks,
        _intake_reads_after_the_app_committed,
    ]
    user = answerer("bea-race")
    survived = 0
    for run in range(RUNS):
        monkeypatch.undo()
        item = moved_item("context")
        interleavings[run % len(interleavings)](item, user, run)
        ctx = stored_context(item)
        if ctx.get("quality") == {"blur_score": run} and ctx.get("user_note") == f"Svar {run}":
            survived += 1
        assert ctx["pending_question"]["status"] == "answered"
    assert survived == RUNS


def test_at_random_moments_an_answer_is_never_lost_silently_12_of_12():
    """Uncontrolled timing: the intake's key always survives; the answer survives or its loss is shown.

    The one interleaving no second program can prevent (the intake reads
    before the answer commits and writes after it) replaces the answer; the
    app then reports it through ``replaced_answer``.
    """
    user = answerer("bea-random")
    rng = random.Random(13)
    for run in range(RUNS):
        item = moved_item("context")
        start = threading.Barrier(2)
        delay = rng.uniform(0, 0.02)

        def intake_write(
            item: InboxItem = item, run: int = run, delay: float = delay, start: threading.Barrier = start
        ) -> None:
            start.wait(timeout=30)
            intake.write_key(item.pk, "quality", {"blur_score": run}, between=lambda: time.sleep(delay))

        def app_answer(item: InboxItem = item, run: int = run, start: threading.Barrier = start) -> None:
            start.wait(timeout=30)
            answer_question(item_id=item.pk, user=user, answer=ContextAnswer(text=f"Svar {run}"))

        threads = [in_thread(intake_write), in_thread(app_answer)]
        for thread, outcome in threads:
            join(thread)
            assert "error" not in outcome, outcome.get("error")
        item.refresh_from_db()
        ctx = item.channel_context
        assert ctx["quality"] == {"blur_score": run}
        if ctx.get("user_note") != f"Svar {run}":
            replaced = replaced_answer(item, app_answers(item.pk))
            assert replaced is not None
            assert replaced.yours.summary == f"Svar {run}"


def test_the_lost_update_the_intake_can_cause_is_detected():
    """The intake read before the answer committed and writes after: the answer is gone, and the app says so."""
    item = moved_item("context")
    user = answerer("bea-lost")
    read, release = threading.Event(), threading.Event()

    def between() -> None:
        read.set()
        assert release.wait(timeout=30)

    writer, writer_outcome = in_thread(lambda: intake.write_key(item.pk, "caption", "ny", between=between))
    assert read.wait(timeout=30)
    answer_question(item_id=item.pk, user=user, answer=ContextAnswer(text="Taxi"))
    release.set()
    join(writer)
    assert "error" not in writer_outcome
    item.refresh_from_db()
    assert "user_note" not in item.channel_context
    replaced = replaced_answer(item, app_answers(item.pk))
    assert replaced is not None
    assert replaced.yours.summary == "Taxi"
    assert replaced.replaced_by is None


# --- The chat answers first; the conversation's compare-and-set -----------------------------------


def test_a_late_chat_reply_committed_first_wins_and_the_app_writes_nothing():
    """The chat settles the question while the app's answer waits on the row lock."""
    item = moved_item("context")
    user = answerer("bea2")
    chat_has_lock = threading.Event()
    chat_may_commit = threading.Event()

    def chat_reply() -> None:
        with transaction.atomic(using=BOOKKEEPING_DB):
            intake.answer_context(item.pk, text="från chatten")
            chat_has_lock.set()
            assert chat_may_commit.wait(timeout=30)

    chat, chat_outcome = in_thread(chat_reply)
    assert chat_has_lock.wait(timeout=30)
    app, app_outcome = answer_in_thread(item, user, "från appen")
    wait_until(lambda: waiting_on_a_lock() >= 1)
    chat_may_commit.set()
    join(chat)
    join(app)
    assert "error" not in chat_outcome, chat_outcome.get("error")
    assert isinstance(app_outcome.get("error"), AnswerConflict)
    assert app_outcome["error"].reason == "not_open"
    ctx = stored_context(item)
    assert ctx["user_note"] == "från chatten"
    assert not ClarificationEvent.objects.filter(item_id=item.pk).exists()
    assert [row.actor for row in history(item)] == [intake.INBOUND]


def test_the_intakes_conversation_write_retries_after_the_apps_and_keeps_both():
    """The intake read the conversation before the answer; its compare-and-set fails once, then builds on ours."""
    item = moved_item("context")
    conv = make_conversation(item)
    user = answerer("bea-cas")
    read_once, release = threading.Event(), threading.Event()
    attempts: list[dict[str, Any]] = []

    def change(context: dict[str, Any], state: str) -> tuple[dict[str, Any], str]:
        attempts.append(context)
        if len(attempts) == 1:
            read_once.set()
            assert release.wait(timeout=30)
        return {**context, "pin_expires_at": "2026-08-12T17:31:07.123Z"}, state

    writer, writer_outcome = in_thread(lambda: intake.update_conversation(conv, change))
    assert read_once.wait(timeout=30)
    answer_question(item_id=item.pk, user=user, answer=ContextAnswer(text="Taxi"))
    release.set()
    join(writer)
    assert "error" not in writer_outcome, writer_outcome.get("error")
    assert len(attempts) == 2  # the first compare-and-set found our write and retried
    context, _, _ = conversation(conv)
    assert context["pin_expires_at"] == "2026-08-12T17:31:07.123Z"
    assert context["recent_questions"][0]["status"] == "answered"


def test_jsonb_refuses_nul_so_validation_must_catch_it_first():
    """Why NUL is a validation message: PostgreSQL itself cannot store it in jsonb."""
    from django.db import DataError

    item = moved_item("context")
    with pytest.raises(DataError), transaction.atomic(using=BOOKKEEPING_DB):
        InboxItem.objects.filter(pk=item.pk).update(channel_context={"user_note": "a\x00b"})
    client = Client()
    client.force_login(answerer("bea5"))
    response = client.post(
        reverse("api_item_answer", args=[item.pk]),
        json.dumps({"question": "context", "text": "a\x00b"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "text" in response.json()["errors"]
