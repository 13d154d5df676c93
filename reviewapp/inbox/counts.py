"""The facet counts beside the filters: from the tally, one aggregate, or capped."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Final

from django.db import connection, transaction
from django.db.models import BooleanField, ExpressionWrapper, Q
from django.utils.translation import gettext_lazy as _

from reviewapp.core import states
from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.models import active_holds

# Free-text and date-range filters are counted row by row, and only up to
# this many: past it a number reads "10 000+". Counting every match of a
# broad search costs time in proportion to the table; a person does not need
# the exact size of a result set they will narrow anyway.
COUNT_CAP: Final = 10_000

# The rule behind the facet numbers (``Counts``), as the page states it.
FACET_RULE: Final = _(
    "Ticked states combine with “any of”. A state's number counts its items that no other ticked state"
    " already lists: what ticking it would add, or what unticking it would take away."
)


@dataclass(frozen=True, slots=True)
class Counts:
    """How many items the list shows, and the number beside each state's checkbox.

    Ticked states combine with OR, so a state's number is **what its checkbox
    would change**: the items matching the other filters that are in that
    state and in none of the *other* ticked states. For an unticked state
    that is how many items ticking it would add; for a ticked one, how many
    only it brings in (unticking it removes exactly those). With nothing
    ticked it is simply how many items are in that state. ``FACET_RULE``
    says the same for the page, under the checkboxes.

    ``limit`` is set when rows were counted only up to a cap; ``exact`` is
    False when the cap was reached, and then every number is a lower bound.
    """

    total: int
    facets: dict[str, int]
    limit: int | None = None
    exact: bool = True


def _is_structured(query: ListQuery) -> bool:
    """Only filters the tally knows (states, question type, company)."""
    return not (
        query.text or query.received_from or query.received_to or query.unread_only or query.held_by is not None
    )


# The bit the tally never sets: "on hold" is not a column (reviewapp.inbox.holds).
_ON_HOLD_BIT: Final = 1 << len(states.STATE_KEYS)


def state_bits(keys: Iterable[str]) -> int:
    # Bit i is STATE_KEYS[i], as in the tally's triggers (migration 0002); on hold is the bit after them.
    return sum(_ON_HOLD_BIT if key == states.ON_HOLD else 1 << states.STATE_KEYS.index(key) for key in keys)


def _tallied(mask: int, ticked: int, sign: int, total: list[int], facets: dict[str, int]) -> None:
    """Add (``sign`` 1) or take away (-1) one item of state set ``mask`` to the counts, as the tally's SQL does."""
    if not ticked or mask & ticked:
        total[0] += sign
    for key in states.LIST_STATE_KEYS:
        bit = state_bits([key])
        if mask & bit and not mask & (ticked & ~bit):
            facets[key] += sign


def _with_holds(counts: Counts, query: ListQuery) -> Counts:
    """The tally's counts with the items on hold moved from "needs answer" to "on hold".

    The tally knows only the read model's columns, in which a held item still
    needs an answer. The held items are few (a bookkeeper's handful), so
    each is taken out as the tally counted it and put back as the list
    filters it: exact, and one small query.
    """
    held = filtered_items(replace(query, states=(states.ON_HOLD,)))
    fields = [states.STATE_FIELDS[key] for key in states.STATE_KEYS]
    ticked = state_bits(query.states)
    need = state_bits([states.NEEDS_ANSWER])
    total = [counts.total]
    facets = dict(counts.facets)
    for row in held.values_list(*fields):
        mask = state_bits(key for key, value in zip(states.STATE_KEYS, row, strict=True) if value)
        _tallied(mask, ticked, -1, total, facets)
        _tallied((mask & ~need) | _ON_HOLD_BIT, ticked, 1, total, facets)
    return replace(counts, total=total[0], facets=facets)


def tally_counts(query: ListQuery) -> Counts:
    """Exact counts from the trigger-maintained tally: a sum over a few dozen rows.

    Each tally row is a set of states (a bit mask), so "in any ticked state"
    and "in this state and no other ticked one" are bit tests on it.
    """
    ticked = state_bits(query.states)
    total = f"SUM(n) FILTER (WHERE states & {ticked} <> 0)" if ticked else "SUM(n)"
    columns = [f"COALESCE({total}, 0)"]
    for key in states.STATE_KEYS:
        bit = state_bits([key])
        others = ticked & ~bit
        columns.append(f"COALESCE(SUM(n) FILTER (WHERE states & {bit} <> 0 AND states & {others} = 0), 0)")
    sql = f"SELECT {', '.join(columns)} FROM inbox_state_tally WHERE TRUE"  # noqa: S608 - integers only
    params: list[Any] = []
    if query.company_ids is not None:
        sql += " AND company_id = ANY(%s)"
        params.append(list(query.company_ids))
    if query.company_id:
        sql += " AND company_id = %s"
        params.append(query.company_id)
    if query.question_type:
        sql += " AND question_type = %s"
        params.append(query.question_type)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    facets = {key: int(n) for key, n in zip(states.STATE_KEYS, row[1:], strict=True)}
    return _with_holds(Counts(total=int(row[0]), facets={**facets, states.ON_HOLD: 0}), query)


def _any_of(columns: Iterable[str]) -> str:
    return " OR ".join(columns) or "FALSE"


def _capped_counts(query: ListQuery) -> Counts:
    """Counts over at most COUNT_CAP + 1 rows matching the filters other than the states, in one pass.

    The states are left out of the scan because an unticked state's number
    counts rows the list does not show. Up to the cap every number is exact.
    Past it the total reads "more than COUNT_CAP" and each number is how many
    of the rows looked at qualify: a lower bound, shown as such. (Counting
    each state to the cap separately would repeat the search once per state.)
    """
    fields = [states.STATE_FIELDS[key] for key in states.STATE_KEYS]
    # Whether a row is on hold, beside its columns: "needs answer" leaves it out, "on hold" counts it.
    scope = filtered_items(replace(query, states=())).annotate(
        held=ExpressionWrapper(Q(state_needs_answer=True) & active_holds(), output_field=BooleanField())
    )
    sql, params = scope.values(*fields, "held")[: COUNT_CAP + 1].query.sql_with_params()
    column = {key: f"capped.{states.STATE_FIELDS[key]}" for key in states.STATE_KEYS}
    column[states.NEEDS_ANSWER] = "(capped.state_needs_answer AND NOT capped.held)"
    column[states.ON_HOLD] = "capped.held"
    ticked = [column[key] for key in query.states]
    shown = f"COUNT(*) FILTER (WHERE {_any_of(ticked)})" if ticked else "COUNT(*)"
    selects = ["COUNT(*)", shown]
    for key in states.LIST_STATE_KEYS:
        others = [column[k] for k in query.states if k != key]
        selects.append(f"COUNT(*) FILTER (WHERE {column[key]} AND NOT ({_any_of(others)}))")
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
    scanned = int(row[0])
    return Counts(
        total=int(row[1]),
        facets={key: int(n or 0) for key, n in zip(states.LIST_STATE_KEYS, row[2:], strict=True)},
        limit=COUNT_CAP,
        exact=scanned <= COUNT_CAP,
    )


def facet_counts(query: ListQuery) -> Counts:
    """The numbers beside the filters, in one query whatever the filters.

    States, type and company: exact, from the tally (constant time however
    many items). With a search or a date range: counted row by row up to
    ``COUNT_CAP``. What each state's number means: ``Counts``. Only the
    companies ``query.company_ids`` names are counted.
    """
    if query.company_ids is not None and not query.company_ids:
        # A user assigned no company sees nothing, and nothing is counted.
        return Counts(total=0, facets=dict.fromkeys(states.LIST_STATE_KEYS, 0))
    if not _is_structured(query):
        return _capped_counts(query)
    return tally_counts(query)
