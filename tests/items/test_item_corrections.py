"""The item page's history of corrections: every earlier version of an answer, who, when and why."""

from __future__ import annotations

import io

from django.core.management import call_command
from django.urls import reverse

from tests.answers.conftest import answer_url, moved_item
from tests.answers.test_context_fix import F1, T1, old_rule_answer
from tests.html import page_of
from tests.items.page import url


def _correct(client, item, data):  # type: ignore[no-untyped-def]
    page = page_of(client.get(reverse("item_answer", args=[item.pk])))
    version = page.values(type="hidden")["answer_version"]
    client.post(answer_url(item), {**data, "amend": "1", "answer_version": version})


def test_a_corrected_context_answer_keeps_its_earlier_version_on_the_item_page(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    _correct(bookkeeper_client, item, {"question": "context", "text": "Taxi till Volvo"})

    page = page_of(bookkeeper_client.get(url(item)))
    history = page.words("corrections")

    assert "History of corrections" in history
    assert "The replaced answer: Taxi" in history
    assert "Corrected in the review app." in history
    assert "by bea" in history
    # What the agent read before the correction, as its lines; it reads only the current answer now.
    assert page.texts(cls="correction-lines") == ["anteckning från användaren: Taxi"]
    assert "anteckning från användaren: Taxi till Volvo" in page.text("agent-view-text")


def test_an_uncorrected_answer_has_no_history_of_corrections(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.texts(id="corrections") == []


def test_the_context_fix_shows_the_replaced_version_and_why(bookkeeper_client, bookkeeper):
    item = moved_item("context")
    old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)
    call_command("fix_context_answers", stdout=io.StringIO())

    page = page_of(bookkeeper_client.get(url(item)))
    history = page.words("corrections")

    assert "The firm's text was taken out of the customer's own words (fix_context_answers)." in history
    assert "by fix_context_answers" in history
    # The agent read the firm's text as the customer's own words then; the page keeps that version.
    assert page.texts(cls="correction-lines") == [f"anteckning från användaren: Taxi\nanvändarens egna ord: {F1}"]
    assert "användarens egna ord" not in page.text("agent-view-text")
