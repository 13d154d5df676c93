"""Sort orders, and the previous/next item found by keyset in that order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from django.db.models import F, OrderBy, Q, QuerySet

from reviewapp.inbox.query import SORT_OLDEST, SORT_QUESTION_AGE, SORT_QUEUE, SORT_RECEIVED, ListQuery, filtered_items
from reviewapp.models import IndexedItem


@dataclass(frozen=True, slots=True)
class SortKey:
    """One column of a sort order. NULL sorts after every value ascending
    (PostgreSQL's default, made explicit), so ascending indexes serve the
    bookkeeper's queue without a sort step."""

    field: str
    descending: bool = False
    nullable: bool = False

    def reversed(self) -> SortKey:
        return replace(self, descending=not self.descending)

    def order_by(self) -> OrderBy:
        if self.descending:
            return F(self.field).desc(nulls_first=True) if self.nullable else F(self.field).desc()
        return F(self.field).asc(nulls_last=True) if self.nullable else F(self.field).asc()


# Every order ends with the primary key so it is total: rows inserted in one
# transaction share created_at, and previous/next must never skip or repeat.
SORTS: Final[dict[str, tuple[SortKey, ...]]] = {
    SORT_RECEIVED: (SortKey("created_at", descending=True), SortKey("id", descending=True)),
    SORT_OLDEST: (SortKey("created_at"), SortKey("id")),
    # Items without an open question come last, oldest received first.
    SORT_QUESTION_AGE: (SortKey("open_question_asked_at", nullable=True), SortKey("created_at"), SortKey("id")),
    # The bookkeeper's queue: the question that has waited longest in the app
    # first (index_queue_idx serves it with the needs-answer filter). Only
    # needs-answer rows have the moment, so any others come last, by id.
    SORT_QUEUE: (SortKey("moved_to_app_at", nullable=True), SortKey("id")),
}

# The columns that place a row in every order: all previous/next needs to read
# (the row's summary and search text run to thousands of characters).
POSITION_FIELDS: Final = tuple(sorted({key.field for keys in SORTS.values() for key in keys}))


def ordered(items: QuerySet[IndexedItem], sort: str) -> QuerySet[IndexedItem]:
    return items.order_by(*(key.order_by() for key in SORTS[sort]))


def _beyond(key: SortKey, value: Any) -> Q | None:
    """Rows strictly after ``value`` in this key's direction (None: no row is)."""
    if key.descending:
        # Smaller values, and under NULLS-as-largest a NULL has every value after it.
        if value is None:
            return Q(**{f"{key.field}__isnull": False})
        return Q(**{f"{key.field}__lt": value})
    if value is None:
        return None
    after = Q(**{f"{key.field}__gt": value})
    return after | Q(**{f"{key.field}__isnull": True}) if key.nullable else after


def _equal(key: SortKey, value: Any) -> Q:
    if value is None:
        return Q(**{f"{key.field}__isnull": True})
    return Q(**{key.field: value})


def after_condition(keys: Sequence[SortKey], values: Sequence[Any]) -> Q | None:
    """Keyset condition: rows strictly after ``values`` in the order ``keys``."""
    alternatives: list[Q] = []
    same_so_far = Q()
    for key, value in zip(keys, values, strict=True):
        beyond = _beyond(key, value)
        if beyond is not None:
            alternatives.append(same_so_far & beyond)
        same_so_far &= _equal(key, value)
    if not alternatives:
        return None
    condition = alternatives[0]
    for alternative in alternatives[1:]:
        condition |= alternative
    return condition


def _first_after(items: QuerySet[IndexedItem], keys: Sequence[SortKey], item: IndexedItem) -> IndexedItem | None:
    """The first row after ``item`` in the order ``keys``.

    The condition leads with a plain range on the first key (``created_at <=
    X AND (...)``) so the index scan starts at the item instead of walking
    from the top of the list to it. A NULL first key (the queue order's
    "no open question") cannot share that range; those rows are looked up in
    a second query, only when the first finds nothing.
    """
    values = [getattr(item, key.field) for key in keys]
    first, value = keys[0], values[0]
    order = [key.order_by() for key in keys]
    rest = after_condition(keys[1:], values[1:])
    same = _equal(first, value) & rest if rest is not None else None
    if value is None:
        main = same
    else:
        op = "lt" if first.descending else "gt"
        beyond = Q(**{f"{first.field}__{op}": value})
        bound = Q(**{f"{first.field}__{op}e": value})
        main = bound & (beyond | same) if same is not None else beyond
    found = items.filter(main).order_by(*order).first() if main is not None else None
    if found is None and first.nullable and (value is None) == first.descending:
        # Ascending, NULLs come after every value; descending, before them.
        tail = items.filter(**{f"{first.field}__isnull": value is not None})
        found = tail.order_by(*order).first()
    return found


def following(items: QuerySet[IndexedItem], query: ListQuery, item: IndexedItem | None) -> IndexedItem | None:
    """The first of ``items`` after ``item`` in ``query``'s order (None: the first of all).

    ``items`` is ``query``'s filtered items, perhaps narrowed further (the
    queue leaves out items others hold); ``item`` itself is never returned.
    """
    keys = SORTS[query.sort]
    if item is None:
        return ordered(items, query.sort).first()
    return _first_after(items.exclude(pk=item.pk), keys, item)


def neighbours(item: IndexedItem, list_query: ListQuery) -> tuple[IndexedItem | None, IndexedItem | None]:
    """The previous and next item in the list ``list_query`` describes (its companies are its reader's).

    ``item`` is the item's row in the read model (``IndexedItem``), not
    accounted's live ``InboxItem``: the list orders and filters on the read
    model, so the position must come from there too. Callers holding the live
    row fetch it by primary key::

        indexed = IndexedItem.objects.only(*POSITION_FIELDS).filter(pk=live_item.pk).first()
        list_query = parse_list_query(request.GET, user=request.user)  # web.forms.inbox
        previous, following = neighbours(indexed, list_query) if indexed else (None, None)

    (``None`` means the item has not been indexed yet: ``sync.index_items``
    indexes it at once.)

    ``list_query`` is the list as the item page's query string describes it
    (``web.forms.inbox.parse_list_query``); ``page`` is ignored. The
    neighbours come with their ``POSITION_FIELDS`` only. The
    position is read from ``item`` as passed in (its ``created_at`` and
    ``open_question_asked_at``), and ``item`` need not match the filter any
    more: called with the row as it was listed, just before answering its
    question, ``neighbours(item, ListQuery(states=("needs_answer",), sort=SORT_QUESTION_AGE, company_ids=...))[1]``
    is the next item in the bookkeeper's queue. Items of companies ``user``
    may not see (outside ``list_query.company_ids``) are never a neighbour.
    """
    items = filtered_items(list_query).only(*POSITION_FIELDS)
    keys = SORTS[list_query.sort]
    previous = _first_after(items.exclude(pk=item.pk), [key.reversed() for key in keys], item)
    return previous, following(items, list_query, item)
