"""What a list page's rows are now, in one cheap query: the list's ``ETag`` (issue 38 part 3).

An open queue polls its own URL every few seconds (templates/inbox/list.html,
static/js/inbox.js) with ``If-None-Match``; while nothing it shows changed the
answer is a ``304 Not Modified`` after one query here, and nothing is rendered.

The fingerprint covers everything the page prints that a colleague, a late
chat reply or the sync can change:

- the page's rows: each row's id and ``indexed_at`` (the sync rewrites a row,
  and so moves it, only when accounted's row changed: an answer, a booking, a
  chat reply) and who is answering it now (a live ``Reservation``; one that
  expires changes it too, as the page then stops saying "anna is answering");
- the facet tally of the list's scope (the user's companies, the company and
  question-type filters): every count the page prints comes from the same
  items, so a new question anywhere in scope changes it (it is announced,
  not pushed in under the cursor), as does one that leaves.

Measured on the load bench (bench/README.md, "Idle open queues"): the query
reads the page's ids from the sort's index and a few dozen tally rows.

The tag itself also names the user, the language, the parsed query (with the
companies this user may see) and the kind of answer (whole page, htmx part,
JSON), so no user, filter or representation ever matches another's tag. It
is weak (``W/``): the "updated 3 s ago" line and the API's ``indexed_at``
move on every sync pass without the rows changing, and are not worth a 200.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Final

from django.core.exceptions import EmptyResultSet
from django.db import connection

from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.inbox.sorting import ordered
from reviewapp.models import IndexedItem, Reservation

# The element that polls (templates/inbox/list.html): htmx names it in HX-Trigger.
POLL_ELEMENT: Final = "inbox-live"

_ITEMS: Final = IndexedItem._meta.db_table
_RESERVATIONS: Final = Reservation._meta.db_table


def fingerprint(query: ListQuery) -> str:
    """A digest of the rows ``query``'s page would show and of its scope's counts: one query."""
    offset = (query.page - 1) * query.page_size
    page_ids = ordered(filtered_items(query), query.sort).values("pk")[offset : offset + query.page_size]
    try:
        page_sql, page_params = page_ids.query.sql_with_params()
    except EmptyResultSet:  # no company to list (a bookkeeper assigned none): Django does not even ask
        page_sql, page_params = "SELECT NULL::uuid WHERE FALSE", ()
    scope = ["TRUE"]
    scope_params: list[Any] = []
    if query.company_ids is not None:
        scope.append("t.company_id = ANY(%s)")
        scope_params.append(list(query.company_ids))
    if query.company_id:
        scope.append("t.company_id = %s")
        scope_params.append(query.company_id)
    if query.question_type:
        scope.append("t.question_type = %s")
        scope_params.append(query.question_type)
    # Both digests in one round trip. The reservation's clock is the
    # database's, as everywhere else (reviewapp.inbox.reservations).
    sql = f"""
        SELECT
          (SELECT md5(coalesce(string_agg(concat_ws(':', t.company_id, t.states, t.question_type, t.n), ','
                                          ORDER BY t.company_id, t.states, t.question_type), ''))
             FROM inbox_state_tally t WHERE {" AND ".join(scope)}),
          (SELECT md5(coalesce(string_agg(concat_ws(':', i.id, i.indexed_at, r.user_id), ',' ORDER BY i.id), ''))
             FROM {_ITEMS} i
             LEFT JOIN {_RESERVATIONS} r ON r.item_id = i.id AND r.expires_at > statement_timestamp()
             WHERE i.id IN ({page_sql}))
    """  # noqa: S608 - our table names; the page's SQL is compiled by Django, values are parameters
    with connection.cursor() as cursor:
        cursor.execute(sql, [*scope_params, *page_params])
        tally, rows = cursor.fetchone()
    return f"{tally}.{rows}"


def _query_key(query: ListQuery) -> str:
    values = dataclasses.asdict(query)
    # A frozenset's order is not stable between processes: sorted, so every web host computes one tag.
    if query.company_ids is not None:
        values["company_ids"] = sorted(str(pk) for pk in query.company_ids)
    return repr(sorted(values.items()))


def etag(*, kind: str, user_id: int | None, language: str, query: ListQuery, rows: str, extra: str = "") -> str:
    """The weak ``ETag`` of one answer: ``kind`` ("page", "htmx", "json"), whose, which list, which rows.

    ``rows`` is ``fingerprint(query)``; ``extra`` anything else the answer
    depends on (the stale-index banner, the session whose CSRF token a page carries).
    """
    key = "|".join((kind, str(user_id), language, _query_key(query), rows, extra))
    return 'W/"' + hashlib.sha256(key.encode()).hexdigest()[:40] + '"'
