"""Concurrent answers and concurrent writers, on PostgreSQL (row locks are real there).

Run with ``DATABASE_URL=postgres://... pytest tests/answers/test_answer_races.py``;
on SQLite these tests are skipped with the reason shown.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from reviewapp import answers
from reviewapp.answers import writing
from reviewapp.models import ClarificationEvent, InboxItem
from tests.answers.conftest import moved_item

THREADS = 8

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def answerer(username: str) -> User:
    """A user who may answer, by permission (independent of the role groups)."""
    user = User.objects.create_user(username=username)
    user.user_permissions.add(Permission.objects.get(codename="answer_question", content_type__app_label="reviewapp"))
    return User.objects.get(pk=user.pk)


def in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = target()
        except BaseException as error:  # reported by the test
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def join(thread: threading.Thread) -> None:
    thread.join(timeout=60)
    assert not thread.is_alive(), "a thread hung"


def slow_critical_section(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Widen the window between the check and the write, so racers really overlap."""
    real = answers.answered_context

    def slowly(*args: Any, **kwargs: Any) -> dict[str, Any]:
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(writing, "answered_context", slowly)


def waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


def wait_until(condition: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def test_many_bookkeepers_answering_at_once_exactly_one_wins(monkeypatch):
    item = moved_item("representation")
    original = dict(item.channel_context)
    clients = []
    for index in range(THREADS):
        client = Client()
        client.force_login(answerer(f"bk{index}"))
        clients.append(client)
    slow_critical_section(monkeypatch, 0.05)
    start = threading.Barrier(THREADS)
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

    runs = [in_thread(answer(index)) for index in range(THREADS)]
    for thread, _ in runs:
        join(thread)
    assert all("error" not in outcome for _, outcome in runs), [o.get("error") for _, o in runs]
    statuses = [outcome["result"].status_code for _, outcome in runs]
    assert sorted(statuses) == [200] + [409] * (THREADS - 1)
    winner = statuses.index(200)

    item.refresh_from_db()
    ctx = item.channel_context
    expected = body(winner)
    assert ctx["representation"]["participants"] == expected["participants"]
    assert ctx["representation"]["purpose"] == expected["purpose"]
    assert ctx["representation"]["event_date"] == expected["event_date"]
    assert ctx["pending_question"]["status"] == "answered"
    assert {k: v for k, v in ctx.items() if k not in ("representation", "pending_question")} == {
        k: v for k, v in original.items() if k != "pending_question"
    }

    events = list(ClarificationEvent.objects.filter(item=item))
    assert len(events) == 1
    assert events[0].actor_label == f"bk{winner}"
    assert events[0].payload["after"] == ctx

    for index, (_, outcome) in enumerate(runs):
        if index == winner:
            continue
        data = outcome["result"].json()
        assert data["reason"] == "not_open"
        assert data["current"]["summary"]["representation"]["purpose"] == expected["purpose"]


def test_a_late_chat_reply_committed_first_wins_and_the_app_writes_nothing(monkeypatch):
    """The chat settles the question (raw SQL) while the app's answer waits on the row lock."""
    item = moved_item("context")
    user = answerer("bea2")
    chat_has_lock = threading.Event()
    chat_may_commit = threading.Event()

    def chat_reply() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "UPDATE invoice_inbox_items SET channel_context = channel_context"
                " || jsonb_build_object('user_note', 'från chatten')"
                " || jsonb_build_object('pending_question',"
                "    jsonb_set(channel_context->'pending_question', '{status}', '\"answered\"'))"
                " WHERE id = %s",
                [item.pk],
            )
            chat_has_lock.set()
            chat_may_commit.wait(timeout=30)

    chat, chat_outcome = in_thread(chat_reply)
    assert chat_has_lock.wait(timeout=30)
    app, app_outcome = in_thread(
        lambda: answers.answer_question(item_id=item.pk, user=user, answer=answers.ContextAnswer(text="från appen"))
    )
    wait_until(lambda: waiting_on_a_lock() >= 1)  # the app waits for the chat's row lock
    chat_may_commit.set()
    join(chat)
    join(app)
    assert "error" not in chat_outcome
    assert isinstance(app_outcome.get("error"), answers.AnswerConflict)
    item.refresh_from_db()
    assert item.channel_context["user_note"] == "från chatten"
    assert "context_answer" not in item.channel_context
    assert not ClarificationEvent.objects.filter(item=item).exists()


def test_a_raw_sql_writer_waiting_on_the_app_keeps_its_change_and_the_app_keeps_its_own(monkeypatch):
    """The app holds the row lock; another program updates another key meanwhile."""
    item = moved_item("context")
    user = answerer("bea3")
    app_holds_lock = threading.Event()
    writer_waiting = threading.Event()
    real = answers.answered_context

    def pause_inside_the_lock(*args: Any, **kwargs: Any) -> dict[str, Any]:
        app_holds_lock.set()
        assert writer_waiting.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr(writing, "answered_context", pause_inside_the_lock)
    app, app_outcome = in_thread(
        lambda: answers.answer_question(item_id=item.pk, user=user, answer=answers.ContextAnswer(text="från appen"))
    )
    assert app_holds_lock.wait(timeout=30)

    def raw_writer() -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE invoice_inbox_items SET channel_context = jsonb_set(channel_context, '{mail_x}', '\"y\"')"
                " WHERE id = %s",
                [item.pk],
            )

    writer, writer_outcome = in_thread(raw_writer)
    wait_until(lambda: waiting_on_a_lock() >= 1)  # the writer is blocked on the app's lock
    writer_waiting.set()
    join(app)
    join(writer)
    assert "error" not in app_outcome, app_outcome.get("error")
    assert "error" not in writer_outcome

    item.refresh_from_db()
    ctx = item.channel_context
    assert ctx["mail_x"] == "y"
    assert ctx["user_note"] == "från appen"
    assert ctx["context_answer"]["raw_answer"] == "från appen"
    assert ctx["pending_question"]["status"] == "answered"
    assert ctx["mail_subject"] == "Kvitto"


def test_a_raw_sql_writer_that_commits_first_keeps_its_change():
    """Another program holds the row with a change to another key; the app waits, then builds on it."""
    item = moved_item("context")
    user = answerer("bea4")
    writer_has_lock = threading.Event()
    writer_may_commit = threading.Event()

    def raw_writer() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "UPDATE invoice_inbox_items SET channel_context = jsonb_set(channel_context, '{peppol_x}', '\"z\"')"
                " WHERE id = %s",
                [item.pk],
            )
            writer_has_lock.set()
            writer_may_commit.wait(timeout=30)

    writer, writer_outcome = in_thread(raw_writer)
    assert writer_has_lock.wait(timeout=30)
    app, app_outcome = in_thread(
        lambda: answers.answer_question(item_id=item.pk, user=user, answer=answers.ContextAnswer(text="från appen"))
    )
    wait_until(lambda: waiting_on_a_lock() >= 1)
    writer_may_commit.set()
    join(writer)
    join(app)
    assert "error" not in writer_outcome
    assert "error" not in app_outcome, app_outcome.get("error")

    item.refresh_from_db()
    assert item.channel_context["peppol_x"] == "z"
    assert item.channel_context["user_note"] == "från appen"
    event = ClarificationEvent.objects.get(item=item)
    assert event.payload["before"]["peppol_x"] == "z"  # the app read the writer's version under the lock


def test_jsonb_refuses_nul_so_validation_must_catch_it_first():
    """Why NUL is a validation message: PostgreSQL itself cannot store it in jsonb."""
    from django.db import DataError

    item = moved_item("context")
    with pytest.raises(DataError), transaction.atomic():
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
