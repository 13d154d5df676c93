"""Whatever JSON another program stored in accounted's row, every page that shows it answers (never a 500).

The row is written with plain SQL on the bookkeeping database and indexed,
as ``sync_index`` does a moment later; the list reads the read model, the
item page, its API and the answer form read the live row.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.db import DataError, connections, transaction
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.readmodel import sync
from tests import factories
from tests.answers.conftest import representation_post
from tests.robustness.conftest import (
    admin_urls,
    item_urls,
    lenient,
    moved,
    raw_urls,
    snapshot,
    store_raw,
    store_text,
    stored_text,
)

PENDING = {"type": "representation", "asked_at": "2026-08-01T09:00:00Z", "status": "moved_to_app"}


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": [value]}
    return value


CHANNEL_CONTEXTS: dict[str, Any] = {
    "null": None,
    "string": "representation",
    "number": 42,
    "float": 1e308,
    "list": [{"pending_question": PENDING}],
    "true": True,
    "false": False,
    "empty object": {},
    "pending_question a string": {"pending_question": "moved_to_app"},
    "pending_question a list": {"pending_question": [PENDING]},
    "type absurdly long": {"pending_question": {**PENDING, "type": "representation" * 5000}},
    "type a number": {"pending_question": {**PENDING, "type": 7}},
    "status an object": {"pending_question": {**PENDING, "status": {"moved_to_app": True}}},
    "asked_at garbage": {"pending_question": {**PENDING, "asked_at": "yesterday at noon"}},
    "asked_at a number": {"pending_question": {**PENDING, "asked_at": 1e308}},
    "asked_at year 0": {"pending_question": {**PENDING, "asked_at": "0000-01-01T00:00:00Z"}},
    "asked_at out of range offset": {"pending_question": {**PENDING, "asked_at": "9999-12-31T23:59:59-23:59"}},
    "asked_at the first instant": {"pending_question": {**PENDING, "asked_at": "0001-01-01T00:00:00.000Z"}},
    "asked_at the last instant": {"pending_question": {**PENDING, "asked_at": "9999-12-31T23:59:59.999Z"}},
    "asked_at 30 February": {"pending_question": {**PENDING, "asked_at": "2026-02-30T09:00:00.000Z"}},
    "asked_at a leap second": {"pending_question": {**PENDING, "asked_at": "2016-12-31T23:59:60.000Z"}},
    "asked_at JavaScript's last date": {"pending_question": {**PENDING, "asked_at": "+275760-09-13T00:00:00.000Z"}},
    "answered_at the last instant": {
        "representation": {
            "participants": [{"name": "Anna"}],
            "purpose": "möte",
            "answered_at": "9999-12-31T23:59:59Z",
        },
        "context_answer": {"raw_answer": "fika", "answered_at": "0000-00-00T00:00:00Z"},
    },
    "participants 10 000": {
        "pending_question": PENDING,
        "representation": {"participants": [{"name": f"P{i}", "company": "AB"} for i in range(10_000)]},
    },
    "participants wrong types": {
        "representation": {"participants": [None, 1, "Anna", [], {"name": {"first": "A"}, "company": 5}]},
        "purpose": 12,
    },
    "representation a list": {"representation": ["Anna", "möte"]},
    "purpose huge": {"representation": {"participants": [{"name": "Anna"}], "purpose": "x" * 1_000_000}},
    "user_note huge": {"user_note": "ö" * 300_000},
    "context_answer wrong types": {"context_answer": {"raw_answer": ["a"], "answered_at": {}}},
    "deep nesting": {"pending_question": PENDING, "extra": _deep(500)},
    "caption markup": {"caption": "</textarea><script>alert(1)</script>"},
}

EXTRACTED: dict[str, Any] = {
    "null": None,
    "string": "Leverantör",
    "list": [1, 2],
    "number": -0.0,
    "totals as strings": {"supplier": {"name": 5}, "totals": {"total": "1 044,00", "vatAmount": "12"}},
    "totals huge": {"totals": {"total": 10**30, "vatAmount": 1e308}},
    "totals negative zero": {"totals": {"total": -0.0, "vatAmount": -1e-308}},
    "totals booleans": {"totals": {"total": True, "vatAmount": False}},
    "invoice wrong types": {"invoice": {"invoiceDate": 20261120, "currency": ["SEK"]}, "supplier": "ICA"},
    "supplier huge": {"supplier": {"name": "ICA " * 100_000}},
}


@pytest.fixture
def staff(db):  # type: ignore[no-untyped-def]
    return factories.make_user(is_staff=True, is_superuser=True, username="root")


def _all_statuses(user: Any, urls: list[str]) -> dict[str, int]:
    client = lenient(user)
    return {url: client.get(url).status_code for url in urls}


def _assert_no_server_error(statuses: dict[str, int]) -> None:
    broken = {url: status for url, status in statuses.items() if status >= 500}
    assert broken == {}


@pytest.mark.parametrize("key", CHANNEL_CONTEXTS)
def test_every_page_shows_an_item_whatever_its_channel_context(key, bookkeeper, support, staff) -> None:  # type: ignore[no-untyped-def]
    item = store_raw(factories.make_item(), channel_context=CHANNEL_CONTEXTS[key])
    _assert_no_server_error(_all_statuses(bookkeeper, item_urls(item)))
    # Support sees the raw JSON, which the bookkeeper does not.
    support_urls = [reverse("item_detail", args=[item.pk]), reverse("api_item", args=[item.pk]), *raw_urls(item)]
    _assert_no_server_error(_all_statuses(support, support_urls))
    _assert_no_server_error(_all_statuses(staff, admin_urls(item)))


@pytest.mark.parametrize("key", EXTRACTED)
def test_every_page_shows_an_item_whatever_its_extracted_data(key, bookkeeper, support, staff) -> None:  # type: ignore[no-untyped-def]
    item = store_raw(moved(), extracted_data=EXTRACTED[key])
    _assert_no_server_error(_all_statuses(bookkeeper, item_urls(item)))
    _assert_no_server_error(_all_statuses(support, [reverse("item_detail", args=[item.pk]), *raw_urls(item)]))
    _assert_no_server_error(_all_statuses(staff, admin_urls(item)))


# JSON PostgreSQL's jsonb stores and Python's json cannot read.
UNDECODABLE: dict[str, str] = {
    "nested 10 000 deep": '{"channel": "whatsapp", "x": ' + '{"a": ' * 10_000 + "1" + "}" * 10_000 + "}",
    "a 5 000-digit number": '{"channel": "whatsapp", "n": ' + "9" * 5_000 + "}",
    "a negative 5 000-digit number": '{"totals": {"total": -' + "9" * 5_000 + "}}",
}


@pytest.mark.parametrize("column", ["channel_context", "extracted_data"])
@pytest.mark.parametrize("key", UNDECODABLE)
def test_every_page_shows_an_item_python_cannot_decode_and_the_download_has_it_all(
    key, column, bookkeeper, support, staff
) -> None:  # type: ignore[no-untyped-def]
    item = moved()
    store_text(item.pk, column, UNDECODABLE[key])
    _assert_no_server_error(_all_statuses(bookkeeper, item_urls(item)))
    _assert_no_server_error(_all_statuses(support, [reverse("item_detail", args=[item.pk])]))
    _assert_no_server_error(_all_statuses(staff, admin_urls(item)))
    page = lenient(bookkeeper).get(reverse("item_detail", args=[item.pk])).content.decode()
    assert "This record cannot be read" in page
    download = lenient(support).get(reverse("item_raw", args=[item.pk, column]))
    assert b"".join(download.streaming_content).decode() == stored_text(item.pk, column)


def test_an_answer_to_an_item_python_cannot_decode_is_refused_and_writes_nothing(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    store_text(item.pk, "channel_context", UNDECODABLE["a 5 000-digit number"])
    before = snapshot(item)
    client = lenient(bookkeeper)
    form = client.post(
        reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Fika", "action": "save"}
    )
    api = client.post(
        reverse("api_item_answer", args=[item.pk]),
        '{"question": "context", "text": "Fika"}',
        content_type="application/json",
    )
    assert 400 <= form.status_code < 500
    assert 400 <= api.status_code < 500
    assert api.json()["error"]
    assert snapshot(item) == before


# Calendar edges in accounted's own timestamp columns (timestamptz), not only in the JSON.
ROW_TIMES = [
    pytest.param("0001-01-01 00:00:00+00", id="the first day"),
    pytest.param("9999-12-31 23:59:59+00", id="the last second Python can hold"),
    pytest.param("2024-02-29 23:30:00+00", id="29 February"),
]


@pytest.mark.parametrize("created_at", ROW_TIMES)
def test_every_page_shows_an_item_received_at_a_calendar_edge(created_at, bookkeeper, support) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("UPDATE public.invoice_inbox_items SET created_at = %s WHERE id = %s", [created_at, item.pk])
    sync.index_items([item.pk])
    _assert_no_server_error(_all_statuses(bookkeeper, item_urls(item)))
    _assert_no_server_error(_all_statuses(support, [reverse("item_detail", args=[item.pk])]))


@pytest.mark.parametrize("key", ["type absurdly long", "string", "list", "null"])
def test_the_answer_preview_says_there_is_no_question_when_the_stored_one_is_unreadable(key, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = store_raw(moved(), channel_context=CHANNEL_CONTEXTS[key])
    response = lenient(bookkeeper).post(
        reverse("item_answer_preview", args=[item.pk]),
        representation_post([("Anna", "")], purpose="möte"),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "This question is no longer waiting for an answer here." in response.content.decode()


def test_the_answer_preview_of_an_item_with_10_000_stored_participants_shows_the_typed_answer(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = store_raw(moved(), channel_context=CHANNEL_CONTEXTS["participants 10 000"])
    response = lenient(bookkeeper).post(
        reverse("item_answer_preview", args=[item.pk]),
        representation_post([("Anna Typed", "")], purpose="Kundmöte"),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "Anna Typed" in response.content.decode()


def test_export_writes_one_line_per_item_whatever_they_hold(db) -> None:  # type: ignore[no-untyped-def]
    for value in CHANNEL_CONTEXTS.values():
        store_raw(factories.make_item(), channel_context=value)
    for value in EXTRACTED.values():
        store_raw(factories.make_item(), extracted_data=value)
    out, err = io.StringIO(), io.StringIO()
    call_command("export_items", stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(CHANNEL_CONTEXTS) + len(EXTRACTED)
    contexts = [json.loads(line)["channel_context"] for line in lines]
    assert CHANNEL_CONTEXTS["participants wrong types"] in contexts
    call_command("export_items", "--state", "malformed", stdout=out, stderr=err)


# --- Anything at all ---------------------------------------------------------------------

_text = st.text(max_size=30)
_scalars = st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20) | st.floats() | _text
_json = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=15,
)
_field = st.one_of(_json, _text, st.sampled_from(["representation", "context", "resend", "open", "moved_to_app"]))
_shaped = st.fixed_dictionaries(
    {},
    optional={
        "pending_question": st.one_of(
            _json, st.fixed_dictionaries({}, optional={"type": _field, "status": _field, "asked_at": _field})
        ),
        "representation": st.one_of(
            _json,
            st.fixed_dictionaries(
                {},
                optional={
                    "participants": st.one_of(
                        _json, st.lists(st.dictionaries(st.sampled_from(["name", "company"]), _field))
                    ),
                    "purpose": _field,
                    "denied": _field,
                    "event_date": _field,
                },
            ),
        ),
        "user_note": _field,
        "context_answer": st.one_of(_json, st.fixed_dictionaries({}, optional={"raw_answer": _field})),
        "representation_denied": _field,
    },
)


def _utf8_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ctx=st.one_of(_json, _shaped))
def test_any_stored_json_leaves_the_list_item_page_and_api_working(bookkeeper, support, ctx) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(ctx, ensure_ascii=False)
    # NaN is not JSON and no JSON column can hold it; jsonb refuses NUL and lone surrogates.
    assume("NaN" not in text and "Infinity" not in text)
    assume("\\u0000" not in text and _utf8_encodable(text))
    item = store_raw(factories.make_item(), channel_context=ctx)
    urls = [
        reverse("inbox") + "?q=a",
        reverse("api_items"),
        reverse("item_detail", args=[item.pk]),
        reverse("api_item", args=[item.pk]),
    ]
    _assert_no_server_error(_all_statuses(bookkeeper, urls))
    _assert_no_server_error(_all_statuses(support, [reverse("item_detail", args=[item.pk])]))


def test_the_answer_form_prefills_at_most_100_of_10_000_stored_participants(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = store_raw(moved(), channel_context=CHANNEL_CONTEXTS["participants 10 000"])
    response = lenient(bookkeeper).get(reverse("item_answer", args=[item.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="participants-TOTAL_FORMS" value="100"' in html
    assert 'value="P99"' in html
    assert 'value="P100"' not in html


# PostgreSQL's jsonb refuses NUL (\u0000) and lone surrogates on the way in, so
# no stored row can hold one (the SQLite-era tests showed such rows on every
# page). What is tested instead: the database refuses them, and the app's own
# writes (the answer form and API) refuse them first with a message.
REFUSED_BY_JSONB: dict[str, str] = {
    "NUL in a participant's name": '{"representation": {"participants": [{"name": "An\\u0000na"}]}}',
    "lone surrogate in the purpose": '{"representation": {"purpose": "möte \\udfff"}}',
    "lone surrogate as a key": '{"\\ud800": "x"}',
}


@pytest.mark.parametrize("key", REFUSED_BY_JSONB)
def test_postgresql_refuses_to_store_nul_or_half_a_surrogate(key, db) -> None:  # type: ignore[no-untyped-def]
    item = moved()
    before = stored_text(item.pk, "channel_context")
    with pytest.raises(DataError), transaction.atomic(using=BOOKKEEPING_DB):
        store_text(item.pk, "channel_context", REFUSED_BY_JSONB[key])
    assert stored_text(item.pk, "channel_context") == before


FORM_NUL = {
    "a participant's name": representation_post([("An\x00na", "")], purpose="Kundmöte"),
    "a participant's company": representation_post([("Anna", "Kund\x00AB")], purpose="Kundmöte"),
    "the purpose": representation_post([("Anna", "")], purpose="Kund\x00möte"),
}


@pytest.mark.parametrize("key", FORM_NUL)
def test_a_nul_typed_into_the_answer_form_is_a_message_and_nothing_is_written(key, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("representation")
    before = snapshot(item)
    response = lenient(bookkeeper).post(reverse("item_answer", args=[item.pk]), FORM_NUL[key])
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()
    assert snapshot(item) == before


API_REFUSED = {
    "NUL in the text": ('{"question": "context", "text": "Fika\\u0000"}', "context", "U+0000"),
    "lone surrogate in the text": ('{"question": "context", "text": "Fika \\ud83d"}', "context", "U+D83D"),
    "NUL in a name": (
        '{"question": "representation", "participants": [{"name": "An\\u0000na"}], "purpose": "Möte"}',
        "representation",
        "U+0000",
    ),
    "lone surrogate in the purpose": (
        '{"question": "representation", "participants": [{"name": "Anna"}], "purpose": "M\\udfffte"}',
        "representation",
        "U+DFFF",
    ),
    "lone surrogate in the raw answer": (
        '{"question": "context", "text": "Fika", "raw_answer": "\\ud800"}',
        "context",
        "U+D800",
    ),
}


@pytest.mark.parametrize("key", API_REFUSED)
def test_nul_or_half_a_surrogate_sent_to_the_answer_api_is_a_400_naming_the_character(key, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    body, question, code = API_REFUSED[key]
    item = moved(question)
    before = snapshot(item)
    response = lenient(bookkeeper).post(
        reverse("api_item_answer", args=[item.pk]), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert code in json.dumps(response.json()["errors"])
    assert snapshot(item) == before
