"""The inbox list's query string, validated like any other form.

The same form reads the page's, the API's and the item page's (previous/next)
query strings, so a shared link means the same thing everywhere. A bad value
becomes an error under its field and the list falls back to the default for
that one field; it never becomes a 500.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, NamedTuple

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from reviewapp import readmodel
from reviewapp.core import access, states, text
from reviewapp.inbox.query import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE,
    SORT_OLDEST,
    SORT_QUESTION_AGE,
    SORT_QUEUE,
    SORT_RECEIVED,
    ListQuery,
)

SORT_CHOICES: Final = (
    (SORT_RECEIVED, _("Newest first")),
    (SORT_OLDEST, _("Oldest first")),
    (SORT_QUEUE, _("Longest waiting in the app first")),
    (SORT_QUESTION_AGE, _("Oldest open question first")),
)

PAGE_SIZE_CHOICES: Final = (25, 50, 100, 200, 500)


class PageSizeField(forms.TypedChoiceField):
    """A page size menu that shows the default as chosen when the URL names none.

    The form is always bound (to the query string), and a bound select with no
    value lets the browser pick the first option: the page showed 50 rows but
    the menu said 25, and the next filter change switched to 25.
    """

    def bound_data(self, data: Any, initial: Any) -> Any:
        return initial if data in (None, "") else data


class CompanyChoiceField(forms.TypedChoiceField):
    """accounted's companies by name (``readmodel.synced``: as the last sync pass read them).

    An archived company still filters (its items stay in the list) and says
    it is archived. The choices are read once a form, and only when the form
    needs them: to check a chosen company, or to draw the menu.
    """

    default_error_messages = {"invalid_choice": forms.ModelChoiceField.default_error_messages["invalid_choice"]}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=uuid.UUID, empty_value=None, **kwargs)


class StateField(forms.MultipleChoiceField):
    """The ticked states; a state a link names that does not exist is refused with the ones that do."""

    def validate(self, value: Any) -> None:
        try:
            super().validate(value)
        except forms.ValidationError as error:
            if error.code != "invalid_choice":
                raise
            raise forms.ValidationError(
                _("“%(value)s” is not a state. The states are: %(states)s."),
                code="invalid_choice",
                params={**(error.params or {}), "states": ", ".join(states.LIST_STATE_KEYS)},
            ) from None


class IsoDateField(forms.DateField):
    """A date typed as YYYY-MM-DD, whatever the browser's language.

    A plain text box, not ``type="date"``: a date control follows the
    browser's locale (12/01/2026 in an American browser) and refuses a typed
    ISO date in some. Only ISO is accepted, so 01/02/2026 is never read as
    the wrong month.
    """

    input_formats = ["%Y-%m-%d"]
    default_error_messages = {"invalid": _("Enter a date as YYYY-MM-DD, for example 2026-11-30.")}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "widget",
            forms.DateInput(
                format="%Y-%m-%d",
                attrs={
                    "inputmode": "numeric",
                    "pattern": r"\d{4}-\d{2}-\d{2}",
                    "placeholder": _("YYYY-MM-DD"),
                    "autocomplete": "off",
                    "size": "10",
                },
            ),
        )
        super().__init__(**kwargs)


# The filters in the bar above the results, in the bar's order (the states
# and the page number are drawn with the results, which every change redraws).
BAR_FIELDS: Final = ("q", "type", "company", "received_from", "received_to", "photo", "sort", "page_size")

# ``?photo=unread``: only items whose photo accounted has not read (its extraction was skipped;
# reviewapp.answers.unread): "Tolka om" in accounted reads it.
PHOTO_UNREAD: Final = "unread"


@dataclass(frozen=True, slots=True)
class Control:
    """One filter of the bar, ready for plain markup (``InboxFilterForm.controls``).

    Attributes, not dict keys: Jinja2 tries an attribute first.
    """

    name: str
    id: str
    label: str  # with the form's suffix: "Search:"
    help_text: str
    input_type: str  # "search", "text"…; "" for a menu
    value: str  # an input's value, "" for none
    attrs: dict[str, str]  # the control's other attributes: {"maxlength": "200", "aria-describedby": "…"}
    options: list[tuple[str, str, bool]]  # a menu's (value, label, selected)
    errors: list[str]


class Scope(NamedTuple):
    """Whose list a query string is read for: the companies the user may see (None: all) and the user's id."""

    company_ids: frozenset[uuid.UUID] | None
    user_id: int | None


def scope_of(user: Any) -> Scope:
    return Scope(access.company_ids(user), getattr(user, "pk", None))


class InboxFilterForm(forms.Form):
    state = StateField(
        label=_("State"),
        choices=[(key, states.STATE_LABELS[key]) for key in states.LIST_STATE_KEYS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Items in any ticked state."),
    )
    # The open question's type, or the answered question's (inbox.query.filtered_items).
    type = forms.ChoiceField(
        label=_("Question type"),
        choices=[("", _("Any")), *((key, states.QUESTION_TYPE_LABELS[key]) for key in states.QUESTION_TYPES)],
        required=False,
    )
    company = CompanyChoiceField(label=_("Company"), required=False)
    received_from = IsoDateField(label=_("Received from"), required=False, help_text=_("YYYY-MM-DD"))
    received_to = IsoDateField(label=_("Received to"), required=False, help_text=_("YYYY-MM-DD"))
    photo = forms.ChoiceField(
        label=_("Photo"),
        choices=[("", _("Any")), (PHOTO_UNREAD, _("Not read by accounted"))],
        required=False,
    )
    q = forms.CharField(
        label=_("Search"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
        help_text=_("Supplier, participant, purpose, note or item id."),
    )
    held_by_me = forms.BooleanField(label=_("Held by me"), required=False)
    sort = forms.ChoiceField(label=_("Sort"), choices=SORT_CHOICES, required=False)
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1, max_value=MAX_PAGE)
    page_size = PageSizeField(
        label=_("Per page"),
        choices=[(n, str(n)) for n in PAGE_SIZE_CHOICES],
        coerce=int,
        required=False,
        empty_value=None,
        initial=DEFAULT_PAGE_SIZE,
    )

    def __init__(
        self,
        *args: Any,
        user: Any,
        companies: list[tuple[uuid.UUID, str, bool]] | None = None,
        max_page_size: int | None = None,
        scope: Scope | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        # accounted's companies (``readmodel.Synced.companies``), when the caller
        # has read them already; otherwise read if the form needs them.
        self.all_companies = companies
        # The companies ``user`` may see (None: all). The menu offers only
        # those, so another company's id is refused exactly like an id that
        # does not exist; ``list_query`` narrows every list to them.
        self.company_ids, self.user_id = scope or scope_of(user)
        company = self.fields["company"]
        assert isinstance(company, CompanyChoiceField)
        company.choices = self._company_choices
        if max_page_size is not None:
            # The API takes any size up to 500, not only the page's menu.
            self.fields["page_size"] = forms.IntegerField(
                label=_("Per page"), required=False, min_value=1, max_value=max_page_size
            )
        for name in BAR_FIELDS:
            field = self.fields[name]
            # The list's htmx responses fill each field's error slot out of
            # band (templates/inbox/list.html); the control always points at it.
            described = [f"id_{name}_helptext"] if field.help_text else []
            field.widget.attrs["aria-describedby"] = " ".join([*described, f"id_{name}_error"])

    def list_query(self) -> ListQuery:
        """The form's valid fields as the domain's ``ListQuery``; an invalid field falls back to its default.

        Django drops a field that failed validation from ``cleaned_data``, so
        ``?state=nonsense&q=volvo`` still searches for "volvo". The companies
        are the form user's (``InboxFilterForm(user=...)``).
        """
        self.is_valid()
        data = self.cleaned_data
        return ListQuery(
            states=tuple(data.get("state") or ()),
            company_ids=self.company_ids,
            question_type=data.get("type") or None,
            company_id=data.get("company"),
            received_from=data.get("received_from"),
            received_to=data.get("received_to"),
            unread_only=data.get("photo") == PHOTO_UNREAD,
            held_by=self.user_id if data.get("held_by_me") else None,
            text=data.get("q") or "",
            sort=data.get("sort") or SORT_RECEIVED,
            page=data.get("page") or 1,
            page_size=data.get("page_size") or DEFAULT_PAGE_SIZE,
        )

    @cached_property
    def _companies(self) -> list[tuple[str, str]]:
        seen = self.company_ids
        companies = self.all_companies if self.all_companies is not None else readmodel.synced().companies
        return [
            (str(pk), str(_("%(name)s (archived)") % {"name": name}) if archived else name)
            for pk, name, archived in companies
            if seen is None or pk in seen
        ]

    def _company_choices(self) -> list[tuple[str, str]]:
        return [("", str(_("All companies"))), *self._companies]

    @cached_property
    def controls(self) -> dict[str, Control]:
        """The bar's filters as plain values: what each widget would print, without its templates.

        Rendered through the form renderer, each widget and each menu option
        is a template of its own: a fifth of the list page's time.
        The page writes these into one partial instead. Attributes, values and
        the chosen option are the widgets' own (``build_attrs``,
        ``format_value``), so the markup stays what Django would write.

        Why it stays (``bench/speed_layers.py``, 2026-12-01, 100 000 items):
        printing each bound field instead made the list page 12–13 ms slower
        (+19–21 %, 95 % interval 8.9–16.7 ms; 4.2–4.5 ms of CPU) on a loaded
        2-core machine. Remove it when that script shows less than 5 % and
        1 ms (``bench/README.md``, "Speed layers").
        """
        return {name: self._control(name) for name in BAR_FIELDS}

    def error_slots(self) -> list[dict[str, Any]]:
        """Each filter's error slot (``id`` and ``errors``, as in ``controls``) without the menus' choices."""
        return [{"id": self[name].auto_id, "errors": self[name].errors} for name in BAR_FIELDS]

    def _control(self, name: str) -> Control:
        bound = self[name]
        widget = bound.field.widget
        attrs = widget.build_attrs(widget.attrs, {**bound.build_widget_attrs({}), "id": bound.auto_id})
        value = bound.value()
        options: list[tuple[str, str, bool]] = []
        input_type = ""
        shown = ""
        if isinstance(widget, forms.Select):
            chosen = set(widget.format_value(value))
            options = [(str(key), str(label), str(key) in chosen) for key, label in widget.choices]
        else:
            input_type = getattr(widget, "input_type", "text")
            shown = widget.format_value(value) or ""
        return Control(
            name=bound.html_name,
            id=bound.auto_id,
            label=f"{bound.label}{self.label_suffix}",
            help_text=str(bound.help_text),
            input_type=input_type,
            value=str(shown),
            # Printed with Jinja2's xmlattr (escaped there), sorted as Django's
            # flatatt writes them. A boolean attribute (none in the bar) would
            # print as key="True": still set.
            attrs={key: str(attr) for key, attr in sorted(attrs.items())},
            options=options,
            errors=[str(error) for error in bound.errors],
        )

    def clean_state(self) -> list[str]:
        # Repeating a state is harmless; keep the URL's order, drop duplicates.
        return list(dict.fromkeys(self.cleaned_data.get("state") or []))

    def clean_q(self) -> str:
        # Searched for without invisible format characters (a pasted U+200F), emoji kept (reviewapp.core.text).
        return text.for_search(self.cleaned_data.get("q") or "")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        start: dt.date | None = cleaned.get("received_from")
        end: dt.date | None = cleaned.get("received_to")
        if start and end and start > end:
            self.add_error("received_to", _("The end date is before the start date."))
        return cleaned


def parse_list_query(query: QueryDict, *, user: Any, max_page_size: int | None = None) -> ListQuery:
    """The list query a query string means to ``user``; invalid parameters become defaults.

    Only the companies ``user`` may see are listed: another company's id in
    ``?company=`` is an invalid choice, as an id that does not exist.
    """
    return InboxFilterForm(query, user=user, max_page_size=max_page_size).list_query()


def remembered_list_query(query: QueryDict, *, user: Any) -> ListQuery | None:
    """``parse_list_query(query, user=user)`` without building the form again for a list read before.

    An open list polls its own address every few seconds (issue 38 part 3),
    and building and validating this form was a quarter of each unchanged
    poll's Python (bench/README.md, "Idle open queues"). The answer depends
    only on the query string and the scope (the user's companies, read from
    the database with the user on every request, and, for "held by me", the
    user's id), so this process remembers it: nothing another host does can make a remembered answer
    wrong, and a changed assignment is another key.

    None when ``?company=`` is given: that is validated against accounted's
    companies, a database read, so the caller builds the form.
    """
    if query.get("company"):
        return None
    company_ids, user_id = scope_of(user)
    # The user's id changes the answer only through "held by me": without it
    # every user with the same companies shares one entry (a web process serves
    # each user's polls only now and then, so a key per user would rarely be found).
    return _list_query_for(query.urlencode(), Scope(company_ids, user_id if query.get("held_by_me") else None))


@functools.lru_cache(maxsize=1024)
def _list_query_for(encoded: str, scope: Scope) -> ListQuery:
    return InboxFilterForm(QueryDict(encoded), user=None, scope=scope).list_query()
