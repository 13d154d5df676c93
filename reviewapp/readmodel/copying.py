"""Reading accounted's rows in batches and copying their derived values into a staging table.

What a whole-table walk does with every batch, in the pass's own process
(``bulk``) and in each of its helper processes (``workers``) alike: read
accounted's rows from one server-side cursor (``batches``), derive them as a
poll does (``rows.derive``) and COPY them into the staging table (``stage``).
"""

from __future__ import annotations

import json
import logging
import operator
from collections.abc import Iterator, Sequence
from typing import Any, Final

import orjson
import psycopg
from django.db import DatabaseError, InterfaceError, OperationalError, connections, transaction
from django.utils import timezone

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.readmodel.rows import (
    COLUMNS,
    SELECT,
    Failures,
    derived,
    upsert,
)

# The sync's own logger, as the passes that use this module log under it.
log = logging.getLogger("reviewapp.readmodel.sync")


# Rows per FETCH, per derivation batch and per COPY into the staging table:
# large enough that the per-batch queries cost nothing per row, small enough
# that a batch's rows, dicts and COPY buffer stay a few megabytes.
BATCH: Final = 5_000


STAGING: Final = "index_staging"


NAMES: Final = tuple(name for name, _ in COLUMNS)


_JSON_COLUMNS: Final = frozenset(name for name, kind in COLUMNS if kind == "jsonb")


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # an integer past 64 bits, which orjson refuses and json writes
        return json.dumps(value)


# The columns ANALYZE reads after a build: not the JSON ones, which no query
# filters or sorts on (their statistics were a third of ANALYZE's time);
# autovacuum's next ANALYZE of the table fills them in.
PLANNED: Final = (*(n for n in NAMES if n not in _JSON_COLUMNS), "indexed_at")


_PLAIN: Final = operator.itemgetter(*(n for n in NAMES if n not in _JSON_COLUMNS))


_JSON: Final = tuple(n for n in NAMES if n in _JSON_COLUMNS)


# The staging tables' COPY column list: the plain columns, the JSON ones, then indexed_at.
_COPY_COLUMNS: Final = ", ".join((*(n for n in NAMES if n not in _JSON_COLUMNS), *_JSON, "indexed_at"))


def _record(value: dict[str, Any], now: str) -> tuple[Any, ...]:
    return (*_PLAIN(value), *(_json_text(value[n]) for n in _JSON), now)


def _copy_rows(
    rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: Failures
) -> list[tuple[Any, ...]]:
    """The staging table's records of one batch, in ``_COPY_COLUMNS`` order, JSON as text."""
    records = []
    now = timezone.now().isoformat()
    for position, value in enumerate(values):
        try:
            records.append(_record(value, now))
        except Exception as error:  # one row must not stop the pass
            values[position] = failures.add(rows[position], error)
            records.append(_record(values[position], now))
    return records


def stage(rows: Sequence[Sequence[Any]], into: str = STAGING) -> int:
    """Derive one batch as a poll does and COPY it into the staging table ``into``."""
    values, failures = derived(rows)
    if not values:
        return 0
    records = _copy_rows(rows, values, failures)
    try:
        with (
            transaction.atomic(using="default"),
            connections["default"].cursor() as cursor,
            cursor.copy(f"COPY {into} ({_COPY_COLUMNS}) FROM STDIN") as copy,
        ):
            for record in records:
                copy.write_row(record)
        return len(values)
    # psycopg's own errors: Django does not wrap what ``cursor.copy`` raises.
    except (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError):
        raise  # the database went away: the pass fails and --follow backs off
    except (DatabaseError, psycopg.DatabaseError) as error:
        # A value PostgreSQL refuses: the batch again as a poll writes it (row by row if need be).
        log.info("index: COPY refused a batch of %d rows (%s); writing it as a poll does", len(values), error)
    upsert(rows, values, failures, table=into)
    return len(values)


def without_statement_timeout() -> None:
    """In a whole-table pass's read transaction on accounted's database: no statement timeout.

    Each FETCH is a statement of its own and short, but nothing may cut this
    background pass at BOOKKEEPING_STATEMENT_TIMEOUT (set for requests).
    """
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")


def batches(where: str = "TRUE", params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
    """accounted's rows for the index (those ``where`` picks), ``BATCH`` at a time, from one server-side cursor."""
    with connections[BOOKKEEPING_DB].chunked_cursor() as cursor:
        cursor.execute(f"{SELECT} WHERE {where}", params)
        while rows := cursor.fetchmany(BATCH):
            yield rows
