"""import_items / export_items: the bookkeeping row shape, idempotent, line by line, round-tripping the golden cases."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

import clarifications
from reviewapp.models import Company, InboxItem
from reviewapp.transfer import ROW_KEYS
from tests import factories

GOLDEN = Path(settings.BASE_DIR).parent / "shared" / "golden" / "clarifications.jsonl"
COMPANY = {"id": "0b7e3c2a-5f1d-4c1e-9a57-3f8d2b6c1a00", "name": "Golden AB", "organisation_number": "5560000001"}


def _golden_cases() -> list[dict]:
    cases = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    return [case for case in cases if "channel_context" in case["input"]]


def _golden_rows() -> list[dict]:
    """One bookkeeping row per golden case; document ids become UUIDs as the column requires."""
    rows = []
    start = dt.datetime(2026, 8, 1, 8, 0, tzinfo=dt.UTC)
    for n, case in enumerate(_golden_cases()):
        item = case["input"].get("item") or {}
        doc = item.get("document_id")
        created = (start + dt.timedelta(minutes=n, microseconds=n)).isoformat()
        rows.append(
            {
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"golden:{case['name']}")),
                "company_id": COMPANY["id"],
                "status": "pending",
                "source": "whatsapp",
                "document_id": str(uuid.uuid5(uuid.NAMESPACE_URL, doc)) if doc else None,
                "extracted_data": item.get("extracted_data"),
                "channel_context": case["input"]["channel_context"],
                "whatsapp_message_id": f"wamid.golden.{n}",
                "correlation_id": None,
                "created_at": created,
                "updated_at": created,
                "company": COMPANY,
            }
        )
    return rows


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _import(path: Path) -> tuple[str, str, int]:
    out, err = StringIO(), StringIO()
    try:
        call_command("import_items", str(path), stdout=out, stderr=err)
        code = 0
    except CommandError as exc:
        err.write(str(exc))
        code = exc.returncode
    return out.getvalue(), err.getvalue(), code


def _export(tmp_path: Path, *args: str) -> list[dict]:
    target = tmp_path / f"export-{uuid.uuid4().hex}.jsonl"
    call_command("export_items", "--output", str(target), *args, stdout=StringIO())
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def _same_row(a: dict, b: dict) -> bool:
    def norm(row: dict) -> dict:
        out = dict(row)
        for key in ("created_at", "updated_at"):
            out[key] = dt.datetime.fromisoformat(out[key])
        return out

    return norm(a) == norm(b)


@pytest.mark.django_db
def test_the_golden_cases_round_trip_through_export_and_import(tmp_path):
    rows = _golden_rows()
    assert len(rows) == 33
    out, err, code = _import(_write(tmp_path / "golden.jsonl", [json.dumps(r) for r in rows]))
    assert (code, err) == (0, "")
    assert out.strip() == "33 created, 0 updated, 0 unchanged, 0 bad line(s)."

    exported = _export(tmp_path)
    assert [list(row) for row in exported] == [[*ROW_KEYS, "company"]] * 33
    assert len(exported) == len(rows)
    for original, again in zip(rows, exported, strict=True):
        assert _same_row(original, again), original["id"]

    # What the agent is told about each item is still what the golden file expects.
    by_id = {row["id"]: row for row in exported}
    for case, row in zip(_golden_cases(), rows, strict=True):
        context = by_id[row["id"]]["channel_context"]
        assert clarifications.render_notes(context) == case["expected"]["notes"], case["name"]
        summary = clarifications.summarise(context)
        assert (clarifications.render_lines(summary) if summary else []) == case["expected"]["lines"], case["name"]

    # Into an empty database and out again: the same file.
    target = tmp_path / "first.jsonl"
    call_command("export_items", "--output", str(target), stdout=StringIO())
    InboxItem.objects.all().delete()
    Company.objects.all().delete()
    out, err, code = _import(target)
    assert (code, out.strip()) == (0, "33 created, 0 updated, 0 unchanged, 0 bad line(s).")
    second = tmp_path / "second.jsonl"
    call_command("export_items", "--output", str(second), stdout=StringIO())
    assert second.read_text() == target.read_text()


@pytest.mark.django_db
def test_importing_the_same_file_twice_changes_nothing(tmp_path):
    path = _write(tmp_path / "golden.jsonl", [json.dumps(r) for r in _golden_rows()])
    _import(path)
    before = {i.pk: i.updated_at for i in InboxItem.objects.all()}
    out, _, code = _import(path)
    assert code == 0
    assert out.strip() == "0 created, 0 updated, 33 unchanged, 0 bad line(s)."
    assert {i.pk: i.updated_at for i in InboxItem.objects.all()} == before


@pytest.mark.django_db
def test_a_known_id_is_updated_to_the_lines_values_and_its_states_recomputed(tmp_path):
    company = factories.make_company()
    item = factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    assert item.state_no_answers is True
    row = {
        "id": str(item.pk),
        "company_id": str(company.pk),
        "status": "booked",
        "channel_context": {
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00Z", "status": "moved_to_app"},
        },
        "updated_at": "2026-08-04T10:00:00+00:00",
    }
    out, _, code = _import(_write(tmp_path / "one.jsonl", [json.dumps(row)]))
    assert (code, out.strip()) == (0, "0 created, 1 updated, 0 unchanged, 0 bad line(s).")
    item.refresh_from_db()
    assert item.status == "booked"
    assert item.state_needs_answer is True
    assert item.open_question_type == "context"
    assert item.updated_at == dt.datetime(2026, 8, 4, 10, tzinfo=dt.UTC)
    assert item.whatsapp_message_id is not None  # a key the line leaves out is left as it was


@pytest.mark.django_db
def test_bad_lines_are_reported_by_number_and_the_good_ones_imported(tmp_path):
    good = _golden_rows()[:3]
    no_company = {**good[0], "id": str(uuid.uuid4()), "company_id": str(uuid.uuid4())}
    del no_company["company"]
    lines = [
        json.dumps(good[0]),  # 1
        "{not json",  # 2
        json.dumps({**good[1], "id": "not-a-uuid"}),  # 3
        "",  # 4: blank lines are skipped, not bad
        json.dumps({**good[1], "channel_context": {"user_note": "a\u0000b"}}),  # 5
        json.dumps(no_company),  # 6
        json.dumps([1, 2]),  # 7
        '{"id": "' + str(uuid.uuid4()) + '", "company_id": "' + COMPANY["id"] + '", "extracted_data": NaN}',  # 8
        json.dumps({**good[2], "created_at": "last tuesday"}),  # 9
        json.dumps(good[2]),  # 10
        json.dumps({**good[1], "status": "x" * 41}),  # 11
    ]
    out, err, code = _import(_write(tmp_path / "mixed.jsonl", lines))
    assert code == 1
    assert out.strip() == "2 created, 0 updated, 0 unchanged, 8 bad line(s)."
    reported = [line.split(":")[0] for line in err.splitlines() if line.startswith("line ")]
    assert reported == ["line 2", "line 3", "line 5", "line 6", "line 7", "line 8", "line 9", "line 11"]
    assert "line 5: NUL character (\\u0000) in $.channel_context.user_note" in err
    assert "line 6: company " in err
    assert "8 bad line(s) skipped" in err
    assert set(InboxItem.objects.values_list("id", flat=True)) == {uuid.UUID(good[0]["id"]), uuid.UUID(good[2]["id"])}


@pytest.mark.django_db
def test_an_invalid_line_writes_nothing_not_even_its_company(tmp_path):
    row = {**_golden_rows()[0], "whatsapp_message_id": "w" * 201}
    row["company"] = {**COMPANY, "id": row["company_id"]}
    _, err, code = _import(_write(tmp_path / "one.jsonl", [json.dumps(row)]))
    assert code == 1
    assert "line 1: whatsapp_message_id is longer than 200 characters" in err
    assert not InboxItem.objects.exists()
    assert not Company.objects.exists()


@pytest.mark.django_db
def test_a_database_error_mid_line_rolls_that_line_back_and_the_next_line_still_imports(tmp_path, monkeypatch):
    from django.db import DatabaseError

    from reviewapp import transfer

    rows = _golden_rows()[:2]
    real_save = InboxItem.save

    def failing_save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(self.pk) == rows[0]["id"]:
            raise DatabaseError("simulated failure after the company was written")
        return real_save(self, *args, **kwargs)

    monkeypatch.setattr(InboxItem, "save", failing_save)
    monkeypatch.setattr(transfer, "CHUNK", 10)
    other_company = {**COMPANY, "id": str(uuid.uuid4()), "name": "Only In Line One AB"}
    first = {**rows[0], "company_id": other_company["id"], "company": other_company}
    _, err, code = _import(_write(tmp_path / "two.jsonl", [json.dumps(first), json.dumps(rows[1])]))
    assert code == 1
    assert "line 1: the database refused it: simulated failure" in err
    assert not Company.objects.filter(name="Only In Line One AB").exists()
    assert list(InboxItem.objects.values_list("id", flat=True)) == [uuid.UUID(rows[1]["id"])]


@pytest.mark.django_db
def test_export_by_state_hands_on_only_those_items(tmp_path):
    company = factories.make_company()
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
            "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00Z", "status": "open"},
        },
    )
    factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    assert [r["id"] for r in _export(tmp_path, "--state", "denied")] == [str(denied.pk)]
    both = {r["id"] for r in _export(tmp_path, "--state", "denied", "--state", "waiting_in_chat")}
    assert both == {str(denied.pk), str(waiting.pk)}
    assert len(_export(tmp_path)) == 3


@pytest.mark.django_db
def test_export_judges_rows_changed_behind_the_apps_back_by_their_json(tmp_path):
    item = factories.make_item(channel_context={"channel": "whatsapp"})
    InboxItem.objects.filter(pk=item.pk).update(
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "resend", "asked_at": "2026-08-01T09:00:00Z", "status": "moved_to_app"},
        },
        states_stale=True,
    )
    assert [r["id"] for r in _export(tmp_path, "--state", "needs_answer")] == [str(item.pk)]
    assert _export(tmp_path, "--state", "no_answers") == []


@pytest.mark.django_db
def test_export_to_stdout_writes_one_object_a_line():
    factories.make_item()
    factories.make_item()
    out = StringIO()
    call_command("export_items", stdout=out, stderr=StringIO())
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert all(set(json.loads(line)) == {*ROW_KEYS, "company"} for line in lines)


def test_export_refuses_an_unknown_state():
    with pytest.raises(CommandError):
        call_command("export_items", "--state", "lost", stdout=StringIO(), stderr=StringIO())


@pytest.mark.django_db
def test_import_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_items", str(tmp_path / "nope.jsonl"))
