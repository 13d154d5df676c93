"""What a list page's rows are now, in one cheap query: the list's ``ETag`` (issue 38 part 3).

An open queue polls its own URL every few seconds (templates/inbox/list.html,
static/js/inbox.js) with ``If-None-Match``; while nothing it shows changed the
answer is a ``304 Not Modified`` after one query here (or, for a list this
process answered for that session, its columns read in the same statement
as the session and the user: ``reviewapp.web.unchanged_poll``), and nothing
is rendered.

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
import datetime as dt
import functools
import hashlib
from typing import Any, Final

from django.core.exceptions import EmptyResultSet
from django.db import connection

from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.inbox.sorting import ordered
from reviewapp.models import IndexedItem, Reservation, SyncState
from reviewapp.readmodel import read_model_age, stale_after

# The element that polls (templates/inbox/list.html): htmx names it in HX-Trigger.
POLL_ELEMENT: Final = "inbox-live"

_ITEMS: Final = IndexedItem._meta.db_table
_RESERVATIONS: Final = Reservation._meta.db_table
_SYNC_STATE: Final = SyncState._meta.db_table


@dataclasses.dataclass(frozen=True, slots=True)
class Fingerprint:
    """What ``fingerprint`` read: the rows' digest, and when the read model last caught up (None: never)."""

    rows: str
    indexed_at: dt.datetime | None


def _page_ids_sql(query: ListQuery) -> tuple[str, tuple[Any, ...]]:
    """The SQL of the ids ``query``'s page shows (``_cached_page_ids_sql``: once per process for each list).

    Compiling the ORM's query was half of a 304's Python (about 0.5 ms, the
    profile in bench/README.md, "Idle open queues"). Only the code decides the
    SQL of a query without search text: its clocks are the database's
    (``Now()`` in the hold filters), so a cached copy is never stale and no
    other host has anything to invalidate. A search is not cached: its SQL
    carries the ids of the items whose notes matched (``filtered_items``).
    """
    offset = (query.page - 1) * query.page_size
    page_ids = ordered(filtered_items(query), query.sort).values("pk")[offset : offset + query.page_size]
    try:
        sql, params = page_ids.query.sql_with_params()
    except EmptyResultSet:  # no company to list (a bookkeeper assigned none): Django does not even ask
        return "SELECT NULL::uuid WHERE FALSE", ()
    return sql, tuple(params)


_cached_page_ids_sql = functools.lru_cache(maxsize=256)(_page_ids_sql)


def fingerprint(query: ListQuery) -> Fingerprint:
    """A digest of the rows ``query``'s page would show and of its scope's counts, and the sync's time: one query."""
    columns, params = fingerprint_columns(query)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns}", params)
        return read_fingerprint(cursor.fetchone())


def fingerprint_columns(query: ListQuery) -> tuple[str, list[Any]]:
    """``fingerprint``'s three columns as a select list and its parameters, for a statement that asks more.

    ``reviewapp.web.unchanged_poll`` reads them in the same statement as the
    session and the user; ``read_fingerprint`` turns the three values back
    into a ``Fingerprint``.
    """
    page_sql, page_params = _page_ids_sql(query) if query.text else _cached_page_ids_sql(query)
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
    # Both digests and the sync's time (the page's "stale" banner, in its tag)
    # in one round trip. The reservation's clock is the database's, as
    # everywhere else (reviewapp.inbox.reservations).
    columns = f"""
          (SELECT md5(coalesce(string_agg(concat_ws(':', t.company_id, t.states, t.question_type, t.n), ','
                                          ORDER BY t.company_id, t.states, t.question_type), ''))
             FROM inbox_state_tally t WHERE {" AND ".join(scope)}),
          (SELECT md5(coalesce(string_agg(concat_ws(':', i.id, i.indexed_at, r.user_id), ',' ORDER BY i.id), ''))
             FROM {_ITEMS} i
             LEFT JOIN {_RESERVATIONS} r ON r.item_id = i.id AND r.expires_at > statement_timestamp()
             WHERE i.id IN ({page_sql})),
          (SELECT s.last_poll_at FROM {_SYNC_STATE} s WHERE s.id = 1)
    """  # noqa: S608 - our table names; the page's SQL is compiled by Django, values are parameters
    return columns, [*scope_params, *page_params]


def read_fingerprint(values: tuple[Any, ...]) -> Fingerprint:
    """The ``Fingerprint`` of ``fingerprint_columns``' three values."""
    tally, rows, indexed_at = values
    return Fingerprint(f"{tally}.{rows}", indexed_at)


def _query_key(query: ListQuery) -> str:
    # Each field as it is (asdict's deep copy was a tenth of a 304's Python).
    values = {field.name: getattr(query, field.name) for field in dataclasses.fields(query)}
    # A frozenset's order is not stable between processes: sorted, so every web host computes one tag.
    if query.company_ids is not None:
        values["company_ids"] = sorted(str(pk) for pk in query.company_ids)
    return repr(sorted(values.items()))


def list_tag(
    *, kind: str, user_id: int | None, language: str, query: ListQuery, now: Fingerprint, session_key: str
) -> str:
    """The list page's tag (``kind`` "page") or its htmx part's ("htmx"), as of ``now``.

    Besides the rows: whether the read model is stale (the page's banner),
    and the session, whose CSRF token the page's forms carry: a copy from
    before the last sign-in must not be shown again.
    """
    age = read_model_age(now.indexed_at)
    stale = "stale" if age is None or age > stale_after() else ""
    extra = f"{stale}|{session_key}"
    return etag(kind=kind, user_id=user_id, language=language, query=query, rows=now.rows, extra=extra)


def etag(*, kind: str, user_id: int | None, language: str, query: ListQuery, rows: str, extra: str = "") -> str:
    """The weak ``ETag`` of one answer: ``kind`` ("page", "htmx", "json"), whose, which list, which rows.

    ``rows`` is ``fingerprint(query).rows``; ``extra`` anything else the answer
    depends on (the stale-index banner, the session whose CSRF token a page carries).
    """
    key = "|".join((kind, str(user_id), language, _query_key(query), rows, extra))
    return 'W/"' + hashlib.sha256(key.encode()).hexdigest()[:40] + '"'
