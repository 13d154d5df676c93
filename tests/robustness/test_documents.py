"""A receipt path another program stored: never a 500, never a file outside the storage."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewapp.models import InboxItem
from tests import factories
from tests.robustness.conftest import lenient

PATHS = {
    "missing": "receipts/2026/01/gone.jpg",
    "parent directory": "../../../../etc/passwd",
    "absolute": "/etc/passwd",
    "a directory": "receipts",
    "storage root": ".",
    "name too long for the file system": "receipts/" + "a" * 280 + ".jpg",
    "NUL": "receipts/a\x00.jpg",
}


@pytest.mark.parametrize("key", PATHS)
def test_a_hostile_stored_document_path_is_a_4xx(key, bookkeeper, settings, on_sqlite) -> None:  # type: ignore[no-untyped-def]
    if key == "NUL" and not on_sqlite:
        pytest.skip("PostgreSQL text cannot hold NUL")
    (settings.MEDIA_ROOT / "receipts").mkdir(parents=True)
    item = factories.make_item()
    InboxItem.objects.filter(pk=item.pk).update(document_file=PATHS[key])
    response = lenient(bookkeeper).get(reverse("item_document", args=[item.pk]))
    assert 400 <= response.status_code < 500
    assert b"root:" not in response.content
    # The item page still opens, with or without a link to the document.
    assert lenient(bookkeeper).get(reverse("item_detail", args=[item.pk])).status_code == 200
