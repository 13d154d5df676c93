"""Django admin registrations.

A user's admin page carries their account in accounted (``AccountLink``):
the ``auth.users`` id the app names them by in accounted's audit log.

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

import uuid
from typing import Any, cast

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from reviewapp import readmodel
from reviewapp.bookkeeping.models import Company
from reviewapp.core import access, roles, states
from reviewapp.core.rendering_caps import (
    HUMAN_TEXT_MAX_CHARS,
    PROBLEM_MAX_CHARS,
    PROBLEMS_MAX,
    RAW_JSON_MAX_CHARS,
    SHORT_TEXT_MAX_CHARS,
    capped_json,
    capped_text,
)
from reviewapp.models import (
    AccountLink,
    ApiToken,
    ClarificationEvent,
    CompanyAssignment,
    GoldenCase,
    GoldenCaseChange,
    IndexedItem,
    IndexedItemQuerySet,
)
from reviewapp.previews.maintenance import delete_case
from reviewapp.previews.rendering import render
from reviewapp.web.forms.admin import GoldenCaseAdminForm


class StateFilter(admin.SimpleListFilter):
    title = _("clarification state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, Any]]:
        return [(key, states.STATE_LABELS[key]) for key in states.STATE_KEYS]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return cast(IndexedItemQuerySet, queryset).in_states(value) if value in states.STATE_FIELDS else queryset


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
        companies = Company.objects.order_by("name", "id")
        visible = access.company_ids(request.user)
        if visible is not None:
            companies = companies.filter(id__in=visible)  # not even the names of the others
        return [(str(pk), _short(name)) for pk, name in companies.values_list("id", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        try:
            company_id = uuid.UUID(str(self.value()))
        except ValueError:
            return queryset
        return queryset.filter(company_id=company_id)


def _pretty_json(value: object, *, max_chars: int = RAW_JSON_MAX_CHARS) -> str:
    """Indented JSON, capped like the item page's (``reviewapp.core.rendering_caps``), saying when it was cut."""
    shown = capped_json(value, max_chars=max_chars)
    if not shown.truncated:
        return format_html('<pre class="readonly-json">{}</pre>', shown.text)
    note = _("Showing the first %(shown)s of %(total)s characters.") % {
        "shown": f"{len(shown.text):,}",
        "total": f"{shown.original_chars:,}",
    }
    return format_html('<pre class="readonly-json">{}</pre><p class="help">{}</p>', shown.text, note)


def _cut(value: str | None, max_chars: int) -> str:
    """A stored text cut to ``max_chars``, with "…" when something was cut."""
    if not value:
        return "—"
    shown = capped_text(value, max_chars=max_chars)
    return shown.text + "…" if shown.truncated else shown.text


def _short(value: str | None) -> str:
    """A stored name for a list cell: cut, so a 400 000-character supplier cannot fill the page."""
    return _cut(value, SHORT_TEXT_MAX_CHARS)


@admin.register(IndexedItem)
class IndexedItemAdmin(admin.ModelAdmin):
    """The list's read model, never an editor: every column is derived from accounted's row.

    A staff user without the all-companies permission sees the items of their
    assigned companies only (``reviewapp.core.access``), in the changelist, its
    search and counts, and the change page (another company's item is "not
    found", as in the app).
    """

    list_display = ("created_at", "company", "supplier", "total_amount", "state_labels", "open_question_type")
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
        "company",
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
        "malformed",
        "summary_json",
        "search_words",
        "indexed_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[IndexedItem]:
        return cast(IndexedItemQuerySet, super().get_queryset(request)).visible_to(request.user)

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
        return cast(IndexedItemQuerySet, queryset).search(" ".join(search_term.split())), False

    @admin.display(description=_("supplier"))
    def supplier(self, item: IndexedItem) -> str:
        return _short(item.supplier_name)

    @admin.display(description=_("company"), ordering="company_name")
    def company(self, item: IndexedItem) -> str:
        return _short(item.company_name)

    @admin.display(description=_("total"))
    def total_amount(self, item: IndexedItem) -> str:
        return "—" if item.total is None else f"{item.total} {_short(item.currency)}"

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
        # clarifications' summary (what the list's API shows everyone), not the raw channel_context.
        return _pretty_json(item.summary)

    @admin.display(description=_("why malformed"))
    def malformed(self, item: IndexedItem) -> str:
        return _cut(item.malformed_reason, PROBLEMS_MAX * PROBLEM_MAX_CHARS)

    @admin.display(description=_("search words"))
    def search_words(self, item: IndexedItem) -> str:
        # Every name, purpose and note of the row: as long as they are, so cut.
        return _cut(item.search_text, HUMAN_TEXT_MAX_CHARS)


@admin.register(ClarificationEvent)
class ClarificationEventAdmin(admin.ModelAdmin):
    """The audit trail: visible, never added, changed or deleted by hand.

    An answer's payload holds the whole ``channel_context`` before and after
    it: raw JSON, which the app and the API show only with
    ``view_raw_context``. The admin follows the same rule, per request.
    """

    list_display = ("occurred_at", "event_type", "question_type", "channel", "actor_label", "item_id")
    list_filter = ("event_type", "channel", "question_type")
    raw_id_fields = ("actor",)
    _shown = ("item_id", "event_type", "question_type", "channel", "actor", "actor_label", "occurred_at")

    def get_fields(self, request: HttpRequest, obj: ClarificationEvent | None = None) -> tuple[str, ...]:
        raw = ("payload_json",) if request.user.has_perm(roles.VIEW_RAW) else ()
        return (*self._shown, *raw)

    def get_readonly_fields(self, request: HttpRequest, obj: ClarificationEvent | None = None) -> tuple[str, ...]:
        # Every field: the trail is never edited (and the change view is read-only anyway).
        return self.get_fields(request, obj)

    @admin.display(description=_("payload"))
    def payload_json(self, event: ClarificationEvent) -> str:
        return _pretty_json(event.payload)

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
    """Cases are maintained on /preview/cases/ (accept, rename, tags, delete: each logged).

    Here the expected output is read-only, so it only changes through
    "accept the current output"; a rename, new tags or a deletion made here
    is logged like one made there.
    """

    form = GoldenCaseAdminForm
    list_display = ("name", "tags", "source_item_id", "created_by", "created_at")
    search_fields = ("name",)
    readonly_fields = ("expected", "source_item_id", "created_by", "created_at")

    def save_model(self, request: HttpRequest, obj: GoldenCase, form: Any, change: bool) -> None:
        stored = GoldenCase.objects.filter(pk=obj.pk).values_list("name", "tags").first() if change else None
        if not change:
            # A new case expects what its input renders to now, as one saved from the preview does.
            obj.expected = render(obj.input)
            obj.created_by_id = request.user.pk
        super().save_model(request, obj, form, change)
        if stored is None:
            return
        for kind, old, new in (
            (GoldenCaseChange.Kind.RENAMED, stored[0], obj.name),
            (GoldenCaseChange.Kind.TAGGED, stored[1], obj.tags),
        ):
            if old != new:
                GoldenCaseChange.objects.create(
                    case=obj,
                    case_name=obj.name,
                    kind=kind,
                    old=old,
                    new=new,
                    changed_by_id=request.user.pk,
                    changed_by_label=request.user.get_username(),
                )

    def delete_model(self, request: HttpRequest, obj: GoldenCase) -> None:
        delete_case(obj.pk, user=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[GoldenCase]) -> None:
        for pk in queryset.values_list("pk", flat=True):
            delete_case(pk, user=request.user)


class AccountLinkInline(admin.StackedInline):
    """The user's own user in accounted, checked against ``auth.users`` when saved (``AccountLink.clean``)."""

    model = AccountLink
    can_delete = True
    max_num = 1
    # The empty row is on the page: linking needs no JavaScript.
    extra = 1
    fields = ("accounted_user_id",)


admin.site.unregister(User)


@admin.register(User)
class UserWithAccountAdmin(UserAdmin):
    """Django's user admin, with the user's account in accounted on the change page and in the list."""

    inlines = (AccountLinkInline,)
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "accounted_user")

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).select_related("account_link")

    @admin.display(description=_("accounted user id"))
    def accounted_user(self, user: User) -> str:
        link = getattr(user, "account_link", None)
        return str(link.accounted_user_id) if link is not None and link.accounted_user_id else "—"


# --- Company assignments: who sees which client -------------------------------


def _company_names() -> dict[uuid.UUID, str]:
    """accounted's companies by id, as the last sync read them: the admin works while accounted is down.

    Before the first sync has read any, from accounted's table itself.
    """

    names = {pk: name for pk, name, _archived in readmodel.synced().companies}
    return names or dict(Company.objects.values_list("id", "name"))


class CompanyAssignmentForm(forms.ModelForm):
    """The company picked by name from accounted's companies (``SyncState.companies``), not typed as an id."""

    company_id = forms.TypedChoiceField(label=_("company"), coerce=uuid.UUID, choices=())

    class Meta:
        model = CompanyAssignment
        fields = ("user", "company_id")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = sorted(_company_names().items(), key=lambda pair: (pair[1].casefold(), str(pair[0])))
        field = cast(forms.TypedChoiceField, self.fields["company_id"])
        field.choices = [("", "---------"), *((str(pk), _short(name)) for pk, name in names)]


@admin.register(CompanyAssignment)
class CompanyAssignmentAdmin(admin.ModelAdmin):
    """Who sees which client company (``reviewapp.core.access``): added and removed, never edited.

    Each addition and removal is in the admin's history (``LogEntry``), with
    who made it. Only staff with the model's permissions see or change them.
    """

    form = CompanyAssignmentForm
    list_display = ("user", "company_name", "company_id")
    list_select_related = ("user",)
    ordering = ("user__username", "company_id")
    search_fields = ("user__username", "user__first_name", "user__last_name", "user__email")
    search_help_text = _("Username, name, e-mail or company name.")

    def has_change_permission(self, request: HttpRequest, obj: CompanyAssignment | None = None) -> bool:
        # An assignment is a pair: a different one is a removal and an addition, each in the history.
        return False if obj is not None else super().has_change_permission(request, obj)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[CompanyAssignment], search_term: str
    ) -> tuple[QuerySet[CompanyAssignment], bool]:
        found, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip().casefold()
        if not term:
            return found, duplicates
        # Company names live in accounted's database (copied into SyncState), not in this table.
        companies = [pk for pk, name in _company_names().items() if term in name.casefold()]
        return found | queryset.filter(company_id__in=companies), duplicates

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        # The names once per page (one read of SyncState), put on the page's rows.
        changelist = super().get_changelist_instance(request)
        names = _company_names()
        for assignment in changelist.result_list:
            assignment.company_label = names.get(assignment.company_id)
        return changelist

    @admin.display(description=_("company name"))
    def company_name(self, assignment: CompanyAssignment) -> str:
        name = getattr(assignment, "company_label", None)
        return _short(name) if name is not None else str(_("(not in accounted's companies)"))
