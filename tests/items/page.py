"""What the item page's test files share: its URL and the moments they place an item at."""

from __future__ import annotations

from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.readmodel import sync
from tests.items.bookkeeping import at

ASKED_AT = "2026-08-01T09:00:00Z"  # 11:00 in Stockholm (CEST)
CRON = {"type": "cron", "id": "whatsapp-question-expiry"}
MOVED_CONTEXT = {
    "channel": "whatsapp",
    "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
}


def url(item: InboxItem, query: str = "") -> str:
    return reverse("item_detail", args=[item.pk]) + (f"?{query}" if query else "")


def received(item: InboxItem, when: str) -> InboxItem:
    """``item`` as if accounted had received it at ``when``, indexed again."""
    InboxItem.objects.filter(pk=item.pk).update(created_at=at(when))
    sync.index_items([item.pk])
    item.refresh_from_db()
    return item
