"""The inbox list: filtering, facet counts, sorting, pagination.

Filtering and counting happen in the review database on the read model
(``IndexedItem``, kept by ``reviewapp.index``): its ``state_*`` columns are
what ``clarifications.analyse`` says about each item's ``channel_context``
(see ``reviewapp/states.py`` for what each state means).

The page, the API, the item page's previous/next and the admin all go through
these functions, so they cannot disagree about which items a link means.

- ``query``: ``ListQuery`` from the query string, and the items its filters
  match (ticked states combine with OR, the other filters with AND);
- ``sorting``: the sort orders, and ``neighbours`` (previous/next by keyset);
- ``counts``: ``facet_counts`` from the tally, one aggregate, or capped;
- ``landing``: what ``/`` shows each role (a bookkeeper's queue);
- ``page``: ``list_page``, one page of rows with their counts;
- ``freshness``: how old the read model is (``Freshness``).
"""

from reviewapp.inbox.counts import COUNT_CAP, FACET_RULE, Counts, facet_counts
from reviewapp.inbox.counts import _tally_counts as _tally_counts
from reviewapp.inbox.freshness import STALE_AFTER, Freshness
from reviewapp.inbox.landing import all_items_url, inbox_url, landing_query, queue_query
from reviewapp.inbox.page import (
    ListPage,
    OpenQuestionView,
    Row,
    RowDisplay,
    display_rows,
    list_page,
    open_question_of,
    page_rows,
)
from reviewapp.inbox.query import (
    ListQuery,
    any_state_condition,
    exact_item,
    filtered_items,
    parse_list_query,
    search_condition,
)
from reviewapp.inbox.sorting import SORTS, SortKey, after_condition, following, neighbours, ordered

__all__ = [
    "COUNT_CAP",
    "FACET_RULE",
    "SORTS",
    "STALE_AFTER",
    "Counts",
    "Freshness",
    "ListPage",
    "ListQuery",
    "OpenQuestionView",
    "Row",
    "RowDisplay",
    "SortKey",
    "after_condition",
    "all_items_url",
    "any_state_condition",
    "display_rows",
    "exact_item",
    "facet_counts",
    "filtered_items",
    "following",
    "inbox_url",
    "landing_query",
    "list_page",
    "neighbours",
    "open_question_of",
    "ordered",
    "page_rows",
    "parse_list_query",
    "queue_query",
    "search_condition",
]
