"""The items the journeys start from, written to accounted's tables as its intake writes them.

Two ways in: ``item`` writes a whole ``channel_context`` at once (the shapes
below), for items whose history does not matter to the journey;
``waiting_item`` and ``chat_item`` go through the intake simulator
(``devtools.intake_simulator``): the question asked in WhatsApp, its conversation
entry, the audit events, and 48 hours later the sweep moving it to the app,
so the queue's order comes from the expiry, as it does in production.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.db import connections
from django.utils import timezone
from playwright.sync_api import Page

from devtools import intake_simulator as intake
from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.readmodel import sync
from tests import factories

# How long the chat waits for a reply before accounted's sweep moves the question to the app.
CHAT_WINDOW = dt.timedelta(hours=48)


def hours_ago(hours: float) -> dt.datetime:
    return timezone.now() - dt.timedelta(hours=hours)


def iso_hours_ago(hours: float) -> str:
    """A moment as the intake stamps it: ``toISOString()``, milliseconds and ``Z``."""
    moment = hours_ago(hours).astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond // 1000:03d}Z"


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
        "pending_question": {"type": "representation", "asked_at": iso_hours_ago(31), "status": "answered"},
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


def _extracted(supplier: str, received: dt.datetime) -> dict[str, Any]:
    return {
        "supplier": {"name": supplier},
        "invoice": {"invoiceDate": received.date().isoformat(), "currency": "SEK"},
        "totals": {"total": 1234.5, "vatAmount": 148.14},
    }


def item(
    company: Company, supplier: str, channel_context: Any, *, received_hours_ago: float = 1, **fields: Any
) -> InboxItem:
    """An item holding ``channel_context`` as written, indexed for the list at once."""
    received = hours_ago(received_hours_ago)
    return factories.make_item(
        company,
        extracted_data=_extracted(supplier, received),
        channel_context=channel_context,
        created_at=received,
        **fields,
    )


def chat_item(
    company: Company, supplier: str, question: str, *, asked_hours_ago: float, received_hours_ago: float | None = None
) -> InboxItem:
    """An item whose question the intake asked in WhatsApp ``asked_hours_ago`` hours ago, still open there."""
    received = asked_hours_ago + 0.5 if received_hours_ago is None else received_hours_ago
    new = item(company, supplier, {"channel": "whatsapp"}, received_hours_ago=received)
    intake.ask(new.pk, question, now=hours_ago(asked_hours_ago))
    return _reindexed(new)


def waiting_item(
    company: Company, supplier: str, question: str, *, moved_hours_ago: float, received_hours_ago: float | None = None
) -> InboxItem:
    """An item whose question the chat gave up on ``moved_hours_ago`` hours ago: the app's queue holds it.

    Asked 48 hours before that; accounted's sweep moved it (``ChannelQuestionExpired``),
    which is what orders the queue.
    """
    window = CHAT_WINDOW.total_seconds() / 3600
    asked = moved_hours_ago + window
    received = asked + 0.5 if received_hours_ago is None else received_hours_ago
    new = item(company, supplier, {"channel": "whatsapp"}, received_hours_ago=received)
    intake.ask(new.pk, question, now=hours_ago(asked))
    intake.expire(new.pk, now=hours_ago(moved_hours_ago))
    return _reindexed(new)


def _reindexed(changed: InboxItem) -> InboxItem:
    """The intake does not tell the read model; ``sync_index`` would, a moment later."""
    sync.index_items([changed.pk])
    changed.refresh_from_db()
    return changed


def reindex(*items: InboxItem) -> None:
    sync.index_items([each.pk for each in items])


def pending_status(of: InboxItem) -> str | None:
    of.refresh_from_db()
    ctx = of.channel_context
    pending = ctx.get("pending_question") if isinstance(ctx, dict) else None
    return pending.get("status") if isinstance(pending, dict) else None


# --- WhatsApp messages, as the intake stores them -------------------------------------


def phone_link(company: Company, *, masked: str) -> uuid.UUID:
    """A ``whatsapp_phone_links`` row: accounted keeps the number only hashed and masked."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_phone_links (user_id, phone_hash, phone_masked, wa_profile_name)"
            " VALUES (%s, %s, %s, 'Kund') RETURNING id",
            [company.created_by, hashlib.sha256(masked.encode()).hexdigest(), masked],
        )
        return cursor.fetchone()[0]


def message(
    *,
    item_id: uuid.UUID | None,
    hours: float,
    body: str | None,
    direction: str = "inbound",
    message_type: str = "text",
    phone_link_id: uuid.UUID | None = None,
    wamid: str | None = None,
    media_mime: str | None = None,
    template: str | None = None,
) -> uuid.UUID:
    """A ``whatsapp_messages`` row ``hours`` ago, with plain SQL as the intake writes it.

    ``template`` names the WhatsApp template of an outbound question (in ``raw_payload``).
    """
    moment = hours_ago(hours)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_messages"
            " (direction, wamid, sender_phone_hash, phone_link_id, message_type, body_text, media_id, media_mime,"
            "  raw_payload, processing_status, inbox_item_id, created_at, updated_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, 'done', %s, %s, %s) RETURNING id",
            [
                direction,
                wamid,
                "hashed-phone" if direction == "inbound" else None,
                phone_link_id,
                message_type,
                body,
                "media-1" if media_mime else None,
                media_mime,
                json.dumps({"template": template}) if template else None,
                item_id,
                moment,
                moment,
            ],
        )
        return cursor.fetchone()[0]


def attach_message(message_id: uuid.UUID, to: InboxItem) -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("UPDATE public.whatsapp_messages SET inbox_item_id = %s WHERE id = %s", [to.pk, message_id])


# --- Reading the page ------------------------------------------------------------------

ITEM_HREF = re.compile(r"/items/([0-9a-f-]{36})/")


def shown_item_ids(page: Page) -> list[str]:
    """The item ids of the list's rows, in order (from the row links)."""
    hrefs = page.locator("tr.inbox-row a.row-link").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [match.group(1) for href in hrefs if (match := ITEM_HREF.search(href))]


def item_id_in_url(page: Page) -> str | None:
    match = ITEM_HREF.search(page.url)
    return match.group(1) if match else None


def eventually[T](read: Callable[[], T], expected: T, *, timeout: float = 10.0, what: str = "value") -> None:
    """Poll ``read()`` until it equals ``expected``; htmx swaps land a moment later."""
    deadline = time.monotonic() + timeout
    value = read()
    while value != expected:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: expected {expected!r}, still {value!r} after {timeout}s")
        time.sleep(0.1)
        value = read()
