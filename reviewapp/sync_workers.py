"""The whole-table walk split between processes: each derives its own share of accounted's table.

Deriving a row in Python is most of a whole-table pass (bench/README.md), and
one Python process uses one core. So a big walk (``sync_bulk.walk_all``) is
shared out by ``SYNC_WORKERS``: this process and ``SYNC_WORKERS - 1``
helper processes take shares in turn until none is left. Every share is a
range of the table's pages (``ctid``), so each process reads only its own
pages, and nothing is sent between processes but counts.

Exactly once, however accounted writes meanwhile: this process opens a
REPEATABLE READ transaction and exports its snapshot (``pg_export_snapshot``),
and every helper reads in that same snapshot (``SET TRANSACTION SNAPSHOT``),
as ``pg_dump --jobs`` does. In one snapshot each row has one visible version
at one ``ctid``, so it lies in exactly one share: a row moved to another page
by an update is neither read twice (the new table's primary key would refuse
it) nor missed.

Helpers are started with ``spawn``: a new interpreter that inherits no
socket, lock or thread of this one (a forked child would share this
process's database connections, and the test runner's threads). They are
given this process's database settings, so they write to the same databases
(the tests' too). Each writes its rows with COPY into the new table, which
this process created and committed beforehand; a walk inside a transaction
(the tests' own) is not shared out, as nothing else could see that table.

A helper that fails fails the pass: the others are stopped, the new table is
dropped by ``walk_all`` and the list goes on serving the old one.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import Any, Final

from django.conf import settings
from django.db import connections, transaction
from psycopg import sql

from reviewapp.routers import BOOKKEEPING_DB

# How often this process looks at its helpers' messages while it waits for them.
CHECK_EVERY_S: Final = 0.5
STOP_WAIT_S: Final = 10.0
# Shares of the table per process: enough that the processes finish close together.
SHARES_PER_PROCESS: Final = 8

# (first page, page after the last), None: to the end of the table.
Share = tuple[int, int | None]


def worker_count() -> int:
    """How many processes a big walk uses: ``SYNC_WORKERS`` (the settings refuse less than one)."""
    return int(settings.SYNC_WORKERS)


# PostgreSQL 14 reads a ctid range without scanning the rest of the table
# (TID Range Scan); before it, every share would read the whole table.
TID_RANGE_SCAN_FROM: Final = 140000


def outside_transactions() -> bool:
    """Whether other connections see what this process created: not inside a transaction (the tests' own)."""
    return not (connections["default"].in_atomic_block or connections[BOOKKEEPING_DB].in_atomic_block)


def can_share() -> bool:
    """Whether helpers could see the new table and read their pages alone (PostgreSQL 14 or later)."""
    if not outside_transactions():
        return False
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int")
        return bool(cursor.fetchone()[0] >= TID_RANGE_SCAN_FROM)


def shares(pages: int, count: int) -> list[Share]:
    """``count`` page ranges covering the whole table, the last open-ended (the table may grow).

    ``shares(10, 3)`` is ``[(0, 3), (3, 6), (6, None)]``; a table of fewer
    pages than processes gets fewer shares (at least one).
    """
    count = max(1, min(count, pages))
    bounds = [pages * n // count for n in range(count)]
    return [(start, bounds[n + 1] if n + 1 < count else None) for n, start in enumerate(bounds)]


def share_filter(share: Share) -> tuple[str, list[str]]:
    """The WHERE clause that reads one share: a TID range scan of accounted's table."""
    start, end = share
    if end is None:
        return "i.ctid >= %s::tid", [f"({start},0)"]
    return "i.ctid >= %s::tid AND i.ctid < %s::tid", [f"({start},0)", f"({end},0)"]


def _read_in_snapshot(snapshot: str | None) -> None:
    """Open the bookkeeping transaction's read view: exported (None) or the exporter's (a snapshot id)."""
    from reviewapp import sync_bulk

    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        if snapshot is not None:
            cursor.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)).as_string())
    sync_bulk._without_statement_timeout()


def _stage_shares(table: list[Share], taken: Any, into: str, report: Callable[[int], None]) -> int:
    """Take the next untaken share of ``table`` (``taken`` counts them, across processes) until none is left."""
    from reviewapp import sync_bulk

    done = 0
    while True:
        with taken.get_lock():
            number = taken.value
            taken.value += 1
        if number >= len(table):
            return done
        for rows in sync_bulk._rows(*share_filter(table[number])):
            done += sync_bulk._stage(rows, into=into)
            report(len(rows))


def walk_shared(into: str, progress: Any, count: int) -> int:
    """Stage every row of accounted's table into ``into`` with ``count`` processes; the rows staged.

    The table is cut into ``SHARES_PER_PROCESS`` shares per process, and each
    process takes the next one when it is done with its last: a helper that
    starts late (it sets Django up first) or a share of bigger rows does not
    leave the others waiting at the end.
    """
    context = multiprocessing.get_context("spawn")
    with transaction.atomic(using=BOOKKEEPING_DB):
        _read_in_snapshot(None)
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(
                "SELECT pg_export_snapshot(), "
                "pg_relation_size('public.invoice_inbox_items') / current_setting('block_size')::bigint"
            )
            snapshot, pages = cursor.fetchone()
        table = shares(int(pages), count * SHARES_PER_PROCESS)
        taken = context.Value("i", 0)
        helpers = _Helpers()
        try:
            helpers.start(context, count - 1, (snapshot, table, taken, into))

            def step(rows: int) -> None:
                progress.step(rows)
                helpers.collect(progress, timeout=0)

            done = _stage_shares(table, taken, into, step)
            # The exported snapshot lives as long as this transaction: wait in it.
            done += helpers.finish(progress)
        except BaseException:
            helpers.stop()
            raise
    return done


class HelperFailed(RuntimeError):
    """A helper process of a shared walk failed; the pass fails with it."""


class _Helpers:
    """The helper processes of one shared walk, and what they have reported."""

    def __init__(self) -> None:
        self.running: dict[Connection, Any] = {}
        self.done = 0

    def start(self, context: Any, count: int, work: tuple[str, list[Share], Any, str]) -> None:
        """``count`` helpers on ``work``: (the snapshot, the shares, the counter of shares taken, the table)."""
        databases = {alias: dict(connections[alias].settings_dict) for alias in ("default", BOOKKEEPING_DB)}
        for number in range(1, count + 1):
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_helper_main,
                args=(databases, *work, writer),
                name=f"sync-share-{number}",
                daemon=True,
            )
            process.start()
            writer.close()  # the helper holds the only writing end: its exit closes the pipe
            self.running[reader] = process

    def collect(self, progress: Any, *, timeout: float) -> None:
        """Take every message waiting (rows done, a share finished, a failure)."""
        for reader in wait(list(self.running), timeout=timeout):
            assert isinstance(reader, Connection)
            process = self.running[reader]
            try:
                kind, value = reader.recv()
            except EOFError:  # it died without a word (killed, out of memory)
                process.join(STOP_WAIT_S)
                ended = f"{process.name} ended with exit code {process.exitcode} before its share was done"
                raise HelperFailed(ended) from None
            if kind == "rows":
                progress.step(value)
            elif kind == "done":
                self.done += value
                del self.running[reader]
                process.join(STOP_WAIT_S)
                reader.close()
            else:
                raise HelperFailed(f"{process.name} failed: {value}")

    def finish(self, progress: Any) -> int:
        while self.running:
            self.collect(progress, timeout=CHECK_EVERY_S)
        return self.done

    def stop(self) -> None:
        for reader, process in self.running.items():
            with contextlib.suppress(Exception):
                process.terminate()
                process.join(STOP_WAIT_S)
                reader.close()
        self.running.clear()


def _helper_main(
    databases: dict[str, dict[str, Any]], snapshot: str, table: list[Share], taken: Any, into: str, out: Connection
) -> None:
    """A helper process: set Django up on the parent's databases and stage shares until none is left."""
    import django

    settings.DATABASES = databases
    django.setup()
    try:
        with transaction.atomic(using=BOOKKEEPING_DB):
            _read_in_snapshot(snapshot)
            done = _stage_shares(table, taken, into, lambda rows: out.send(("rows", rows)))
        out.send(("done", done))
    except BaseException as error:
        out.send(("failed", f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"))
        raise
    finally:
        connections.close_all()
        out.close()
