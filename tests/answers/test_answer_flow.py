"""The flow after a save: the toast names the saved item and links to it; a correction is called one."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from tests.answers.conftest import answer_url, moved_item
from tests.html import Page

pytestmark = pytest.mark.django_db


def _named(item: InboxItem, supplier: str, total: float) -> InboxItem:
    from reviewapp import index

    data = {**item.extracted_data, "supplier": {"name": supplier}, "totals": {"total": total, "vatAmount": 0}}
    InboxItem.objects.filter(pk=item.pk).update(extracted_data=data)
    index.index_items([item.pk])
    return item


def test_the_toast_after_a_save_names_the_saved_item_and_links_to_correct_and_open_it(bookkeeper_client):
    saved = _named(moved_item("context"), "Restaurang Tegel", 1234.5)
    moved_item("context")
    response = bookkeeper_client.post(answer_url(saved), {"question": "context", "text": "Lunch"}, follow=True)
    page = Page(response.content.decode())
    toast = " ".join(page.texts(cls="message-success"))
    assert toast.startswith("Saved: Restaurang Tegel, 1,234.50 SEK")
    url = reverse("item_detail", args=[saved.pk])
    html = response.content.decode()
    assert re.search(rf'<a href="{re.escape(url)}#answer-form">Correct it</a>', html)
    assert re.search(rf'<a href="{re.escape(url)}">Open it</a>', html)


def test_a_correction_is_called_answer_corrected_in_the_history(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    hidden = page.values(type="hidden")
    bookkeeper_client.post(
        answer_url(item),
        {
            "question": "context",
            "text": "Taxi till kund",
            "amend": hidden["amend"],
            "answer_version": hidden["answer_version"],
        },
    )
    history = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode()).text("history")
    assert "Answer corrected" in history
    # The correction's change shows what it was and what it became.
    assert "Taxi till kund" in history
    assert history.count("Question answered") >= 1  # the first answer keeps its name
