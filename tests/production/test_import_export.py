"""import_items / export_items: accounted's real rows, every column, idempotent, line by line, round trip."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connections

import clarifications
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.items import transfer
from reviewapp.models import IndexedItem
from tests import factories

GOLDEN = Path(settings.BASE_DIR).parent / "shared" / "golden" / "clarifications.jsonl"
MOVED_CONTEXT = {
    "channel": "whatsapp",
    "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00.000Z", "status": "moved_to_app"},
}


def _sql(query: str, params: list | None = None) -> list[tuple]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(query, params or [])
        return list(cursor.fetchall()) if cursor.description else []


def _columns() -> list[str]:
    return [
        name
        for (name,) in _sql(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name = 'invoice_inbox_items'"
        )
    ]


def _golden_cases() -> list[dict]:
    cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [case for case in cases if "channel_context" in case["input"]]


def _golden_lines(company) -> list[str]:  # type: ignore[no-untyped-def]
    """One line per golden case in accounted's row shape, leaving out what has a default."""
    start = dt.datetime(2026, 8, 1, 8, 0, tzinfo=dt.UTC)
    lines = []
    for n, case in enumerate(_golden_cases()):
        item = case["input"].get("item") or {}
        created = (start + dt.timedelta(minutes=n)).isoformat()
        row = {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"golden:{case['name']}")),
            "user_id": str(company.created_by),
            "company_id": str(company.pk),
            "source": "whatsapp",
            "extracted_data": item.get("extracted_data") or {},
            "channel_context": case["input"]["channel_context"],
            "created_at": created,
            "updated_at": created,
        }
        lines.append(json.dumps(row, ensure_ascii=False))
    return lines


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _import(path: Path) -> tuple[str, str, int]:
    out, err = StringIO(), StringIO()
    try:
        call_command("import_items", str(path), stdout=out, stderr=err)
        code = 0
    except CommandError as error:
        err.write(str(error))
        code = error.returncode
    return out.getvalue(), err.getvalue(), code


def _export_file(tmp_path: Path, *args: str) -> Path:
    target = tmp_path / f"export-{uuid.uuid4().hex}.jsonl"
    call_command("export_items", "--output", str(target), *args, stdout=StringIO())
    return target


def _export(tmp_path: Path, *args: str) -> list[dict]:
    text = _export_file(tmp_path, *args).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _empty_the_inbox() -> None:
    # As an empty replica: the items go (messages pointing at them are set to NULL by the FK).
    _sql("DELETE FROM public.invoice_inbox_items")
    IndexedItem.objects.all().delete()


@pytest.mark.django_db
def test_export_writes_every_column_of_the_real_row_even_ones_the_app_does_not_know(tmp_path):
    # accounted adds a column the app has never heard of.
    _sql("ALTER TABLE public.invoice_inbox_items ADD COLUMN ai_confidence numeric")
    item = factories.make_item()
    _sql("UPDATE public.invoice_inbox_items SET ai_confidence = 0.875 WHERE id = %s", [item.pk])
    [row] = _export(tmp_path)
    assert set(row) == set(_columns())
    assert "ai_confidence" in row
    assert row["ai_confidence"] == 0.875
    assert row["id"] == str(item.pk)
    assert row["user_id"] == str(item.user_id)
    assert row["correlation_id"] == str(item.correlation_id)
    assert dt.datetime.fromisoformat(row["created_at"]) == item.created_at


@pytest.mark.django_db
def test_the_golden_cases_round_trip_byte_identical(tmp_path, company):
    lines = _golden_lines(company)
    assert len(lines) >= 30
    out, err, code = _import(_write(tmp_path / "golden.jsonl", lines))
    assert (code, err) == (0, "")
    assert out.strip() == f"{len(lines)} created, 0 updated, 0 unchanged, 0 bad line(s)."
    assert IndexedItem.objects.count() == len(lines)

    # What the agent is told about each item is still what the golden file expects.
    exported = {row["id"]: row for row in _export(tmp_path)}
    for case, line in zip(_golden_cases(), lines, strict=True):
        context = exported[json.loads(line)["id"]]["channel_context"]
        assert clarifications.render_notes(context) == case["expected"]["notes"], case["name"]
        summary = clarifications.summarise(context)
        assert (clarifications.render_lines(summary) if summary else []) == case["expected"]["lines"], case["name"]

    first = _export_file(tmp_path)
    _empty_the_inbox()
    out, _, code = _import(first)
    assert (code, out.strip()) == (0, f"{len(lines)} created, 0 updated, 0 unchanged, 0 bad line(s).")
    assert _export_file(tmp_path).read_bytes() == first.read_bytes()


@pytest.mark.django_db
def test_the_demo_data_round_trips_byte_identical_big_numbers_and_all(tmp_path):
    call_command("seed_demo", items=60, seed=3, no_users=True, stdout=StringIO())
    first = _export_file(tmp_path)
    assert len(first.read_text(encoding="utf-8").splitlines()) == 60
    assert "9" * 5000 in first.read_text(encoding="utf-8")
    _empty_the_inbox()
    out, err, code = _import(first)
    assert (code, err, out.strip()) == (0, "", "60 created, 0 updated, 0 unchanged, 0 bad line(s).")
    assert _export_file(tmp_path).read_bytes() == first.read_bytes()
    # The list has them back, in the same states as before.
    assert IndexedItem.objects.count() == 60
    assert IndexedItem.objects.filter(state_booked=True).exists()
    assert IndexedItem.objects.filter(state_malformed=True, malformed_reason__contains="digits").count() == 1


@pytest.mark.django_db
def test_importing_the_same_file_twice_changes_nothing(tmp_path, company):
    path = _write(tmp_path / "golden.jsonl", _golden_lines(company))
    _import(path)
    before = dict(InboxItem.objects.values_list("pk", "updated_at"))
    out, _, code = _import(path)
    assert code == 0
    assert out.strip() == f"0 created, 0 updated, {len(before)} unchanged, 0 bad line(s)."
    assert dict(InboxItem.objects.values_list("pk", "updated_at")) == before


@pytest.mark.django_db
def test_a_known_id_is_updated_to_the_lines_values_and_listed_in_its_new_state(tmp_path):
    item = factories.make_item(channel_context={"channel": "whatsapp"})
    assert IndexedItem.objects.get(pk=item.pk).state_no_answers
    line = {"id": str(item.pk), "channel_context": MOVED_CONTEXT, "updated_at": "2026-08-04T10:00:00+00:00"}
    out, _, code = _import(_write(tmp_path / "one.jsonl", [json.dumps(line)]))
    assert (code, out.strip()) == (0, "0 created, 1 updated, 0 unchanged, 0 bad line(s).")
    fresh = InboxItem.objects.get(pk=item.pk)
    assert fresh.channel_context == MOVED_CONTEXT
    # Columns the line leaves out keep their values.
    assert (fresh.whatsapp_message_id, fresh.correlation_id, fresh.extracted_data) == (
        item.whatsapp_message_id,
        item.correlation_id,
        item.extracted_data,
    )
    # accounted's trigger sets updated_at on every update, whatever the line says.
    assert fresh.updated_at != dt.datetime(2026, 8, 4, 10, tzinfo=dt.UTC)
    indexed = IndexedItem.objects.get(pk=item.pk)
    assert (indexed.state_needs_answer, indexed.open_question_type) == (True, "context")


@pytest.mark.django_db
def test_bad_lines_are_reported_by_number_and_nothing_of_them_is_written(tmp_path, company):
    good = [json.loads(line) for line in _golden_lines(company)[:3]]
    lines = [
        json.dumps(good[0]),  # 1
        "{not json",  # 2
        json.dumps({**good[1], "id": "not-a-uuid"}),  # 3
        "",  # 4: blank lines are skipped, not bad
        json.dumps({**good[1], "channel_context": {"user_note": "a\u0000b"}}),  # 5
        json.dumps({**good[1], "company_id": str(uuid.uuid4())}),  # 6: no such company
        json.dumps([1, 2]),  # 7
        json.dumps(good[1]).replace('"source": "whatsapp"', '"source": NaN'),  # 8
        json.dumps({**good[2], "created_at": "last tuesday"}),  # 9
        json.dumps(good[2]),  # 10
        json.dumps({**good[1], "status": "booked"}),  # 11: outside accounted's CHECK
        json.dumps({k: v for k, v in good[1].items() if k != "id"}),  # 12
    ]
    out, err, code = _import(_write(tmp_path / "mixed.jsonl", lines))
    assert code == 1
    assert out.strip() == "2 created, 0 updated, 0 unchanged, 9 bad line(s)."
    reported = [line.split(":")[0] for line in err.splitlines() if line.startswith("line ")]
    assert reported == [f"line {n}" for n in (2, 3, 5, 6, 7, 8, 9, 11, 12)]
    assert "line 5: NUL character (\\u0000) in $.channel_context.user_note" in err
    assert 'line 6: the database refused it: insert or update on table "invoice_inbox_items"' in err
    assert "companies" in err
    assert "line 11: the database refused it" in err
    assert "invoice_inbox_items_status_check" in err
    assert 'line 12: "id" is missing' in err
    assert "9 bad line(s) skipped" in err
    assert set(InboxItem.objects.values_list("id", flat=True)) == {uuid.UUID(good[0]["id"]), uuid.UUID(good[2]["id"])}
    assert set(IndexedItem.objects.values_list("id", flat=True)) == {uuid.UUID(good[0]["id"]), uuid.UUID(good[2]["id"])}


@pytest.mark.django_db
def test_a_line_python_cannot_read_is_stored_as_the_database_reads_it(tmp_path, company):
    line = json.dumps(json.loads(_golden_lines(company)[0]) | {"channel_context": "PLACEHOLDER"})
    line = line.replace('"PLACEHOLDER"', '{"channel": "whatsapp", "amount": ' + "7" * 5000 + "}")
    out, err, code = _import(_write(tmp_path / "big.jsonl", [line]))
    assert (code, err, out.strip()) == (0, "", "1 created, 0 updated, 0 unchanged, 0 bad line(s).")
    assert _sql("SELECT length(channel_context ->> 'amount') FROM public.invoice_inbox_items") == [(5000,)]
    assert IndexedItem.objects.get().state_malformed


@pytest.mark.django_db
def test_keys_that_are_not_columns_are_ignored_and_said_so(tmp_path, company):
    row = json.loads(_golden_lines(company)[0]) | {"company": {"name": "Old format AB"}}
    out, err, code = _import(_write(tmp_path / "one.jsonl", [json.dumps(row)]))
    assert (code, out.strip()) == (0, "1 created, 0 updated, 0 unchanged, 0 bad line(s).")
    assert "ignored 'company' on 1 line(s): the table has no such column" in err


@pytest.mark.django_db
def test_import_refuses_a_database_that_is_not_a_replica(tmp_path, company):
    path = _write(tmp_path / "golden.jsonl", _golden_lines(company))
    _sql("COMMENT ON SCHEMA public IS NULL")
    with pytest.raises(CommandError, match="not a replica made by create_bookkeeping_replica"):
        call_command("import_items", str(path), stdout=StringIO(), stderr=StringIO())
    assert not InboxItem.objects.exists()


@pytest.mark.django_db
def test_export_by_state_hands_on_only_those_items(tmp_path, company):
    denied = factories.make_item(
        company=company,
        channel_context={
            "channel": "whatsapp",
            "representation": {"participants": [], "purpose": None, "denied": True, "raw_answer": "nej"},
        },
    )
    waiting = factories.make_item(
        company=company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00.000Z", "status": "open"},
        },
    )
    factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    assert [r["id"] for r in _export(tmp_path, "--state", "denied")] == [str(denied.pk)]
    both = {r["id"] for r in _export(tmp_path, "--state", "denied", "--state", "waiting_in_chat")}
    assert both == {str(denied.pk), str(waiting.pk)}
    assert len(_export(tmp_path)) == 3


@pytest.mark.django_db
def test_export_by_state_sees_a_change_another_program_made_with_plain_sql(tmp_path):
    item = factories.make_item(channel_context={"channel": "whatsapp"})
    _sql(
        "UPDATE public.invoice_inbox_items SET channel_context = %s::jsonb WHERE id = %s",
        [json.dumps(MOVED_CONTEXT), item.pk],
    )
    assert [r["id"] for r in _export(tmp_path, "--state", "needs_answer")] == [str(item.pk)]
    assert _export(tmp_path, "--state", "no_answers") == []


@pytest.mark.django_db
def test_export_by_state_pages_through_items_received_at_the_same_moment(tmp_path, monkeypatch, company):
    monkeypatch.setattr(transfer, "CHUNK", 2)
    items = [factories.make_item(company=company, channel_context=MOVED_CONTEXT) for _ in range(5)]
    assert len({item.created_at for item in items}) == 1  # one transaction: one now()
    exported = [r["id"] for r in _export(tmp_path, "--state", "needs_answer")]
    assert exported == sorted(str(item.pk) for item in items)
    assert [r["id"] for r in _export(tmp_path)] == exported


@pytest.mark.django_db
def test_export_to_stdout_writes_one_object_a_line():
    factories.make_item()
    factories.make_item()
    out, err = StringIO(), StringIO()
    call_command("export_items", stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert all(set(json.loads(line)) == set(_columns()) for line in lines)
    assert "2 item(s) exported." in err.getvalue()


def test_export_refuses_an_unknown_state():
    with pytest.raises(CommandError):
        call_command("export_items", "--state", "lost", stdout=StringIO(), stderr=StringIO())


@pytest.mark.django_db
def test_import_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_items", str(tmp_path / "nope.jsonl"))
