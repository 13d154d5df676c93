"""Unmanaged models of accounted's tables (columns as in the contract).

Only the columns the review app reads or writes are declared: Django selects
columns by name, so columns accounted adds later do not break anything.
``managed = False`` everywhere: the app never creates, alters or drops these.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.db import models
from django.db.models import Value
from django.db.models.functions import Now

from reviewapp.core import access
from reviewapp.core.stored_json import decode_json


class StoredJSONField(models.JSONField):
    """A jsonb column whose value may be undecodable in Python; never raises on read."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if isinstance(value, str):
            return decode_json(value)
        return super().from_db_value(value, expression, connection)


class AccountedTable(models.Model):
    """A table of accounted's: its migrations own it, the app never creates, alters or drops it."""

    class Meta:
        abstract = True
        managed = False


class Company(AccountedTable):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    name = models.TextField()
    org_number = models.TextField(null=True, blank=True)
    entity_type = models.TextField()
    accounting_framework = models.TextField(default="k2")
    created_by = models.UUIDField()
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta(AccountedTable.Meta):
        db_table = "companies"
        ordering = ["name"]
        verbose_name_plural = "companies"

    def __str__(self) -> str:
        return self.name


class DocumentAttachment(AccountedTable):
    """The receipt file: ``storage_path`` is its key in accounted's ``documents`` bucket."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    user_id = models.UUIDField()
    company = models.ForeignKey(Company, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False)
    storage_path = models.TextField()
    file_name = models.TextField()
    file_size_bytes = models.BigIntegerField(null=True, blank=True)
    mime_type = models.TextField(null=True, blank=True)
    sha256_hash = models.TextField()
    version = models.IntegerField(default=1)
    is_current_version = models.BooleanField(default=True)
    uploaded_by = models.UUIDField(null=True, blank=True)
    upload_source = models.TextField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    # The inbox's extraction outcome, as accounted's mirrorExtractionToDocument
    # records it (reviewapp.answers.unread.mirror_skip writes a skip).
    extracted_data = StoredJSONField(null=True, blank=True)
    extracted_at = models.DateTimeField(null=True, blank=True)
    extraction_model = models.TextField(null=True, blank=True)

    class Meta(AccountedTable.Meta):
        db_table = "document_attachments"

    def __str__(self) -> str:
        return self.file_name


class WhatsappPhoneLink(AccountedTable):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    user_id = models.UUIDField()
    phone_hash = models.TextField()
    phone_masked = models.TextField(null=True, blank=True)
    wa_profile_name = models.TextField(null=True, blank=True)

    class Meta(AccountedTable.Meta):
        db_table = "whatsapp_phone_links"

    def __str__(self) -> str:
        return self.phone_masked or str(self.id)


class WhatsappConversation(AccountedTable):
    """One per linked phone; ``context`` holds ``recent_questions`` (which item each question was about)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    phone_link = models.OneToOneField(
        WhatsappPhoneLink, on_delete=models.DO_NOTHING, related_name="conversation", db_constraint=False
    )
    state = models.TextField(default="idle")
    context = StoredJSONField(default=dict)
    company_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta(AccountedTable.Meta):
        db_table = "whatsapp_conversations"

    def __str__(self) -> str:
        return f"conversation {self.id} ({self.state})"


class WhatsappMessage(AccountedTable):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    direction = models.TextField()
    wamid = models.TextField(null=True, blank=True)
    phone_link_id = models.UUIDField(null=True, blank=True)
    conversation_id = models.UUIDField(null=True, blank=True)
    message_type = models.TextField()
    body_text = models.TextField(null=True, blank=True)
    media_id = models.TextField(null=True, blank=True)
    media_mime = models.TextField(null=True, blank=True)
    raw_payload = StoredJSONField(null=True, blank=True)
    processing_status = models.TextField(default="received")
    inbox_item_id = models.UUIDField(null=True, blank=True)
    correlation_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())

    class Meta(AccountedTable.Meta):
        db_table = "whatsapp_messages"
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.direction} {self.message_type} {self.id}"


class ProcessingHistory(AccountedTable):
    """accounted's append-only audit log (UPDATE and DELETE are refused by triggers)."""

    # The CHECK on aggregate_type (contract). accounted's only index that leads to an
    # aggregate is (company_id, aggregate_type, aggregate_id, seq): a lookup by
    # aggregate_id alone must name the types to use it (18 ms became 0.3 ms at 1 M events).
    AGGREGATE_TYPES: ClassVar = (
        "Document", "BankTransaction", "MatchProposal", "Verifikation", "CounterpartyTemplate", "Period",
        "Migration", "System", "AIProposal", "AIRequest", "Invoice", "SupplierInvoice",
    )  # fmt: skip

    event_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    # Django sends DEFAULT for a db_default on INSERT, so the table's own
    # sequence numbers the row; the expression here is never used.
    seq = models.BigIntegerField(editable=False, db_default=Value(0))
    company_id = models.UUIDField()
    correlation_id = models.UUIDField()
    causation_id = models.UUIDField(null=True, blank=True)
    aggregate_type = models.TextField()
    aggregate_id = models.UUIDField()
    event_type = models.TextField()
    payload = StoredJSONField(default=dict)
    payload_schema_version = models.SmallIntegerField(default=1)
    actor = StoredJSONField()
    occurred_at = models.DateTimeField()
    appended_at = models.DateTimeField(editable=False, db_default=Now())

    class Meta(AccountedTable.Meta):
        db_table = "processing_history"
        # Events of one instant keep the order they were appended in (the table's own sequence).
        ordering = ["occurred_at", "seq"]

    def __str__(self) -> str:
        return f"{self.event_type} {self.occurred_at:%Y-%m-%d %H:%M}"

    @classmethod
    def append(
        cls,
        *,
        company_id: uuid.UUID,
        correlation_id: uuid.UUID,
        aggregate_type: str,
        aggregate_id: uuid.UUID,
        event_type: str,
        payload: dict[str, Any],
        actor: dict[str, str],
        occurred_at: Any,
    ) -> ProcessingHistory:
        """One new event, as accounted's own writers append theirs: no causation, payload schema 1.

        The one place the app appends to the log, so every event it writes has
        the same shape; ``actor`` is never a name (the contract).
        """
        return cls.objects.create(
            company_id=company_id,
            correlation_id=correlation_id,
            causation_id=None,
            aggregate_type=aggregate_type,
            aggregate_id=aggregate_id,
            event_type=event_type,
            payload=payload,
            payload_schema_version=1,
            actor=actor,
            occurred_at=occurred_at,
        )


class InboxItemQuerySet(models.QuerySet["InboxItem"]):
    def visible_to(self, user: Any) -> InboxItemQuerySet:
        """The items of the companies ``user`` may see (``reviewapp.core.access``); no other company's are there."""
        ids = access.company_ids(user)
        return self if ids is None else self.filter(company_id__in=list(ids))


class InboxItem(AccountedTable):
    """A row of ``public.invoice_inbox_items``: the receipt and its ``channel_context``.

    ``extracted_data`` is read through the properties below, which answer None
    (or SEK) for whatever the extraction left out or wrote in another shape.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    user_id = models.UUIDField()
    company = models.ForeignKey(Company, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False)
    status = models.TextField(default="received")
    source = models.TextField(default="upload")
    document = models.ForeignKey(
        DocumentAttachment, null=True, blank=True, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False
    )
    extracted_data = StoredJSONField(null=True, blank=True)
    created_supplier_invoice_id = models.UUIDField(null=True, blank=True)
    matched_transaction_id = models.UUIDField(null=True, blank=True)
    created_journal_entry_id = models.UUIDField(null=True, blank=True)
    error_message = models.TextField(null=True, blank=True)
    correlation_id = models.UUIDField(null=True, blank=True)
    extraction_skipped = models.BooleanField(default=False)
    whatsapp_message_id = models.UUIDField(null=True, blank=True)
    channel_context = StoredJSONField(null=True, blank=True)
    kind_hint = models.TextField(null=True, blank=True)
    # Both set by the database (default now(); a trigger on every UPDATE):
    # never written by the app, so an app write cannot disagree with the clock
    # the read model's watermark follows.
    created_at = models.DateTimeField(editable=False, db_default=Now())
    updated_at = models.DateTimeField(editable=False, db_default=Now())

    objects = InboxItemQuerySet.as_manager()

    class Meta(AccountedTable.Meta):
        db_table = "invoice_inbox_items"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.supplier_name or 'Unknown supplier'} ({self.id})"

    @property
    def is_booked(self) -> bool:
        """Booked (a supplier invoice or journal entry was created): an answer can no longer reach the verifikat."""
        return self.created_supplier_invoice_id is not None or self.created_journal_entry_id is not None

    def extracted(self, *path: str) -> Any:
        """The value at ``path`` in what accounted read from the receipt, or None where the path is missing."""
        node: Any = self.extracted_data
        for key in path:
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node

    @property
    def supplier_name(self) -> str | None:
        value = self.extracted("supplier", "name")
        return value if isinstance(value, str) and value.strip() else None

    @property
    def total(self) -> float | int | None:
        value = self.extracted("totals", "total")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def vat_amount(self) -> float | int | None:
        value = self.extracted("totals", "vatAmount")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def currency(self) -> str:
        value = self.extracted("invoice", "currency")
        return value if isinstance(value, str) and value else "SEK"

    @property
    def invoice_date(self) -> str | None:
        value = self.extracted("invoice", "invoiceDate")
        return value if isinstance(value, str) and value else None
