"""Forged and hostile posts: a clear 4xx, and nothing written (the row and its events unchanged)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from clarifications import phrases
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent, GoldenCase
from tests import factories
from tests.answers.conftest import representation_post
from tests.robustness.conftest import lenient, moved, snapshot


def _answer(item: InboxItem) -> str:
    return reverse("item_answer", args=[item.pk])


def _preview(item: InboxItem) -> str:
    return reverse("item_answer_preview", args=[item.pk])


def _api(item: InboxItem) -> str:
    return reverse("api_item_answer", args=[item.pk])


def _post_json(client: Client, url: str, body: Any, **kwargs: Any) -> Any:
    raw = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(url, raw, content_type=kwargs.pop("content_type", "application/json"), **kwargs)


GOOD_CONTEXT_FORM = {"question": "context", "text": "Fika med kund", "action": "save"}
GOOD_CONTEXT_JSON = {"question": "context", "text": "Fika med kund"}


# --- Methods -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_write_endpoints_refuse_other_methods_with_405(method, bookkeeper, qa) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    urls = [_answer(item), _preview(item), _api(item)]
    statuses = {url: getattr(lenient(bookkeeper), method)(url).status_code for url in urls}
    statuses |= {
        url: getattr(lenient(qa), method)(url).status_code
        for url in (reverse("preview"), reverse("golden_case_create"), reverse("api_preview"))
    }
    assert set(statuses.values()) == {405}
    assert snapshot(item) == before


def test_post_only_endpoints_refuse_get_with_405(bookkeeper, qa) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    assert lenient(bookkeeper).get(_preview(item)).status_code == 405
    assert lenient(bookkeeper).get(_api(item)).status_code == 405
    assert lenient(qa).get(reverse("golden_case_create")).status_code == 405
    assert lenient(qa).get(reverse("api_preview")).status_code == 405


def test_read_only_pages_refuse_a_post_with_405(bookkeeper, qa) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    client = lenient(bookkeeper)
    statuses = {
        url: client.post(url, GOOD_CONTEXT_FORM).status_code
        for url in (
            reverse("inbox"),
            reverse("item_detail", args=[item.pk]),
            reverse("api_items"),
            reverse("api_item", args=[item.pk]),
            reverse("item_document", args=[item.pk]),
            reverse("item_raw", args=[item.pk, "channel_context"]),
        )
    }
    statuses[reverse("golden_cases")] = lenient(qa).post(reverse("golden_cases")).status_code
    assert set(statuses.values()) == {405}, statuses
    assert snapshot(item) == before


# --- CSRF -----------------------------------------------------------------------------------


def test_every_post_without_the_csrf_token_is_refused_and_writes_nothing(bookkeeper, qa) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    keeper = Client(enforce_csrf_checks=True, raise_request_exception=False)
    keeper.force_login(bookkeeper)
    tester = Client(enforce_csrf_checks=True, raise_request_exception=False)
    tester.force_login(qa)
    statuses = {
        "answer": keeper.post(_answer(item), GOOD_CONTEXT_FORM).status_code,
        "answer htmx": keeper.post(_answer(item), GOOD_CONTEXT_FORM, headers={"HX-Request": "true"}).status_code,
        "preview": keeper.post(_preview(item), GOOD_CONTEXT_FORM).status_code,
        "api": _post_json(keeper, _api(item), GOOD_CONTEXT_JSON).status_code,
        "playground": tester.post(reverse("preview"), {"channel_context": "{}"}).status_code,
        "golden": tester.post(reverse("golden_case_create"), {"channel_context": "{}", "name": "x"}).status_code,
        "api preview": _post_json(tester, reverse("api_preview"), {"channel_context": {}}).status_code,
        "logout": keeper.post(reverse("logout")).status_code,
    }
    assert set(statuses.values()) == {403}, statuses
    assert snapshot(item) == before
    assert not GoldenCase.objects.exists()


def test_the_tokens_a_page_prints_are_masked_and_answer_from_its_form_and_htmx(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    keeper = Client(enforce_csrf_checks=True, raise_request_exception=False)
    keeper.force_login(bookkeeper)
    page = keeper.get(reverse("item_detail", args=[item.pk])).content.decode()
    forms = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    (htmx_token,) = re.findall(r'"X-CSRFToken": "([^"]+)"', page)
    # The header's two forms and the answer form each print one.
    assert len(forms) >= 3
    # Masked, not the cookie's secret itself (the mask is what differs between responses) …
    assert keeper.cookies["csrftoken"].value not in {*forms, htmx_token}
    later = keeper.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert not any(token in later for token in {*forms, htmx_token})
    # … and the server takes them from a form field and from htmx's header alike.
    htmx = keeper.post(_answer(item), GOOD_CONTEXT_FORM, headers={"HX-Request": "true", "X-CSRFToken": htmx_token})
    assert htmx.status_code == 200
    assert InboxItem.objects.get(pk=item.pk).channel_context["user_note"] == "Fika med kund"
    assert keeper.post(reverse("logout"), {"csrfmiddlewaretoken": forms[0]}).status_code == 302


# --- Roles ----------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["support", "qa"])
def test_support_and_qa_cannot_answer_by_any_route(role, request, db) -> None:  # type: ignore[no-untyped-def]
    client = lenient(request.getfixturevalue(role))
    item = moved("context")
    before = snapshot(item)
    assert client.get(_answer(item)).status_code == 403
    assert client.post(_answer(item), GOOD_CONTEXT_FORM).status_code == 403
    assert client.post(_preview(item), GOOD_CONTEXT_FORM).status_code == 403
    response = _post_json(client, _api(item), GOOD_CONTEXT_JSON)
    assert response.status_code == 403
    assert response.json()["error"]
    assert snapshot(item) == before


def test_a_bookkeeper_cannot_use_the_preview_or_save_golden_cases(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    client = lenient(bookkeeper)
    assert client.post(reverse("preview"), {"channel_context": "{}"}).status_code == 403
    assert client.post(reverse("golden_case_create"), {"channel_context": "{}", "name": "mine"}).status_code == 403
    assert _post_json(client, reverse("api_preview"), {"channel_context": {}}).status_code == 403
    assert not GoldenCase.objects.exists()


def test_support_cannot_save_a_golden_case(support) -> None:  # type: ignore[no-untyped-def]
    response = lenient(support).post(reverse("golden_case_create"), {"channel_context": "{}", "name": "mine"})
    assert response.status_code == 403
    assert not GoldenCase.objects.exists()


# --- The answer form ------------------------------------------------------------------------


def test_a_form_for_another_question_than_the_open_one_is_a_409_and_writes_nothing(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("representation")
    before = snapshot(item)
    response = lenient(bookkeeper).post(_answer(item), GOOD_CONTEXT_FORM)
    assert response.status_code == 409
    assert snapshot(item) == before


@pytest.mark.parametrize("question", ["", "Representation", "representation ", "entertainment", "x" * 10_000])
def test_an_unknown_question_type_is_a_400_with_a_message(question, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    client = lenient(bookkeeper)
    for url in (_answer(item), _preview(item)):
        response = client.post(url, {**GOOD_CONTEXT_FORM, "question": question})
        assert response.status_code == 400
        assert b"Unknown question type." in response.content
    assert snapshot(item) == before


def test_a_form_without_any_field_is_a_400(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    assert lenient(bookkeeper).post(_answer(item), {}).status_code == 400
    assert snapshot(item) == before


def test_extra_form_fields_are_not_written(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    forged = {**GOOD_CONTEXT_FORM, "user_note": "forged", "pending_question": "answered", "channel_context": "{}"}
    assert lenient(bookkeeper).post(_answer(item), forged).status_code == 302
    item.refresh_from_db()
    assert item.channel_context["user_note"] == "Fika med kund"
    assert item.channel_context["caption"] == "lunch"


HOSTILE_TEXT = {
    "NUL": ("Anna\x00Berg", "Null characters are not allowed."),
    "bell": ("Anna\x07", "U+0007"),
    "escape": ("\x1b[31mAnna", "U+001B"),
    "C1": ("An\x85na", "U+0085"),
    "line separator": ("Anna\u2028Berg", "U+2028"),
    "100 kB": ("A" * 100_000, "over the limit: use at most 200"),
}


@pytest.mark.parametrize("key", HOSTILE_TEXT)
def test_hostile_participant_names_are_a_message_under_the_name_and_nothing_is_written(key, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    name, message = HOSTILE_TEXT[key]
    item = moved("representation")
    before = snapshot(item)
    response = lenient(bookkeeper).post(_answer(item), representation_post([(name, "")], purpose="Kundmöte"))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert snapshot(item) == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Fika\x00", "Null characters are not allowed."),
        ("x" * 100_000, "over the limit: use at most 2000"),
        ("Fi\x0cka", "U+000C"),
        ("Fika \x1b[2J", "U+001B"),
    ],
)
def test_hostile_context_text_is_a_message_and_nothing_is_written(text, message, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    response = lenient(bookkeeper).post(_answer(item), {**GOOD_CONTEXT_FORM, "text": text})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert snapshot(item) == before


def test_a_hundred_posted_participants_are_refused_with_the_limit(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("representation")
    before = snapshot(item)
    data = representation_post([(f"Person {i}", "AB") for i in range(100)], purpose="Konferens")
    response = lenient(bookkeeper).post(_answer(item), data)
    assert response.status_code == 200
    assert "At most 20 participants (this has 100)." in response.content.decode()
    assert snapshot(item) == before


def test_a_thousand_posted_participants_are_a_bad_request_page_and_nothing_is_written(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("representation")
    before = snapshot(item)
    data = representation_post([(f"Person {i}", "AB") for i in range(1000)], purpose="Konferens")
    data["participants-TOTAL_FORMS"] = "1000000"
    response = lenient(bookkeeper).post(_answer(item), data)
    assert response.status_code == 400
    assert "Bad request" in response.content.decode()
    assert snapshot(item) == before


ROW_COUNT_MESSAGES = {
    "-1": "Name at least one participant",
    "abc": "Enter a whole number.",
    "": "This field is required.",
    "99999999999999999999999": "Please submit at most 20 forms.",
}


@pytest.mark.parametrize("total", ROW_COUNT_MESSAGES)
def test_a_forged_row_count_is_a_message_not_a_server_error(total, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("representation")
    before = snapshot(item)
    data = representation_post([("Anna", "")], purpose="Kundmöte")
    data["participants-TOTAL_FORMS"] = total
    response = lenient(bookkeeper).post(_answer(item), data)
    # The form again, with a message saying what is wrong, and nothing written.
    assert response.status_code == 200
    assert ROW_COUNT_MESSAGES[total] in response.content.decode()
    assert snapshot(item) == before


def test_non_utf8_bytes_in_a_multipart_post_are_not_a_server_error(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    boundary = "BoUnDaRy"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="question"\r\n\r\ncontext\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="action"\r\n\r\nsave\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n'
        ).encode()
        + b"\xff\xfe\xc3(\x00bad"
        + f"\r\n--{boundary}--\r\n".encode()
    )
    client = lenient(bookkeeper)
    response = client.post(_answer(item), body, content_type=f"multipart/form-data; boundary={boundary}")
    preview = client.post(_preview(item), body, content_type=f"multipart/form-data; boundary={boundary}")
    # The NUL among the replacement characters is refused under the field, the preview waits
    # for a fix, and the row is as it was: a NUL never reaches it.
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()
    assert preview.status_code == 200
    assert "Fix the marked fields to see the preview." in preview.content.decode()
    assert snapshot(item) == before


def test_a_2_mb_form_post_is_refused_and_writes_nothing(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    response = lenient(bookkeeper).post(_answer(item), {**GOOD_CONTEXT_FORM, "text": "x" * 2_000_000})
    assert 400 <= response.status_code < 500
    assert snapshot(item) == before


# --- The JSON API ---------------------------------------------------------------------------


def _deep_json(levels: int) -> str:
    return "[" * levels + "]" * levels


API_BODIES: dict[str, tuple[Any, str]] = {
    "array": ([GOOD_CONTEXT_JSON], "application/json"),
    "string": ('"context"', "application/json"),
    "number": ("42", "application/json"),
    "null": ("null", "application/json"),
    "deep nesting": (_deep_json(100_000), "application/json"),
    "deep object": ('{"question": "context", "text": ' + _deep_json(50_000) + "}", "application/json"),
    "NaN": ('{"question": "context", "text": NaN}', "application/json"),
    "NUL escaped": ('{"question": "context", "text": "Fika\\u0000"}', "application/json"),
    "lone surrogate": ('{"question": "context", "text": "Fika \\ud83d"}', "application/json"),
    "not UTF-8": (b'{"question": "context", "text": "\xff\xfe"}', "application/json"),
    "wrong content type": (json.dumps(GOOD_CONTEXT_JSON), "text/plain"),
    "form encoded": ("question=context&text=Fika", "application/x-www-form-urlencoded"),
    "unknown question": ({"question": "entertainment"}, "application/json"),
    "question not a string": ({"question": ["context"], "text": "a"}, "application/json"),
    "extra field": ({**GOOD_CONTEXT_JSON, "user_note": "forged"}, "application/json"),
    "missing text": ({"question": "context"}, "application/json"),
    "text a number": ({"question": "context", "text": 1e308}, "application/json"),
    "text 100 kB": ({"question": "context", "text": "x" * 100_000}, "application/json"),
    "1000 participants": (
        {"question": "representation", "participants": [{"name": f"P{i}"} for i in range(1000)], "purpose": "Möte"},
        "application/json",
    ),
    "participants wrong types": (
        {"question": "representation", "participants": [None, 1, "Anna", {"name": {"a": 1}}], "purpose": 5},
        "application/json",
    ),
}


@pytest.mark.parametrize("key", API_BODIES)
def test_a_hostile_api_body_is_a_4xx_with_a_message_and_writes_nothing(key, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    body, content_type = API_BODIES[key]
    item = moved("context")
    before = snapshot(item)
    response = _post_json(lenient(bookkeeper), _api(item), body, content_type=content_type)
    assert 400 <= response.status_code < 500, response.content[:300]
    assert response.json()["error"]
    assert snapshot(item) == before


def test_a_2_mb_api_body_is_a_413_and_writes_nothing(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    response = _post_json(lenient(bookkeeper), _api(item), {"question": "context", "text": "x" * 2_000_000})
    assert response.status_code == 413
    assert response.json()["error"]
    assert snapshot(item) == before


def test_an_api_answer_for_an_unknown_item_is_a_404(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    response = _post_json(
        lenient(bookkeeper),
        reverse("api_item_answer", args=["00000000-0000-0000-0000-000000000000"]),
        GOOD_CONTEXT_JSON,
    )
    assert response.status_code == 404
    assert not ClarificationEvent.objects.exists()


# --- The preview and golden cases -----------------------------------------------------------

PREVIEW_INPUTS: dict[str, str] = {
    "NUL escaped": '{"pending_question": {"type": "context", "status": "open"}, "user_note": "a\\u0000b"}',
    "lone surrogate": '{"user_note": "half \\ud83d"}',
    "deep": _deep_json(100_000),
    "NaN": '{"a": NaN}',
    "not JSON": "{'a': 1}",
    "a string": '"just text"',
}
# What a person sees for each: the user's note as its line (the seed's rules: a note is
# shown as written, control characters and all), or the parser's refusal.
PREVIEW_SHOWN: dict[str, list[str]] = {
    "NUL escaped": [
        phrases.USER_NOTE_PREFIX + "a\x00b",
        # An open question with no channel: the seed writes JavaScript's "undefined" for the channel.
        phrases.OPEN_QUESTION_LINE.format(
            what=phrases.ASK_CONTEXT, where=phrases.WHERE_OPEN.format(via=phrases.MISSING_CHANNEL_LABEL)
        ),
    ],
    "lone surrogate": [phrases.USER_NOTE_PREFIX + "half \ud83d"],
    "a string": [],
}
PREVIEW_REFUSED: dict[str, str] = {
    "deep": "nested deeper than 64 levels",
    "NaN": "NaN is not JSON",
    "not JSON": "Expecting property name enclosed in double quotes",
}


@pytest.mark.parametrize("key", PREVIEW_INPUTS)
def test_the_playground_and_the_preview_api_answer_any_input(key, qa) -> None:  # type: ignore[no-untyped-def]
    client = lenient(qa)
    page = client.post(reverse("preview"), {"channel_context": PREVIEW_INPUTS[key]}, headers={"HX-Request": "true"})
    api = _post_json(client, reverse("api_preview"), '{"channel_context": ' + PREVIEW_INPUTS[key] + "}")
    assert page.status_code == 200
    html = page.content.decode()
    if key in PREVIEW_REFUSED:
        # Refused, and said why, on the page and in the API.
        assert api.status_code == 400
        assert PREVIEW_REFUSED[key] in api.json()["error"]
        assert "Invalid JSON" in html
        assert PREVIEW_REFUSED[key] in html
        assert "Nothing is rendered until the input is fixed" in html
    else:
        # Rendered: the API answers the lines, the page shows none of the refusal.
        assert api.status_code == 200
        assert api.json()["lines"] == PREVIEW_SHOWN[key]
        assert "Invalid JSON" not in html


# Saved: the input as stored. Refused: the message under the form.
GOLDEN_SAVED: dict[str, object] = {"a string": "just text"}
GOLDEN_REFUSED: dict[str, str] = {
    "NUL escaped": "its input holds a NUL character",
    "lone surrogate": "its input or output holds half an emoji",
    "deep": "nested deeper than 64 levels",
    "NaN": "NaN is not JSON",
    "not JSON": "Expecting property name enclosed in double quotes",
}


@pytest.mark.parametrize("key", PREVIEW_INPUTS)
def test_saving_a_golden_case_of_any_input_is_saved_or_refused_with_a_message(key, qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(
        reverse("golden_case_create"), {"channel_context": PREVIEW_INPUTS[key], "name": f"case {key}"}
    )
    if key in GOLDEN_SAVED:
        assert response.status_code == 302
        case = GoldenCase.objects.get(name=f"case {key}")
        assert case.input["channel_context"] == GOLDEN_SAVED[key]
        # The saved case opens again: its page and the list name it.
        assert f"case {key}" in lenient(qa).get(response.url).content.decode()
        assert f"case {key}" in lenient(qa).get(reverse("golden_cases")).content.decode()
    else:
        assert response.status_code == 200
        assert GOLDEN_REFUSED[key] in response.content.decode()
        assert not GoldenCase.objects.exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a\x00b", "Null characters are not allowed."),
        ("x" * 10_000, "Ensure this value has at most 200 characters (it has 10000)."),
        ("  ", "This field is required."),
    ],
    ids=["NUL", "10000 chars", "blank"],
)
def test_a_bad_golden_case_name_is_a_message_and_nothing_is_saved(name, message, qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(reverse("golden_case_create"), {"channel_context": "{}", "name": name})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not GoldenCase.objects.exists()


def test_a_line_break_in_a_golden_case_name_is_harmless_text_and_saved(qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(reverse("golden_case_create"), {"channel_context": "{}", "name": "line\nbreak"})
    assert response.status_code == 302
    assert GoldenCase.objects.get().name == "line\nbreak"


def test_a_golden_case_saved_from_an_unknown_item_is_a_404(qa) -> None:  # type: ignore[no-untyped-def]
    response = lenient(qa).post(reverse("golden_case_create"), {"item": "not-a-uuid", "name": "x"})
    assert response.status_code == 404
    response = lenient(qa).post(
        reverse("golden_case_create"), {"item": "00000000-0000-0000-0000-000000000000", "name": "x"}
    )
    assert response.status_code == 404
    assert not GoldenCase.objects.exists()


def test_a_golden_case_saved_from_an_item_holding_10_000_participants_is_refused_with_a_message(qa) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(
        channel_context={"representation": {"participants": [{"name": f"P{i}"} for i in range(10_000)]}}
    )
    response = lenient(qa).post(reverse("golden_case_create"), {"item": str(item.pk), "name": "big"})
    # Past the preview's input cap: the page says so, naming the item, and nothing is saved.
    assert response.status_code == 200
    html = response.content.decode()
    assert f"Inbox item {item.pk} cannot be loaded" in html
    assert "256 KiB" in html
    assert not GoldenCase.objects.exists()
