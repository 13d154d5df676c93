"""Django admin registrations.

The inbox item changelist (``/admin/reviewapp/indexeditem/``) shows the
list's read model, filtered on the same state keys, question types and
companies under the same URL parameters as the list and the API
(``?state=needs_answer&company=<id>``), and searched with the list's search.
Everything is read-only here: accounted's intake and the answer flow own the
items, and both keep an audit trail an admin edit would bypass; the read
model is recomputed from accounted's rows anyway. accounted's own tables are
not in this admin at all (the company filter only reads their names).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from reviewapp import inbox, states
from reviewapp.bookkeeping.models import Company
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


class CompanyFilter(admin.SimpleListFilter):
    """accounted's companies by name (archived ones too), as the list's company menu."""

    title = _("company")
    parameter_name = "company"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, Any]]:
        return [(str(pk), name) for pk, name in Company.objects.order_by("name", "id").values_list("id", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        try:
            company_id = uuid.UUID(str(self.value()))
        except ValueError:
            return queryset
        return queryset.filter(company_id=company_id)


def _pretty_json(value: object) -> str:
    return format_html('<pre class="readonly-json">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False))


@admin.register(IndexedItem)
class IndexedItemAdmin(admin.ModelAdmin):
    """The list's read model, never an editor: every column is derived from accounted's row."""

    list_display = ("created_at", "company_name", "supplier", "total_amount", "state_labels", "open_question_type")
    list_filter = (StateFilter, QuestionTypeFilter, CompanyFilter)
    search_fields = ("search_text",)
    # A filtered page counts its own rows only: no second COUNT(*) over the
    # whole read model (a million rows) just to print "of N total".
    show_full_result_count = False
    search_help_text = _("Supplier, participant, purpose, note or the start of the item id.")
    fields = (
        "id",
        "item_page",
        "company_id",
        "company_name",
        "created_at",
        "source_updated_at",
        "supplier",
        "total_amount",
        "document_id",
        "whatsapp_message_id",
        "correlation_id",
        "state_labels",
        "open_question_type",
        "open_question_asked_at",
        "malformed_reason",
        "summary_json",
        "search_text",
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

    @admin.display(description=_("item page"))
    def item_page(self, item: IndexedItem) -> str:
        # The live row (channel_context, the document, the answer form) is
        # on the app's own item page, not here.
        url = reverse("item_detail", args=[item.pk])
        return format_html('<a href="{}">{}</a>', url, _("Open the item in the app"))

    @admin.display(description=_("summary"))
    def summary_json(self, item: IndexedItem) -> str:
        return _pretty_json(item.summary)


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

    list_display = ("prefix", "name", "user", "created_at", "last_used_at", "expires_at")
    fields = ("prefix", "name", "user", "created_at", "last_used_at", "expires_at")
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
