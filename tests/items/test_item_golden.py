"""Every golden case with an item, loaded as an item: the page and the API
show exactly the reference's agent view and notes.

The golden document ids are placeholders such as ``doc-1``; the column is a
UUID. Saved items therefore get a UUID derived from the golden id, and the
expected agent view has that one ``document_id=…`` token swapped for it.
The template regions are also rendered from an unsaved item holding the
golden id itself, so the page's markup is checked against the golden text
with no substitution at all.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.test import RequestFactory
from django.urls import reverse

import clarifications
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.items.describe import describe_item
from reviewapp.web.jinja import render_block
from tests import factories
from tests.html import Page, page_of
from tests.items.bookkeeping import make_document

GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "clarifications.jsonl"
ID_NAMESPACE = uuid.UUID("6f1c1b0e-8a4e-4c55-9a53-3a3f4c0f9b21")


def _cases() -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [case for case in cases if isinstance(case["input"].get("item"), dict)]


CASES = _cases()


def test_the_golden_file_has_item_cases():
    # Guards the parametrisation below against an empty or moved file.
    assert len(CASES) >= 20


def _stored_id(golden_id: object) -> uuid.UUID | None:
    return None if golden_id is None else uuid.uuid5(ID_NAMESPACE, str(golden_id))


def _expected_agent_view(case: dict[str, Any], stored: uuid.UUID | None) -> list[str]:
    lines = list(case["expected"]["agent_view"])
    golden_id = case["input"]["item"]["document_id"]
    if stored is not None:
        token = f"document_id={golden_id}"
        assert lines[0].count(token) == 1, "the golden bullet names the document once"
        lines[0] = lines[0].replace(token, f"document_id={stored}")
    return lines


def _saved_item(case: dict[str, Any], company: Any) -> InboxItem:
    item_input = case["input"]["item"]
    stored = _stored_id(item_input.get("document_id"))
    return factories.make_item(
        company,
        channel_context=case["input"]["channel_context"],
        extracted_data=item_input.get("extracted_data"),
        document=make_document(company, id=stored) if stored is not None else None,
    )


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_page_shows_the_golden_agent_view_and_notes_exactly(case, company, support_client):
    item = _saved_item(case, company)

    response = support_client.get(reverse("item_detail", args=[item.pk]))

    assert response.status_code == 200
    page = page_of(response)
    expected = _expected_agent_view(case, item.document_id)
    assert page.text("agent-view-text") == "\n".join(expected)
    notes = case["expected"]["notes"]
    if notes is None:
        assert not page.has("notes-text")
        assert page.text("notes-empty").strip()
    else:
        assert page.text("notes-text") == notes


def _render_region(name: str, item: InboxItem) -> Page:
    request = RequestFactory().get("/")
    context = {"item": item, "view": describe_item(item, events=[])}
    # One block of the Jinja2 page, alone (as reviewapp.web.htmx.render_htmx renders one for htmx).
    return Page(render_block("items/detail.html", name, context, request))


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_page_regions_show_the_golden_text_with_the_golden_document_id(case, company):
    # An unsaved item carries the golden id as it is ("doc-1"), which the
    # UUID column could not store.
    item_input = case["input"]["item"]
    item = InboxItem(
        company=company,
        channel_context=case["input"]["channel_context"],
        extracted_data=item_input.get("extracted_data"),
        document_id=item_input.get("document_id"),
    )

    agent = _render_region("agent_view", item)
    notes = _render_region("notes", item)

    assert agent.text("agent-view-text") == "\n".join(case["expected"]["agent_view"])
    if case["expected"]["notes"] is None:
        assert not notes.has("notes-text")
    else:
        assert notes.text("notes-text") == case["expected"]["notes"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_api_returns_what_the_command_line_prints(case, company, qa_client):
    item = _saved_item(case, company)

    response = qa_client.get(reverse("api_item", args=[item.pk]))

    assert response.status_code == 200
    data = response.json()
    expected = case["expected"]
    assert data["summary"] == expected["summary"]
    assert data["lines"] == expected["lines"]
    assert data["notes"] == expected["notes"]
    assert data["agent_view"] == _expected_agent_view(case, item.document_id)
    # The same item given to the library directly, problems included.
    stored_id = None if item.document_id is None else str(item.document_id)
    item_input = {"document_id": stored_id, "extracted_data": item.extracted_data}
    printed = clarifications.render_case({"channel_context": item.channel_context, "item": item_input})
    assert {key: data[key] for key in ("summary", "lines", "agent_view", "notes", "problems")} == printed
