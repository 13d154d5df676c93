"""An uploaded photo accounted has not read: written as accounted writes an item it does not extract.

accounted's staged upload extracts inside accounted's own process
(``scheduleDeferredExtraction``, an ``after()`` worker in
``extensions/general/invoice-inbox/lib/upload-and-extract.ts``); nothing
outside that process can start it, and accounted's inbox sweep
(``invoice-inbox/lib/sweep.ts``, "deliberately NO re-extraction") turns a
'processing' row nobody extracts into an empty ``received`` one with
``extraction_skipped = false``: "the AI ran and found nothing". So the app
writes what the synchronous skip path of ``processArchivedDocumentInner``
writes for a caller that brings its own fields (``skipExtraction``, skip
reason ``client_opt_out``), read at erp-mafia/accounted 097a9e4 and 5233c18:

- the item: ``status`` 'received', ``extracted_data`` = ``emptyResult()``
  (``invoice-inbox/lib/extract-invoice-fields.ts``, the newest stored
  version, copied field by field below), ``extraction_skipped`` true;
- the document: ``mirrorExtractionToDocument`` with ``skipped`` set
  (``invoice-inbox/lib/mirror-extraction.ts``): ``extracted_data`` NULL,
  ``extracted_at`` now, ``extraction_model`` ``'skipped:client_opt_out'``;
- ``DocumentExtractionAttempted`` for the document with accounted's payload
  and ``skipped: true``, ``skip_reason: 'client_opt_out'``, under the app's
  pseudonymous actor (``writing.actor_for``), never accounted's
  ``invoice-inbox-extract`` system actor: the app made the decision.

accounted then shows the item as one whose fields were not read; its
"Tolka om" (``POST /items/:id/retry-extraction``, named so in
``invoice-inbox/__tests__/retry-extraction.test.ts``; it needs the company's
``ai`` capability) reads the photo inside accounted. ``accounted_inbox_url``
links to accounted's document inbox, where the item is.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.core.files.storage import storages
from django.db import transaction

from reviewapp.answers.uploads import CheckedFile, pdf_page_count
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent

# accounted's storage bucket for documents (as reviewapp.answers.resend stores them).
DOCUMENTS_STORAGE: Final = "documents"

EXTRACTION_ATTEMPTED: Final = "DocumentExtractionAttempted"
# The skip reason accounted uses for a caller that brings its own fields.
SKIP_REASON: Final = "client_opt_out"
SKIPPED_MODEL: Final = f"skipped:{SKIP_REASON}"
# accounted's document inbox ("Dokumentinkorg"): the invoice-inbox extension's workspace,
# /e/{sector}/{extension} (app/(dashboard)/extensions/[sector]/[extension]/page.tsx links it so,
# and the sidebar's invoice_inbox entry is this href). No address of a single item was found.
INBOX_PATH: Final = "/e/general/invoice-inbox"


def empty_result() -> dict[str, Any]:
    """accounted's ``emptyResult()``, field by field: what an item nobody read holds in ``extracted_data``."""
    return {
        "documentKind": None,
        "merchantCategory": None,
        "legibility": None,
        "purchaseTime": None,
        "payment": None,
        "supplier": {
            "name": None,
            "orgNumber": None,
            "vatNumber": None,
            "address": None,
            "bankgiro": None,
            "plusgiro": None,
            "iban": None,
            "bic": None,
        },
        "invoice": {
            "invoiceNumber": None,
            "invoiceDate": None,
            "dueDate": None,
            "paymentReference": None,
            "currency": "SEK",
            "servicePeriodStart": None,
            "servicePeriodEnd": None,
        },
        "lineItems": [],
        "totals": {"subtotal": None, "vatAmount": None, "total": None, "roundingAmount": None},
        "vatBreakdown": [],
        "prominentAmounts": [],
        "confidence": 0,
    }


# The only values an empty skeleton holds besides null and empty lists, in any of its versions.
_EMPTY_LEAVES: Final = {("currency", "SEK"), ("confidence", 0)}


def is_empty_result(data: Any) -> bool:
    """Whether ``data`` is an empty skeleton (this version of ``emptyResult()`` or an older one): nothing was read."""
    if not isinstance(data, dict) or "supplier" not in data or "totals" not in data:
        return False

    def empty(key: str, value: Any) -> bool:
        if isinstance(value, dict):
            return all(empty(k, v) for k, v in value.items())
        if isinstance(value, list):
            return not value
        if value is None:
            return True
        return not isinstance(value, bool) and (key, value) in _EMPTY_LEAVES

    return all(empty(key, value) for key, value in data.items())


def unread_item_fields() -> dict[str, Any]:
    """The item's columns as accounted's skip path inserts them."""
    return {"status": "received", "extracted_data": empty_result(), "extraction_skipped": True}


def mirror_skip(document: DocumentAttachment, now: dt.datetime) -> None:
    """``mirrorExtractionToDocument`` for a skip: no data, when, and ``skipped:client_opt_out``."""
    DocumentAttachment.objects.filter(pk=document.pk).update(
        extracted_data=None, extracted_at=now, extraction_model=SKIPPED_MODEL
    )


def append_skipped_event(
    item: InboxItem,
    document: DocumentAttachment,
    *,
    actor: dict[str, str],
    occurred_at: dt.datetime,
    page_count: int | None,
) -> ProcessingHistory:
    """``DocumentExtractionAttempted`` for an extraction the app skipped, with accounted's payload, key for key.

    The figures are the empty skeleton's (no total, no org number, no OCR);
    ``page_count`` is the PDF's pages (None for an image), as accounted counts
    them before deciding to skip.
    """
    empty = empty_result()
    return ProcessingHistory.append(
        company_id=item.company_id,
        correlation_id=item.correlation_id or item.pk,
        aggregate_type="Document",
        aggregate_id=document.pk,
        event_type=EXTRACTION_ATTEMPTED,
        payload={
            "document_id": str(document.pk),
            "inbox_item_id": str(item.pk),
            "succeeded": False,
            "extracted_total": empty["totals"]["total"],
            "has_org_number": empty["supplier"]["orgNumber"] is not None,
            "has_ocr": empty["invoice"]["paymentReference"] is not None,
            "skipped": True,
            "skip_reason": SKIP_REASON,
            "page_count": page_count,
        },
        actor=actor,
        occurred_at=occurred_at,
    )


def page_count_of(checked: CheckedFile) -> int | None:
    """The page count accounted's upload records (``countPdfPages``): a PDF's pages, None for an image."""
    if checked.mime_type != "application/pdf":
        return None
    upload = checked.upload
    upload.seek(0)
    data = upload.read(settings.RECEIPT_UPLOAD_MAX_BYTES + 1)
    upload.seek(0)
    return pdf_page_count(data)


def accounted_inbox_url() -> str | None:
    """accounted's document inbox, where the item and its "Tolka om" are, when ``ACCOUNTED_BASE_URL`` is set."""
    base = (getattr(settings, "ACCOUNTED_BASE_URL", "") or "").rstrip("/")
    return f"{base}{INBOX_PATH}" if base else None


# --- Items the app uploaded under the old rule ------------------------------------------------

# The app's log entry for a fix-up (``ClarificationEvent.event_type``): the row before and after.
MARKED_UNREAD: Final = "UploadMarkedUnread"
FIXED_BY: Final = "fix_unread_uploads"
# The extraction events of accounted that say the item was read (or tried) since: such an item is left alone.
_READ_EVENTS: Final = (EXTRACTION_ATTEMPTED, "DocumentExtractionRetried", "DocumentExtractionOverridden")


@dataclass(frozen=True, slots=True)
class OldUpload:
    """An item the app uploaded under the old rule that accounted never read: what the fix-up would change."""

    item_id: uuid.UUID
    document_id: uuid.UUID
    status: str
    # "processing": nobody ever read it; "swept": accounted's sweep emptied it, claiming a read.
    kind: str
    uploaded_at: dt.datetime


def app_uploads() -> dict[uuid.UUID, tuple[uuid.UUID, dt.datetime]]:
    """The items the app itself uploaded, from its own log: new item id → (document id, when)."""
    found: dict[uuid.UUID, tuple[uuid.UUID, dt.datetime]] = {}
    rows = ClarificationEvent.objects.filter(
        event_type=ClarificationEvent.ANSWERED,
        channel=ClarificationEvent.Channel.APP,
        question_type="resend",
        payload__resend__choice="upload",
    ).values_list("payload__resend__new_item_id", "payload__resend__document_id", "occurred_at")
    for item_id, document_id, occurred_at in rows:
        try:
            found[uuid.UUID(str(item_id))] = (uuid.UUID(str(document_id)), occurred_at)
        except ValueError:
            continue  # a log entry without a new item (nothing was stored)
    return found


def old_uploads() -> list[OldUpload]:
    """The app's uploads accounted never read: still 'processing', or swept to an empty 'received'.

    Only items the app's log records as its own upload of that very document,
    never a row accounted's own intake wrote; an item accounted has tried to
    read since (an extraction event, or fields in ``extracted_data``) is left
    alone.
    """
    uploads = app_uploads()
    if not uploads:
        return []
    rows = InboxItem.objects.filter(pk__in=list(uploads), extraction_skipped=False).only(
        "id", "status", "document_id", "extracted_data", "correlation_id", "company_id"
    )
    read = set(
        ProcessingHistory.objects.filter(
            event_type__in=_READ_EVENTS, aggregate_id__in=[document for document, _at in uploads.values()]
        ).values_list("payload__inbox_item_id", flat=True)
    )
    found = []
    for item in rows:
        document_id, uploaded_at = uploads[item.pk]
        if item.document_id != document_id or str(item.pk) in read:
            continue
        if item.status == "processing" and item.extracted_data is None:
            kind = "processing"
        elif item.status == "received" and is_empty_result(item.extracted_data):
            kind = "swept"
        else:
            continue
        found.append(OldUpload(item.pk, document_id, item.status, kind, uploaded_at))
    return sorted(found, key=lambda upload: (upload.uploaded_at, str(upload.item_id)))


def mark_unread(upload: OldUpload, *, now: dt.datetime, actor: dict[str, str]) -> bool:
    """Write ``upload`` as accounted writes an item it does not extract, and log it in the app's log.

    Compare-and-set under the row lock: an item accounted read, or a person
    edited, since it was listed is left alone (False). The document is read
    from storage only for a PDF's page count; a missing file gives None.
    """
    with transaction.atomic(using=BOOKKEEPING_DB):
        item = InboxItem.objects.select_for_update().filter(pk=upload.item_id, extraction_skipped=False).first()
        if item is None or item.status != upload.status or item.document_id != upload.document_id:
            return False
        if (
            (item.extracted_data is not None)
            if upload.kind == "processing"
            else not is_empty_result(item.extracted_data)
        ):
            return False
        document = DocumentAttachment.objects.get(pk=upload.document_id)
        before = {
            "status": item.status,
            "extracted_data": item.extracted_data,
            "extraction_skipped": item.extraction_skipped,
            "document": {
                "extracted_data": document.extracted_data,
                "extracted_at": document.extracted_at.isoformat() if document.extracted_at else None,
                "extraction_model": document.extraction_model,
            },
        }
        fields = unread_item_fields()
        InboxItem.objects.filter(pk=item.pk).update(**fields)
        mirror_skip(document, now)
        event = append_skipped_event(
            item, document, actor=actor, occurred_at=now, page_count=_stored_page_count(document)
        )
    ClarificationEvent.objects.create(
        item_id=item.pk,
        event_type=MARKED_UNREAD,
        question_type="",
        actor=None,
        actor_label=FIXED_BY,
        channel=ClarificationEvent.Channel.APP,
        payload={
            "before": before,
            "after": {**fields, "document": {"extracted_data": None, "extraction_model": SKIPPED_MODEL}},
            "document_id": str(document.pk),
            "history_event_id": str(event.pk),
        },
        occurred_at=now,
    )
    return True


def _stored_page_count(document: DocumentAttachment) -> int | None:
    if document.mime_type != "application/pdf":
        return None
    try:
        with storages[DOCUMENTS_STORAGE].open(document.storage_path, "rb") as stored:
            return pdf_page_count(stored.read(settings.RECEIPT_UPLOAD_MAX_BYTES + 1))
    except OSError:
        return None
