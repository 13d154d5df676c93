"""The states the list filters on agree with the clarifications summary.

Every golden case with a channel_context becomes an item. For each state the
ids the list returns must be exactly the cases whose summary (the golden
file's expected summary, produced by the reference implementation) is in
that state; ``malformed`` comes from the library's problems, which the golden
file does not record. Then other programs change rows with plain SQL, and the
list must follow. Run on SQLite by default and on PostgreSQL with
DATABASE_URL (the CI runs both).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, connections
from django.http import QueryDict
from django.urls import reverse

import clarifications
from reviewapp import inbox, states
from reviewapp.models import InboxItem
from tests import factories

GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "clarifications.jsonl"


def _golden_cases() -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [case for case in cases if "channel_context" in case["input"]]


def expected_states(summary: dict[str, Any] | None, channel_context: object) -> set[str]:
    """The states a summary (the TypeScript shape) is in, read independently of states.py."""
    found = set()
    if clarifications.analyse(channel_context).problems:
        found.add("malformed")
    if summary is None:
        return found | {"no_answers"}
    question = summary["openQuestion"]
    if question is None:
        found.add("answered")
    elif question["status"] == "moved_to_app":
        found.add("needs_answer")
    elif question["status"] == "open":
        found.add("waiting_in_chat")
    if summary["representationDenied"]:
        found.add("denied")
    if summary["representationPurposeMissing"]:
        found.add("purpose_missing")
    return found


# The golden file has no malformed input (the reference cannot report one);
# these are, with their summary from the library the golden file checks.
MALFORMED_CONTEXTS: list[Any] = [
    {"channel": "whatsapp", "representation": "ja"},
    {"channel": "whatsapp", "user_note": 42, "representation": {"participants": {"name": "Eva"}}},
    {"channel": "whatsapp", "pending_question": {"type": "x" * 60, "asked_at": "igår", "status": "moved_to_app"}},
    {"channel": "whatsapp", "representation": {"participants": [{"name": "Eva"}], "denied": "true"}},
    ["not", "an", "object"],
]


def _load_golden_items() -> dict[str, dict[str, Any]]:
    """Create one item per golden case (and malformed extra); return case data by item id."""
    company = factories.make_company()
    loaded = {}
    cases = [
        (case["name"], case["input"]["channel_context"], case["input"].get("item"), case["expected"]["summary"])
        for case in _golden_cases()
    ]
    for n, ctx in enumerate(MALFORMED_CONTEXTS):
        summary = clarifications.summarise(ctx)
        cases.append((f"malformed {n}", ctx, None, summary.to_json() if summary else None))
    for name, ctx, item_input, summary in cases:
        extracted = (item_input or {}).get("extracted_data")
        item = factories.make_item(company=company, channel_context=ctx, extracted_data=extracted)
        loaded[str(item.id)] = {"name": name, "context": ctx, "summary": summary}
    return loaded


def _api_ids(client: Any, **params: str) -> set[str]:
    data = client.get(reverse("api_items"), {"page_size": "500", **params}).json()
    assert data["count"] == len(data["results"])
    return {row["id"] for row in data["results"]}


def _assert_list_agrees(client: Any, expected: dict[str, set[str]]) -> None:
    """The API's ids per state, its facet counts and the page's counts all match ``expected``."""
    for key in states.STATE_KEYS:
        want = {item_id for item_id, item_states in expected.items() if key in item_states}
        assert _api_ids(client, state=key) == want, key
    facets = client.get(reverse("api_items")).json()["facets"]
    assert facets == {key: sum(key in s for s in expected.values()) for key in states.STATE_KEYS}
    page = client.get(reverse("inbox")).content.decode()
    for key, count in facets.items():
        assert f'data-state="{key}">{count}<' in page


def _sql_json(value: object) -> tuple[str, list[Any]]:
    """A placeholder and params that store ``value`` in a JSON column via plain SQL."""
    if value is None:
        return "NULL", []
    placeholder = "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"
    return placeholder, [json.dumps(value, ensure_ascii=False)]


def _db_id(value: uuid.UUID) -> str:
    return str(value) if connection.vendor == "postgresql" else value.hex


def raw_update_context(item_id: str, value: object) -> None:
    placeholder, params = _sql_json(value)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE invoice_inbox_items SET channel_context = {placeholder} WHERE id = %s",  # noqa: S608
            [*params, _db_id(uuid.UUID(item_id))],
        )


def raw_insert(company_id: uuid.UUID, channel_context: object) -> str:
    """Insert a row the way the chat intake does: only the columns it knows."""
    new_id = uuid.uuid4()
    placeholder, params = _sql_json(channel_context)
    with connection.cursor() as cursor:
        cursor.execute(
            # Only the columns the chat intake knows: every column of ours has a database default.
            "INSERT INTO invoice_inbox_items (id, company_id, channel_context)"  # noqa: S608
            f" VALUES (%s, %s, {placeholder})",
            [_db_id(new_id), _db_id(company_id), *params],
        )
    return str(new_id)


@pytest.mark.django_db
def test_every_golden_case_is_listed_under_exactly_the_states_of_its_summary(qa_client):
    loaded = _load_golden_items()
    assert len(loaded) >= 30
    expected = {item_id: expected_states(case["summary"], case["context"]) for item_id, case in loaded.items()}
    # The golden file exercises every state, or this test would prove little.
    assert set().union(*expected.values()) == set(states.STATE_KEYS)
    _assert_list_agrees(qa_client, expected)


@pytest.mark.django_db
def test_the_api_summary_is_the_golden_summary(qa_client):
    loaded = _load_golden_items()
    data = qa_client.get(reverse("api_items"), {"page_size": "500"}).json()
    for row in data["results"]:
        assert row["summary"] == loaded[row["id"]]["summary"], loaded[row["id"]]["name"]


@pytest.mark.django_db
def test_the_list_follows_channel_context_changed_by_plain_sql(qa_client):
    loaded = _load_golden_items()
    ids = list(loaded)
    cases = [loaded[i] for i in ids]
    # Rotate: every row gets the next case's context, written behind the app's back.
    for item_id, case in zip(ids, cases[1:] + cases[:1], strict=True):
        raw_update_context(item_id, case["context"])
    assert InboxItem.objects.filter(states_stale=True).count() == len(ids)
    expected = {
        item_id: expected_states(case["summary"], case["context"])
        for item_id, case in zip(ids, cases[1:] + cases[:1], strict=True)
    }
    _assert_list_agrees(qa_client, expected)
    assert not InboxItem.objects.filter(states_stale=True).exists()


@pytest.mark.django_db
def test_a_row_inserted_by_plain_sql_is_listed_under_its_states(qa_client, company):
    moved = {"channel": "whatsapp", "pending_question": {"type": "resend", "asked_at": "2026-11-01T09:00:00Z"}}
    moved["pending_question"]["status"] = "moved_to_app"
    new_id = raw_insert(company.id, moved)
    null_id = raw_insert(company.id, None)
    assert _api_ids(qa_client, state="needs_answer", type="resend") == {new_id}
    assert _api_ids(qa_client, state="no_answers") == {null_id}
    row = InboxItem.objects.get(pk=new_id)
    assert row.open_question_asked_at is not None
    assert row.open_question_asked_at.isoformat() == "2026-11-01T09:00:00+00:00"


@pytest.mark.django_db
def test_a_plain_sql_write_of_the_same_value_does_not_mark_the_row_stale(company):
    item = factories.make_item(company=company, channel_context={"channel": "whatsapp", "user_note": "x"})
    raw_update_context(str(item.id), {"channel": "whatsapp", "user_note": "x"})
    with connection.cursor() as cursor:
        cursor.execute("UPDATE invoice_inbox_items SET status = 'done'")
    assert not InboxItem.objects.filter(states_stale=True).exists()


@pytest.mark.django_db
def test_a_plain_sql_change_to_extracted_data_refreshes_the_search_text(qa_client, company):
    item = factories.make_item(company=company, extracted_data={"supplier": {"name": "Gamla Leverantören"}})
    placeholder, params = _sql_json({"supplier": {"name": "Nya Bageriet"}})
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE invoice_inbox_items SET extracted_data = {placeholder} WHERE id = %s",  # noqa: S608
            [*params, _db_id(item.id)],
        )
    assert _api_ids(qa_client, q="bageriet") == {str(item.id)}
    assert _api_ids(qa_client, q="gamla") == set()


@pytest.mark.django_db
def test_neighbours_see_plain_sql_changes_too(company):
    first = factories.make_item(company=company, channel_context={"channel": "whatsapp", "user_note": "a"})
    second = factories.make_item(company=company, channel_context={"channel": "whatsapp", "user_note": "b"})
    raw_update_context(
        str(first.id),
        {"channel": "whatsapp", "pending_question": {"type": "context", "asked_at": None, "status": "moved_to_app"}},
    )
    assert inbox.neighbours(second, QueryDict("state=needs_answer")) == (None, first)


@pytest.mark.django_db
def test_the_stale_marking_trigger_exists_after_all_migrations():
    # A later migration that remakes the table on SQLite would drop it silently.
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = 'invoice_inbox_items'::regclass")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'invoice_inbox_items'")
        names = {row[0] for row in cursor.fetchall()}
    assert "invoice_inbox_items_mark_stale" in names


@pytest.mark.django_db
def test_refreshing_a_large_backlog_works_in_batches(company):
    items = [factories.make_item(company=company, channel_context=None) for _ in range(7)]
    with connection.cursor() as cursor:
        placeholder, params = _sql_json({"channel": "whatsapp", "user_note": "ny"})
        cursor.execute(f"UPDATE invoice_inbox_items SET channel_context = {placeholder}", params)  # noqa: S608
    assert inbox.refresh_stale_states(batch_size=3) == len(items)
    assert InboxItem.objects.filter(state_answered=True).count() == len(items)


# --- PostgreSQL: a writer racing the refresh ----------------------------------


def _other_connection_update(item_id: uuid.UUID, value: object, done: threading.Event, errors: list[str]) -> None:
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SET statement_timeout = 20000")
            cursor.execute(
                "UPDATE invoice_inbox_items SET channel_context = CAST(%s AS jsonb) WHERE id = %s",
                [json.dumps(value), str(item_id)],
            )
    except Exception as exc:  # reported to the test thread
        errors.append(repr(exc))
    finally:
        other.close()
        done.set()


def _writer_is_waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        # Activity statistics are a snapshot per transaction; we are inside one.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
            " AND query LIKE 'UPDATE invoice_inbox_items%%'"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_writer_racing_the_refresh_never_has_its_newer_value_overwritten(monkeypatch, company):
    note = {"channel": "whatsapp", "user_note": "first"}
    moved = {"channel": "whatsapp", "pending_question": {"type": "context", "status": "moved_to_app"}}
    item = factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    raw_update_context(str(item.id), note)  # stale, to be refreshed from "note"
    done, errors, raced = threading.Event(), [], []
    real_compute = states.compute

    def compute_while_a_writer_changes_the_row(channel_context: object, extracted_data: object = None) -> Any:
        # The refresh holds the row lock now; another program writes meanwhile.
        if channel_context == note and not raced:
            raced.append(True)
            threading.Thread(target=_other_connection_update, args=(item.id, moved, done, errors)).start()
            deadline = time.monotonic() + 10
            while not _writer_is_waiting_for_a_lock():
                assert time.monotonic() < deadline, "the writer never queued behind the refresh's row lock"
                time.sleep(0.02)
        return real_compute(channel_context, extracted_data)

    monkeypatch.setattr(states, "compute", compute_while_a_writer_changes_the_row)
    inbox.refresh_stale_states()
    assert raced, "the refresh never computed from the first value"
    assert done.wait(20)
    assert not errors
    row = InboxItem.objects.get(pk=item.id)
    assert row.channel_context == moved
    # Either the writer landed after our commit and the trigger marked the row
    # stale again, or the refresh's second pass (rows still stale after the
    # first) already recomputed it from the newer value; which one depends on
    # timing. Never may states computed from "note" stand on "moved".
    assert row.states_stale or (row.state_needs_answer and not row.state_answered)
    monkeypatch.setattr(states, "compute", real_compute)
    inbox.refresh_stale_states()
    row.refresh_from_db()
    assert row.state_needs_answer
    assert not row.state_answered
    assert not row.states_stale


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_row_locked_by_an_open_writer_is_waited_for_then_refreshed(company):
    item = factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    raw_update_context(str(item.id), {"channel": "whatsapp", "user_note": "x"})
    other = connections.create_connection("default")
    other.inc_thread_sharing()  # the timer thread commits it
    try:
        other.set_autocommit(False)
        with other.cursor() as cursor:
            cursor.execute("SELECT 1 FROM invoice_inbox_items WHERE id = %s FOR UPDATE", [str(item.id)])
        releaser = threading.Timer(0.3, other.commit)
        releaser.start()
        started = time.monotonic()
        assert inbox.refresh_stale_states() == 1
        assert time.monotonic() - started >= 0.25
        releaser.join()
    finally:
        other.close()
    assert InboxItem.objects.get(pk=item.id).state_answered
