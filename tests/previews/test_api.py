"""POST /api/preview: what ``python -m clarifications`` prints, behind session+CSRF or a token."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from reviewapp.previews.gallery import EXAMPLES
from reviewapp.previews.golden import canonical
from reviewapp.previews.parsing import MAX_INPUT_BYTES
from reviewapp.web.api_auth import create_token
from tests.previews.conftest import cli_output, golden_records

RECORDS = golden_records()


def _post(client: Client, body: Any, **extra: Any) -> Any:
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(reverse("api_preview"), data=data, content_type="application/json", **extra)


@pytest.fixture
def qa_token(qa) -> str:  # type: ignore[no-untyped-def]
    return create_token(qa)


@pytest.fixture
def token_client(qa_token) -> Client:  # type: ignore[no-untyped-def]
    return Client(headers={"authorization": f"Bearer {qa_token}"})


@pytest.mark.parametrize("record", RECORDS, ids=[r["name"] for r in RECORDS])
def test_every_golden_case_comes_back_as_expected(token_client, record):
    response = _post(token_client, record["input"])
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    got = json.loads(response.content)
    assert record["expected"], record["name"]
    for key, expected in record["expected"].items():
        # Canonical spelling: 1 and 1.0 and true are different answers.
        assert canonical(got[key]) == canonical(expected), key


def test_the_body_is_byte_for_byte_what_the_command_line_prints(token_client):
    examples = [example.as_input() for example in EXAMPLES]
    inputs = [json.dumps(r["input"], ensure_ascii=False).encode() for r in RECORDS]
    inputs += [json.dumps(value, ensure_ascii=False).encode() for value in examples]
    inputs += [b"[]", b'{"item": {}}', b'{"channel_context": {"channel": "whatsapp"}, "item": 5}']
    # JSON.parse keeps the sign of -0, and the agent view prints it.
    inputs += [b'{"channel_context": null, "item": {"document_id": "d", "extracted_data": {"totals": {"total": -0}}}}']
    printed = cli_output(inputs)
    for line, expected in zip(inputs, printed, strict=True):
        response = _post(token_client, line)
        assert response.content == expected, line


def test_an_input_of_the_wrong_shape_gets_the_command_lines_error_as_a_400(token_client):
    response = _post(token_client, "[]")
    assert response.status_code == 400
    assert response.json() == json.loads(cli_output([b"[]"])[0])


def test_a_pretty_printed_body_is_accepted(token_client):
    record = next(r for r in RECORDS if r["name"] == "denial")
    response = _post(token_client, json.dumps(record["input"], indent=4))
    assert response.status_code == 200
    assert response.json()["lines"] == record["expected"]["lines"]


def test_invalid_json_is_a_400_naming_line_and_column(token_client):
    text = '{"channel_context":\n  {"channel": "whatsapp",}}'
    response = _post(token_client, text)
    assert response.status_code == 400
    body = response.json()
    # Python names the trailing comma itself (1-based column on line 2).
    column = text.splitlines()[1].index(",}") + 1
    assert (body["line"], body["column"]) == (2, column)
    assert f"line 2, column {column}" in body["error"]


def test_json_nested_100_000_deep_is_a_quick_400(token_client):
    start = time.perf_counter()
    response = _post(token_client, "[" * 100_000)
    assert time.perf_counter() - start < 2
    assert response.status_code == 400
    assert "nested deeper than 64 levels" in response.json()["error"]
    # The worker is fine: the next request is answered normally.
    assert _post(token_client, {"channel_context": None}).status_code == 200


def test_a_body_over_256_kib_is_a_413_with_a_message(token_client):
    body = json.dumps({"channel_context": {"user_note": "x" * MAX_INPUT_BYTES}})
    response = _post(token_client, body)
    assert response.status_code == 413
    assert "256 KiB" in response.json()["error"]


def test_a_body_over_djangos_upload_limit_is_a_413_too(token_client, settings):
    # Lower Django's own cap below ours so reading the body itself refuses it.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = _post(token_client, {"channel_context": {"user_note": "x" * 2000}})
    assert response.status_code == 413
    assert "error" in response.json()


def test_a_wrong_token_is_401(db):
    client = Client(headers={"authorization": "Bearer rvw_not-a-real-token"})
    response = _post(client, {"channel_context": None})
    assert response.status_code == 401
    assert "error" in response.json()


def test_no_authentication_is_401(db):
    response = _post(Client(), {"channel_context": None})
    assert response.status_code == 401


def test_a_session_without_the_csrf_token_is_403(qa):
    client = Client(enforce_csrf_checks=True)
    client.force_login(qa)
    response = _post(client, {"channel_context": None})
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]


def test_a_session_with_the_csrf_token_is_served(qa):
    client = Client(enforce_csrf_checks=True)
    client.force_login(qa)
    client.get(reverse("preview"))  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = _post(client, {"channel_context": {"channel": "whatsapp", "user_note": "hej"}}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200
    assert response.json()["notes"] == "hej"


def test_bookkeepers_are_refused_with_a_session_and_with_a_token(bookkeeper, bookkeeper_client):
    assert _post(bookkeeper_client, {"channel_context": None}).status_code == 403
    token = create_token(bookkeeper)
    client = Client(headers={"authorization": f"Bearer {token}"})
    assert _post(client, {"channel_context": None}).status_code == 403


def test_support_may_use_it(support_client):
    assert _post(support_client, {"channel_context": None}).status_code == 200


def test_get_is_405(token_client):
    response = token_client.get(reverse("api_preview"))
    assert response.status_code == 405
    assert response["Allow"] == "POST"
