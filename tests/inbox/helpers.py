"""Builders for the inbox tests: channel_context shapes as the chat intake writes
them, and plain-SQL writes to accounted's tables as another program makes them."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

from django.db import connections
from django.http import QueryDict

from reviewapp.bookkeeping.models import Company, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.inbox.query import ListQuery
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from reviewapp.web.forms.inbox import parse_list_query


def pending(status: str, *, type_: str = "context", asked_at: str = "2026-11-01T09:00:00Z") -> dict[str, Any]:
    return {"channel": "whatsapp", "pending_question": {"type": type_, "asked_at": asked_at, "status": status}}


def denial(raw_answer: str = "nej", *, answered_at: str | None = None) -> dict[str, Any]:
    """A "this was not representation" answer, as the intake writes it."""
    answer: dict[str, Any] = {"participants": [], "purpose": None, "denied": True, "raw_answer": raw_answer}
    if answered_at is not None:
        answer["answered_at"] = answered_at
    return {"channel": "whatsapp", "representation": answer}


def participants_only(*names: str) -> dict[str, Any]:
    return {
        "channel": "whatsapp",
        "representation": {"participants": [{"name": n, "company": None} for n in names], "purpose": None},
    }


def note(text: str) -> dict[str, Any]:
    return {"channel": "whatsapp", "user_note": text}


# --- Poison: JSON PostgreSQL stores and Python cannot read ---------------------


def deep_json(depth: int = 10_000) -> str:
    """A channel_context nested ``depth`` objects deep (past Python's recursion limit)."""
    return '{"channel": "whatsapp", "x": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


def huge_number_json(digits: int = 5_000) -> str:
    """A channel_context holding a ``digits``-digit number (past Python's 4 300-digit limit)."""
    return '{"channel": "whatsapp", "user_note": "x", "n": ' + "9" * digits + "}"


# --- Plain SQL on accounted's tables, as another program writes them -----------


def _execute(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def raw_update_json(item_id: uuid.UUID | str, column: str, json_text: str | None) -> None:
    """``UPDATE ... SET <column> = <json_text>::jsonb``: the JSON text is sent as is."""
    assert column in ("channel_context", "extracted_data")
    _execute(
        f"UPDATE public.invoice_inbox_items SET {column} = %s::jsonb WHERE id = %s",  # noqa: S608 - checked above
        [json_text, str(item_id)],
    )


def raw_update_context(item_id: uuid.UUID | str, value: object) -> None:
    raw_update_json(item_id, "channel_context", None if value is None else json.dumps(value, ensure_ascii=False))


def raw_insert(company: Company, channel_context: object) -> str:
    """Insert a row the way the chat intake does: only the columns it knows."""
    rows = _execute(
        "INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)"
        " VALUES (%s, %s, 'whatsapp', '{}'::jsonb, %s::jsonb) RETURNING id",
        [company.created_by, company.id, None if channel_context is None else json.dumps(channel_context)],
    )
    return str(rows[0][0])


def journal_entry(company: Company) -> uuid.UUID:
    """A row in accounted's journal_entries (an item pointing at one is booked)."""
    return _execute("INSERT INTO public.journal_entries (company_id) VALUES (%s) RETURNING id", [company.id])[0][0]


def supplier_invoice(company: Company) -> uuid.UUID:
    """A row in accounted's supplier_invoices (an item pointing at one is booked)."""
    return _execute("INSERT INTO public.supplier_invoices (company_id) VALUES (%s) RETURNING id", [company.id])[0][0]


def indexed(item_id: uuid.UUID | str) -> IndexedItem:
    """The item's row in the list's read model."""
    return IndexedItem.objects.get(pk=item_id)


def moved_to_app(item: InboxItem, at: dt.datetime) -> None:
    """accounted's expiry cron moved the item's question to the app at ``at`` (then re-indexed)."""
    ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id or uuid.uuid4(),
        aggregate_type="System",
        aggregate_id=item.id,
        event_type="ChannelQuestionExpired",
        actor={"type": "cron", "id": "whatsapp-question-expiry"},
        occurred_at=at,
    )
    sync.index_items([item.id])


def listed(query: str | QueryDict, user: Any) -> ListQuery:
    """The list a query string describes to ``user``, as the item page and save-and-next read it."""
    return parse_list_query(QueryDict(query) if isinstance(query, str) else query, user=user)
