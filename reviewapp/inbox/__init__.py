"""The inbox list: filtering, facet counts, sorting, pagination, freshness.

Filtering and counting happen in the database on the ``state_*`` columns
(see ``reviewapp/states.py`` for what each state means and
``migrations/0003_*`` for the indexes and the trigger). Those columns are a
copy of what ``clarifications.analyse`` says about ``channel_context``, so
every read path here first calls ``refresh_stale_states()``: rows another
program changed with plain SQL were marked ``states_stale`` by the database
trigger, and are recomputed before anybody filters on them.

The page, the API, the item page's previous/next and the admin all go through
these functions, so they cannot disagree about which items a link means.

- ``query``: ``ListQuery`` from the query string, and the items its filters match;
- ``sorting``: the sort orders, and ``neighbours`` (previous/next by keyset);
- ``counts``: ``facet_counts`` from the tally, one aggregate, or capped;
- ``page``: ``list_page``, one page of rows with their counts;
- ``freshness``: ``refresh_stale_states``.
"""

from reviewapp.inbox.counts import COUNT_CAP, Counts, facet_counts
from reviewapp.inbox.counts import _aggregate_counts as _aggregate_counts  # tests compare the two directly
from reviewapp.inbox.counts import _tally_counts as _tally_counts
from reviewapp.inbox.freshness import REFRESH_BATCH, REFRESH_LOCK_WAIT_MS, refresh_stale_states
from reviewapp.inbox.page import ListPage, OpenQuestionView, Row, list_page, open_question_of, page_rows
from reviewapp.inbox.query import ListQuery, filtered_items, parse_list_query, search_condition
from reviewapp.inbox.sorting import SORTS, SortKey, after_condition, neighbours, ordered

__all__ = [
    "COUNT_CAP",
    "REFRESH_BATCH",
    "REFRESH_LOCK_WAIT_MS",
    "SORTS",
    "Counts",
    "ListPage",
    "ListQuery",
    "OpenQuestionView",
    "Row",
    "SortKey",
    "after_condition",
    "facet_counts",
    "filtered_items",
    "list_page",
    "neighbours",
    "open_question_of",
    "ordered",
    "page_rows",
    "parse_list_query",
    "refresh_stale_states",
    "search_condition",
]
