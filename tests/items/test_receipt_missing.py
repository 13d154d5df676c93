"""A document row whose file is not in the documents storage: a notice with the document id, no broken image."""

from __future__ import annotations

from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from tests.answers.conftest import moved_item
from tests.html import Page
from tests.items.bookkeeping import PNG, item_with_document, make_document


def test_the_item_page_names_the_missing_file_instead_of_showing_a_broken_image(bookkeeper_client, company):
    item = item_with_document(company, None)  # the row, no file in the bucket

    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())

    assert f"The receipt file is missing from the documents storage (document {item.document_id})." in page.text(
        "receipt-missing"
    )
    assert not [tag for tag in page.tags("img") if "/document/" in (tag.get("src") or "")]


def test_the_answer_screen_names_the_missing_file_beside_the_form(bookkeeper_client, company):
    item = moved_item("context", company=company)
    InboxItem.objects.filter(pk=item.pk).update(document=make_document(company, content=None))

    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())

    assert page.has("answer-form")
    assert "missing from the documents storage" in page.text("receipt-missing")
    assert not [tag for tag in page.tags("img") if "/document/" in (tag.get("src") or "")]


def test_a_file_that_is_there_is_shown_as_before(bookkeeper_client, company):
    item = item_with_document(company, PNG)

    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())

    assert not page.has("receipt-missing")
    assert [tag for tag in page.tags("img") if tag.get("src") == reverse("item_document", args=[item.pk])]
