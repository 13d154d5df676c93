"""The 48-hour sweep: exactly once per question, idempotent, race-safe, touching nothing else."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import Count
from django.test.utils import CaptureQueriesContext

from reviewapp import sweep
from reviewapp.models import ClarificationEvent, InboxItem
from tests import factories

NOW = dt.datetime(2026, 8, 3, 9, 0, tzinfo=dt.UTC)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _context(asked_at: object, *, status: str = "open", qtype: str = "representation") -> dict[str, object]:
    return {
        "channel": "whatsapp",
        "caption": "lunch med kund",
        "user_note": "kundlunch",
        "pending_question": {"type": qtype, "asked_at": asked_at, "status": status},
        "wa_thread": {"id": "thread-1", "turns": 3},
    }


def _item(asked_at: object, **kwargs: object) -> InboxItem:
    return factories.make_item(channel_context=_context(asked_at, **kwargs))  # type: ignore[arg-type]


def _expired_events(item: InboxItem) -> list[ClarificationEvent]:
    return list(ClarificationEvent.objects.filter(item=item, event_type="ChannelQuestionExpired"))


@pytest.mark.django_db
def test_a_question_open_for_more_than_48_hours_moves_to_the_app():
    asked = NOW - dt.timedelta(hours=48, seconds=1)
    item = _item(_iso(asked), qtype="context")
    before = dict(item.channel_context)

    result = sweep.expire_questions(now=NOW)

    assert result.expired == [item.pk]
    item.refresh_from_db()
    assert item.channel_context["pending_question"] == {
        "type": "context",
        "asked_at": _iso(asked),
        "status": "moved_to_app",
    }
    untouched = {k: v for k, v in item.channel_context.items() if k != "pending_question"}
    assert untouched == {k: v for k, v in before.items() if k != "pending_question"}
    # The list's columns follow: the bookkeeper's queue now holds it.
    assert item.state_needs_answer is True
    assert item.state_waiting_in_chat is False
    (event,) = _expired_events(item)
    assert event.question_type == "context"
    assert event.channel == "whatsapp"
    assert event.actor is None
    assert event.actor_label == "expire_questions"
    assert event.occurred_at == NOW
    assert event.payload == {"asked_at": _iso(asked), "expired_at": "2026-08-03T09:00:00+00:00"}


@pytest.mark.django_db
def test_exactly_48_hours_is_not_yet_expired_and_one_second_more_is():
    item = _item(_iso(NOW - dt.timedelta(hours=48)))
    assert sweep.expire_questions(now=NOW).expired == []
    item.refresh_from_db()
    assert item.channel_context["pending_question"]["status"] == "open"
    assert sweep.expire_questions(now=NOW + dt.timedelta(seconds=1)).expired == [item.pk]


@pytest.mark.django_db
def test_a_second_run_changes_nothing_and_records_no_second_event():
    item = _item(_iso(NOW - dt.timedelta(days=3)))
    assert sweep.expire_questions(now=NOW).expired == [item.pk]
    item.refresh_from_db()
    after_first = (item.channel_context, item.updated_at)

    with CaptureQueriesContext(connection) as queries:
        second = sweep.expire_questions(now=NOW + dt.timedelta(hours=1))

    assert second.expired == []
    item.refresh_from_db()
    assert (item.channel_context, item.updated_at) == after_first
    assert len(_expired_events(item)) == 1
    assert not [q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT"))]


@pytest.mark.django_db
def test_rows_that_do_not_qualify_are_not_written_at_all():
    due = _item(_iso(NOW - dt.timedelta(days=3)))
    others = [
        _item(_iso(NOW - dt.timedelta(hours=1))),  # still within the chat's 48 hours
        _item(_iso(NOW - dt.timedelta(days=9)), status="moved_to_app"),
        _item(_iso(NOW - dt.timedelta(days=9)), status="answered"),
        _item("yesterday"),
        factories.make_item(channel_context={"channel": "whatsapp", "user_note": "kontorsmaterial"}),
        factories.make_item(channel_context=None),
    ]
    before = {o.pk: (o.updated_at, o.channel_context) for o in InboxItem.objects.filter(pk__in=[o.pk for o in others])}

    with CaptureQueriesContext(connection) as queries:
        result = sweep.expire_questions(now=NOW)

    assert result.expired == [due.pk]
    after = {o.pk: (o.updated_at, o.channel_context) for o in InboxItem.objects.filter(pk__in=[o.pk for o in others])}
    assert after == before
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("UPDATE")]
    assert len(updates) == 1  # the due row, and nothing else
    assert ClarificationEvent.objects.count() == 1


@pytest.mark.django_db
def test_an_unreadable_asked_at_is_left_alone_and_reported():
    bad = _item("yesterday")
    missing = _item(None)
    stderr = StringIO()
    stdout = StringIO()

    call_command("expire_questions", "--now", "2026-08-03T09:00:00Z", stdout=stdout, stderr=stderr)

    assert "Expired 0 question(s)." in stdout.getvalue()
    report = stderr.getvalue()
    assert "2 open question(s) have no readable asked_at" in report
    assert str(bad.pk) in report
    assert str(missing.pk) in report
    bad.refresh_from_db()
    assert bad.channel_context["pending_question"]["status"] == "open"
    assert not ClarificationEvent.objects.exists()


@pytest.mark.django_db
def test_an_open_question_written_behind_the_apps_back_is_still_expired():
    # Another program (plain SQL) set the question; the state columns still
    # say "no answers" and the row is marked stale until someone recomputes.
    item = factories.make_item(channel_context={"channel": "whatsapp"})
    InboxItem.objects.filter(pk=item.pk).update(
        channel_context=_context(_iso(NOW - dt.timedelta(days=2, minutes=1))), states_stale=True
    )
    assert InboxItem.objects.get(pk=item.pk).state_waiting_in_chat is False

    assert sweep.expire_questions(now=NOW).expired == [item.pk]

    item.refresh_from_db()
    assert item.channel_context["pending_question"]["status"] == "moved_to_app"
    # The app's own write recomputed the columns (the database may still mark
    # the row for one more recompute: it cannot tell who wrote).
    assert item.state_needs_answer is True
    assert item.state_waiting_in_chat is False


@pytest.mark.django_db
def test_small_batches_reach_every_due_question():
    items = [_item(_iso(NOW - dt.timedelta(days=3, minutes=i))) for i in range(7)]
    _item(_iso(NOW - dt.timedelta(hours=2)))
    result = sweep.expire_questions(now=NOW, batch_size=2)
    assert sorted(result.expired) == sorted(i.pk for i in items)


@pytest.mark.django_db
def test_the_command_prints_how_many_it_expired():
    _item(_iso(NOW - dt.timedelta(days=3)))
    out = StringIO()
    call_command("expire_questions", "--now", "2026-08-03T11:00:00+02:00", "--batch-size", "10", stdout=out)
    assert out.getvalue().strip() == "Expired 1 question(s)."


@pytest.mark.django_db
@pytest.mark.parametrize("args", [["--now", "tomorrow"], ["--batch-size", "0"]])
def test_the_command_refuses_bad_arguments(args):
    with pytest.raises(CommandError):
        call_command("expire_questions", *args)


# --- PostgreSQL: two sweeps at once, and rows held by someone else -------------


def _due_items(n: int) -> list[uuid.UUID]:
    company = factories.make_company()
    return [
        factories.make_item(company=company, channel_context=_context(_iso(NOW - dt.timedelta(days=3, seconds=i)))).pk
        for i in range(n)
    ]


def _in_thread(target, *args):  # type: ignore[no-untyped-def]
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = target(*args)
        except BaseException as exc:  # reported to the test below
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_expire_each_question_exactly_once():
    pks = _due_items(120)
    start = threading.Barrier(2)

    def one_sweep() -> sweep.SweepResult:
        start.wait(timeout=30)
        return sweep.expire_questions(now=NOW, batch_size=7)

    runs = [_in_thread(one_sweep) for _ in range(2)]
    for thread, _ in runs:
        thread.join(timeout=120)
        assert not thread.is_alive()
    results = [outcome["result"] for _, outcome in runs]
    assert all("error" not in outcome for _, outcome in runs)

    expired = [pk for r in results for pk in r.expired]  # type: ignore[attr-defined]
    assert sorted(expired) == sorted(pks)  # nobody twice, nobody missed
    per_item = (
        ClarificationEvent.objects.filter(event_type="ChannelQuestionExpired").values("item").annotate(n=Count("id"))
    )
    assert len(per_item) == 120
    assert {row["n"] for row in per_item} == {1}
    assert not InboxItem.objects.filter(channel_context__pending_question__status="open").exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_sweep_skips_rows_another_transaction_holds_and_a_later_run_takes_them():
    pks = _due_items(10)
    held = pks[:3]
    locked = threading.Event()
    release = threading.Event()

    def hold_rows() -> None:
        with transaction.atomic():
            list(InboxItem.objects.select_for_update().filter(pk__in=held))
            locked.set()
            release.wait(timeout=60)

    holder, holder_outcome = _in_thread(hold_rows)
    assert locked.wait(timeout=30)
    try:
        sweeper, outcome = _in_thread(lambda: sweep.expire_questions(now=NOW, batch_size=4))
        sweeper.join(timeout=60)
        assert not sweeper.is_alive(), "the sweep waited for a locked row instead of skipping it"
        assert "error" not in outcome
        assert sorted(outcome["result"].expired) == sorted(pks[3:])  # type: ignore[attr-defined]
    finally:
        release.set()
        holder.join(timeout=60)
    assert "error" not in holder_outcome

    later = sweep.expire_questions(now=NOW)
    assert sorted(later.expired) == sorted(held)
    assert ClarificationEvent.objects.filter(event_type="ChannelQuestionExpired").count() == 10


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_row_inserted_by_plain_sql_with_an_old_open_question_is_expired():
    import json

    company = factories.make_company()
    item_id = uuid.uuid4()
    with connection.cursor() as cursor:
        # The bookkeeping application's columns (document_file has no database
        # default yet), as another program writes them.
        cursor.execute(
            "INSERT INTO invoice_inbox_items (id, company_id, status, source, channel_context, document_file) "
            "VALUES (%s, %s, 'pending', 'whatsapp', %s::jsonb, '')",
            [item_id, company.pk, json.dumps(_context(_iso(NOW - dt.timedelta(days=4))))],
        )
    assert sweep.expire_questions(now=NOW).expired == [item_id]
    assert InboxItem.objects.get(pk=item_id).channel_context["pending_question"]["status"] == "moved_to_app"
