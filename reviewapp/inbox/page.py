"""One page of the list: its rows (with their open question and badges) and counts."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from reviewapp import index, states
from reviewapp.forms.inbox import DEFAULT_PAGE_SIZE
from reviewapp.inbox.counts import Counts, facet_counts
from reviewapp.inbox.freshness import Freshness
from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.inbox.sorting import ordered
from reviewapp.models import IndexedItem, Reservation


@dataclass(frozen=True, slots=True)
class OpenQuestionView:
    type: str | None
    status: str  # "open" (WhatsApp still owns it) or "moved_to_app" (the app does)
    asked_at: dt.datetime | None
    window_ends_at: dt.datetime | None
    # What is left of the chat's 48-hour window: None when the app owns the
    # question or nobody knows when it was asked; zero once it has run out.
    time_left: dt.timedelta | None

    @property
    def owner(self) -> str:
        return "app" if self.status == "moved_to_app" else "whatsapp"

    @property
    def type_label(self) -> str:
        return str(states.QUESTION_TYPE_LABELS.get(self.type or "", _("Unknown question type")))


def open_question_of(item: IndexedItem, now: dt.datetime) -> OpenQuestionView | None:
    """The open question from the state columns (no JSON parsing needed)."""
    if item.state_needs_answer:
        status = "moved_to_app"
    elif item.state_waiting_in_chat:
        status = "open"
    else:
        return None
    asked_at = item.open_question_asked_at
    window_ends_at = asked_at + states.CHAT_WINDOW if asked_at else None
    time_left = None
    if status == "open" and window_ends_at is not None:
        time_left = max(window_ends_at - now, dt.timedelta(0))
    return OpenQuestionView(
        type=item.open_question_type,
        status=status,
        asked_at=asked_at,
        window_ends_at=window_ends_at,
        time_left=time_left,
    )


@dataclass(frozen=True, slots=True)
class Row:
    item: IndexedItem
    states: tuple[str, ...]
    open_question: OpenQuestionView | None
    # Who is answering it now (an unexpired ``Reservation``, see reviewapp.queue).
    holder_id: int | None = None
    holder_name: str = ""

    @classmethod
    def of(cls, item: IndexedItem, now: dt.datetime) -> Row:
        return cls(
            item=item,
            states=item.state_keys,
            open_question=open_question_of(item, now),
            holder_id=getattr(item, "held_by_id", None),
            holder_name=getattr(item, "held_by_name", None) or "",
        )

    @property
    def badges(self) -> list[tuple[str, str]]:
        return [(key, str(states.STATE_LABELS[key])) for key in self.states]

    @property
    def waiting_since(self) -> dt.datetime | None:
        """When the question moved from the chat to the app: the queue's order, and its waiting time."""
        return self.item.moved_to_app_at if self.item.state_needs_answer else None


@dataclass(frozen=True, slots=True)
class ListPage:
    query: ListQuery
    rows: list[Row]
    counts: Counts
    number: int
    num_pages: int
    page_size: int = field(default=DEFAULT_PAGE_SIZE)
    # When ``sync_index`` last caught up with accounted. Read before the
    # rows, so the rows are at least this fresh.
    freshness: Freshness = field(default_factory=lambda: Freshness(indexed_at=None, now=timezone.now()))

    @property
    def count(self) -> int:
        return self.counts.total

    @property
    def facets(self) -> dict[str, int]:
        return self.counts.facets

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def start_index(self) -> int:
        return (self.number - 1) * self.page_size + 1 if self.rows else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * self.page_size + len(self.rows)


def page_rows(query: ListQuery, number: int) -> QuerySet[IndexedItem]:
    """The rows of page ``number``.

    The page's ids are found first, in a subquery the sort's index answers
    alone (an index-only scan, no table rows read for the skipped pages);
    only the page's own rows are then fetched. This keeps page 200 cheap.
    Each row comes with who is answering it, if anyone (``held_by_id``,
    ``held_by_name``), in the same query.
    """
    offset = (number - 1) * query.page_size
    page_ids = ordered(filtered_items(query), query.sort).values("pk")[offset : offset + query.page_size]
    live = Reservation.objects.filter(item_id=OuterRef("pk"), expires_at__gt=Now())
    rows = IndexedItem.objects.filter(pk__in=page_ids).annotate(
        held_by_id=Subquery(live.values("user_id")[:1]),
        held_by_name=Subquery(live.values("user__username")[:1]),
    )
    return ordered(rows, query.sort)


def list_page(query: ListQuery) -> ListPage:
    """One page of the list with its counts, in a fixed number of queries.

    Queries: when the index last caught up, the counts, the rows; all in the
    review database. A page past the end shows the last page, as Django's
    ``Paginator.get_page``.
    """
    indexed_at = index.last_poll_at()
    counts = facet_counts(query)
    num_pages = max(1, -(-counts.total // query.page_size))
    number = min(query.page, num_pages)
    now = timezone.now()
    rows = [Row.of(item, now) for item in page_rows(query, number)]
    return ListPage(
        query=query,
        rows=rows,
        counts=counts,
        number=number,
        num_pages=num_pages,
        page_size=query.page_size,
        freshness=Freshness(indexed_at=indexed_at, now=now),
    )
