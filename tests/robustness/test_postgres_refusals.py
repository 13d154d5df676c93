"""What PostgreSQL refuses to store (U+0000 in jsonb and text, lone surrogates) becomes a message, never a 500.

The refusal can only meet the app where it writes: golden cases, imported
rows, answers (tests/robustness/test_malformed_data.py), logins and searches.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import GoldenCase, IndexedItem
from tests.robustness.conftest import lenient, staff_superuser


def test_a_golden_case_holding_nul_is_refused_with_a_message_naming_nul(qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(
        reverse("golden_case_create"), {"channel_context": '{"user_note": "a\\u0000b"}', "name": "nul"}
    )
    assert response.status_code == 200
    assert "This case cannot be stored: its input holds a NUL character (\\u0000)." in response.content.decode()
    assert not GoldenCase.objects.exists()


def test_a_golden_case_holding_half_an_emoji_is_refused_with_a_message(qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(
        reverse("golden_case_create"), {"channel_context": '{"user_note": "half \\ud83d"}', "name": "half"}
    )
    assert response.status_code == 200
    assert "half an emoji" in response.content.decode()
    assert not GoldenCase.objects.exists()


def test_import_reports_nul_and_lone_surrogate_lines_and_writes_none_of_them(db, tmp_path, company) -> None:  # type: ignore[no-untyped-def]
    def line(item_id: str, note: str) -> str:
        row = {"id": item_id, "user_id": str(company.created_by), "company_id": str(company.pk), "source": "whatsapp"}
        return json.dumps(row)[:-1] + f', "channel_context": {{"user_note": "{note}"}}}}\n'

    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        line("11111111-1111-1111-1111-111111111111", "a\\u0000")
        + line("21111111-1111-1111-1111-111111111111", "\\ud800")
        + line("31111111-1111-1111-1111-111111111111", "\\u0000 in the middle \\udfff")
    )
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_items", str(rows), stdout=out, stderr=err)
    assert "line 1: NUL character" in err.getvalue()
    assert "line 2: lone surrogate" in err.getvalue()
    assert "line 3: NUL character" in err.getvalue()
    assert not InboxItem.objects.exists()
    assert not IndexedItem.objects.exists()


@pytest.mark.parametrize("url", ["login", "admin:login"])
def test_a_login_with_nul_in_the_username_is_a_form_error(url, db) -> None:  # type: ignore[no-untyped-def]
    response = lenient().post(reverse(url), {"username": "a\x00b", "password": "x\x00y"})
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()


def test_a_search_for_nul_in_the_admin_is_not_a_server_error(db) -> None:  # type: ignore[no-untyped-def]
    staff = lenient(staff_superuser())
    for model in ("indexeditem", "goldencase", "clarificationevent", "apitoken"):
        response = staff.get(reverse(f"admin:reviewapp_{model}_changelist") + "?q=a%00b")
        assert response.status_code < 500, model


def test_a_search_for_nul_in_the_list_and_the_api_is_not_a_server_error(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    client = lenient(bookkeeper)
    assert client.get(reverse("inbox") + "?q=a%00b").status_code == 200
    assert client.get(reverse("api_items") + "?q=a%00b").status_code in (200, 400)
