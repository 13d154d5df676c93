"""Data model.

``InboxItem`` mirrors the bookkeeping application's ``invoice_inbox_items``
table (same table name, column names and JSON shapes) so an export of its
rows loads as-is. The ``state_*`` columns are ours: a denormalised copy of
what ``clarifications.analyse`` says about ``channel_context``, kept so the
list can filter and count in the database. See ``reviewapp/states.py`` for
how they are kept true when another program writes ``channel_context``.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.conf import settings
from django.db import connections, models
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from reviewapp import states


class Company(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(_("name"), max_length=200)
    organisation_number = models.CharField(_("organisation number"), max_length=20, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("company")
        verbose_name_plural = _("companies")

    def __str__(self) -> str:
        return self.name


class InboxItem(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="inbox_items")
    # Database defaults as well, so the chat intake's plain INSERTs (which
    # know nothing of our extra columns) are accepted.
    status = models.CharField(max_length=40, default="pending", db_default="pending")
    source = models.CharField(max_length=40, default="whatsapp", db_default="whatsapp")
    document_id = models.UUIDField(null=True, blank=True)
    # The receipt file itself, through Django's storage API (local disk or
    # object storage, whichever STORAGES["default"] names).
    document_file = models.FileField(upload_to="receipts/%Y/%m/", blank=True, max_length=300, db_default="")
    extracted_data = models.JSONField(null=True, blank=True)
    channel_context = models.JSONField(null=True, blank=True)
    whatsapp_message_id = models.CharField(max_length=200, null=True, blank=True)
    correlation_id = models.CharField(max_length=200, null=True, blank=True)
    # db_default too, so rows inserted by other programs get a timestamp.
    created_at = models.DateTimeField(default=timezone.now, db_default=Now())
    updated_at = models.DateTimeField(default=timezone.now, db_default=Now())

    # --- Derived from channel_context by clarifications.analyse (ours). ---
    # db_default on each: another program's INSERT does not know these
    # columns, and its rows arrive stale anyway (see states_stale).
    state_needs_answer = models.BooleanField(default=False, db_default=False)
    state_waiting_in_chat = models.BooleanField(default=False, db_default=False)
    state_denied = models.BooleanField(default=False, db_default=False)
    state_purpose_missing = models.BooleanField(default=False, db_default=False)
    state_answered = models.BooleanField(default=False, db_default=False)
    state_no_answers = models.BooleanField(default=True, db_default=True)
    state_malformed = models.BooleanField(default=False, db_default=False)
    open_question_type = models.CharField(max_length=20, null=True, blank=True)
    open_question_asked_at = models.DateTimeField(null=True, blank=True)
    # Lower-cased supplier, participant names, purpose and note for search.
    search_text = models.TextField(default="", blank=True, db_default="")
    # True when channel_context changed after the state columns were last
    # computed. A row written by another program (raw SQL) arrives stale: the
    # database default and trigger set it; the app recomputes before it reads.
    states_stale = models.BooleanField(default=True, db_default=True)

    class Meta:
        db_table = "invoice_inbox_items"
        ordering = ["-created_at", "-id"]
        verbose_name = _("inbox item")
        verbose_name_plural = _("inbox items")
        # The list's read paths at a million rows (EXPLAIN plans: bench/README-list.md).
        # Every list order ends in id, so each index does too. One partial
        # index per state serves both "newest first within a state" (scanned
        # backwards) and that state's count (an index-only scan over just its
        # rows). The trigram index for search is PostgreSQL-only and lives in
        # migration 0003, as do the triggers that mark raw-SQL changes stale.
        indexes = [
            models.Index(fields=["created_at", "id"], name="inbox_received_idx"),
            models.Index(fields=["company", "created_at", "id"], name="inbox_company_received_idx"),
            models.Index(fields=["open_question_asked_at", "created_at", "id"], name="inbox_question_age_idx"),
            # Holds only stale rows, so "is anything stale?" costs nothing.
            models.Index(fields=["id"], name="inbox_stale_idx", condition=models.Q(states_stale=True)),
            *(
                models.Index(
                    fields=["created_at", "id"],
                    name=f"inbox_{key}_idx",
                    condition=models.Q(**{f"state_{key}": True}),
                )
                for key in (
                    "needs_answer",
                    "waiting_in_chat",
                    "denied",
                    "purpose_missing",
                    "answered",
                    "no_answers",
                    "malformed",
                )
            ),
        ]
        permissions = [
            ("answer_question", "Can answer questions moved to the app"),
            ("view_raw_context", "Can see the raw channel_context"),
            ("use_preview", "Can use the prompt preview"),
        ]

    def __str__(self) -> str:
        return f"{self.supplier_name or _('Unknown supplier')} ({self.id})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Every app write keeps the derived columns true to channel_context,
        # so no caller has to remember to.
        self.refresh_states()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"channel_context", "extracted_data"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, *DERIVED_FIELDS}
        super().save(*args, **kwargs)

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> InboxItem:
        instance = super().from_db(db, field_names, values, **kwargs)
        if connections[db or "default"].vendor == "sqlite":
            # SQLite keeps JSON as text, so another program can leave half a
            # surrogate pair ("\ud83d") in it, which no page can encode as
            # UTF-8 (PostgreSQL's jsonb refuses them on the way in). Read as
            # U+FFFD, like any other undecodable text.
            for name in ("channel_context", "extracted_data"):
                if name in instance.__dict__:
                    instance.__dict__[name] = _without_lone_surrogates(instance.__dict__[name])
        return instance

    def refresh_states(self) -> None:
        """Recompute the state columns from the current channel_context."""
        for field, value in states.compute(self.channel_context, self.extracted_data).column_values().items():
            setattr(self, field, value)

    # Reading extracted_data defensively: it has no schema either.
    def _extracted(self, *path: str) -> Any:
        node: Any = self.extracted_data
        for key in path:
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node

    @property
    def supplier_name(self) -> str | None:
        value = self._extracted("supplier", "name")
        return value if isinstance(value, str) and value.strip() else None

    @property
    def total(self) -> float | int | None:
        value = self._extracted("totals", "total")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def vat_amount(self) -> float | int | None:
        value = self._extracted("totals", "vatAmount")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def currency(self) -> str:
        value = self._extracted("invoice", "currency")
        return value if isinstance(value, str) and value else "SEK"

    @property
    def invoice_date(self) -> str | None:
        value = self._extracted("invoice", "invoiceDate")
        return value if isinstance(value, str) and value else None


_SURROGATE = re.compile("[\\ud800-\\udfff]")


def _fix_text(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _SURROGATE.search(text) else text


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` (freshly decoded JSON, changed in place) with lone surrogates as U+FFFD.

    A loop, not recursion: the JSON may be nested deeper than Python's stack.
    """
    if isinstance(value, str):
        return _fix_text(value)
    stack: list[Any] = [value] if isinstance(value, (list, dict)) else []
    while stack:
        node: Any = stack.pop()
        entries: list[tuple[Any, Any]] = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if isinstance(node, dict):
            node.clear()
        for key, child in entries:
            if isinstance(child, str):
                child = _fix_text(child)
            elif isinstance(child, (list, dict)):
                stack.append(child)
            node[_fix_text(key) if isinstance(key, str) else key] = child
    return value


DERIVED_FIELDS = (
    *states.STATE_FIELDS.values(),
    "open_question_type",
    "open_question_asked_at",
    "search_text",
    "states_stale",
)


class ClarificationEvent(models.Model):
    """The audit trail of questions asked, expired and answered. Append-only."""

    ASKED = "ChannelQuestionAsked"
    ANSWERED = "ChannelQuestionAnswered"
    EXPIRED = "ChannelQuestionExpired"

    class Channel(models.TextChoices):
        WHATSAPP = "whatsapp", "WhatsApp"
        APP = "app", _("App")

    item = models.ForeignKey(InboxItem, on_delete=models.CASCADE, related_name="events")
    event_type = models.CharField(max_length=60)
    question_type = models.CharField(max_length=20, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label = models.CharField(max_length=200, blank=True)
    channel = models.CharField(max_length=20, choices=Channel.choices)
    payload = models.JSONField(default=dict, blank=True)
    occurred_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["occurred_at", "id"]
        indexes = [models.Index(fields=["item", "occurred_at"])]
        verbose_name = _("clarification event")
        verbose_name_plural = _("clarification events")

    def __str__(self) -> str:
        return f"{self.event_type} {self.question_type} @ {self.occurred_at:%Y-%m-%d %H:%M}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The audit trail is append-only: an existing event is never rewritten.
        if not self._state.adding:
            raise ValueError("ClarificationEvent is append-only")
        super().save(*args, **kwargs)


class ApiToken(models.Model):
    """A personal API token for scripts. Only its SHA-256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"


class GoldenCase(models.Model):
    """A QA-saved input with the outputs it rendered to when saved."""

    name = models.CharField(max_length=200, unique=True)
    input = models.JSONField()
    expected = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("golden case")
        verbose_name_plural = _("golden cases")

    def __str__(self) -> str:
        return self.name
