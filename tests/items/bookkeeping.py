"""Writing accounted's rows the way accounted does, for the item page's tests.

Documents with their files in the ``documents`` bucket, booking, the audit
log (``processing_history``), and rows whose JSON Python cannot decode,
written with plain SQL as another program would.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import uuid
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import connections

from reviewapp.bookkeeping.models import Company, DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent
from reviewapp.readmodel import sync
from tests import factories

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"

# JSON PostgreSQL stores but Python cannot read: nesting past the recursion
# limit, and a number past the 4 300-digit limit of int().
DEEP_JSON = "[" * 10_000 + "]" * 10_000
HUGE_NUMBER_JSON = '{"supplier": {"name": "Stort AB"}, "totals": {"total": ' + "9" * 5_000 + "}}"


def real_png(width: int = 60, height: int = 80) -> bytes:
    """A white PNG a browser decodes (``PNG`` above is only its signature, for the byte checks)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def make_document(
    company: Company,
    *,
    content: bytes | None = None,
    file_name: str = "kvitto.png",
    mime_type: str | None = "image/png",
    storage_path: str | None = None,
    **extra: Any,
) -> DocumentAttachment:
    """A ``document_attachments`` row; with ``content``, its file in the bucket at ``storage_path``."""
    path = storage_path or f"documents/{company.pk}/{company.created_by}/{uuid.uuid4().hex}_{file_name}"
    if content is not None:
        path = storages["documents"].save(path, ContentFile(content))
    values: dict[str, Any] = {
        "company": company,
        "user_id": company.created_by,
        "storage_path": path,
        "file_name": file_name,
        "file_size_bytes": len(content) if content is not None else None,
        "mime_type": mime_type,
        "sha256_hash": hashlib.sha256(content or b"").hexdigest(),
        "upload_source": "whatsapp",
    }
    values.update(extra)
    return DocumentAttachment.objects.create(**values)


def item_with_document(company: Company, content: bytes | None, **document: Any) -> InboxItem:
    return factories.make_item(company, document=make_document(company, content=content, **document))


def book(item: InboxItem, *, how: str = "journal_entry") -> InboxItem:
    """Book the item as accounted does: a journal entry (or supplier invoice) created from it."""
    table, column = {
        "journal_entry": ("journal_entries", "created_journal_entry_id"),
        "supplier_invoice": ("supplier_invoices", "created_supplier_invoice_id"),
    }[how]
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(f"INSERT INTO public.{table} (company_id) VALUES (%s) RETURNING id", [item.company_id])  # noqa: S608
        booked_id = cursor.fetchone()[0]
        cursor.execute(f"UPDATE public.invoice_inbox_items SET {column} = %s WHERE id = %s", [booked_id, item.pk])  # noqa: S608
    sync.index_items([item.pk])
    item.refresh_from_db()
    return item


def link_transaction(item: InboxItem) -> InboxItem:
    """Match the item to a bank transaction: linked, not booked."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("INSERT INTO public.transactions (company_id) VALUES (%s) RETURNING id", [item.company_id])
        transaction_id = cursor.fetchone()[0]
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET matched_transaction_id = %s WHERE id = %s", [transaction_id, item.pk]
        )
    sync.index_items([item.pk])
    item.refresh_from_db()
    return item


def accounted_event(
    item: InboxItem,
    event_type: str,
    when: str,
    *,
    actor: dict[str, Any] | None = None,
    question_type: str | None = "representation",
    **payload: Any,
) -> ProcessingHistory:
    """A row of accounted's ``processing_history`` about the item, shaped as the contract's question event."""
    body: dict[str, Any] = {"channel": "whatsapp", "inbox_item_id": str(item.pk)}
    if question_type is not None:
        body["question_type"] = question_type
    body.update(payload)
    return ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id or item.pk,
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type=event_type,
        payload=body,
        actor=actor or {"type": "system", "id": "whatsapp-inbound"},
        occurred_at=at(when),
    )


def app_event(item: InboxItem, event_type: str, when: str, **extra: Any) -> ClarificationEvent:
    """An event of the app's own log (an answer written here, with before/after)."""
    values: dict[str, Any] = {
        "item_id": item.pk,
        "event_type": event_type,
        "question_type": "representation",
        "channel": ClarificationEvent.Channel.APP,
        "occurred_at": at(when),
    }
    values.update(extra)
    return ClarificationEvent.objects.create(**values)


def poison_item(
    company: Company,
    *,
    channel_context: str | None = None,
    extracted_data: str | None = None,
    document: DocumentAttachment | None = None,
) -> uuid.UUID:
    """An item written with plain SQL whose JSON columns hold the given texts as jsonb."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.invoice_inbox_items"
            " (user_id, company_id, source, document_id, channel_context, extracted_data)"
            " VALUES (%s, %s, 'whatsapp', %s, %s::jsonb, %s::jsonb) RETURNING id",
            [
                company.created_by,
                company.pk,
                document.pk if document is not None else None,
                channel_context,
                extracted_data if extracted_data is not None else json.dumps({"supplier": {"name": "Giftig AB"}}),
            ],
        )
        item_id = cursor.fetchone()[0]
    sync.index_items([item_id])
    return item_id


def make_phone_link(company: Company, *, masked: str = "+46 70*** **12", phone_hash: str | None = None) -> uuid.UUID:
    """A ``whatsapp_phone_links`` row: the phone only as its hash and its masked form, as accounted stores it."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_phone_links (user_id, phone_hash, phone_masked, wa_profile_name)"
            " VALUES (%s, %s, %s, 'Anna') RETURNING id",
            [company.created_by, phone_hash or hashlib.sha256(masked.encode()).hexdigest(), masked],
        )
        return cursor.fetchone()[0]


def make_message(
    *,
    item_id: uuid.UUID | None,
    when: str | dt.datetime,
    direction: str = "inbound",
    message_type: str = "text",
    body: str | None = None,
    phone_link_id: uuid.UUID | None = None,
    wamid: str | None = None,
    raw_payload: Any = None,
    media_mime: str | None = None,
    media_filename: str | None = None,
) -> uuid.UUID:
    """A ``whatsapp_messages`` row as the intake writes it, with plain SQL (media_filename is not on the model)."""
    created_at = at(when) if isinstance(when, str) else when
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_messages"
            " (direction, wamid, sender_phone_hash, phone_link_id, message_type, body_text, media_id, media_mime,"
            "  media_filename, raw_payload, processing_status, inbox_item_id, created_at, updated_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, 'done', %s, %s, %s) RETURNING id",
            [
                direction,
                wamid,
                "secret-phone-hash" if direction == "inbound" else None,
                phone_link_id,
                message_type,
                body,
                "media-1" if media_mime else None,
                media_mime,
                media_filename,
                None if raw_payload is None else json.dumps(raw_payload),
                item_id,
                created_at,
                created_at,
            ],
        )
        return cursor.fetchone()[0]


def resend_answer(
    old: InboxItem, new: InboxItem, when: str, *, choice: str = "replaced", actor: Any = None
) -> ClarificationEvent:
    """The app's log of a resend question settled with a newer item, as ``reviewapp.answers`` writes it."""
    return app_event(
        old,
        ClarificationEvent.ANSWERED,
        when,
        question_type="resend",
        actor=actor,
        actor_label=actor.get_username() if actor is not None else "",
        payload={
            "before": {"channel": "whatsapp"},
            "after": {"channel": "whatsapp"},
            "resend": {"choice": choice, "new_item_id": str(new.pk), "document_id": None},
        },
    )


def whatsapp_item(
    company: Company,
    *,
    when: str,
    wamid: str,
    phone_link_id: uuid.UUID | None = None,
    caption: str | None = None,
    file_name: str = "kvitto.jpg",
    **fields: Any,
) -> InboxItem:
    """An item made from a WhatsApp photo: the inbound image message first, then the item naming it."""
    photo = make_message(
        item_id=None,
        when=when,
        message_type="image",
        body=caption,
        phone_link_id=phone_link_id,
        wamid=wamid,
        media_mime="image/jpeg",
        media_filename=file_name,
    )
    item = factories.make_item(company, whatsapp_message_id=photo, **fields)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("UPDATE public.whatsapp_messages SET inbox_item_id = %s WHERE id = %s", [item.pk, photo])
    return item
