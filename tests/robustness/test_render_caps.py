"""Render caps: no stored value makes a page or an answer unbounded.

A 300 KB row holding a 26 MB string gave a 173 MB item page; 20 KB of JSON
nested 5 000 deep pretty-printed to 48 MB. ``reviewapp.core.rendering_caps`` cuts
and indents to a fixed depth; the download view gives the whole stored value.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from reviewapp.core import rendering_caps
from reviewapp.core.rendering_caps import CappedText, TextBudget, capped_json, capped_text
from reviewapp.models import CompanyAssignment
from tests import factories
from tests.robustness.conftest import lenient, store_text, stored_text

MB = 1_000_000


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": [value]}
    return value


# --- capped_text ------------------------------------------------------------------------


def test_a_26_mb_string_is_cut_to_the_cap_and_says_how_long_it_was():
    text = "ö" * 26_000_000
    capped = capped_text(text, max_chars=10_000)
    assert capped == CappedText("ö" * 10_000, True, 26_000_000)


def test_a_short_string_is_kept_whole():
    assert capped_text("Fika med kund", max_chars=100) == CappedText("Fika med kund", False, 13)
    assert capped_text("abcd", max_chars=4) == CappedText("abcd", False, 4)


def test_a_shared_budget_is_never_overspent_however_many_values_take_from_it():
    budget = TextBudget(10_000)
    taken = [budget.take("x" * 3_000, max_chars=4_096) for _ in range(200)]
    assert sum(len(part.text) for part in taken) == 10_000
    assert [len(part.text) for part in taken[:4]] == [3_000, 3_000, 3_000, 1_000]
    assert all(part.truncated for part in taken[3:])
    assert taken[-1].text == ""


def test_the_per_field_caps_add_up_to_at_most_one_megabyte_per_page():
    assert rendering_caps.PAGE_MAX_CHARS == MB
    assert rendering_caps.page_budget() <= rendering_caps.PAGE_MAX_CHARS


# --- capped_json ------------------------------------------------------------------------


def test_a_26_mb_string_in_json_is_cut_at_the_cap_without_building_the_whole_text():
    value = {"user_note": "x" * 26_000_000}
    tracemalloc.start()
    try:
        capped = capped_json(value, max_chars=200_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    prefix = '{\n  "user_note": "'
    assert len(capped.text) == 200_000
    assert capped.text == prefix + "x" * (200_000 - len(prefix))
    assert capped.truncated
    assert capped.original_chars == 26_000_000 + len(json.dumps({"user_note": ""}, indent=2))
    # Never the 26 MB text, not even once: a few chunks and the kept part.
    assert peak < 5 * MB


def test_json_nested_5000_deep_is_capped_without_recursion_error_and_its_output_stays_small():
    value = _nested(2_500)  # 5 000 levels: an object and a list each time
    compact = json.dumps(value)  # about 20 KB; indenting every level would print about 50 MB
    whole = capped_json(value, max_chars=MB)
    assert not whole.truncated
    assert json.loads(whole.text) == value
    assert len(whole.text) < len(compact) + 1_000
    capped = capped_json(value, max_chars=10_000)
    assert len(capped.text) == 10_000
    assert capped.truncated
    assert capped.original_chars == len(whole.text)


def test_json_nested_100_000_deep_is_written_though_python_cannot_dump_it():
    value: Any = []
    for _ in range(100_000):
        value = [value]
    with pytest.raises(RecursionError):
        json.dumps(value)
    capped = capped_json(value, max_chars=50_000)
    assert capped.truncated
    assert len(capped.text) == 50_000
    # Six levels indented (the default depth), the 99 995 below them on one line.
    opening = "".join("[\n" + "  " * (level + 1) for level in range(6))
    closing = "".join("\n" + "  " * level + "]" for level in reversed(range(6)))
    expected = opening + "[" * 99_994 + "[]" + "]" * 99_994 + closing
    assert capped.text == expected[:50_000]
    assert capped.original_chars == len(expected)


def test_indentation_stops_at_the_fixed_depth():
    value = _nested(20)
    text = capped_json(value, max_chars=MB, max_depth=3).text
    lines = text.split("\n")
    assert max(len(line) - len(line.lstrip(" ")) for line in lines) == 6
    assert len(lines) == 7
    assert lines[3] == '      "a": ' + json.dumps(_nested(19)["a"])


def test_within_the_depth_it_is_exactly_json_dumps_with_indent_and_beyond_it_exactly_compact():
    value = {
        "pending_question": {"type": "representation", "status": "moved_to_app", "asked_at": None},
        "representation": {"participants": [{"name": 'Anna "Bea" Berg', "company": "Kund AB"}], "purpose": "möte"},
        "empty": {},
        "none": [],
        "numbers": [0, -0.0, 1.5, 10**20, True, False],
        "control": "tab\tnewline\n\u001b",
    }
    assert capped_json(value, max_chars=MB, max_depth=99).text == json.dumps(value, indent=2, ensure_ascii=False)
    assert capped_json(value, max_chars=MB, max_depth=0).text == json.dumps(value, ensure_ascii=False)


def test_one_level_indented_looks_like_this():
    text = capped_json({"a": {"b": [1, 2]}, "c": "d"}, max_chars=MB, max_depth=1).text
    assert text == '{\n  "a": {"b": [1, 2]},\n  "c": "d"\n}'


def test_a_value_json_cannot_spell_is_still_written():
    value = {"big": 10**5000, "nan": float("nan"), 1: None}
    text = capped_json(value, max_chars=MB, max_depth=0).text
    assert text.startswith('{"big": "<an integer of about 5001 digits>", "nan": NaN, "1": null}')


# --- The download ---------------------------------------------------------------------------


def _download(client, item_id, column: str):  # type: ignore[no-untyped-def]
    return client.get(reverse("item_raw", args=[item_id, column]))


@pytest.mark.parametrize(
    ("column", "stored"),
    [
        pytest.param("channel_context", "[" * 10_000 + "]" * 10_000, id="context-nested-10000-deep"),
        pytest.param("channel_context", '{"n": ' + "9" * 5_000 + "}", id="context-5000-digits"),
        pytest.param("extracted_data", '{"totals": {"total": ' + "9" * 5_000 + "}}", id="data-5000-digits"),
        pytest.param("channel_context", json.dumps({"user_note": "ö€😀" * 1_000_000}), id="context-3-million-chars"),
    ],
)
def test_the_download_streams_exactly_the_stored_text(column, stored, support) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item()
    store_text(item.pk, column, stored)
    response = _download(lenient(support), item.pk, column)
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="{item.pk}-{column}.json"'
    body = b"".join(response.streaming_content)
    assert body == stored_text(item.pk, column).encode("utf-8")
    if "ö" in stored:
        assert json.loads(body) == json.loads(stored)


def test_the_download_of_an_unreadable_row_holds_every_digit(qa) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item()
    store_text(item.pk, "extracted_data", '{"totals": {"total": ' + "9" * 5_000 + "}}")
    body = b"".join(_download(lenient(qa), item.pk, "extracted_data").streaming_content).decode()
    assert body == '{"totals": {"total": ' + "9" * 5_000 + "}}"


def test_a_bookkeeper_may_not_download_the_raw_json(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(channel_context={"channel": "whatsapp", "mail_subject": "raw-only"})
    client = lenient(bookkeeper)
    for column in ("channel_context", "extracted_data"):
        response = _download(client, item.pk, column)
        assert response.status_code == 403
        assert b"raw-only" not in response.content


def test_the_download_of_another_companys_item_is_a_404_like_a_missing_item(db) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = factories.make_item(), factories.make_item()
    user = factories.make_user()
    user.user_permissions.add(Permission.objects.get(codename="view_raw_context"))
    CompanyAssignment.objects.create(user=user, company_id=ours.company_id)
    client = lenient(user)
    assert _download(client, ours.pk, "channel_context").status_code == 200
    refused = _download(client, theirs.pk, "channel_context")
    assert refused.status_code == 404
    assert not refused.streaming


def test_the_download_needs_a_login(client, db) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item()
    response = _download(client, item.pk, "channel_context")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_only_the_two_json_columns_an_existing_item_and_a_stored_value_download(support) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item()
    store_text(item.pk, "extracted_data", None)
    client = lenient(support)
    assert _download(client, item.pk, "error_message").status_code == 404
    assert _download(client, item.pk, "channel_context;DROP").status_code == 404
    assert _download(client, "00000000-0000-0000-0000-000000000000", "channel_context").status_code == 404
    assert _download(client, item.pk, "extracted_data").status_code == 404
    assert client.post(reverse("item_raw", args=[item.pk, "channel_context"])).status_code == 405


# --- The item page and its API ------------------------------------------------------------

HUGE = 3_000_000  # characters: 26 MB behaves the same, only slower


@pytest.mark.parametrize("who", ["bookkeeper", "support"])
def test_the_item_page_and_its_api_stay_under_the_bound_for_a_huge_stored_string(who, request, db) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(
        channel_context={
            "channel": "whatsapp",
            "caption": "c" * HUGE,
            "user_note": "n" * HUGE,
            "pending_question": {"type": "context", "status": "answered", "asked_at": "2026-08-01T09:00:00.000Z"},
            "context_answer": {"raw_answer": "r" * HUGE, "answered_at": "2026-08-01T10:00:00.000Z"},
        },
        extracted_data={"supplier": {"name": "ICA " * (HUGE // 4)}},
    )
    client = lenient(request.getfixturevalue(who))
    page = client.get(reverse("item_detail", args=[item.pk]))
    api = client.get(reverse("api_item", args=[item.pk]))
    assert page.status_code == api.status_code == 200
    assert len(page.content) < 1.2 * MB
    assert len(api.content) < 1.2 * MB


def test_the_raw_context_of_json_nested_5000_deep_is_indented_to_a_fixed_depth_on_the_item_page(support) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(channel_context={"channel": "whatsapp", "deep": _nested(2_500)})
    page = lenient(support).get(reverse("item_detail", args=[item.pk]))
    assert page.status_code == 200
    assert len(page.content) < 1.2 * MB
    assert " " * (2 * rendering_caps.JSON_INDENT_DEPTH + 2) + '"a"' not in page.content.decode()


def test_the_item_page_of_1_000_long_named_participants_stays_under_the_bound(bookkeeper, support) -> None:  # type: ignore[no-untyped-def]
    people = [{"name": f"{i} " + "N" * 3_000, "company": "C" * 3_000} for i in range(1_000)]
    item = factories.make_item(
        channel_context={
            "channel": "whatsapp",
            "pending_question": {
                "type": "representation",
                "status": "moved_to_app",
                "asked_at": "2026-08-01T09:00:00.000Z",
            },
            "representation": {"participants": people, "purpose": None},
        }
    )
    for user in (support, bookkeeper):
        client = lenient(user)
        for url in (
            reverse("api_item", args=[item.pk]),
            reverse("item_detail", args=[item.pk]),
            reverse("item_answer", args=[item.pk]),
        ):
            response = client.get(url)
            assert response.status_code in (200, 403), url
            assert len(response.content) < 1.2 * MB, url


def _huge_suppliers() -> object:
    company = factories.make_company()
    for _ in range(25):
        factories.make_item(company, extracted_data={"supplier": {"name": "ICA " * 100_000}})
    return company


def test_the_list_and_its_api_stay_under_the_bound_for_items_with_huge_supplier_names(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    company = _huge_suppliers()
    client = lenient(bookkeeper)
    for url in (reverse("inbox"), reverse("api_items")):
        response = client.get(url, {"company": str(company.pk)})
        assert response.status_code == 200, url
        assert len(response.content) < 1.2 * MB, url
