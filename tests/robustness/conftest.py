"""Helpers for the hostile tests: lenient clients and raw writes of stored JSON."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.models import JSONField, Value
from django.test import Client
from django.urls import reverse

from reviewapp.models import ClarificationEvent, InboxItem
from tests import factories

ASKED_AT = "2026-08-01T09:00:00Z"


def lenient(user: Any | None = None, **kwargs: Any) -> Client:
    """A client that returns the 500 page instead of raising, so tests can assert on the status."""
    client = Client(raise_request_exception=False, **kwargs)
    if user is not None:
        client.force_login(user)
    return client


def store_raw(item: InboxItem, **columns: Any) -> InboxItem:
    """Write JSON columns the way the chat intake does: an UPDATE, no ``save()``, states left stale."""
    values = {name: Value(value, output_field=JSONField()) for name, value in columns.items()}
    InboxItem.objects.filter(pk=item.pk).update(**values)
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


def snapshot(item: InboxItem) -> tuple[Any, Any, int]:
    """What a refused write must leave as it was: both JSON columns and the event count."""
    fresh = InboxItem.objects.get(pk=item.pk)
    return fresh.channel_context, fresh.extracted_data, ClarificationEvent.objects.filter(item=item).count()


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


def admin_urls(item: InboxItem) -> list[str]:
    return [
        reverse("admin:reviewapp_inboxitem_changelist"),
        reverse("admin:reviewapp_inboxitem_changelist") + "?state=malformed",
        reverse("admin:reviewapp_inboxitem_change", args=[item.pk]),
    ]


@pytest.fixture
def on_sqlite() -> bool:
    return connection.vendor == "sqlite"
