"""The facet counts beside the filters: from the tally, one aggregate, or capped."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from django.db import connection, transaction

from reviewapp import states
from reviewapp.inbox.query import ListQuery, filtered_items

# Free-text and date-range filters are counted row by row, and only up to
# this many: past it a number reads "10 000+". Counting every match of a
# broad search costs time in proportion to the table; a person does not need
# the exact size of a result set they will narrow anyway.
COUNT_CAP: Final = 10_000


@dataclass(frozen=True, slots=True)
class Counts:
    """How many items match, and how many of those are in each state.

    A state's number is what the list would show with that state ticked as
    well (states combine with AND). ``limit`` is set when the rows were
    counted only up to a cap; when the total is above it ("more than
    ``limit``") the state numbers are lower bounds.
    """

    total: int
    facets: dict[str, int]
    limit: int | None = None

    @property
    def exact(self) -> bool:
        return self.limit is None or self.total <= self.limit


def _is_structured(query: ListQuery) -> bool:
    """Only filters the tally knows (states, question type, company)."""
    return not (query.text or query.received_from or query.received_to)


def _state_bits(keys: Iterable[str]) -> int:
    # Bit i is STATE_KEYS[i], as in the tally's triggers (migration 0002).
    return sum(1 << states.STATE_KEYS.index(key) for key in keys)


def _tally_counts(query: ListQuery) -> Counts:
    """Exact counts from the trigger-maintained tally: a sum over a few dozen rows."""
    required = _state_bits(query.states)
    columns = ["COALESCE(SUM(n), 0)"]
    columns += [f"COALESCE(SUM(n) FILTER (WHERE states & {1 << bit} <> 0), 0)" for bit in range(len(states.STATE_KEYS))]
    sql = f"SELECT {', '.join(columns)} FROM inbox_state_tally WHERE states & %s = %s"  # noqa: S608 - constants only
    params: list[Any] = [required, required]
    if query.company_id:
        sql += " AND company_id = %s"
        params.append(query.company_id)
    if query.question_type:
        sql += " AND question_type = %s"
        params.append(query.question_type)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return Counts(total=int(row[0]), facets={key: int(n) for key, n in zip(states.STATE_KEYS, row[1:], strict=True)})


def _capped_counts(query: ListQuery) -> Counts:
    """Counts over at most COUNT_CAP + 1 matching rows, in one pass.

    Up to the cap every number is exact. Past it the total reads "more than
    COUNT_CAP" and each state's number is how many of the rows looked at are
    in that state: a lower bound, shown as such. (Counting each state to the
    cap separately would repeat the search once per state.)
    """
    columns = [states.STATE_FIELDS[key] for key in states.STATE_KEYS]
    sql, params = filtered_items(query).values(*columns)[: COUNT_CAP + 1].query.sql_with_params()
    selects = ["COUNT(*)", *(f"SUM(CASE WHEN capped.{column} THEN 1 ELSE 0 END)" for column in columns)]
    count_sql = f"SELECT {', '.join(selects)} FROM ({sql}) AS capped"  # noqa: S608 - SQL compiled by Django
    # For a common word PostgreSQL likes a sequential scan that stops at the
    # cap; when its guess of the match rate is wrong (fewer matches than the
    # cap) that scan reads the whole table. The trigram and date indexes
    # bound the work whatever the guess, so they are made the only choice.
    # Not for words under three letters, which the trigram index cannot
    # narrow (a short word is common, and the capped scan stops early).
    force_index = all(len(word) >= 3 for word in query.text.split())
    with transaction.atomic(), connection.cursor() as cursor:
        if force_index:
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(count_sql, params)
        row = cursor.fetchone()
        if force_index:
            # Inside a caller's transaction the setting would outlive us.
            cursor.execute("SET LOCAL enable_seqscan TO DEFAULT")
    return Counts(
        total=int(row[0]),
        facets={key: int(n or 0) for key, n in zip(states.STATE_KEYS, row[1:], strict=True)},
        limit=COUNT_CAP,
    )


def facet_counts(query: ListQuery) -> Counts:
    """The numbers beside the filters, in one query whatever the filters.

    States, type and company: exact, from the tally on PostgreSQL (constant
    time however many items). With a search or a
    date range: counted row by row up to ``COUNT_CAP``.
    """
    if not _is_structured(query):
        return _capped_counts(query)
    return _tally_counts(query)
