"""What a list view asks for: the validated query, and the items its filters match."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, replace
from typing import Final

from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Now
from django.utils import timezone

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import states
from reviewapp.inbox import lookup
from reviewapp.items import notes
from reviewapp.models import Hold, IndexedItem, IndexedItemQuerySet

# Sort keys as they appear in URLs.
SORT_RECEIVED: Final = "received"  # newest received first (the default)
SORT_OLDEST: Final = "oldest"  # oldest received first
SORT_QUESTION_AGE: Final = "question_age"  # oldest open question first (asked in the chat)
SORT_QUEUE: Final = "queue"  # longest waiting in the app first: the bookkeeper's queue

DEFAULT_PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 500
# OFFSET pagination costs grow with depth; past this a narrower filter or the
# other sort direction is the way in (page 2 000 of 50 is 100 000 rows deep).
MAX_PAGE: Final = 2000


@dataclass(frozen=True, slots=True)
class ListQuery:
    """One list view: filters, sort and page, already validated.

    ``states`` combine with OR: an item in any of them is listed (none: every
    item). The other filters narrow that with AND.
    """

    states: tuple[str, ...] = ()
    # The companies whose items may be listed (``reviewapp.core.access``): None for
    # every company. Every path filters through it (``filtered_items``, the
    # tally), so the counts, neighbours and the queue cannot show more.
    company_ids: frozenset[uuid.UUID] | None = None
    question_type: str | None = None
    company_id: uuid.UUID | None = None
    received_from: dt.date | None = None
    received_to: dt.date | None = None
    # Only items whose photo accounted has not read (``?photo=unread``).
    unread_only: bool = False
    text: str = ""
    sort: str = SORT_RECEIVED
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    # "Held by me": only the items this user put on hold (reviewapp.inbox.holds).
    held_by: int | None = None

    @property
    def is_queue(self) -> bool:
        """Only items whose question waits for an answer in the app (any sort, any other filter)."""
        return self.states == (states.NEEDS_ANSWER,)


# --- Filtering --------------------------------------------------------------


def exact_item(query: ListQuery) -> uuid.UUID | None:
    """The one item the search text names by an exact id (``reviewapp.inbox.lookup``) that the query may list, or None.

    An item of a company outside ``query.company_ids`` is None, as an id that
    names nothing: the search then runs as usual and finds nothing either.
    """
    if not query.text:
        return None
    found = lookup.item_for_exact_id(query.text) or lookup.item_for_short_id(query.text, company_ids=query.company_ids)
    if found is None or query.company_ids is None:
        return found
    company_id = IndexedItem.objects.filter(pk=found).values_list("company_id", flat=True).first()
    if company_id is None:
        # A wamid names accounted's row, which sync_index may not have reached yet.
        company_id = InboxItem.objects.filter(pk=found).values_list("company_id", flat=True).first()
    return found if company_id in query.company_ids else None


#: How many matches outside the queue are counted before "more" is said.
ELSEWHERE_CAP: Final = 100


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """What a queue search that found nothing matches in the other states."""

    count: int  # at most ELSEWHERE_CAP; ``more`` says there are more
    more: bool
    only_item: uuid.UUID | None  # the one item, when exactly one matches


def matches_elsewhere(query: ListQuery) -> Elsewhere | None:
    """For a queue search that found nothing: the items of every state it matches (None: none, or not a queue search).

    A search never hides what exists: "the queue is empty" while the item
    asked about sits answered one click away sent people away empty-handed.
    """
    if not (query.is_queue and query.text):
        return None
    ids = list(filtered_items(replace(query, states=())).values_list("pk", flat=True)[: ELSEWHERE_CAP + 1])
    if not ids:
        return None
    return Elsewhere(
        count=min(len(ids), ELSEWHERE_CAP), more=len(ids) > ELSEWHERE_CAP, only_item=ids[0] if len(ids) == 1 else None
    )


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
    if query.unread_only:
        items = items.filter(extraction_skipped=True)
    start = _start_of_day(query.received_from) if query.received_from else None
    if start is not None:
        items = items.filter(created_at__gte=start)
    end = _start_of_day(query.received_to, days_later=1) if query.received_to else None
    if end is not None:
        items = items.filter(created_at__lt=end)
    return items.order_by()
