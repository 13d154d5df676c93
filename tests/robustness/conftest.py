"""Helpers for the hostile tests: lenient clients and raw writes of stored JSON.

Items live in accounted's table (the bookkeeping database); another program
writes their JSON with plain SQL, and ``sync_index`` then indexes the row for
the list. ``store_raw`` and ``store_text`` do both, as a moment later in
production.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent, IndexedItem
from reviewapp.readmodel import sync
from tests import factories

ASKED_AT = "2026-08-01T09:00:00.000Z"
JSON_COLUMNS = ("channel_context", "extracted_data")


def lenient(user: Any | None = None, **kwargs: Any) -> Client:
    """A client that returns the 500 page instead of raising, so tests can assert on the status."""
    client = Client(raise_request_exception=False, **kwargs)
    if user is not None:
        client.force_login(user)
    return client


def staff_superuser() -> Any:
    return factories.make_user(is_staff=True, is_superuser=True)


def store_text(item_id: Any, column: str, text: str | None) -> None:
    """Write a JSON column as text with plain SQL (PostgreSQL parses it), then index the row."""
    assert column in JSON_COLUMNS
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            f"UPDATE public.invoice_inbox_items SET {column} = %s::jsonb WHERE id = %s",  # noqa: S608
            [text, item_id],
        )
    sync.index_items([item_id])


def store_raw(item: InboxItem, **columns: Any) -> InboxItem:
    """Write JSON columns the way another program does (plain SQL, no model code), then index the row."""
    for column, value in columns.items():
        store_text(item.pk, column, None if value is None else json.dumps(value, ensure_ascii=False))
    return InboxItem.objects.get(pk=item.pk)


def moved(question: str = "representation", **ctx: Any) -> InboxItem:
    """An item whose question of type ``question`` waits for an answer in the app."""
    channel_context = {
        "channel": "whatsapp",
        "caption": "lunch",
        "pending_question": {"type": question, "asked_at": ASKED_AT, "status": "moved_to_app"},
        **ctx,
    }
    return factories.make_item(channel_context=channel_context)


def stored_text(item_id: Any, column: str) -> str | None:
    """The column exactly as PostgreSQL prints it."""
    assert column in JSON_COLUMNS
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(f"SELECT {column}::text FROM public.invoice_inbox_items WHERE id = %s", [item_id])  # noqa: S608
        return cursor.fetchone()[0]


def snapshot(item: InboxItem) -> tuple[Any, ...]:
    """What a refused write must leave as it was: the live row's JSON and clock, both logs, the read model."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT channel_context::text, extracted_data::text, updated_at FROM public.invoice_inbox_items"
            " WHERE id = %s",
            [item.pk],
        )
        row = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM public.whatsapp_messages WHERE inbox_item_id = %s", [item.pk])
        messages = cursor.fetchone()[0]
    return (
        row,
        messages,
        ClarificationEvent.objects.filter(item_id=item.pk).count(),
        ProcessingHistory.objects.filter(aggregate_id=item.pk).count(),
        IndexedItem.objects.filter(pk=item.pk).values_list("source_updated_at", flat=True).first(),
    )


def item_urls(item: InboxItem) -> list[str]:
    """Every GET page and API that shows one item or lists it."""
    return [
        reverse("inbox"),
        reverse("inbox") + "?q=a",
        *(reverse("inbox") + f"?state={key}" for key in ("needs_answer", "malformed", "answered", "no_answers")),
        reverse("api_items"),
        reverse("item_detail", args=[item.pk]),
        reverse("api_item", args=[item.pk]),
        reverse("item_answer", args=[item.pk]),
    ]


def raw_urls(item: InboxItem) -> list[str]:
    """The stored JSON downloads (Support and QA)."""
    return [reverse("item_raw", args=[item.pk, column]) for column in JSON_COLUMNS]


def admin_urls(item: InboxItem) -> list[str]:
    return [
        reverse("admin:reviewapp_indexeditem_changelist"),
        reverse("admin:reviewapp_indexeditem_changelist") + "?state=malformed",
        reverse("admin:reviewapp_indexeditem_change", args=[item.pk]),
        reverse("admin:reviewapp_clarificationevent_changelist"),
    ]
