"""Both replicas follow accounted's newer migrations: what the app meets on a current accounted database.

From ``erp-mafia/accounted``: ``processing_history.aggregate_type`` also allows
'SupplierInvoice' (the Bokio supplier-completion migration, with
``SupplierInvoiceCompleted``); the event types of
``supabase/migrations/20260901110000_processing_event_types_backfill.sql``, the
one-type registrations and ``lib/processing-history/append.ts``'s
``PROCESSING_EVENT_TYPES``; the columns ``types/index.ts`` lists on
``DocumentAttachment`` and ``WhatsAppPhoneLink``. Run on each replica
(``TEST_BOOKKEEPING_SCHEMA``), so the app's paths are tested against them.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connections
from django.urls import reverse

from reviewapp.bookkeeping.models import ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories

pytestmark = pytest.mark.django_db

NEWER_EVENT_TYPES = (
    "AttachmentsTruncated",
    "BankTransactionDuplicateDismissed",
    "BankTransactionStrandedRelinked",
    "BankTransactionStrandedRepaired",
    "CashAccountTwinsMerged",
    "DocumentDuplicateSkipped",
    "DocumentExtractionAttempted",
    "DocumentExtractionOverridden",
    "DocumentExtractionRetried",
    "DocumentIngested",
    "InboxUnderlagReconciled",
    "InvoiceDuplicatePaymentDismissed",
    "InvoiceJournalEntrySkipped",
    "InvoicePaymentRowBackfilled",
    "InvoiceRowsCompleted",
    "OAuthClientRevoked",
    "PendingOperationApproved",
    "PendingOperationRejected",
    "RateLimitedDropped",
    "SupplierInvoiceCompleted",
    "TransactionDocumentReplaced",
)
NEWER_COLUMNS = {
    ("document_attachments", "prev_version_hash"): "text",
    ("document_attachments", "last_integrity_check_at"): "timestamp with time zone",
    # What invoice-inbox/lib/mirror-extraction.ts writes (an upload's skip mirror, reviewapp.answers.unread).
    ("document_attachments", "extracted_data"): "jsonb",
    ("document_attachments", "extracted_at"): "timestamp with time zone",
    ("document_attachments", "extraction_model"): "text",
    ("whatsapp_phone_links", "phone_enc"): "text",
    ("whatsapp_phone_links", "verified_at"): "timestamp with time zone",
    ("whatsapp_phone_links", "revoked_at"): "timestamp with time zone",
    ("whatsapp_phone_links", "muted_at"): "timestamp with time zone",
    ("whatsapp_phone_links", "last_company_id"): "uuid",
    ("whatsapp_phone_links", "last_message_at"): "timestamp with time zone",
}


def test_every_newer_event_type_is_registered() -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT event_type FROM public.processing_event_types")
        registered = {row[0] for row in cursor.fetchall()}
    assert set(NEWER_EVENT_TYPES) - registered == set()


def test_the_newer_columns_are_there_with_their_types() -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name IN ('document_attachments', 'whatsapp_phone_links')"
        )
        found = {(table, column): kind for table, column, kind in cursor.fetchall()}
    assert {key: found.get(key) for key in NEWER_COLUMNS} == NEWER_COLUMNS


def test_a_supplier_invoice_event_is_accepted_and_the_items_history_still_reads(support_client) -> None:
    item = factories.make_item()
    ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=uuid.uuid4(),
        aggregate_type="SupplierInvoice",
        aggregate_id=uuid.uuid4(),
        event_type="SupplierInvoiceCompleted",
        payload={"source": "bokio"},
        actor={"type": "system", "id": "bokio-supplier-completion"},
        occurred_at=dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC),
    )
    ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id,
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type="InboxUnderlagReconciled",
        payload={"inbox_item_id": str(item.pk)},
        actor={"type": "system", "id": "inbox-reconcile"},
        occurred_at=dt.datetime(2026, 11, 2, 11, 0, tzinfo=dt.UTC),
    )
    response = support_client.get(reverse("item_detail", args=[item.pk]))
    assert response.status_code == 200
    assert "InboxUnderlagReconciled" in response.content.decode()
