"""The read model's whole-table passes: the first poll, a re-index after ``RULES_VERSION`` changed, the reconcile.

At ten million rows these passes are what a deployment waits for, so they do
no per-row round trip and no per-row ORM work (``reviewapp.readmodel.sync`` has the
incremental poll and the rules):

- accounted's rows are streamed with server-side cursors (one ``FETCH`` per
  ``BATCH`` rows; memory stays bounded by one batch per process), on the bookkeeping
  connection inside a read transaction, so the per-batch lookup in
  ``processing_history`` (``moved_to_app_at``) runs on the same
  connection and sees what the stream sees;
- each batch is derived by the same code as a poll's (``derive``, the
  malformed-row isolation and its logging included), and written with COPY
  into a staging table in the review database (a batch PostgreSQL refuses
  goes in as a poll writes it, each refused row as malformed);
- a whole-table walk of ``SWAP_FROM`` rows or more stages into a new table
  beside the read model (``reviewapp_indexeditem_next``, no index while it
  fills), builds its indexes in bulk (at 200 000 rows an ``INSERT .. ON
  CONFLICT`` into the indexed table took 13.7 s, the build about 5 s) and
  swaps it in, in one short transaction: the old table dropped, the new one
  and its indexes renamed, the facet tally's triggers (migration 0002)
  created on it and the tally replaced by one counted from it beforehand.
  Until that commits the list serves the old rows, then every new row at once;
- a smaller walk (a new installation, the tests) and the reconcile (which
  usually finds a handful of rows) stage into a temporary table and merge it
  with one ``INSERT .. ON CONFLICT`` in one transaction: the list serves the
  old rows until it commits too; a row whose derived columns did not change
  is not written again; the tally's triggers see the merge like any other write;
- the reconcile copies accounted's ``(id, updated_at)`` pairs into the review
  database with COPY (bytes piped through, nothing decoded), and finds the
  rows gone and the rows out of date with two joins there.

Deriving is most of a pass's time. A whole-table walk into a new table is
shared between ``SYNC_WORKERS`` processes, each reading its own pages of
accounted's table in one exported snapshot (``reviewapp.readmodel.workers``), and
its indexes are built on as many connections side by side. The merge path
(small tables, the reconcile) stays in this process.

Progress (rows/s, rows done, time left) is logged every ``PROGRESS_EVERY``
and, when stdout is a terminal, also printed on one line that rewrites itself.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import queue
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, Final, TextIO

import psycopg
from django.db import DatabaseError, OperationalError, connections, transaction

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.models import IndexedItem
from reviewapp.readmodel import workers as sync_workers
from reviewapp.readmodel.copying import BATCH, NAMES, PLANNED, STAGING, batches, stage, without_statement_timeout
from reviewapp.readmodel.rows import (
    fetch,
)

log = logging.getLogger("reviewapp.readmodel.sync")

# From this many rows a whole-table pass builds a new table and swaps it in;
# below, it merges into the live one (cheaper than building every index).
SWAP_FROM: Final = 20_000
PROGRESS_EVERY: Final = dt.timedelta(seconds=5)
NEXT_SUFFIX: Final = "_next"
OLD_SUFFIX: Final = "_old"  # the table a swap replaced, until it is dropped after the swap
# How long the swap waits for the list's queries in flight before it tries again.
SWAP_LOCK_WAIT: Final = dt.timedelta(seconds=5)
SWAP_TRIES: Final = 5
SOURCE: Final = "index_source"
STALE: Final = "index_stale"
TALLY: Final = "index_tally"


class Progress:
    """Rows done, rows per second and time left: logged, and shown on a terminal."""

    def __init__(self, what: str, total: int, stream: TextIO | None = None) -> None:
        self.what, self.total, self.done = what, total, 0
        self.started = self.last = time.monotonic()
        self.stream = stream if stream is not None else sys.stdout
        self.terminal = self.stream.isatty()

    def step(self, rows: int) -> None:
        self.done += rows
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY.total_seconds():
            self.last = now
            self._say(self.line(now))

    def line(self, now: float) -> str:
        """``"re-index: 120,000 of about 1,000,000 rows, 34,512 rows/s, about 25 s left"``."""
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        left = max(self.total - self.done, 0)
        eta = f", about {left / rate:.0f} s left" if rate > 0 and self.total else ""
        return f"{self.what}: {self.done:,} of about {self.total:,} rows, {rate:,.0f} rows/s{eta}"

    def finish(self, note: str = "") -> None:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        self._say(f"{self.what}: {self.done:,} rows in {elapsed:.1f} s, {rate:,.0f} rows/s{note}", final=True)

    def _say(self, text: str, *, final: bool = False) -> None:
        log.info("%s", text)
        if self.terminal:
            self.stream.write(f"\r\x1b[K{text}" + ("\n" if final else ""))
            self.stream.flush()


def _estimated_rows() -> int:
    """accounted's row count as the planner knows it (no scan of ten million rows); counted if never analysed."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = 'public.invoice_inbox_items'::regclass")
        estimate = int(cursor.fetchone()[0])
        if estimate < 0:
            cursor.execute("SELECT count(*) FROM public.invoice_inbox_items")
            estimate = int(cursor.fetchone()[0])
    return estimate


def _create_staging() -> None:
    """An empty temporary copy of the read model's columns: no index, no trigger, gone with the session."""
    table = IndexedItem._meta.db_table
    with connections["default"].cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {STAGING}")
        cursor.execute(f"CREATE TEMPORARY TABLE {STAGING} AS SELECT * FROM {table} WITH NO DATA")  # noqa: S608


def _drop(*tables: str) -> None:
    """Drop what a pass built; quietly, so a lost connection's error is the one reported.

    The next pass drops any left-over table before it builds its own.
    """
    with contextlib.suppress(DatabaseError, psycopg.Error), connections["default"].cursor() as cursor:
        for name in tables:
            cursor.execute(f"DROP TABLE IF EXISTS {name}")


def _merge() -> int:
    """The staging table into ``IndexedItem`` in one statement; the rows written (new or changed)."""
    table = IndexedItem._meta.db_table
    names = ", ".join(NAMES)
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in NAMES[1:])
    ours = ", ".join(f"t.{name}" for name in NAMES[1:])
    theirs = ", ".join(f"EXCLUDED.{name}" for name in NAMES[1:])
    with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
        # Never back to an older version than the index holds (index_items
        # may have indexed a newer one before this pass took the lock).
        cursor.execute(
            f"""INSERT INTO {table} AS t ({names}, indexed_at)
                SELECT {names}, now() FROM {STAGING} ORDER BY id
                ON CONFLICT (id) DO UPDATE SET {updates}, indexed_at = now()
                WHERE t.source_updated_at <= EXCLUDED.source_updated_at
                  AND ({ours}) IS DISTINCT FROM ({theirs})"""  # noqa: S608 - names are constants
        )
        return int(cursor.rowcount)


def _source_batches(progress: Progress) -> Iterator[list[tuple[Any, ...]]]:
    """Every row of accounted's table, ``BATCH`` at a time, in one read transaction."""
    with transaction.atomic(using=BOOKKEEPING_DB):
        without_statement_timeout()
        for rows in batches():
            yield rows
            progress.step(len(rows))


def walk_all(what: str = "index") -> int:
    """Index every row of accounted's table (the first poll, a new RULES_VERSION); the rows read.

    A big table is built anew and swapped in; a small one (under
    ``SWAP_FROM`` rows: a new installation, the tests) is staged and merged,
    which costs less than building 19 indexes and serves the list the same
    way: the old rows until the merge commits.
    """
    live = IndexedItem._meta.db_table
    progress = Progress(what, _estimated_rows())
    if progress.total < SWAP_FROM:
        _create_staging()
        try:
            done = sum(stage(rows) for rows in _source_batches(progress))
            written = _merge()
            progress.finish(f"; {written:,} rows new or changed")
            return done
        finally:
            _drop(STAGING)
    nxt = live + NEXT_SUFFIX
    with connections["default"].cursor() as cursor:
        # What a pass that died half-way, or between its swap and the drop after it, left.
        cursor.execute(f"DROP TABLE IF EXISTS {nxt}, {live}{OLD_SUFFIX}")
        # Columns, NOT NULL and defaults; no index and no trigger while it fills.
        cursor.execute(f"CREATE TABLE {nxt} (LIKE {live} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
    try:
        workers = sync_workers.worker_count()
        if workers > 1 and sync_workers.can_share():
            done = sync_workers.walk_shared(nxt, progress, workers)
        else:
            done = sum(stage(rows, into=nxt) for rows in _source_batches(progress))
        building = time.monotonic()
        _build_indexes(live, nxt)
        built = time.monotonic()
        _swap(live, nxt)
        progress.finish(f"; indexes built in {built - building:.1f} s, swapped in {time.monotonic() - built:.2f} s")
        return done
    finally:
        _drop(nxt, TALLY)


def _index_builds(live: str, nxt: str) -> list[list[str]]:
    """The statements that build each index of the live table on the new one (named ``<name>_next``).

    The biggest index first (the list's trigram index on the search text),
    so that builders sharing the work finish close together.
    """
    with connections["default"].cursor() as cursor:
        cursor.execute(
            """SELECT i.relname, pg_get_indexdef(i.oid), c.conname
               FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
               LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype = 'p'
               WHERE x.indrelid = %s::regclass ORDER BY pg_relation_size(i.oid) DESC, i.relname""",
            [live],
        )
        found = cursor.fetchall()
    builds = []
    for name, definition, constraint in found:
        head, _, tail = definition.partition(f" ON public.{live} ")
        build = [head.replace(f" INDEX {name}", f" INDEX {name}{NEXT_SUFFIX}", 1) + f" ON public.{nxt} " + tail]
        if constraint:
            build.append(
                f"ALTER TABLE {nxt} ADD CONSTRAINT {constraint}{NEXT_SUFFIX} "
                f"PRIMARY KEY USING INDEX {name}{NEXT_SUFFIX}"
            )
        builds.append(build)
    return builds


def _run_builds(pending: queue.SimpleQueue[list[str]]) -> None:
    """Build indexes from ``pending`` until none is left, on this thread's own connection."""
    with connections["default"].cursor() as cursor:
        while True:
            try:
                build = pending.get_nowait()
            except queue.Empty:
                return
            for statement in build:
                cursor.execute(statement)


def _build_indexes(live: str, nxt: str) -> None:
    """Every index of the live table on the new one, then its statistics and its facet tally.

    With ``SYNC_WORKERS`` above 1 that many connections build them side by
    side (PostgreSQL builds one index on one core, mostly).
    """
    pending: queue.SimpleQueue[list[str]] = queue.SimpleQueue()
    for build in _index_builds(live, nxt):
        pending.put(build)
    builders = sync_workers.worker_count() if sync_workers.outside_transactions() else 1
    if builders == 1:
        _run_builds(pending)
    else:
        failures: list[BaseException] = []

        def builder() -> None:
            try:
                _run_builds(pending)
            except BaseException as error:  # re-raised below, in the pass's own thread
                failures.append(error)
            finally:
                connections.close_all()  # this thread's connections only

        threads = [threading.Thread(target=builder, name=f"index-builder-{n}") for n in range(builders)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
    with connections["default"].cursor() as cursor:
        cursor.execute(f"ANALYZE {nxt} ({', '.join(PLANNED)})")
    _count_tally(nxt)


def _swap(live: str, nxt: str) -> None:
    """The new table in the live one's place, with its names, triggers and a tally counted afresh; one transaction.

    The list's queries in flight finish first (the lock waits for them, and
    new ones wait behind it for the few milliseconds the swap takes). If one
    holds the table longer than ``SWAP_LOCK_WAIT``, the swap tries again.
    """
    for attempt in range(1, SWAP_TRIES + 1):
        try:
            with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = %s", [f"{int(SWAP_LOCK_WAIT.total_seconds() * 1000)}ms"])
                cursor.execute(f"LOCK TABLE {live} IN ACCESS EXCLUSIVE MODE")
                cursor.execute(
                    "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s::regclass "
                    "AND NOT tgisinternal ORDER BY tgname",
                    [live],
                )
                triggers = [definition for _name, definition in cursor.fetchall()]
                cursor.execute(
                    "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
                    "WHERE x.indrelid = %s::regclass",
                    [live],
                )
                names = [name for (name,) in cursor.fetchall()]
                # The old table is renamed aside, not dropped here: dropping ten
                # million rows' files took 1.7 s, which the list would wait behind.
                cursor.execute(f"ALTER TABLE {live} RENAME TO {live}{OLD_SUFFIX}")
                cursor.execute(f"ALTER TABLE {nxt} RENAME TO {live}")
                for name in names:  # renaming a primary key's index renames the constraint too
                    cursor.execute(f"ALTER INDEX {name} RENAME TO {name}{OLD_SUFFIX}")
                    cursor.execute(f"ALTER INDEX {name}{NEXT_SUFFIX} RENAME TO {name}")
                for definition in triggers:
                    cursor.execute(definition)
                _put_tally(cursor)
            _drop(live + OLD_SUFFIX)
            return
        except OperationalError as error:  # lock_timeout: a long query on the list
            if attempt == SWAP_TRIES:
                raise
            log.warning("index: the swap waited %s for the list's queries (%s); trying again", SWAP_LOCK_WAIT, error)


def tally_states_sql(alias: str) -> str:
    """The states of the row ``alias`` as the facet tally keys them: one bit a state, in ``STATE_KEYS`` order.

    The same expression as migration 0002's triggers (its ``_mask``), which
    keep the live table's tally; ``tests/readmodel/test_tally_states.py``
    holds the two equal, so a squashed or edited migration cannot drift
    from the count a swap starts from.
    """
    columns = (states.STATE_FIELDS[key] for key in states.STATE_KEYS)
    return " | ".join(f"({alias}.{column}::int << {bit})" for bit, column in enumerate(columns))


def _count_tally(nxt: str) -> None:
    """The facet tally of the new table, counted before the swap as migration 0002's triggers count it.

    Nothing else writes the new table (the sync's advisory lock is held), so
    the swap only has to copy these few dozen rows while it holds the list's lock.
    """
    with connections["default"].cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {TALLY}")
        cursor.execute(
            f"""CREATE TEMPORARY TABLE {TALLY} AS
                SELECT company_id, {tally_states_sql("r")} AS states,
                       COALESCE(r.open_question_type, '') AS question_type, count(*) AS n
                FROM {nxt} r GROUP BY 1, 2, 3"""  # noqa: S608 - names are constants
        )


def _put_tally(cursor: Any) -> None:
    cursor.execute("DELETE FROM inbox_state_tally")
    cursor.execute(
        f"INSERT INTO inbox_state_tally (company_id, states, question_type, n) "  # noqa: S608
        f"SELECT company_id, states, question_type, n FROM {TALLY}"
    )


def _copy_source_pairs() -> None:
    """accounted's (id, updated_at) into a temporary table of the review database: COPY out, bytes piped to COPY in."""
    with connections["default"].cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SOURCE}")
        cursor.execute(f"CREATE TEMPORARY TABLE {SOURCE} (id uuid, updated_at timestamptz)")
    with (
        transaction.atomic(using=BOOKKEEPING_DB),
        connections[BOOKKEEPING_DB].cursor() as source,
        connections["default"].cursor() as target,
    ):
        # One statement reads every row: at ten million rows it may take
        # longer than BOOKKEEPING_STATEMENT_TIMEOUT, which guards requests,
        # not this background pass. The text form of a timestamptz carries
        # its offset, so the other session reads the same moment whatever its TimeZone.
        source.execute("SET LOCAL statement_timeout = 0")
        with (
            source.copy("COPY (SELECT id, updated_at FROM public.invoice_inbox_items) TO STDOUT") as out,
            target.copy(f"COPY {SOURCE} (id, updated_at) FROM STDIN") as into,
        ):
            for block in out:
                into.write(block)
        target.execute(f"ANALYZE {SOURCE}")


def reconcile_all() -> tuple[int, int]:
    """Repair every difference between accounted's table and the index; (rows indexed, rows removed)."""
    table = IndexedItem._meta.db_table
    _copy_source_pairs()
    try:
        with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {table} t WHERE NOT EXISTS (SELECT FROM {SOURCE} s WHERE s.id = t.id)"  # noqa: S608
            )
            removed = int(cursor.rowcount)
            cursor.execute(f"DROP TABLE IF EXISTS {STALE}")
            cursor.execute(
                f"""CREATE TEMPORARY TABLE {STALE} AS
                    SELECT s.id FROM {SOURCE} s LEFT JOIN {table} t ON t.id = s.id
                    WHERE t.source_updated_at IS DISTINCT FROM s.updated_at"""  # noqa: S608
            )
            stale = int(cursor.rowcount)
        if not stale:
            return 0, removed
        progress = Progress("reconcile", stale)
        _create_staging()
        done = 0
        with transaction.atomic(using="default"), connections["default"].chunked_cursor() as ids:
            ids.execute(f"SELECT id FROM {STALE} ORDER BY id")  # noqa: S608
            while chunk := [row[0] for row in ids.fetchmany(BATCH)]:
                done += stage(fetch("i.id = ANY(%s)", [chunk], "i.id", len(chunk)))
                progress.step(len(chunk))
        written = _merge()
        progress.finish(f"; {written:,} rows new or changed")
        return done, removed
    finally:
        _drop(STAGING, SOURCE, STALE)
