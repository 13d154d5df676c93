"""Freshness: recomputing the ``state_*`` columns of rows the trigger marked stale.

Every read path of the list calls ``refresh_stale_states()`` first, so rows
another program changed with plain SQL are recomputed before anybody filters
on them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Final

from django.db import DatabaseError, connection, transaction
from django.db.models import Field

from reviewapp.models import DERIVED_FIELDS, InboxItem

# The logger keeps the name it had before the package split, so log searches match.
logger = logging.getLogger("reviewapp.inbox")

REFRESH_BATCH: Final = 500
# How long a read waits for a row another transaction holds before showing
# the page anyway (that row keeps its previous states until the next read).
REFRESH_LOCK_WAIT_MS: Final = 2000


def _recompute(rows: Iterable[InboxItem]) -> list[InboxItem]:
    recomputed = []
    for row in rows:
        row.refresh_states()
        recomputed.append(row)
    return recomputed


def _write_states(rows: list[InboxItem]) -> None:
    """Store the recomputed columns of ``rows`` in one statement.

    On PostgreSQL an ``UPDATE ... FROM (VALUES ...)`` join: Django's
    ``bulk_update`` builds a CASE per column with a branch per row, which
    PostgreSQL evaluates in time proportional to rows squared (1.3 ms a row
    at 500 rows against 0.14 ms for the whole refresh here). The UPDATE leaves
    channel_context alone, so the stale-marking trigger stays quiet.
    """
    if connection.vendor != "postgresql":
        InboxItem.objects.bulk_update(rows, DERIVED_FIELDS)
        return
    fields: list[Field[Any, Any]] = [InboxItem._meta.get_field(name) for name in DERIVED_FIELDS]  # type: ignore[misc]
    casts = ["%s::uuid", *(f"%s::{field.db_type(connection)}" for field in fields)]
    row_sql = "(" + ", ".join(casts) + ")"
    params: list[Any] = []
    for row in rows:
        params.append(row.pk)
        params.extend(field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields)
    columns = [str(field.column) for field in fields]
    sql = (
        f"UPDATE {InboxItem._meta.db_table} AS t SET {', '.join(f'{c} = v.{c}' for c in columns)}"  # noqa: S608
        f" FROM (VALUES {', '.join([row_sql] * len(rows))}) AS v(id, {', '.join(columns)}) WHERE t.id = v.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _refresh_batch(limit: int, *, skip_locked: bool, lock_timeout_ms: int | None = None) -> int:
    """Recompute up to ``limit`` stale rows in one short transaction.

    Why a row lock and not only a conditional UPDATE: on PostgreSQL the rows
    are read ``FOR UPDATE``, which returns the newest committed version of
    each row and holds it until commit. A raw-SQL writer that changes
    ``channel_context`` meanwhile waits for the lock, then writes, and the
    trigger marks the row stale again, so states computed from the value we
    read can never be left standing on a newer value. ``SKIP LOCKED`` lets
    two page loads share the work instead of queueing on each other, and
    never waits on a writer's open transaction (the caller retries those).
    SQLite has no row locks but serialises write transactions: a writer that
    committed after our read makes our write fail with "database is locked"
    rather than succeed over it.
    """
    with transaction.atomic():
        if lock_timeout_ms is not None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('lock_timeout', %s, true)", [str(lock_timeout_ms)])
        stale = (
            InboxItem.objects.filter(states_stale=True)
            .select_for_update(skip_locked=skip_locked)
            .only("id", "channel_context", "extracted_data")
            .order_by()[:limit]
        )
        rows = _recompute(stale)
        if rows:
            _write_states(rows)
        if lock_timeout_ms is not None:
            with connection.cursor() as cursor:
                # Inside a caller's transaction the setting would outlive us.
                cursor.execute("SET LOCAL lock_timeout = DEFAULT")
    return len(rows)


def refresh_stale_states(*, batch_size: int = REFRESH_BATCH) -> int:
    """Recompute the state columns of every row marked stale; return how many.

    When nothing is stale this is one index probe (a partial index holds only
    stale rows). Work goes in batches of ``batch_size`` rows, each its own
    transaction, so locks are held for milliseconds whatever the backlog.
    """
    stale = InboxItem.objects.filter(states_stale=True)
    if not stale.exists():
        return 0
    done = 0
    while True:
        n = _refresh_batch(batch_size, skip_locked=True)
        done += n
        if n < batch_size:
            break
    if connection.vendor == "postgresql" and stale.exists():
        # Rows another transaction held: usually a concurrent refresh that
        # commits within milliseconds, or a writer mid-transaction. Wait a
        # bounded time for them rather than show states we know are stale.
        try:
            while (n := _refresh_batch(batch_size, skip_locked=False, lock_timeout_ms=REFRESH_LOCK_WAIT_MS)) > 0:
                done += n
        except DatabaseError:
            logger.warning("refresh_stale_states: rows still locked after %d ms", REFRESH_LOCK_WAIT_MS)
    return done
