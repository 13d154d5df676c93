"""The preview before saving, the item page and the QA preview show exactly the lines the agent reads.

The agent's lines are computed from the stored row by the project's
byte-exact port of accounted's renderer (``clarifications``), and each
screen must carry them, and no "användarens egna ord" line of the app's making.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

import clarifications
from tests.answers.conftest import HTMX, answer_url, moved_item, preview_url, stored_context
from tests.html import Page, text_of
from tests.items.page import url

OWN_WORDS = "användarens egna ord:"


def agent_lines(ctx: object) -> list[str]:
    summary = clarifications.analyse(ctx).summary
    return list(clarifications.render_lines(summary)) if summary is not None else []


@pytest.mark.parametrize(
    ("posted", "expected"),
    [
        ({"text": "Taxi till kund"}, ["anteckning från användaren: Taxi till kund"]),
        (
            {"text": "Taxi till kund", "raw_answer": "taxin till Volvo, sa hon", "raw_answer_via": "phone"},
            ["anteckning från användaren: Taxi till kund", "användarens egna ord: taxin till Volvo, sa hon"],
        ),
    ],
)
def test_preview_item_page_and_qa_preview_show_the_stored_rows_lines(
    bookkeeper_client: Any, qa_client: Any, posted: dict[str, str], expected: list[str]
) -> None:
    item = moved_item("context")
    data = {"question": "context", **posted}
    preview = Page(bookkeeper_client.post(preview_url(item), data, **HTMX).content.decode()).text("preview-agent-after")

    bookkeeper_client.post(answer_url(item), data)
    lines = agent_lines(stored_context(item))

    assert lines == expected
    page = Page(bookkeeper_client.get(url(item)).content.decode()).text("agent-view-text")
    qa = text_of(qa_client.get(reverse("preview"), {"item": str(item.pk)}).content.decode(), "agent-view-text")
    for shown in (preview, page, qa):
        for line in lines:
            assert line in shown
        assert shown.count(OWN_WORDS) == sum(line.startswith(OWN_WORDS) for line in lines)
