"""The item page's history of corrections: every earlier version of an answer, who, when and why."""

from __future__ import annotations

from django.urls import reverse

from tests.answers.conftest import answer_url, moved_item
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
