"""channel_context shapes the journeys start from, as the chat intake writes them."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from typing import Any

from django.utils import timezone
from playwright.sync_api import Page

from reviewapp.models import Company, InboxItem
from tests import factories


def iso_hours_ago(hours: float) -> str:
    moment = timezone.now() - dt.timedelta(hours=hours)
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def moved_question(question: str, *, asked_hours_ago: float, **extra: Any) -> dict[str, Any]:
    """A question the chat gave up on: the app owns it now."""
    return {
        "channel": "whatsapp",
        "pending_question": {"type": question, "asked_at": iso_hours_ago(asked_hours_ago), "status": "moved_to_app"},
        **extra,
    }


def denial(raw_answer: str, **extra: Any) -> dict[str, Any]:
    return {
        "channel": "whatsapp",
        "representation": {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw_answer,
            "answered_at": iso_hours_ago(30),
            "denied": True,
        },
        **extra,
    }


def full_answer(names: list[str], purpose: str) -> dict[str, Any]:
    return {
        "channel": "whatsapp",
        "representation": {
            "participants": [{"name": name, "company": None} for name in names],
            "purpose": purpose,
            "event_date": None,
            "raw_answer": f"{', '.join(names)}. {purpose}",
            "answered_at": iso_hours_ago(20),
        },
        "pending_question": {"type": "representation", "asked_at": iso_hours_ago(26), "status": "answered"},
    }


def item(company: Company, supplier: str, channel_context: Any, *, received_hours_ago: float = 1) -> InboxItem:
    received = timezone.now() - dt.timedelta(hours=received_hours_ago)
    extracted = {
        "supplier": {"name": supplier},
        "invoice": {"invoiceDate": received.date().isoformat(), "currency": "SEK"},
        "totals": {"total": 1234.5, "vatAmount": 148.14},
    }
    return factories.make_item(company, extracted_data=extracted, channel_context=channel_context, created_at=received)


ITEM_HREF = re.compile(r"/items/([0-9a-f-]{36})/")


def shown_item_ids(page: Page) -> list[str]:
    """The item ids of the list's rows, in order (from the row links)."""
    hrefs = page.locator("tr.inbox-row a.row-link").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [match.group(1) for href in hrefs if (match := ITEM_HREF.search(href))]


def eventually[T](read: Callable[[], T], expected: T, *, timeout: float = 10.0, what: str = "value") -> None:
    """Poll ``read()`` until it equals ``expected``; htmx swaps land a moment later."""
    deadline = time.monotonic() + timeout
    value = read()
    while value != expected:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: expected {expected!r}, still {value!r} after {timeout}s")
        time.sleep(0.1)
        value = read()
