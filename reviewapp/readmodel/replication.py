"""The subscription's setup, state and the drain of its change queue.

- ``setup``: creates the replication slot on accounted's side (through the
  replication role, which may) and then the subscription without creating
  one; the subscription's first copy (``copy_data``) fills the local tables,
  and their triggers queue every row it writes. Creating the slot apart is
  also what lets the publisher and the subscriber share one server (tests):
  ``CREATE SUBSCRIPTION`` that creates its slot on its own cluster waits forever.
- ``drain``: under the sync's advisory lock (one host applies changes), takes
  the queue in order, batch by batch, each batch in one transaction with the
  writes it causes (a crash puts it back), and derives the queued items from
  the local copy; an id no longer there leaves the read model.
- ``status``: the subscription's state for ``replication check`` and ``/healthz``.

accounted's database is read by none of this except ``setup`` (the slot) and
the lookups the derivation shares with the polls, which are keyed by id
(``rows.write_rows``: a waiting question's expiry event; the re-settle's
conversations): nothing scans accounted's tables.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import asdict, dataclass
from typing import Any, Final

import psycopg
from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone
from psycopg import sql

from reviewapp.answers.resettle import resettle_app_answers
from reviewapp.models import IndexedItem, SyncState
from reviewapp.overview.events import copy_new
from reviewapp.readmodel import sync
from reviewapp.readmodel.rows import SELECTED_COLUMNS, select_sql, write_rows

log = logging.getLogger(__name__)

# Logical replication applies a change to the table of the same schema and name
# on the subscriber: the copy is public.invoice_inbox_items and public.companies
# in the review database (no name of Django's). Only the queue has a schema of its own.
SCHEMA: Final = "public"
QUEUE: Final = "accounted_copy.changes"
# The queue's triggers notify this channel (migration 0026): sync_index --follow
# waits on it instead of sleeping, so a change is drained as soon as it is copied.
CHANNEL: Final = "accounted_copy_changes"

# The copied columns (rows.SELECTED_COLUMNS) with accounted's types; the triggers are
# enabled ALWAYS because the apply worker runs with session_replication_role =
# replica, where ordinary triggers do not fire. It fires row triggers (and the
# first copy, a COPY, fires them too), statement triggers only for a TRUNCATE.
COPY_DDL: Final = """
CREATE TABLE public.invoice_inbox_items (
    id uuid PRIMARY KEY,
    company_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    channel_context jsonb,
    extracted_data jsonb,
    created_supplier_invoice_id uuid,
    created_journal_entry_id uuid,
    document_id uuid,
    correlation_id uuid,
    whatsapp_message_id uuid,
    extraction_skipped boolean NOT NULL DEFAULT false
);
CREATE TABLE public.companies (id uuid PRIMARY KEY, name text NOT NULL, archived_at timestamptz);
COMMENT ON TABLE public.invoice_inbox_items IS 'copy of accounted''s columns, kept by the subscription review_app';
COMMENT ON TABLE public.companies IS 'copy of accounted''s columns, kept by the subscription review_app';

CREATE TRIGGER queue_item AFTER INSERT OR UPDATE OR DELETE ON public.invoice_inbox_items
    FOR EACH ROW EXECUTE FUNCTION accounted_copy.queue_item();
CREATE TRIGGER queue_all AFTER TRUNCATE ON public.invoice_inbox_items
    FOR EACH STATEMENT EXECUTE FUNCTION accounted_copy.queue_kind('a');
CREATE TRIGGER queue_companies AFTER INSERT OR UPDATE OR DELETE ON public.companies
    FOR EACH ROW EXECUTE FUNCTION accounted_copy.queue_kind('c');
CREATE TRIGGER queue_companies_all AFTER TRUNCATE ON public.companies
    FOR EACH STATEMENT EXECUTE FUNCTION accounted_copy.queue_kind('c');
ALTER TABLE public.invoice_inbox_items ENABLE ALWAYS TRIGGER queue_item;
ALTER TABLE public.invoice_inbox_items ENABLE ALWAYS TRIGGER queue_all;
ALTER TABLE public.companies ENABLE ALWAYS TRIGGER queue_companies;
ALTER TABLE public.companies ENABLE ALWAYS TRIGGER queue_companies_all;
"""
BATCH: Final = sync.BATCH
CONNECT_TIMEOUT: Final = 10  # seconds; setup and teardown talk to accounted's server once


def publication_sql(name: str) -> str:
    """The statement accounted's operator runs once: only the columns the sync reads (docs/operations.md)."""
    tables = ",\n  ".join(f"public.{table} ({', '.join(columns)})" for table, columns in SELECTED_COLUMNS.items())
    return f"CREATE PUBLICATION {name} FOR TABLE\n  {tables}\n  WITH (publish = 'insert, update, delete, truncate');"


class SetupRefused(Exception):
    """Something on accounted's side is missing; the message says what to ask its operator for."""


# A subscription is one database's, but pg_subscription lists the whole server's.
_HERE: Final = "subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())"


def _subscription_exists(name: str) -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM pg_subscription WHERE subname = %s AND {_HERE}", [name])  # noqa: S608
        return cursor.fetchone() is not None


def _raw() -> psycopg.Connection[Any]:
    """The review database's psycopg connection, for statements that take no bind parameters."""
    connection = connections["default"]
    connection.ensure_connection()
    return connection.connection  # type: ignore[no-any-return]


def setup(conninfo: str | None = None, name: str | None = None) -> str:
    """Subscribe the review database to accounted's publication; what was done. Safe to run again."""
    conninfo = conninfo or settings.REPLICATION_CONNINFO
    name = name or settings.REPLICATION_NAME
    if _subscription_exists(name):
        return f"subscription {name} exists already; nothing changed"
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as publisher:
        if publisher.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", [name]).fetchone() is None:
            raise SetupRefused(
                f"accounted's database has no publication {name!r}; its operator runs (docs/operations.md):\n"
                + publication_sql(name)
            )
        bypass = publisher.execute(
            """SELECT (SELECT rolbypassrls OR rolsuper FROM pg_roles WHERE rolname = current_user)
                      OR NOT EXISTS (SELECT 1 FROM pg_class WHERE relrowsecurity
                                     AND oid IN ('public.invoice_inbox_items'::regclass,
                                                 'public.companies'::regclass))"""
        ).fetchone()
        if not (bypass and bypass[0]):
            # The first copy reads as this role: row-level security would hide every row, silently.
            raise SetupRefused(
                "the replication role cannot bypass row-level security on accounted's tables, so the first copy "
                "would be empty; its operator runs: ALTER ROLE <the role> BYPASSRLS (docs/operations.md)"
            )
        slot = publisher.execute(
            "SELECT database = current_database() FROM pg_replication_slots WHERE slot_name = %s", [name]
        ).fetchone()
        if slot is None:
            publisher.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", [name])
        elif not slot[0]:
            raise SetupRefused(f"replication slot {name!r} exists for another database on accounted's server")
    with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.invoice_inbox_items') IS NOT NULL")
        if cursor.fetchone()[0]:
            # Left by a teardown that kept them? A new copy must not collide with their rows.
            cursor.execute("DROP TABLE public.invoice_inbox_items, public.companies")
        cursor.execute(COPY_DDL)
        cursor.execute(f"TRUNCATE {QUEUE}")
    _raw().execute(
        sql.SQL(
            "CREATE SUBSCRIPTION {name} CONNECTION {conninfo} PUBLICATION {name}"
            " WITH (create_slot = false, slot_name = {slot}, copy_data = true)"
        ).format(name=sql.Identifier(name), conninfo=sql.Literal(conninfo), slot=sql.Literal(name))
    )
    # Every row of the copy is queued by the triggers and derived by today's rules: the
    # drain must not queue them all a second time for a rules_version the install never
    # recorded (a new database's 0), which held every later change behind a second full
    # derivation (the freshness tail of bench/README.md's first replication run).
    SyncState.objects.update_or_create(pk=1, defaults={"rules_version": sync.RULES_VERSION})
    return f"subscription {name} created; its first copy of accounted's rows is under way"


def teardown(name: str | None = None, *, keep_slot: bool = False) -> str:
    """Drop the subscription and (unless ``keep_slot``) its slot on accounted's side; empty the local copy."""
    name = name or settings.REPLICATION_NAME
    if _subscription_exists(name):
        ident = sql.Identifier(name)
        if keep_slot:
            _raw().execute(sql.SQL("ALTER SUBSCRIPTION {} DISABLE").format(ident))
            _raw().execute(sql.SQL("ALTER SUBSCRIPTION {} SET (slot_name = NONE)").format(ident))
        _raw().execute(sql.SQL("DROP SUBSCRIPTION {}").format(ident))
    with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS public.invoice_inbox_items, public.companies")
        cursor.execute(f"TRUNCATE {QUEUE}")
    if keep_slot:
        return (
            f"subscription {name} dropped; slot {name} kept on accounted's server: it retains WAL "
            f"until dropped there (SELECT pg_drop_replication_slot('{name}'))"
        )
    return f"subscription {name} and its slot dropped"


@dataclass(frozen=True, slots=True)
class Status:
    """The subscription as the review database sees it."""

    # missing | disabled | copying (first copy under way) | streaming | down (no worker: accounted unreachable?)
    state: str
    tables: int = 0
    tables_ready: int = 0
    received_lsn: str | None = None
    last_message_at: dt.datetime | None = None  # any message from accounted's walsender, keepalives included
    apply_errors: int = 0
    sync_errors: int = 0
    queued: int = 0  # changes copied but not yet derived into the read model
    oldest_queued_at: dt.datetime | None = None

    def as_json(self, now: dt.datetime | None = None) -> dict[str, Any]:
        now = now or timezone.now()
        values = asdict(self)
        for key in ("last_message_at", "oldest_queued_at"):
            moment = values.pop(key)
            values[key.replace("_at", "_age_seconds")] = (
                None if moment is None else round(max((now - moment).total_seconds(), 0.0), 1)
            )
        return values


def status(name: str | None = None) -> Status:
    name = name or settings.REPLICATION_NAME
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(*), min(queued_at) FROM " + QUEUE  # noqa: S608 - a constant
        )
        queued, oldest = cursor.fetchone()
        cursor.execute(
            f"SELECT oid, subenabled FROM pg_subscription WHERE subname = %s AND {_HERE}",  # noqa: S608
            [name],
        )
        found = cursor.fetchone()
        if found is None:
            return Status("missing", queued=queued, oldest_queued_at=oldest)
        oid, enabled = found
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE srsubstate = 'r') FROM pg_subscription_rel WHERE srsubid = %s",
            [oid],
        )
        tables, ready = cursor.fetchone()
        cursor.execute(
            """SELECT pid, received_lsn::text, last_msg_receipt_time FROM pg_stat_subscription
               WHERE subid = %s AND relid IS NULL""",
            [oid],
        )
        worker = cursor.fetchone()
        cursor.execute(
            "SELECT apply_error_count, sync_error_count FROM pg_stat_subscription_stats WHERE subid = %s", [oid]
        )
        errors = cursor.fetchone() or (0, 0)
    pid, lsn, last_message = worker if worker else (None, None, None)
    if not enabled:
        state = "disabled"
    elif pid is None:
        state = "down"
    elif ready < tables:
        state = "copying"
    else:
        state = "streaming"
    return Status(state, tables, ready, lsn, last_message, errors[0], errors[1], queued, oldest)


def _take(cursor: Any) -> list[tuple[str, Any]]:
    """The next batch of the queue, deleted in the caller's transaction (a rollback puts it back)."""
    cursor.execute(
        f"""DELETE FROM {QUEUE} WHERE seq IN (
                SELECT seq FROM {QUEUE} ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED)
            RETURNING kind, item_id""",  # noqa: S608 - constants
        [BATCH],
    )
    return list(cursor.fetchall())


def _apply(item_ids: list[Any]) -> tuple[int, int]:
    """Derive these items from the local copy; drop the ones it no longer has. (indexed, removed)."""
    with connections["default"].cursor() as cursor:
        cursor.execute(f"{select_sql(SCHEMA, join='LEFT JOIN')} WHERE i.id = ANY(%s)", [item_ids])
        rows = list(cursor.fetchall())
    found = {row[0] for row in rows}
    removed, _ = IndexedItem.objects.filter(pk__in=[pk for pk in item_ids if pk not in found]).delete()
    # Never back: index_items (after an answer) may have written a newer version
    # from accounted's live row than the copy holds yet; the stream brings it.
    indexed_times = dict(IndexedItem.objects.filter(pk__in=list(found)).values_list("pk", "source_updated_at"))
    rows = [row for row in rows if not (indexed_times.get(row[0]) and row[4] < indexed_times[row[0]])]
    rows = [(*row[:2], row[2] or "", *row[3:]) for row in rows]  # a company whose row has not arrived yet
    return write_rows(rows), removed


def _refresh_companies() -> None:
    """The local copy's companies into ``SyncState.companies`` and the index's names (as a poll does)."""
    with connections["default"].cursor() as cursor:
        cursor.execute(f"SELECT id, name, archived_at IS NOT NULL FROM {SCHEMA}.companies ORDER BY name, id")  # noqa: S608
        companies = [[str(pk), name, archived] for pk, name, archived in cursor.fetchall()]
    SyncState.objects.filter(pk=1).update(companies=companies)
    sync.refresh_company_names(companies)


def _queue_differences() -> int:
    """Queue every item whose index row differs from the copy; drop index rows the copy lacks. Removed."""
    table = IndexedItem._meta.db_table
    with connections["default"].cursor() as cursor:
        cursor.execute(
            f"""DELETE FROM {table} t
                WHERE NOT EXISTS (SELECT 1 FROM {SCHEMA}.invoice_inbox_items i WHERE i.id = t.id)"""  # noqa: S608
        )
        removed = cursor.rowcount
        cursor.execute(
            f"""INSERT INTO {QUEUE} (kind, item_id)
                SELECT 'i', i.id FROM {SCHEMA}.invoice_inbox_items i LEFT JOIN {table} t ON t.id = i.id
                WHERE t.source_updated_at IS DISTINCT FROM i.updated_at ORDER BY i.id"""  # noqa: S608
        )
        cursor.execute(f"INSERT INTO {QUEUE} (kind) VALUES ('c')")  # noqa: S608
    return removed


def drain(*, extras: bool = True) -> sync.PassReport:
    """Derive everything the subscription queued; one host at a time (the sync's advisory lock).

    ``extras``: also copy the overview's new events and re-settle app answers,
    as a poll does. They ask accounted's database and do not depend on the
    queue; sync_index --follow runs them once per ``--interval``, not on every
    wake-up, so a burst of commits is drained without them in the way.
    """
    started = time.monotonic()
    with sync.SyncLock() as held:
        if not held:
            return sync.PassReport(ran=False)
        state, _ = SyncState.objects.get_or_create(pk=1)
        current = status()
        began = timezone.now()
        if current.state == "missing":  # no copy to read: the read model ages, and says so
            log.warning("replication: no subscription %s (manage.py replication setup)", settings.REPLICATION_NAME)
            return sync.PassReport(ran=True)
        if state.rules_version != sync.RULES_VERSION:
            # A release that changes the derivation re-derives every row from the copy,
            # in place: the list serves the old rows until each is rewritten.
            with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {QUEUE} (kind, item_id) SELECT 'i', id FROM {SCHEMA}.invoice_inbox_items ORDER BY id"  # noqa: S608
                )
                cursor.execute(f"INSERT INTO {QUEUE} (kind) VALUES ('c')")  # noqa: S608
                SyncState.objects.filter(pk=1).update(rules_version=sync.RULES_VERSION)
        indexed = removed = taken_all = 0
        while True:
            with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
                taken = _take(cursor)
                taken_all += len(taken)
                kinds = {kind for kind, _ in taken}
                if "a" in kinds and current.state == "streaming":  # accounted's table was truncated
                    removed += _queue_differences()
                item_ids = sorted({item_id for kind, item_id in taken if kind == "i"})
                if item_ids:
                    done, gone = _apply(item_ids)
                    indexed, removed = indexed + done, removed + gone
                if "c" in kinds:
                    _refresh_companies()
            if len(taken) < BATCH:
                break
        # The read model is as fresh as the stream: when the subscription's worker
        # is gone (accounted unreachable, the subscription broken), the age grows
        # and the list's stale banner and /healthz say so after SYNC_STALE_AFTER.
        if current.state in ("streaming", "copying"):
            SyncState.objects.filter(pk=1).update(last_poll_at=timezone.now())
        else:
            log.warning("replication: the subscription is %s; the read model is not being fed", current.state)
        drained = time.monotonic()
        resettled = 0
        if extras:
            copy_new()
            resettled = resettle_app_answers()
        if taken_all:
            oldest = current.oldest_queued_at
            log.debug(
                "drain: %d changes in %.3f s (extras %.3f s); the oldest had waited %.3f s when the pass began",
                taken_all,
                drained - started,
                time.monotonic() - drained,
                (began - oldest).total_seconds() if oldest else 0.0,
            )
        return sync.PassReport(ran=True, indexed=indexed, removed=removed, resettled=resettled)


class Wakeups:
    """A connection of its own to the review database, listening on ``CHANNEL``: the follow loop's wait.

    Every host's loop listens; the woken ones try the sync's lock and only its
    holder drains (the others' try fails at once and they wait again). A lost
    connection is opened again on the next wait; meanwhile the loop waits its
    interval as it did before notifications (a missed one costs at most that).
    """

    def __init__(self) -> None:
        self.conn: psycopg.Connection[Any] | None = None

    def _connect(self) -> psycopg.Connection[Any]:
        params = connections["default"].get_connection_params()
        # Only libpq's own keywords (it lists them): Django adds its own (cursor_factory, context, ...).
        keywords = {option.keyword.decode() for option in psycopg.pq.Conninfo.get_defaults()}
        libpq = {key: value for key, value in params.items() if key in keywords and value not in (None, "")}
        conn = psycopg.connect(**{**libpq, "connect_timeout": CONNECT_TIMEOUT}, autocommit=True)
        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
        return conn

    def wait(self, timeout: float) -> bool:
        """Until the queue's triggers notify or ``timeout`` seconds pass; True when the caller should drain.

        A connection lost meanwhile (the review database restarted) is opened again at once, and
        the wait ends there: what was queued while nobody listened sent no notification this
        connection could see, so the caller drains now. Only when that fails too does it wait out
        the timeout (the loop's timed pass, as before notifications).
        """
        deadline = time.monotonic() + timeout
        for attempt in (1, 2):
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = self._connect()
                    return True
                woken = any(True for _ in self.conn.notifies(timeout=max(timeout, 0.0), stop_after=1))
                if woken:  # the others that came meanwhile are one drain's worth: take them all now
                    for _ in self.conn.notifies(timeout=0):
                        pass
                return woken
            except psycopg.Error as error:
                self.close()
                if attempt == 2:
                    log.warning("replication: listening for changes failed (%s); waiting the interval", error)
        time.sleep(max(0.0, deadline - time.monotonic()))
        return False

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            finally:
                self.conn = None


def reconcile() -> sync.PassReport:
    """Compare the read model with the local copy (not accounted's table) and queue the differences."""
    with sync.SyncLock() as held:
        if not held:
            return sync.PassReport(ran=False)
        if status().state != "streaming":  # half a first copy is no reference
            return sync.PassReport(ran=True)
        with transaction.atomic(using="default"):
            removed = _queue_differences()
        SyncState.objects.filter(pk=1).update(last_reconcile_at=timezone.now())
    report = drain()
    return sync.PassReport(ran=True, indexed=report.indexed, removed=removed + report.removed)


def catch_up() -> sync.PassReport:
    """One pass of whichever source feeds the read model (``SYNC_SOURCE``): a poll or a drain."""
    return drain() if settings.SYNC_SOURCE == "replication" else sync.poll()
