"""The receipt file: /items/<uuid>/document/, read from accounted's documents bucket by storage_path."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.items.bookkeeping import PDF, PNG, item_with_document, make_document


def document_url(item) -> str:  # type: ignore[no-untyped-def]
    return reverse("item_document", args=[item.pk])


def test_the_file_is_read_from_thedocuments_bucket_by_its_storage_path(bookkeeper_client, company, documents_bucket):
    item = item_with_document(company, PNG, storage_path=f"documents/{company.pk}/u/1733000000000_kvitto.png")

    response = bookkeeper_client.get(document_url(item))

    assert (documents_bucket / f"documents/{company.pk}/u/1733000000000_kvitto.png").read_bytes() == PNG
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"].startswith("inline")
    assert 'filename="kvitto.png"' in response["Content-Disposition"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == PNG


def test_a_pdf_may_use_the_browsers_pdf_viewer(support_client, company):
    item = item_with_document(company, PDF, file_name="kvitto.pdf", mime_type="application/pdf")

    response = support_client.get(document_url(item))

    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline")
    # Chrome's viewer is an <embed>, blocked by the site-wide object-src 'none'.
    assert "object-src 'none'" not in response["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in response["Content-Security-Policy"]


def test_the_bytes_decide_the_type_not_the_stored_mime_type(bookkeeper_client, company):
    # Stored as a PNG, but the file is HTML: never shown inline in our origin.
    item = item_with_document(company, b"<html><script>alert(1)</script></html>", mime_type="image/png")

    response = bookkeeper_client.get(document_url(item))

    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith("attachment")
    assert "default-src 'none'" in response["Content-Security-Policy"]


def test_a_file_name_with_folders_and_line_breaks_is_a_safe_download_name(bookkeeper_client, company):
    item = item_with_document(company, b"PK\x03\x04", file_name='../x/kvitto\r\n"2".zip', mime_type="application/zip")

    response = bookkeeper_client.get(document_url(item))

    assert response.status_code == 200
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment")
    assert "\n" not in disposition
    assert "\r" not in disposition
    assert "../" not in disposition
    assert "kvitto" in disposition


def test_an_item_without_a_document_is_a_404(bookkeeper_client, company):
    item = factories.make_item(company)

    response = bookkeeper_client.get(document_url(item))

    assert response.status_code == 404
    assert "This item has no document." in response.content.decode()


def test_a_document_missing_from_the_bucket_is_a_clear_404(bookkeeper_client, company):
    document = make_document(company, content=None, file_name="IMG_0001.png")
    item = factories.make_item(company, document=document)

    response = bookkeeper_client.get(document_url(item))

    assert response.status_code == 404
    body = response.content.decode()
    assert "The receipt file is missing from the documents storage." in body
    assert str(document.pk) in body
    assert "IMG_0001.png" in body


def test_a_missing_item_is_a_404(bookkeeper_client):
    assert (
        bookkeeper_client.get(reverse("item_document", args=["00000000-0000-0000-0000-000000000000"])).status_code
        == 404
    )


@pytest.mark.parametrize("kind", ["parent", "nested_parent", "absolute"])
def test_a_storage_path_leading_out_of_the_bucket_is_never_served(bookkeeper_client, company, documents_bucket, kind):
    secret = documents_bucket.parent / "secret.png"
    secret.write_bytes(PNG)
    path = {
        "parent": "../secret.png",
        "nested_parent": f"documents/{company.pk}/../../../secret.png",
        "absolute": str(secret),
    }[kind]
    item = factories.make_item(company, document=make_document(company, storage_path=path))

    response = bookkeeper_client.get(document_url(item))

    assert response.status_code == 404
    assert "cannot be read from the documents storage" in response.content.decode()
    assert PNG not in response.content


def test_it_refuses_a_user_without_a_role(client, company):
    item = item_with_document(company, PNG)
    client.force_login(factories.make_user())

    assert client.get(document_url(item)).status_code == 403


def test_it_sends_anonymous_visitors_to_the_login_page(client, company):
    item = item_with_document(company, PNG)

    response = client.get(document_url(item))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_refuses_post(bookkeeper_client, company):
    item = item_with_document(company, PNG)

    assert bookkeeper_client.post(document_url(item)).status_code == 405
