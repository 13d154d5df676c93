"""A receipt ``storage_path`` another program stored: never a 500, never a file outside the bucket."""

from __future__ import annotations

import pytest
from django.db import DataError, connections, transaction
from django.urls import reverse

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories
from tests.items.bookkeeping import make_document
from tests.robustness.conftest import lenient

PATHS = {
    "missing": "documents/2026/01/gone.jpg",
    "parent directory": "../../../../etc/passwd",
    "parent directory inside the key": "documents/../../../../../etc/passwd",
    "absolute": "/etc/passwd",
    "a directory": "documents",
    "bucket root": ".",
    "empty": "",
    "name too long for the file system": "documents/" + "a" * 280 + ".jpg",
    "control characters": "documents/\x1b[31m\x07.jpg",
}


@pytest.fixture
def bucket(documents_bucket):  # type: ignore[no-untyped-def]
    # A bucket in use: its documents/ folder exists, so a path naming a folder finds one.
    (documents_bucket / "documents").mkdir(parents=True)
    return documents_bucket


@pytest.mark.parametrize("key", PATHS)
def test_a_hostile_stored_document_path_is_a_4xx(key, bookkeeper, bucket) -> None:  # type: ignore[no-untyped-def]
    company = factories.make_company()
    item = factories.make_item(company, document=make_document(company, storage_path=PATHS[key]))
    response = lenient(bookkeeper).get(reverse("item_document", args=[item.pk]))
    assert 400 <= response.status_code < 500
    assert b"root:" not in response.content
    # The item page and its API still open, with or without a link to the document.
    assert lenient(bookkeeper).get(reverse("item_detail", args=[item.pk])).status_code == 200
    assert lenient(bookkeeper).get(reverse("api_item", args=[item.pk])).status_code == 200


def test_postgresql_refuses_a_nul_in_a_stored_path_so_no_row_can_hold_one(db) -> None:  # type: ignore[no-untyped-def]
    # The old SQLite-era case ("receipts/a\x00.jpg" stored) cannot happen:
    # accounted's text column refuses it on the way in.
    company = factories.make_company()
    with (
        pytest.raises(DataError),
        transaction.atomic(using=BOOKKEEPING_DB),
        connections[BOOKKEEPING_DB].cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO public.document_attachments (user_id, company_id, storage_path, file_name, sha256_hash)"
            " VALUES (%s, %s, %s, 'a.jpg', 'x')",
            [company.created_by, company.pk, "documents/a\x00.jpg"],
        )
