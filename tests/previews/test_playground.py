"""The playground at /preview/: live rendering, errors with line and column, gallery, items."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

import clarifications
from clarifications import phrases
from reviewapp.core import states
from reviewapp.previews.gallery import EXAMPLES, find_example
from reviewapp.previews.golden import canonical
from reviewapp.previews.parsing import MAX_INPUT_BYTES
from reviewapp.previews.rendering import direction_problems, pretty
from reviewapp.web.forms.preview import PreviewForm
from tests import factories
from tests.html import text_of, texts
from tests.items.bookkeeping import DEEP_JSON, HUGE_NUMBER_JSON, make_document, poison_item
from tests.previews.conftest import cli_output, golden_records

URL = "/preview/"
HTMX = {"HTTP_HX_REQUEST": "true"}
CASES = [r for r in golden_records() if "channel_context" in r["input"]]


def _form_data(value: dict[str, Any]) -> dict[str, str]:
    """What a person types for an input line: the JSON text of each part."""
    item = value.get("item") or {}
    extracted = item.get("extracted_data")
    return {
        "channel_context": json.dumps(value["channel_context"], ensure_ascii=False, indent=2),
        "document_id": item.get("document_id") or "",
        "extracted_data": "" if extracted is None else json.dumps(extracted, ensure_ascii=False),
    }


def test_the_url_name_is_the_playground():
    assert reverse("preview") == URL


@pytest.mark.parametrize("record", CASES, ids=[r["name"] for r in CASES])
def test_the_htmx_fragment_renders_every_golden_case_exactly(qa_client, record):
    response = qa_client.post(URL, _form_data(record["input"]), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # the fragment only
    expected = record["expected"]
    assert texts(html, cls="verbatim-line") == expected["lines"]
    assert text_of(html, "agent-view-text") == "\n".join(expected["agent_view"])
    if expected["notes"] is None:
        assert texts(html, id="notes-text") == []
    else:
        assert text_of(html, "notes-text") == expected["notes"]
    assert canonical(json.loads(text_of(html, "summary-text"))) == canonical(expected["summary"])


def test_the_fragment_matches_the_command_line_on_a_minus_zero_amount(qa_client):
    # The sign of -0 survives only where the command line keeps it: a zero
    # amount in item.extracted_data. The fields are read as that one line.
    data = {"channel_context": '{"channel": "whatsapp", "user_note": "retur"}', "document_id": "doc-9"}
    data["extracted_data"] = '{"totals": {"total": -0, "vatAmount": -0.0}}'
    html = qa_client.post(URL, data, **HTMX).content.decode()
    line = (
        '{"channel_context": {"channel": "whatsapp", "user_note": "retur"}, '
        '"item": {"document_id": "doc-9", "extracted_data": {"totals": {"total": -0, "vatAmount": -0.0}}}}'
    )
    (printed,) = cli_output([line.encode()])
    assert text_of(html, "agent-view-text") == "\n".join(json.loads(printed)["agent_view"])
    assert text_of(html, "cli-line") == printed.decode()


def test_the_page_without_javascript_renders_too(qa_client):
    record = next(r for r in CASES if r["name"] == "pending context moved_to_app")
    response = qa_client.post(URL, _form_data(record["input"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html
    assert texts(html, cls="verbatim-line") == record["expected"]["lines"]
    # The form keeps what was typed.
    assert '"moved_to_app"' in text_of(html, "id_channel_context").replace("&quot;", '"')


def test_the_form_live_renders_through_htmx_and_keeps_a_real_action(qa_client):
    html = qa_client.get(URL).content.decode()
    assert '<form id="preview-form" method="post" action="/preview/"' in html
    assert 'hx-post="/preview/" hx-trigger="input changed delay:300ms"' in html
    assert 'hx-target="#preview-results"' in html
    assert "js/preview.js" in html
    assert "<script>" not in html
    assert "onclick" not in html


def test_invalid_json_shows_line_and_column_in_the_fragment(qa_client):
    data = {
        "channel_context": '{\n  "channel": "whatsapp"\n  "user_note": "hej"\n}',
        "document_id": "",
        "extracted_data": "",
    }
    response = qa_client.post(URL, data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Invalid JSON at line 3, column 3" in text_of(html, "input-errors")
    assert 'data-line="3" data-column="3"' in html
    assert texts(html, cls="verbatim-line") == []


def test_invalid_json_without_javascript_is_an_error_under_its_field(qa_client):
    data = {"channel_context": '{"channel": "whatsapp"}', "document_id": "", "extracted_data": "{oops}"}
    response = qa_client.post(URL, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Invalid JSON at line 1, column 2" in text_of(html, "id_extracted_data_error")
    assert 'aria-invalid="true"' in html
    # What was typed stays in the box.
    assert "{oops}</textarea>" in html


def test_an_empty_channel_context_asks_for_one(qa_client):
    response = qa_client.post(URL, {"channel_context": "", "document_id": "", "extracted_data": ""}, **HTMX)
    assert "Paste a channel_context" in text_of(response.content.decode(), "input-errors")


def test_null_is_a_valid_channel_context(qa_client):
    response = qa_client.post(URL, {"channel_context": "null", "document_id": "d", "extracted_data": ""}, **HTMX)
    html = response.content.decode()
    assert texts(html, id="input-errors") == []
    assert text_of(html, "summary-text") == "null"


def test_deep_nesting_in_the_form_is_refused_quickly(qa_client):
    start = time.perf_counter()
    data = {"channel_context": "[" * 100_000, "document_id": "", "extracted_data": ""}
    response = qa_client.post(URL, data, **HTMX)
    assert time.perf_counter() - start < 3
    assert response.status_code == 200
    assert "nested deeper than 64 levels" in text_of(response.content.decode(), "input-errors")


def test_a_field_over_256_kib_is_refused_with_a_message(qa_client):
    note = "x" * MAX_INPUT_BYTES
    data = {"channel_context": json.dumps({"user_note": note}), "document_id": "", "extracted_data": ""}
    response = qa_client.post(URL, data, **HTMX)
    assert response.status_code == 200
    assert "256 KiB" in text_of(response.content.decode(), "input-errors")


def test_a_body_over_the_upload_limit_is_a_413_with_a_message(qa_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    data = {"channel_context": json.dumps({"user_note": "x" * 3000}), "document_id": "", "extracted_data": ""}
    response = qa_client.post(URL, data, **HTMX)
    assert response.status_code == 413
    assert "256 KiB" in text_of(response.content.decode(), "too-large")
    # Into the results, not #request-refused where base.html's htmx-config sends other 413s.
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#preview-results", "outerHTML")


def test_with_real_csrf_checks_an_oversized_body_is_refused_before_the_view(qa, settings):
    # CsrfViewMiddleware reads the form first, so Django itself answers 400;
    # the worker survives and the next request is served.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    client = Client(enforce_csrf_checks=True)
    client.force_login(qa)
    client.get(URL)
    token = client.cookies["csrftoken"].value
    data = {"csrfmiddlewaretoken": token, "channel_context": json.dumps({"user_note": "x" * 3000})}
    assert client.post(URL, data).status_code == 400
    small = {"csrfmiddlewaretoken": token, "channel_context": "null"}
    assert client.post(URL, small).status_code == 200


def test_htmx_answers_vary_on_hx_request(qa_client):
    response = qa_client.post(URL, {"channel_context": "null"}, **HTMX)
    assert "HX-Request" in response["Vary"]


def test_support_may_use_the_playground(support_client):
    assert support_client.get(URL).status_code == 200


def test_bookkeepers_are_refused(bookkeeper_client):
    assert bookkeeper_client.get(URL).status_code == 403
    assert bookkeeper_client.post(URL, {"channel_context": "null"}).status_code == 403


def test_other_methods_are_405(qa_client):
    assert qa_client.put(URL).status_code == 405
    assert qa_client.delete(URL).status_code == 405


# --- The gallery -------------------------------------------------------------------


def test_the_gallery_links_every_example_with_a_plain_link(qa_client):
    html = qa_client.get(URL).content.decode()
    for example in EXAMPLES:
        assert f'href="/preview/?example={example.slug}"' in html


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.slug for e in EXAMPLES])
def test_an_example_link_fills_the_form_and_renders_it(qa_client, example):
    response = qa_client.get(URL, {"example": example.slug})
    assert response.status_code == 200
    html = response.content.decode()
    typed = text_of(html, "id_channel_context")
    assert json.loads(typed) == json.loads(json.dumps(example.channel_context))
    assert 'aria-current="true"' in html
    golden = GOLDEN_BY_INPUT.get(canonical(example.as_input()))
    if golden is not None:
        assert texts(html, cls="verbatim-line") == golden["lines"]
        assert text_of(html, "agent-view-text") == "\n".join(golden["agent_view"])
    else:
        lines = EXAMPLE_LINES[example.slug]
        assert texts(html, cls="verbatim-line") == lines
        agent_view = text_of(html, "agent-view-text")
        for line in lines:
            assert phrases.AGENT_CLARIFICATION_INDENT + line in agent_view


# The reference cases by input: most gallery examples are one of them.
GOLDEN_BY_INPUT = {canonical(r["input"]): r["expected"] for r in CASES}
# The examples that are not, written out from the seed's renderClarificationLines.
_MOVED_CONTEXT = phrases.OPEN_QUESTION_LINE.format(
    what=phrases.ASK_CONTEXT, where=phrases.WHERE_MOVED_TO_APP.format(via=phrases.WHATSAPP_LABEL)
)
EXAMPLE_LINES = {
    "full-answer": [
        phrases.PARTICIPANTS_PREFIX + "Elias Karlsson (Canguro Media), Sara Ek",
        phrases.PURPOSE_PREFIX + "Kundmöte om höstkampanjen",
        phrases.EVENT_DATE_PREFIX + "2026-07-30",
    ],
    "denial-moved-context": [phrases.DENIED_LINE, _MOVED_CONTEXT],
    "note-and-answer": [
        phrases.USER_NOTE_PREFIX + "kontorsmaterial",
        phrases.CONTEXT_ANSWER_PREFIX + "pennor och block till kontoret",
    ],
    # An unknown question type is asked as the context question (the seed's last branch); a
    # note that is not a string is no note.
    "malformed": [
        phrases.OPEN_QUESTION_LINE.format(
            what=phrases.ASK_CONTEXT, where=phrases.WHERE_OPEN.format(via=phrases.WHATSAPP_LABEL)
        )
    ],
}


def _states(slug: str) -> frozenset[str]:
    example = find_example(slug)
    assert example is not None
    return states.states_of(clarifications.analyse(example.channel_context))


def _question(slug: str) -> tuple[str, str] | None:
    example = find_example(slug)
    assert example is not None
    summary = clarifications.analyse(example.channel_context).summary
    question = summary.open_question if summary else None
    return (question.type, question.status) if question else None


def test_the_gallery_covers_every_state_the_issue_names():
    assert states.DENIED in _states("denial")
    assert states.PURPOSE_MISSING in _states("half-answer")
    assert states.WAITING_IN_CHAT in _states("open-question")
    assert states.MALFORMED in _states("malformed")
    assert _states("empty") == {states.NO_ANSWERS}
    assert _states("caption-only") == {states.NO_ANSWERS}
    assert "caption" in find_example("caption-only").channel_context  # type: ignore[union-attr]
    for question_type in states.QUESTION_TYPES:
        assert _question(f"moved-{question_type}") == (question_type, "moved_to_app")
    note = find_example("markdown-injection").channel_context["user_note"]  # type: ignore[union-attr]
    assert "\n#" in note


def test_an_unknown_example_is_reported_not_a_500(qa_client):
    response = qa_client.get(URL, {"example": "no-such-example"})
    assert response.status_code == 200
    assert "example" in text_of(response.content.decode(), "source-errors")


# --- Loading an inbox item ---------------------------------------------------------


def test_an_item_loads_its_context_document_id_and_extracted_data(qa_client, company):
    context = {"channel": "whatsapp", "user_note": "möte med <b>kund</b>"}
    item = factories.make_item(company, channel_context=context, document=make_document(company))
    response = qa_client.get(URL, {"item": str(item.pk)})
    assert response.status_code == 200
    html = response.content.decode()
    assert json.loads(text_of(html, "id_channel_context")) == context
    assert f'value="{item.document_id}"' in html
    assert json.loads(text_of(html, "id_extracted_data")) == item.extracted_data
    assert str(item.pk) in text_of(html, "loaded-from")
    # The note's line under the item's bullet; the tags are text, flattened by nothing.
    agent_view = text_of(html, "agent-view-text").split("\n")
    assert agent_view[0].startswith(phrases.AGENT_BULLET_PREFIX + phrases.AGENT_DOCUMENT_ID + str(item.document_id))
    assert agent_view[1] == phrases.AGENT_CLARIFICATION_INDENT + phrases.USER_NOTE_PREFIX + "möte med <b>kund</b>"
    assert "<b>kund</b>" not in html


@pytest.mark.parametrize("poison", ["deep", "huge"])
def test_an_item_whose_json_cannot_be_decoded_is_a_clear_error_on_the_page(qa_client, company, poison):
    item_id = (
        poison_item(company, channel_context=DEEP_JSON)
        if poison == "deep"
        else poison_item(company, extracted_data=HUGE_NUMBER_JSON)
    )

    response = qa_client.get(URL, {"item": str(item_id)})

    assert response.status_code == 200
    html = response.content.decode()
    error = text_of(html, "load-error")
    assert str(item_id) in error
    assert "cannot be decoded" in error
    column = "channel_context: nested too deep to read" if poison == "deep" else "extracted_data: "
    assert column in error
    # The editor is left empty, not filled with half the row.
    assert text_of(html, "id_channel_context").strip() == ""
    assert "loaded-from" not in html


def test_an_unknown_item_is_404(qa_client):
    assert qa_client.get(URL, {"item": str(uuid.uuid4())}).status_code == 404


def test_a_malformed_item_id_is_reported(qa_client):
    response = qa_client.get(URL, {"item": "not-a-uuid"})
    assert response.status_code == 200
    assert "item" in text_of(response.content.decode(), "source-errors")


def test_the_item_page_links_to_the_preview_with_the_item(qa_client, company):
    item = factories.make_item(company)
    html = qa_client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert f'href="/preview/?item={item.pk}"' in html


def test_form_data_round_trips_an_input_line():
    record = next(r for r in CASES if r["name"] == "full answer")
    form = PreviewForm(PreviewForm.data_for(record["input"]))
    assert form.is_valid(), form.errors
    assert form.case_input() == record["input"]


def test_a_text_direction_control_in_the_input_is_named_as_a_problem(qa_client):
    # The renderer keeps U+202E, so "Taxi‮ till kund" shows reversed: QA must be told, as the answer form tells.
    data = {"channel_context": '{"channel": "whatsapp", "user_note": "Taxi\\u202e till kund"}', "document_id": ""}
    html = qa_client.post(URL, data, **HTMX).content.decode()
    (problem,) = texts(html, cls="problems")
    assert "user_note" in problem
    assert "U+202E" in problem
    assert "None: every field" not in html


def test_an_unknown_example_is_an_empty_form_not_an_error(qa_client):
    response = qa_client.get(URL, {"example": "no-such-example"})
    assert response.status_code == 200
    assert text_of(response.content.decode(), "id_channel_context").strip() == ""
    assert find_example("no-such-example") is None


def test_each_text_with_a_direction_control_is_named_by_its_path_keys_included(settings):
    settings.LANGUAGE_CODE = "en"
    message = "Remove the text direction control U+202E: it makes the text show in another order than it is saved."
    value = {"a": {"b\u202e": "x", "c": ["ok", "y\u202e"]}, "d": 1}
    assert direction_problems(value) == [f"a.b\u202e: {message}", f"a.c[1]: {message}"]
    assert direction_problems("x\u202e") == [f"$: {message}"]
    assert direction_problems({"clean": ["text", {"k": "v"}]}) == []


def test_half_an_emoji_is_shown_as_its_json_escape():
    # The notes cap can cut an emoji in half; the raw surrogate could not be sent as UTF-8.
    assert pretty({"notes": "kaffe \ud83d"}) == '{\n  "notes": "kaffe \\ud83d"\n}'
