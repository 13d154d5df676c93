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

Helpers are new interpreters running ``HELPER`` (``python -c``):
they inherit no socket, lock or thread of this one (a forked child would
share this process's database connections, and the test runner's threads),
and they never run the caller's own module. multiprocessing's ``spawn`` did
(it imports ``__main__`` again in every child): a script that called
``call_command("sync_index")`` without an ``if __name__ == "__main__"`` guard
ran again in each helper and the pass failed. A helper is handed its work
(this process's database settings, so it writes to the same databases, the
tests' too; the snapshot; the shares) as a pickle on its stdin, reports on a
pipe of its own, and takes shares through a counter in a file both lock
(``_Counter``). Each writes its rows with COPY into the new table, which
this process created and committed beforehand; a walk inside a transaction
(the tests' own) is not shared out, as nothing else could see that table.

A helper that fails fails the pass: the others are stopped, the new table is
dropped by ``walk_all`` and the list goes on serving the old one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Final

from django.conf import settings
from django.db import connections, transaction
from psycopg import sql

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.readmodel.copying import batches, stage, without_statement_timeout

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


def _settings_module() -> str | None:
    """The settings module this process set Django up from (tests' overrides hide it from ``settings``)."""
    return os.environ.get("DJANGO_SETTINGS_MODULE") or settings.SETTINGS_MODULE


def can_share() -> bool:
    """Whether helpers could see the new table and read their pages alone (PostgreSQL 14 or later).

    Also whether they could set Django up as this process did: from a
    settings module (not ``settings.configure()``).
    """
    if not outside_transactions() or not _settings_module():
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

    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        if snapshot is not None:
            cursor.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)).as_string())
    without_statement_timeout()


class _Counter:
    """How many shares the processes of one walk have taken: a number in a file, read and moved on under ``flock``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDWR)

    def take(self) -> int:
        """The next share's number (each number once, across processes)."""
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            number = int.from_bytes(os.pread(self.fd, 8, 0) or bytes(8), "big")
            os.pwrite(self.fd, (number + 1).to_bytes(8, "big"), 0)
            return number
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self.fd)


def _stage_shares(table: list[Share], taken: _Counter, into: str, report: Callable[[int], None]) -> int:
    """Take the next untaken share of ``table`` (``taken`` counts them, across processes) until none is left."""

    done = 0
    while True:
        number = taken.take()
        if number >= len(table):
            return done
        for rows in batches(*share_filter(table[number])):
            done += stage(rows, into=into)
            report(len(rows))


def walk_shared(into: str, progress: Any, count: int) -> int:
    """Stage every row of accounted's table into ``into`` with ``count`` processes; the rows staged.

    The table is cut into ``SHARES_PER_PROCESS`` shares per process, and each
    process takes the next one when it is done with its last: a helper that
    starts late (it sets Django up first) or a share of bigger rows does not
    leave the others waiting at the end.
    """
    with tempfile.TemporaryDirectory(prefix="sync-shares-") as folder:
        counter = str(Path(folder) / "taken")
        Path(counter).write_bytes(bytes(8))
        taken = _Counter(counter)
        try:
            return _walk_shared(into, progress, count, taken)
        finally:
            taken.close()


def _walk_shared(into: str, progress: Any, count: int, taken: _Counter) -> int:
    with transaction.atomic(using=BOOKKEEPING_DB):
        _read_in_snapshot(None)
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(
                "SELECT pg_export_snapshot(), "
                "pg_relation_size('public.invoice_inbox_items') / current_setting('block_size')::bigint"
            )
            snapshot, pages = cursor.fetchone()
        table = shares(int(pages), count * SHARES_PER_PROCESS)
        helpers = _Helpers()
        try:
            helpers.start(count - 1, (snapshot, table, taken.path, into))

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


class _Helper:
    """One helper process and the reading end of its pipe."""

    def __init__(self, name: str, process: subprocess.Popen[bytes]) -> None:
        self.name, self.process = name, process

    def join(self, timeout: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)

    @property
    def exitcode(self) -> int | None:
        return self.process.poll()


def _project_root() -> str:
    """The folder ``reviewapp`` is imported from: where a helper's ``import reviewapp`` must look."""
    return str(Path(__file__).resolve().parents[2])


def helper_pids() -> list[int]:
    """The process ids of the helpers of the walk in progress (for the tests, which kill one)."""
    return [helper.process.pid for helpers in list(_Helpers.live) for helper in helpers.running.values()]


# A helper process's whole program (``python -c``): its work from stdin, Django set up on the parent's
# databases before the read model is imported (its modules import the models), then ``helper_main``.
# Not ``python -m`` of a module of this package, whose import would need Django set up first, nor
# multiprocessing's spawn, which re-runs the caller's script in every helper.
HELPER: Final = """
import pickle, sys
import django
from django.conf import settings
work = pickle.load(sys.stdin.buffer)
settings.DATABASES = work[0]
django.setup()
from reviewapp.readmodel import workers
workers.helper_main(int(sys.argv[1]), work)
"""


class _Helpers:
    """The helper processes of one shared walk, and what they have reported."""

    live: Final[list[_Helpers]] = []

    def __init__(self) -> None:
        self.running: dict[Connection, _Helper] = {}
        self.done = 0

    def start(self, count: int, work: tuple[str, list[Share], str, str]) -> None:
        """``count`` helpers on ``work``: (the snapshot, the shares, the share counter's file, the table)."""
        databases = {alias: dict(connections[alias].settings_dict) for alias in ("default", BOOKKEEPING_DB)}
        payload = pickle.dumps((databases, *work))
        env = dict(os.environ)
        env["DJANGO_SETTINGS_MODULE"] = str(_settings_module())
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_project_root(), env.get("PYTHONPATH")]))
        _Helpers.live.append(self)
        for number in range(1, count + 1):
            read_fd, write_fd = os.pipe()
            try:
                process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                    [sys.executable, "-c", HELPER, str(write_fd)],
                    stdin=subprocess.PIPE,
                    env=env,
                    pass_fds=(write_fd,),
                    close_fds=True,
                )
            except BaseException:
                os.close(read_fd)
                raise
            finally:
                os.close(write_fd)  # the helper holds the only writing end: its exit closes the pipe
            reader = Connection(read_fd, writable=False)
            self.running[reader] = _Helper(f"sync-share-{number}", process)
            assert process.stdin is not None
            with contextlib.suppress(BrokenPipeError):  # it died at once: its pipe says so
                process.stdin.write(payload)
                process.stdin.close()

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
        try:
            while self.running:
                self.collect(progress, timeout=CHECK_EVERY_S)
        finally:
            self._forget()
        return self.done

    def stop(self) -> None:
        for reader, process in self.running.items():
            with contextlib.suppress(Exception):
                process.process.terminate()
                process.join(STOP_WAIT_S)
                reader.close()
        self.running.clear()
        self._forget()

    def _forget(self) -> None:
        with contextlib.suppress(ValueError):
            _Helpers.live.remove(self)


def helper_main(out_fd: int, work: tuple[Any, ...]) -> None:
    """A helper process, Django set up on the parent's databases (``HELPER``): stage shares until none is left."""
    out = Connection(out_fd, readable=False)
    _databases, snapshot, table, counter, into = work
    taken = _Counter(counter)
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
        taken.close()
        out.close()
