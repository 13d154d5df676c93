"""What a list view asks for: the validated query, and the items its filters match."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Now
from django.http import QueryDict
from django.utils import timezone

from reviewapp import lookup, states
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.forms.inbox import DEFAULT_PAGE_SIZE, SORT_RECEIVED, InboxFilterForm
from reviewapp.items import notes
from reviewapp.models import Hold, IndexedItem, IndexedItemQuerySet


@dataclass(frozen=True, slots=True)
class ListQuery:
    """One list view: filters, sort and page, already validated.

    ``states`` combine with OR: an item in any of them is listed (none: every
    item). The other filters narrow that with AND.
    """

    states: tuple[str, ...] = ()
    # The companies whose items may be listed (``reviewapp.access``): None for
    # every company. Every path filters through it (``filtered_items``, the
    # tally), so the counts, neighbours and the queue cannot show more.
    company_ids: frozenset[uuid.UUID] | None = None
    question_type: str | None = None
    company_id: uuid.UUID | None = None
    received_from: dt.date | None = None
    received_to: dt.date | None = None
    text: str = ""
    sort: str = SORT_RECEIVED
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    # "Held by me": only the items this user put on hold (reviewapp.inbox.holds).
    held_by: int | None = None

    @classmethod
    def from_form(cls, form: InboxFilterForm) -> ListQuery:
        """The form's valid fields; an invalid field falls back to its default.

        Django drops a field that failed validation from ``cleaned_data``, so
        ``?state=nonsense&q=volvo`` still searches for "volvo". The companies
        are the form user's (``InboxFilterForm(user=...)``).
        """
        form.is_valid()
        data = form.cleaned_data
        return cls(
            states=tuple(data.get("state") or ()),
            company_ids=form.company_ids,
            question_type=data.get("type") or None,
            company_id=data.get("company"),
            received_from=data.get("received_from"),
            received_to=data.get("received_to"),
            text=data.get("q") or "",
            sort=data.get("sort") or SORT_RECEIVED,
            page=data.get("page") or 1,
            page_size=data.get("page_size") or DEFAULT_PAGE_SIZE,
            held_by=form.user_id if data.get("held_by_me") else None,
        )

    @property
    def is_queue(self) -> bool:
        """Only items whose question waits for an answer in the app (any sort, any other filter)."""
        return self.states == (states.NEEDS_ANSWER,)


def parse_list_query(query: QueryDict, *, user: Any, max_page_size: int | None = None) -> ListQuery:
    """The list query a query string means to ``user``; invalid parameters become defaults.

    Only the companies ``user`` may see are listed: another company's id in
    ``?company=`` is an invalid choice, as an id that does not exist.
    """
    return ListQuery.from_form(InboxFilterForm(query, user=user, max_page_size=max_page_size))


# --- Filtering --------------------------------------------------------------


def exact_item(query: ListQuery) -> uuid.UUID | None:
    """The one item the search text names by an exact id (``reviewapp.lookup``) that the query may list, or None.

    An item of a company outside ``query.company_ids`` is None, as an id that
    names nothing: the search then runs as usual and finds nothing either.
    """
    found = lookup.item_for_exact_id(query.text) if query.text else None
    if found is None or query.company_ids is None:
        return found
    company_id = IndexedItem.objects.filter(pk=found).values_list("company_id", flat=True).first()
    if company_id is None:
        # A wamid names accounted's row, which sync_index may not have reached yet.
        company_id = InboxItem.objects.filter(pk=found).values_list("company_id", flat=True).first()
    return found if company_id in query.company_ids else None


def _start_of_day(day: dt.date, *, days_later: int = 0) -> dt.datetime | None:
    """Midnight ``days_later`` days after ``day``, or None past the calendar's edge.

    Dates in the form are the user's calendar days, in the site's time zone.
    ``0001-01-01`` starts before year 1 in UTC and ``9999-12-31`` has no next
    day: a bound there bounds nothing.
    """
    try:
        start = timezone.make_aware(dt.datetime.combine(day + dt.timedelta(days=days_later), dt.time.min))
        start.astimezone(dt.UTC)
    except OverflowError:
        return None
    return start


def filtered_items(query: ListQuery) -> IndexedItemQuerySet:
    """The items matching ``query``'s filters, unordered and unpaged."""
    by_note = notes.items_with_note_text(query.text) if query.text else []
    items = IndexedItem.objects.for_companies(query.company_ids).in_states(*query.states).search(query.text, by_note)
    if query.held_by is not None:
        items = items.filter(state_needs_answer=True).filter(
            Exists(
                Hold.objects.filter(
                    item_id=OuterRef("pk"), by_id=query.held_by, released_at__isnull=True, until_at__gt=Now()
                )
            )
        )
    if query.question_type:
        # The open question's type or the answered one's (an item has one or
        # the other): with "Answered" ticked, answered items of that type.
        items = items.filter(Q(open_question_type=query.question_type) | Q(answered_question_type=query.question_type))
    if query.company_id:
        items = items.filter(company_id=query.company_id)
    start = _start_of_day(query.received_from) if query.received_from else None
    if start is not None:
        items = items.filter(created_at__gte=start)
    end = _start_of_day(query.received_to, days_later=1) if query.received_to else None
    if end is not None:
        items = items.filter(created_at__lt=end)
    return items.order_by()
