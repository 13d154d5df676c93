from __future__ import annotations

from typing import Any

import pytest

from reviewapp.models import InboxItem
from tests import factories

ASKED_AT = "2026-08-01T09:00:00Z"

# Keys the chat and other intakes write that the app must never touch.
FOREIGN_KEYS: dict[str, Any] = {
    "mail_subject": "Kvitto",
    "mail_from": "a@b.se",
    "peppol_id": "0007:5567321707",
    "company_selected_via": "whatsapp_menu",
    "caption": "lunch",
    "nested": {"b": [1, 2, {"c": None}], "a": "å"},
}


def moved_item(question: str = "representation", *, status: str = "moved_to_app", **ctx: Any) -> InboxItem:
    """An item whose question of type ``question`` the chat gave up on."""
    channel_context: dict[str, Any] = {
        "channel": "whatsapp",
        **FOREIGN_KEYS,
        "pending_question": {"type": question, "asked_at": ASKED_AT, "status": status},
        **ctx,
    }
    return factories.make_item(channel_context=channel_context)


@pytest.fixture
def item_factory(db):  # type: ignore[no-untyped-def]
    return moved_item
