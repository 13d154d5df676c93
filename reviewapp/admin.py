"""Django admin registrations.

The inbox item changelist shows the list's read model, filtered on the same
state keys and the same URL parameter as the list and the API
(``?state=needs_answer``). Everything is read-only here: accounted's intake
and the answer flow own the items, and both keep an audit trail an admin
edit would bypass. accounted's own tables are not in this admin at all.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from reviewapp import inbox, states
from reviewapp.models import ApiToken, ClarificationEvent, GoldenCase, IndexedItem


class StateFilter(admin.SimpleListFilter):
    title = _("clarification state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, Any]]:
        return [(key, states.STATE_LABELS[key]) for key in states.STATE_KEYS]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value in states.STATE_FIELDS:
            return queryset.filter(**{states.STATE_FIELDS[value]: True})
        return queryset


class QuestionTypeFilter(admin.SimpleListFilter):
    # Fixed choices: a plain field filter would run SELECT DISTINCT over the
    # whole table on every changelist load.
    title = _("open question")
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, Any]]:
        return [(key, states.QUESTION_TYPE_LABELS[key]) for key in states.QUESTION_TYPES]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value in states.QUESTION_TYPES:
            return queryset.filter(open_question_type=value)
        return queryset


@admin.register(IndexedItem)
class IndexedItemAdmin(admin.ModelAdmin):
    """The list's read model, never an editor: every column is derived from accounted's row."""

    list_display = ("created_at", "company_name", "supplier", "total_amount", "state_labels", "open_question_type")
    list_filter = (StateFilter, QuestionTypeFilter)
    search_fields = ("search_text",)
    search_help_text = _("Supplier, participant, purpose, note or the start of the item id.")
    fields = (
        "id",
        "company_id",
        "company_name",
        "created_at",
        "source_updated_at",
        "document_id",
        "whatsapp_message_id",
        "correlation_id",
        "state_labels",
        "open_question_type",
        "open_question_asked_at",
        "malformed_reason",
        "indexed_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: IndexedItem | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: IndexedItem | None = None) -> bool:
        return False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[IndexedItem], search_term: str
    ) -> tuple[QuerySet[IndexedItem], bool]:
        # The list's search (lower-cased words, trigram-indexed; id prefix),
        # not the admin's default UPPER(...) LIKE, which no index serves.
        text = " ".join(search_term.split())
        if not text:
            return queryset, False
        return queryset.filter(inbox.search_condition(text)), False

    @admin.display(description=_("supplier"))
    def supplier(self, item: IndexedItem) -> str:
        return item.supplier_name or "—"

    @admin.display(description=_("total"))
    def total_amount(self, item: IndexedItem) -> str:
        return "—" if item.total is None else f"{item.total} {item.currency}"

    @admin.display(description=_("states"))
    def state_labels(self, item: IndexedItem) -> str:
        return ", ".join(str(states.STATE_LABELS[key]) for key in item.state_keys)


@admin.register(ClarificationEvent)
class ClarificationEventAdmin(admin.ModelAdmin):
    """The audit trail: visible, never added, changed or deleted by hand."""

    list_display = ("occurred_at", "event_type", "question_type", "channel", "actor_label", "item_id")
    list_filter = ("event_type", "channel", "question_type")
    raw_id_fields = ("actor",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ClarificationEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ClarificationEvent | None = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are created by ``manage.py create_api_token`` (which shows the
    token once); here they can be seen by prefix and revoked by deleting."""

    list_display = ("prefix", "user", "created_at", "last_used_at")
    fields = ("prefix", "user", "created_at", "last_used_at")
    readonly_fields = fields
    list_select_related = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False


@admin.register(GoldenCase)
class GoldenCaseAdmin(admin.ModelAdmin):
    list_display = ("name", "created_by", "created_at")
    search_fields = ("name",)
    readonly_fields = ("created_by", "created_at")
