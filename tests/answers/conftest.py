from __future__ import annotations

import datetime as dt
import io
import json
import uuid
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connections
from django.urls import reverse
from PIL import Image

from reviewapp.bookkeeping.models import Company, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from tests import factories

ASKED_AT = "2026-08-01T09:00:00.000Z"
HTMX = {"HTTP_HX_REQUEST": "true"}

# Keys the chat and other intakes write that the app must never touch.
FOREIGN_KEYS: dict[str, Any] = {
    "mail_subject": "Kvitto",
    "mail_from": "a@b.se",
    "peppol_id": "0007:5567321707",
    "company_selected_via": "pin",
    "caption": "lunch",
    "nested": {"b": [1, 2, {"c": None}], "a": "å"},
}


def entered_by_firm(answered_at: str, answer: str) -> str:
    """``raw_answer`` of an answer entered without the customer's words, as the README words it.

    The stored ``answered_at`` (UTC) in Stockholm time to the minute, with the
    zone's abbreviation: ``Inmatat av byrån i granskningsappen 2026-08-12 11:31 CEST: Taxi``.
    """
    local = dt.datetime.fromisoformat(answered_at).astimezone(ZoneInfo("Europe/Stockholm"))
    return f"Inmatat av byrån i granskningsappen {local:%Y-%m-%d %H:%M} {local.tzname()}: {answer}"


def firm_wide_bookkeeper(username: str, **fields: Any) -> User:
    """A bookkeeper who sees every company, like the ``bookkeeper`` fixture (restricted ones: test_answer_access)."""
    user = factories.make_user(roles.BOOKKEEPER, username=username, **fields)
    user.user_permissions.add(
        Permission.objects.get(codename="view_all_companies", content_type__app_label="reviewapp")
    )
    return User.objects.get(pk=user.pk)


def moved_item(
    question: str = "representation", *, status: str = "moved_to_app", company: Company | None = None, **ctx: Any
) -> InboxItem:
    """An item (of ``company``, else a new one) whose question of type ``question`` the chat gave up on."""
    channel_context: dict[str, Any] = {
        "channel": "whatsapp",
        **FOREIGN_KEYS,
        "pending_question": {"type": question, "asked_at": ASKED_AT, "status": status},
        **ctx,
    }
    return factories.make_item(company, channel_context=channel_context)


def make_conversation(item: InboxItem, *, context: dict[str, Any] | None = None, state: str = "idle") -> uuid.UUID:
    """A linked phone and its conversation for the item's owner, holding ``context``.

    By default ``recent_questions`` holds the item's question as the 48-hour
    sweep leaves it: ``moved_to_app``.
    """
    if context is None:
        pending = item.channel_context.get("pending_question", {}) if isinstance(item.channel_context, dict) else {}
        context = {
            "recent_questions": [
                {
                    "type": pending.get("type", "representation"),
                    "inbox_item_id": str(item.pk),
                    "asked_at": ASKED_AT,
                    "status": "moved_to_app",
                }
            ],
            "budget": {"day_key": "2026-08-01", "count": 1},
        }
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_phone_links (user_id, phone_hash) VALUES (%s, %s) RETURNING id",
            [item.user_id, uuid.uuid4().hex],
        )
        link = cursor.fetchone()[0]
        cursor.execute(
            "INSERT INTO public.whatsapp_conversations (phone_link_id, company_id, state, context)"
            " VALUES (%s, %s, %s, %s::jsonb) RETURNING id",
            [link, item.company_id, state, json.dumps(context)],
        )
        return cursor.fetchone()[0]


def conversation(conversation_id: uuid.UUID) -> tuple[dict[str, Any], str, Any]:
    """A conversation's context, state and updated_at as stored."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT context::text, state, updated_at FROM public.whatsapp_conversations WHERE id = %s",
            [conversation_id],
        )
        text, state, updated_at = cursor.fetchone()
    return json.loads(text), state, updated_at


def answer_url(item: InboxItem) -> str:
    return reverse("item_answer", args=[item.pk])


def preview_url(item: InboxItem) -> str:
    return reverse("item_answer_preview", args=[item.pk])


def item_url(item: InboxItem, query: str = "") -> str:
    return reverse("item_detail", args=[item.pk]) + (f"?{query}" if query else "")


def representation_post(
    rows: list[tuple[str, str]], purpose: str = "", event_date: str = "", **extra: str
) -> dict[str, Any]:
    """The representation form as a browser posts it: ``rows`` of (name, company), then the other fields."""
    data: dict[str, Any] = {
        "question": "representation",
        "participants-TOTAL_FORMS": str(len(rows)),
        "participants-INITIAL_FORMS": "0",
        "participants-MIN_NUM_FORMS": "0",
        "participants-MAX_NUM_FORMS": "20",
        "purpose": purpose,
        "event_date": event_date,
        "action": "save",
    }
    for index, (name, company) in enumerate(rows):
        data[f"participants-{index}-name"] = name
        data[f"participants-{index}-company"] = company
    data.update(extra)
    return data


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def assert_foreign_keys_untouched(ctx: dict[str, Any]) -> None:
    for key, value in FOREIGN_KEYS.items():
        assert ctx[key] == value
    assert ctx["channel"] == "whatsapp"


def book(item: InboxItem) -> None:
    """Book the item: a journal entry is created from it."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("INSERT INTO public.journal_entries (company_id) VALUES (%s) RETURNING id", [item.company_id])
        entry = cursor.fetchone()[0]
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET created_journal_entry_id = %s WHERE id = %s", [entry, item.pk]
        )
    item.refresh_from_db()


def history(item: InboxItem, event_type: str = "ChannelQuestionAnswered") -> list[ProcessingHistory]:
    return list(ProcessingHistory.objects.filter(aggregate_id=item.pk, event_type=event_type).order_by("seq"))


def stored_context(item: InboxItem) -> dict[str, Any]:
    item.refresh_from_db()
    assert isinstance(item.channel_context, dict)
    return item.channel_context


@pytest.fixture
def item_factory(db):  # type: ignore[no-untyped-def]
    return moved_item
