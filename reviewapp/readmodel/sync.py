"""The list's read model: accounted's inbox items, indexed in the review database.

accounted's ``invoice_inbox_items`` has no index the list could use (its
states are inside ``channel_context``) and it is not ours to add one to. So
``IndexedItem`` holds one row per item with what ``clarifications.analyse``
says about it, and this module keeps it in step:

- ``poll``: reads the rows whose ``updated_at`` (set by accounted's trigger on
  every UPDATE) is at or after the watermark less ``OVERLAP`` (a transaction
  that started earlier can commit after a later one: its rows carry the older
  time), and of those only the ones written by a transaction that had not
  ended when the previous poll took its snapshot (so a bulk change is read
  once: ``_changed_since``), recomputes them and moves the watermark to the newest
  time seen.
  The first poll, and the first after ``RULES_VERSION`` changed, walks the
  whole table in primary-key order instead. Each poll also reads accounted's
  companies into ``SyncState.companies`` (the list's company menu), and
  renames them in the index when they changed.
- ``reconcile``: walks both tables in id order and repairs every difference:
  rows deleted in accounted, rows the polls could not see (an ``updated_at``
  older than the overlap), company renames.
- ``index_items``: one item now (after an answer the app wrote, so the
  person who wrote it sees it in the list at once).

Every pass takes a PostgreSQL advisory lock in the review database, so any
number of hosts can run ``sync_index --follow``: one works, the others wait
for the next round. A row whose JSON Python cannot read is indexed as
``malformed`` with the reason; it never stops the pass. Neither does any
other exception while one row is derived (a value no rule foresaw): that
row is indexed as ``malformed`` with the exception's type and message,
logged once per row version, and the pass goes on with the rest.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

import orjson
from django.conf import settings
from django.db import OperationalError, connections, transaction
from django.utils import timezone

from reviewapp.answers.resettle import resettle_app_answers
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.models import IndexedItem, SyncState
from reviewapp.overview.events import copy_new  # the overview's copy of the question events
from reviewapp.readmodel import bulk, workers
from reviewapp.readmodel.rows import fetch, write_rows

log = logging.getLogger(__name__)

# How far before the watermark each poll reads again. accounted's writes are
# short transactions; a minute covers one that commits late by far.
OVERLAP: Final = dt.timedelta(seconds=60)
BATCH: Final = 2_000
# An arbitrary constant of ours: pg_try_advisory_lock's key for "syncing".
LOCK_KEY: Final = 0x5245_5649_4557  # "REVIEW"
INDEX_LOCK_WAIT: Final = dt.timedelta(seconds=3)
# Raise when a release changes how a row is derived (states, search text,
# summary): the next poll then re-indexes every row once, as the first did.
RULES_VERSION: Final = 5  # 4: answered_question_type and search_fields; 5: extraction_skipped


@dataclass(frozen=True, slots=True)
class PassReport:
    ran: bool  # False when another process held the lock
    indexed: int = 0
    removed: int = 0
    read: int = 0  # rows a poll read from accounted (an idle poll: none)
    resettled: int = 0  # app answers whose conversation mark was put back (reviewapp.answers.resettle)


class SyncLock:
    """The review database's advisory lock for syncing, or nothing if another process holds it.

    ``with SyncLock() as held:``: only the host whose ``held`` is true applies changes."""

    def __enter__(self) -> bool:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
            self.held = bool(cursor.fetchone()[0])
        return self.held

    def __exit__(self, *exc: object) -> None:
        if self.held:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])


def _state() -> SyncState:
    state, _ = SyncState.objects.get_or_create(pk=1)
    return state


def _changed_since(since: dt.datetime, seen: str | None = None) -> tuple[int, dt.datetime | None, int, str | None]:
    """Index the rows with ``updated_at >= since`` written by a transaction not yet ended at snapshot ``seen``.

    Returns the rows indexed, the newest ``updated_at`` seen, the rows read
    from accounted and the snapshot this poll read in (the next one's
    ``seen``; None where snapshots cannot be used: inside the caller's own
    transaction, as the tests' are, or before PostgreSQL 13).

    Why a snapshot: the overlap reads rows again on purpose (a transaction
    that commits late carries an older ``now()``), and ``_not_yet_indexed``
    then writes nothing. But one statement that updated 200 000 rows (a
    migration, a backfill) gave them all one ``updated_at``, and every poll
    read all of them again until a newer change moved the watermark: 19 s per
    poll. A row version's ``xmin`` is the transaction that wrote it. Each poll
    records, with the snapshot it read in, a floor: the oldest transaction of
    accounted's database still in progress then (or the snapshot's ``xmax``
    when none was). Every row written by a transaction below the floor had
    committed (or aborted) before that snapshot, so that poll read it or it
    lies before the overlap: the next poll leaves it out in the query itself.
    A late transaction was in progress then, so its id is at or above the
    floor, and so are its subtransactions' (a subtransaction's id comes after
    its parent's; ``pg_current_snapshot`` lists only top-level ids, which is
    why a floor and not its ``xip`` list). Exact, where the overlap alone was
    a guess plus a re-read.
    """
    if not _snapshots_work():
        done, newest, read = _read_changes(since, None)
        return done, newest, read, None
    with transaction.atomic(using=BOOKKEEPING_DB):
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            # Every batch of this poll reads in the one snapshot it records.
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            now = _snapshot_with_floor(cursor)
        done, newest, read = _read_changes(since, _unseen(seen, now) if seen else None)
    return done, newest, read, now


# pg_current_snapshot() and its text form came with PostgreSQL 13.
SNAPSHOTS_FROM: Final = 130000
_XID_EPOCH: Final = 1 << 32


def _snapshots_work() -> bool:
    """Whether this poll can read in a snapshot of its own and record it (see ``_changed_since``)."""

    if not workers.outside_transactions():
        return False
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int")
        return bool(cursor.fetchone()[0] >= SNAPSHOTS_FROM)


def _snapshot_with_floor(cursor: Any) -> str:
    """``floor:xmax:xip`` of the snapshot taken now: ``xip`` and its floor only accounted's database's own.

    The transactions still in progress are every database's of the server
    (ids are the server's); one that stays open in another database (another
    application's, or another test run's) can write no row of accounted's
    table, and counting it would hold the floor down, so that a bulk change
    is read again until it ends. ``pg_stat_activity`` is read after the
    snapshot: a transaction it does not show any more (it ended meanwhile,
    or it is a prepared one) counts as accounted's, which only ever reads
    more.
    """
    cursor.execute("SELECT pg_current_snapshot()::text")
    _xmin, xmax, xip = str(cursor.fetchone()[0]).split(":")
    cursor.execute(
        """SELECT backend_xid::text::bigint FROM pg_stat_activity
           WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database()"""
    )
    elsewhere = {xid for (xid,) in cursor.fetchall()}
    ours = [xid for xid in (int(text) for text in xip.split(",") if text) if xid % _XID_EPOCH not in elsewhere]
    return f"{min(ours, default=int(xmax))}:{xmax}:{','.join(map(str, ours))}"


def current_snapshot() -> str | None:
    """accounted's database's snapshot now, with its floor (``_snapshot_with_floor``); None: they don't work here."""
    if not _snapshots_work():
        return None
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        return _snapshot_with_floor(cursor)


def _unseen(seen: str, now: str) -> tuple[str, list[Any]]:
    """The WHERE clause for rows written by a transaction at or above ``seen``'s floor (``_changed_since``).

    A row's ``xmin`` is a 32-bit id, the snapshots' ids 64-bit: it is widened
    with the epoch of ``now``'s ``xmax`` (every row this poll can see was
    written before that), one epoch back if that puts it past ``now``. Ids
    below 3 are PostgreSQL's own (bootstrap, frozen): always seen.
    """
    floor = int(seen.split(":")[0])
    ref = int(now.split(":")[1])
    base = ref - ref % _XID_EPOCH
    raw = "i.xmin::text::bigint"
    full = f"({raw} + {base} - CASE WHEN {raw} + {base} > {ref} THEN {_XID_EPOCH} ELSE 0 END)"
    return f"{raw} >= 3 AND {full} >= %s", [floor]


def _read_changes(since: dt.datetime, unseen: tuple[str, list[Any]] | None) -> tuple[int, dt.datetime | None, int]:
    """Index the rows with ``updated_at >= since`` (and ``unseen``'s clause): indexed, newest ``updated_at``, read."""
    done, read, newest = 0, 0, None
    extra, extra_params = (f" AND {unseen[0]}", unseen[1]) if unseen else ("", [])
    after: tuple[dt.datetime, uuid.UUID] | None = None
    while True:
        if after is None:
            rows = fetch(f"i.updated_at >= %s{extra}", [since, *extra_params], "i.updated_at, i.id", BATCH)
        else:
            where = f"(i.updated_at, i.id) > (%s, %s){extra}"
            rows = fetch(where, [*after, *extra_params], "i.updated_at, i.id", BATCH)
        read += len(rows)
        fresh = _not_yet_indexed(rows)
        done += write_rows(fresh)
        if rows:
            newest = rows[-1][4]
            after = (rows[-1][4], rows[-1][0])
        if len(rows) < BATCH:
            return done, newest, read


def _not_yet_indexed(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows whose ``updated_at`` differs from the indexed one (the overlap re-reads the rest)."""
    if not rows:
        return rows
    known = dict(IndexedItem.objects.filter(pk__in=[row[0] for row in rows]).values_list("pk", "source_updated_at"))
    return [row for row in rows if known.get(row[0]) != row[4]]


def poll() -> PassReport:
    """One incremental pass: what changed since the watermark (everything, the first time)."""
    with SyncLock() as held:
        if not held:
            return PassReport(ran=False)
        state = _state()
        _warn_if_stale(state.last_poll_at)
        if state.watermark is None or state.rules_version != RULES_VERSION:
            with connections[BOOKKEEPING_DB].cursor() as cursor:
                cursor.execute("SELECT now()")
                started = cursor.fetchone()[0]
            # Taken before the walk reads: what it saw committed, the walk reads.
            snapshot = current_snapshot()

            indexed = read = bulk.walk_all("index" if state.watermark is None else "re-index")
            state.watermark = max(started, state.watermark) if state.watermark else started
            state.rules_version = RULES_VERSION
        else:
            indexed, newest, read, snapshot = _changed_since(state.watermark - OVERLAP, state.poll_snapshot)
            if newest is not None and newest > state.watermark:
                state.watermark = newest
        state.poll_snapshot = snapshot
        _refresh_companies()
        state.last_poll_at = timezone.now()
        # Not ``companies``: _refresh_companies keeps that column itself.
        state.save(update_fields=["watermark", "poll_snapshot", "rules_version", "last_poll_at"])

        copy_new()
        log.debug("poll: %d rows read from accounted, %d indexed", read, indexed)
        return PassReport(ran=True, indexed=indexed, read=read, resettled=resettle_app_answers())


def _warn_if_stale(last_poll_at: dt.datetime | None) -> None:
    """Say so when this poll finds the read model older than SYNC_STALE_AFTER (after an outage, say)."""
    age = read_model_age(last_poll_at)
    if age is not None and age > stale_after():
        log.warning(
            "the read model is %d s old (last successful poll at %s; SYNC_STALE_AFTER is %d s): catching up",
            age.total_seconds(),
            states.to_iso(last_poll_at),
            stale_after().total_seconds(),
        )


def reconcile() -> PassReport:
    """Compare both tables id by id: index what is missing or out of date, drop what is gone."""
    with SyncLock() as held:
        if not held:
            return PassReport(ran=False)

        indexed, removed = bulk.reconcile_all()
        # Renames also when the companies did not change: repairs names a pass missed.
        _refresh_companies(rename_always=True)
        state = _state()
        state.last_reconcile_at = timezone.now()
        state.save(update_fields=["last_reconcile_at"])
        return PassReport(ran=True, indexed=indexed, removed=removed)


def refresh_companies() -> None:
    """Read accounted's companies now (``poll`` does it on every pass); skipped while a pass runs."""
    with SyncLock() as held:
        if held:
            _refresh_companies()


def _refresh_companies(*, rename_always: bool = False) -> None:
    """accounted's companies into ``SyncState.companies``; a change renames them in the index too.

    Every poll reads them (a few hundred rows at most), so a new or renamed
    company reaches the list's menu as soon as its items reach the list.
    """
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT id, name, archived_at IS NOT NULL FROM public.companies ORDER BY name, id")
        companies = [[str(pk), name, archived] for pk, name, archived in cursor.fetchall()]
    changed = _state().companies != companies
    if changed:
        SyncState.objects.filter(pk=1).update(companies=companies)
    if changed or rename_always:
        refresh_company_names(companies)


def refresh_company_names(companies: list[list[Any]]) -> None:
    """Each indexed item's company name as accounted spells it now."""
    if not companies:
        return
    payload = orjson.dumps([{"id": pk, "name": name} for pk, name, _archived in companies]).decode()
    table = IndexedItem._meta.db_table
    with connections["default"].cursor() as cursor:
        cursor.execute(
            f"""UPDATE {table} t SET company_name = r.name
                FROM jsonb_to_recordset(%s::jsonb) AS r(id uuid, name text)
                WHERE t.company_id = r.id AND t.company_name IS DISTINCT FROM r.name""",  # noqa: S608
            [payload],
        )


def index_items(item_ids: Iterable[uuid.UUID | str]) -> int:
    """Index these items now from their live rows; drop the ones accounted no longer has.

    It waits (a few seconds at most) for a pass in progress: a poll that read
    a row before this write must not put the old states back after it. If
    the pass takes longer, the next poll indexes the change instead.
    """
    ids = [uuid.UUID(str(pk)) for pk in item_ids]
    if not ids:
        return 0
    try:
        with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = %s", [f"{int(INDEX_LOCK_WAIT.total_seconds() * 1000)}ms"])
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
            rows = fetch("i.id = ANY(%s)", [ids], "i.id", len(ids))
            found = {row[0] for row in rows}
            IndexedItem.objects.filter(pk__in=[pk for pk in ids if pk not in found]).delete()
            return write_rows(rows)
    except OperationalError:  # lock_timeout: a long pass holds the lock
        log.info("index_items: a sync pass holds the lock; the next poll indexes %d item(s)", len(ids))
        return 0


@dataclass(frozen=True, slots=True)
class Synced:
    """What the last sync pass left for the list to read."""

    # When the read model last caught up with accounted (for "updated N s ago").
    indexed_at: dt.datetime | None
    # accounted's companies as that pass read them, by name: (id, name, archived).
    companies: list[tuple[uuid.UUID, str, bool]]


def read_model_age(last_poll_at: dt.datetime | None, now: dt.datetime | None = None) -> dt.timedelta | None:
    """Time since the last successful poll (None: never); never negative, as another host's clock may run ahead."""
    if last_poll_at is None:
        return None
    return max((now or timezone.now()) - last_poll_at, dt.timedelta(0))


def stale_after() -> dt.timedelta:
    """How old the read model may get before the list, /healthz and the sync call it stale."""
    return dt.timedelta(seconds=settings.SYNC_STALE_AFTER)


def synced(*, with_companies: bool = True) -> Synced:
    """``Synced`` in one query (the companies only when asked for: a long list to read)."""
    fields = ["last_poll_at", "companies"] if with_companies else ["last_poll_at"]
    row = SyncState.objects.filter(pk=1).values(*fields).first() or {}
    companies = [(uuid.UUID(pk), name, archived) for pk, name, archived in row.get("companies", [])]
    return Synced(row.get("last_poll_at"), companies)
