"""Django admin registrations.

The inbox item changelist filters on the same state keys and the same URL
parameter as the list and the API (``?state=needs_answer``), and reads the
same freshly recomputed state columns. Items are read-only here: the chat
intake and the answer flow own them, and both keep an audit trail an admin
edit would bypass.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from reviewapp import inbox, states
from reviewapp.models import ApiToken, ClarificationEvent, Company, GoldenCase, InboxItem


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


def _pretty_json(value: object) -> str:
    return format_html('<pre class="readonly-json">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False))


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    list_display = ("name", "organisation_number")
    search_fields = ("name", "organisation_number")


@admin.register(InboxItem)
class InboxItemAdmin(admin.ModelAdmin):
    """A view of the items, never an editor.

    The app's only write is the answer flow, which locks the row and records
    a ClarificationEvent; an admin edit would bypass both, and deleting an
    item would take its audit trail with it.
    """

    list_display = ("created_at", "company", "supplier", "total_amount", "state_labels", "open_question_type")
    list_filter = (StateFilter, QuestionTypeFilter)
    list_select_related = ("company",)
    search_fields = ("search_text",)
    search_help_text = _("Supplier, participant, purpose, note or the start of the item id.")
    fields = (
        "id",
        "company",
        "status",
        "source",
        "document_id",
        "document_file",
        "whatsapp_message_id",
        "correlation_id",
        "extracted_data",
        "channel_context_json",
        "created_at",
        "updated_at",
        "state_labels",
        "open_question_type",
        "open_question_asked_at",
        "search_text",
        "states_stale",
    )
    readonly_fields = (
        "id",
        "channel_context_json",
        "created_at",
        "state_labels",
        "open_question_type",
        "open_question_asked_at",
        "search_text",
        "states_stale",
    )
    raw_id_fields = ("company",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: InboxItem | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: InboxItem | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # Same freshness rule as the list: rows changed by plain SQL are
        # recomputed before anyone filters on their states.
        inbox.refresh_stale_states()
        return super().changelist_view(request, extra_context)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[InboxItem], search_term: str
    ) -> tuple[QuerySet[InboxItem], bool]:
        # The list's search (lower-cased words, trigram-indexed; id prefix),
        # not the admin's default UPPER(...) LIKE, which no index serves.
        text = " ".join(search_term.split())
        if not text:
            return queryset, False
        return queryset.filter(inbox.search_condition(text)), False

    @admin.display(description=_("supplier"))
    def supplier(self, item: InboxItem) -> str:
        return item.supplier_name or "—"

    @admin.display(description=_("total"))
    def total_amount(self, item: InboxItem) -> str:
        return "—" if item.total is None else f"{item.total} {item.currency}"

    @admin.display(description=_("states"))
    def state_labels(self, item: InboxItem) -> str:
        return ", ".join(
            str(states.STATE_LABELS[key]) for key in states.STATE_KEYS if getattr(item, states.STATE_FIELDS[key])
        )

    @admin.display(description=_("channel context"))
    def channel_context_json(self, item: InboxItem) -> str:
        return _pretty_json(item.channel_context)


@admin.register(ClarificationEvent)
class ClarificationEventAdmin(admin.ModelAdmin):
    """The audit trail: visible, never added, changed or deleted by hand."""

    list_display = ("occurred_at", "event_type", "question_type", "channel", "actor_label", "item")
    list_filter = ("event_type", "channel", "question_type")
    list_select_related = ("item",)
    raw_id_fields = ("item", "actor")

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
