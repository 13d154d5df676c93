"""The item page in a real browser: copy button, j/k, the receipt, no CSP errors.

Run with ``pytest -m e2e tests/items/test_item_e2e.py``; needs Chromium
(``CHROMIUM`` names the binary, default ``/usr/bin/chromium``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

import clarifications
from reviewapp.bookkeeping.models import InboxItem
from tests import factories
from tests.items.bookkeeping import make_document, real_png
from tests.items.page import received

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

NOTE_CONTEXT = {"channel": "whatsapp", "user_note": "Pärmar  och\tpapper <till> kontoret"}


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; the test's
    # own ORM calls are still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, live_server, settings, bookkeeper) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    settings.SESSION_COOKIE_SECURE = False
    client = Client()
    client.force_login(bookkeeper)
    context = browser.new_context(base_url=live_server.url, locale="en-GB")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    opened = context.new_page()
    opened.csp_errors = []  # type: ignore[attr-defined]
    opened.on(
        "console",
        lambda message: "Content Security Policy" in message.text and opened.csp_errors.append(message.text),
    )
    yield opened
    context.close()


def test_the_copy_button_copies_exactly_what_the_agent_is_told(page, company):
    item = factories.make_item(company, channel_context=NOTE_CONTEXT)
    expected = "\n".join(
        clarifications.render_agent_view(
            str(item.document_id) if item.document_id else None, item.extracted_data, item.channel_context
        )
    )

    page.goto(reverse("item_detail", args=[item.pk]))
    page.get_by_role("button", name="Copy", exact=True).click()
    page.get_by_text("Copied").wait_for()

    assert page.evaluate("navigator.clipboard.readText()") == expected
    assert page.csp_errors == []


def test_j_and_k_walk_the_list_keeping_its_filter(page, company):
    waiting = {
        "channel": "whatsapp",
        "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00Z", "status": "open"},
    }
    newer = received(factories.make_item(company, channel_context=waiting), "2026-08-05T10:00:00Z")
    received(factories.make_item(company), "2026-08-04T10:00:00Z")
    middle = received(factories.make_item(company, channel_context=waiting), "2026-08-03T10:00:00Z")
    older = received(factories.make_item(company, channel_context=waiting), "2026-08-01T10:00:00Z")
    query = "state=waiting_in_chat"

    page.goto(f"{reverse('item_detail', args=[middle.pk])}?{query}")
    page.keyboard.press("j")
    page.wait_for_url(f"**{reverse('item_detail', args=[older.pk])}?{query}")
    page.keyboard.press("k")
    page.wait_for_url(f"**{reverse('item_detail', args=[middle.pk])}?{query}")
    page.keyboard.press("k")
    page.wait_for_url(f"**{reverse('item_detail', args=[newer.pk])}?{query}")


def test_the_receipt_image_loads_under_the_csp(page, company):
    item: InboxItem = factories.make_item(company, document=make_document(company, content=real_png(40, 60)))

    page.goto(reverse("item_detail", args=[item.pk]))
    image = page.locator("img.receipt-image")
    image.wait_for()
    page.wait_for_load_state("load")

    assert image.evaluate("img => img.naturalWidth") == 40
    assert page.csp_errors == []
