"""A receipt whose file is missing from the storage: a notice with the document id, no broken image, no 404."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from tests import factories
from tests.e2e import data
from tests.items.bookkeeping import make_document

pytestmark = pytest.mark.e2e

WIDTHS = {1440: 900, 390: 844}


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
@pytest.mark.parametrize("question", ["context", None], ids=["answering", "answered"])
def test_a_missing_receipt_file_is_named_not_shown_broken(
    width: int,
    question: str | None,
    new_page: Callable[..., Page],
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company()
    if question:
        item = data.waiting_item(company, "Restaurang Tegel", question, moved_hours_ago=12)
    else:
        item = data.item(company, "Restaurang Tegel", {"channel": "whatsapp"}, received_hours_ago=5)
    document = make_document(company, content=None)  # the row only: no file in the bucket
    InboxItem.objects.filter(pk=item.pk).update(document=document)
    page = new_page(width=width, height=WIDTHS[width])
    log_in(page, "bea")
    # Any request for the file would fail the journey (the fixture reports every 4xx and console error).
    page.goto(reverse("item_detail", args=[item.pk]))
    page.wait_for_load_state("networkidle")

    expect(page.locator("#receipt-missing")).to_contain_text(str(document.pk))
    expect(page.locator("img.receipt-image")).to_have_count(0)
    violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in violations]
