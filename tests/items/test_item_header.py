"""The item page's header: supplier, amounts, dates, the receipt; and the booked notice."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import (
    PNG,
    book,
    item_with_document,
    link_transaction,
)
from tests.items.page import MOVED_CONTEXT, received, url

# --- Header and document -------------------------------------------------------


def test_the_header_shows_supplier_amounts_date_company_and_source(bookkeeper_client, company):
    item = factories.make_item(
        company,
        source="whatsapp",
        extracted_data={
            "supplier": {"name": "Operakällaren"},
            "invoice": {"invoiceDate": "2026-07-30", "currency": "EUR"},
            "totals": {"total": 1234.5, "vatAmount": 132.27},
        },
    )

    body = bookkeeper_client.get(url(item)).content.decode()

    assert "1,234.50 EUR" in body
    assert "132.27 EUR" in body
    assert "2026-07-30" in body
    assert company.name in body
    assert "<dd>whatsapp</dd>" in body


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("2026-07-30T10:15:00Z", "2026-07-30 12:15"),  # Stockholm, summer time
        ("9999-12-31T23:59:59Z", "9999-12-31 23:59"),  # year 10000 in Stockholm: shown in UTC
        ("0001-01-01T00:00:00Z", "0001-01-01 01:12"),  # Stockholm's local mean time
    ],
)
def test_the_received_time_is_local_and_falls_back_to_utc_past_the_calendar(bookkeeper_client, company, stored, shown):
    item = received(factories.make_item(company), stored)

    response = bookkeeper_client.get(url(item))

    assert response.status_code == 200
    assert f">{shown}</time>" in response.content.decode()


def test_an_image_receipt_is_shown_inline(bookkeeper_client, company):
    item = item_with_document(company, PNG)

    page = page_of(bookkeeper_client.get(url(item)))

    document_url = reverse("item_document", args=[item.pk])
    assert [img["src"] for img in page.tags("img")] == [document_url]


def test_a_pdf_receipt_is_embedded_and_linked(bookkeeper_client, company):
    item = item_with_document(company, b"%PDF-1.4\n", file_name="kvitto.pdf", mime_type="application/pdf")

    page = page_of(bookkeeper_client.get(url(item)))

    document_url = reverse("item_document", args=[item.pk])
    assert [frame["src"] for frame in page.tags("iframe")] == [document_url]
    assert document_url in [a["href"] for a in page.tags("a")]


def test_a_document_of_another_type_is_only_linked_for_download(bookkeeper_client, company):
    item = item_with_document(company, b"PK\x03\x04", file_name="kvitto.zip", mime_type="application/zip")

    response = bookkeeper_client.get(url(item))

    page = page_of(response)
    assert page.tags("img") == []
    assert page.tags("iframe") == []
    document_url = reverse("item_document", args=[item.pk])
    assert f'<a href="{document_url}">Download the document</a>' in response.content.decode()


def test_the_page_shows_the_documents_id_and_file_name(bookkeeper_client, company):
    item = item_with_document(company, PNG, file_name="IMG_2041.png")

    facts = page_of(bookkeeper_client.get(url(item))).words("document-facts")

    assert facts == f"{item.document_id} IMG_2041.png"


def test_an_item_without_a_document_says_so_and_shows_no_receipt(bookkeeper_client, company):
    item = factories.make_item(company)

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.tags("img") == []
    assert page.tags("iframe") == []
    assert "No document" in page.text("document-facts")
    assert reverse("item_document", args=[item.pk]) not in [a.get("href") for a in page.tags("a")]


# --- Booked -------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["journal_entry", "supplier_invoice"])
def test_a_booked_item_says_an_answer_can_no_longer_reach_the_verifikat(bookkeeper_client, company, how):
    item = book(factories.make_item(company, channel_context=MOVED_CONTEXT), how=how)

    page = page_of(bookkeeper_client.get(url(item)))

    notice = page.words("booked")
    assert "This item is booked" in notice
    assert "an answer can no longer reach the verifikat" in notice


def test_a_booked_item_is_badged_booked_and_never_needs_an_answer(bookkeeper_client, company):
    item = book(factories.make_item(company, channel_context=MOVED_CONTEXT))

    response = bookkeeper_client.get(url(item))

    badges = [attrs.get("class") for tag, attrs in page_of(response).all_tags() if tag == "span"]
    assert "badge badge-booked" in badges
    assert "badge badge-needs_answer" not in badges


def test_an_item_that_is_not_booked_has_no_booked_notice(bookkeeper_client, company):
    # Linked to a bank transaction is not booked.
    item = link_transaction(factories.make_item(company, channel_context=MOVED_CONTEXT))

    page = page_of(bookkeeper_client.get(url(item)))

    assert not page.has("booked")
    badges = [attrs.get("class") for tag, attrs in page.all_tags() if tag == "span"]
    assert "badge badge-needs_answer" in badges
