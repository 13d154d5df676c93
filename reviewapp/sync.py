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
import json
import logging
import sys
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections, transaction
from django.utils import timezone

from reviewapp import states
from reviewapp.answers.log import replaced_answer
from reviewapp.answers.resettle import resettle_app_answers
from reviewapp.bookkeeping.models import InboxItem, Undecodable, decode_json
from reviewapp.models import ClarificationEvent, IndexedItem, SyncState
from reviewapp.rendering_caps import SHORT_TEXT_MAX_CHARS
from reviewapp.routers import BOOKKEEPING_DB

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

# The columns of accounted's invoice_inbox_items (and companies) the derivation reads: the
# replication mode's publication lists exactly these (reviewapp/replication/source.py).
SELECTED_COLUMNS: Final = {
    "invoice_inbox_items": (
        "id",
        "company_id",
        "created_at",
        "updated_at",
        "channel_context",
        "extracted_data",
        "created_supplier_invoice_id",
        "created_journal_entry_id",
        "document_id",
        "correlation_id",
        "whatsapp_message_id",
        "extraction_skipped",
    ),
    "companies": ("id", "name", "archived_at"),
}


def select_sql(schema: str = "public", *, join: str = "JOIN") -> str:
    """The SELECT whose rows ``write_rows`` takes, from accounted's tables in ``schema``.

    ``schema`` is another schema holding the same columns (the replication
    mode's local copy, where ``join`` is a LEFT JOIN: a company's row may
    arrive after its items' during the first copy).
    """
    return f"""
    SELECT i.id, i.company_id, c.name, i.created_at, i.updated_at, i.channel_context, i.extracted_data,
           (i.created_supplier_invoice_id IS NOT NULL OR i.created_journal_entry_id IS NOT NULL),
           i.document_id, i.correlation_id, i.whatsapp_message_id, i.extraction_skipped
    FROM {schema}.invoice_inbox_items i {join} {schema}.companies c ON c.id = i.company_id
"""  # noqa: S608 - schema and join are constants of the callers


_SELECT = select_sql()

_COLUMNS: Final = (
    ("id", "uuid"),
    ("company_id", "uuid"),
    ("company_name", "text"),
    ("created_at", "timestamptz"),
    ("source_updated_at", "timestamptz"),
    ("supplier_name", "text"),
    ("total", "jsonb"),
    ("currency", "text"),
    ("document_id", "uuid"),
    ("correlation_id", "uuid"),
    ("whatsapp_message_id", "uuid"),
    ("extraction_skipped", "boolean"),
    *((field, "boolean") for field in states.STATE_FIELDS.values()),
    ("open_question_type", "text"),
    ("open_question_asked_at", "timestamptz"),
    ("answered_question_type", "text"),
    ("moved_to_app_at", "timestamptz"),
    ("search_text", "text"),
    ("search_fields", "jsonb"),
    ("summary", "jsonb"),
    ("malformed_reason", "text"),
)


def _upsert_sql(table: str | None = None) -> str:
    """The batch write into the read model; into another table (the bulk passes' staging) a plain INSERT."""
    names = ", ".join(name for name, _ in _COLUMNS)
    record = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
    if table is not None:
        return f"""INSERT INTO {table} ({names}, indexed_at)
                   SELECT {names}, now() FROM jsonb_to_recordset(%s::jsonb) AS r({record})"""  # noqa: S608
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name, _ in _COLUMNS[1:])
    return f"""
        INSERT INTO {IndexedItem._meta.db_table} ({names}, indexed_at)
        SELECT {names}, now() FROM jsonb_to_recordset(%s::jsonb) AS r({record})
        ORDER BY id
        ON CONFLICT (id) DO UPDATE SET {updates}, indexed_at = now()
    """  # noqa: S608 - names are constants


_UPSERT: Final = _upsert_sql()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _extracted(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _capped(text: str | None) -> str | None:
    # A list row shows a name, not a stored 400 000-character string.
    return text[:SHORT_TEXT_MAX_CHARS] if text else text


def _is_amount(value: Any) -> bool:
    """A number JavaScript would hold as a finite double (what accounted's pages show).

    jsonb keeps ``1e400`` as a 401-digit integer; JavaScript reads it as
    Infinity, and ``math.isfinite`` on it raises OverflowError. The int is
    compared with the largest double instead, which Python does exactly.
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -sys.float_info.max <= value <= sys.float_info.max
    return isinstance(value, float) and -sys.float_info.max <= value <= sys.float_info.max


def index_values(row: Sequence[Any]) -> dict[str, Any]:
    """The IndexedItem columns for one row of ``_SELECT`` (``answer_replaced`` aside: see ``_answers_replaced``)."""
    item_id, company_id, company_name, created_at, updated_at, ctx_text, data_text, booked, *ids = row
    channel_context = decode_json(ctx_text)
    extracted = decode_json(data_text)
    computed = states.compute(channel_context, extracted, booked=booked)
    data = None if isinstance(extracted, Undecodable) else extracted
    total = _extracted(data, "totals", "total")
    currency = _extracted(data, "invoice", "currency")
    return {
        "id": str(item_id),
        "company_id": str(company_id),
        "company_name": _capped(company_name),
        "created_at": created_at.isoformat(),
        "source_updated_at": updated_at.isoformat(),
        "supplier_name": _capped(_text(_extracted(data, "supplier", "name"))),
        "total": total if _is_amount(total) else None,
        "currency": currency if isinstance(currency, str) and currency else "SEK",
        "document_id": str(ids[0]) if ids[0] else None,
        "correlation_id": str(ids[1]) if ids[1] else None,
        "whatsapp_message_id": str(ids[2]) if ids[2] else None,
        "extraction_skipped": bool(ids[3]),
        **{
            key: value.isoformat() if isinstance(value, dt.datetime) else value
            for key, value in computed.column_values().items()
        },
    }


def _moved_to_app_at(values: list[dict[str, Any]]) -> None:
    """When each question needing an answer moved to the app (the queue's order).

    accounted's sweep records ``ChannelQuestionExpired`` when it moves a
    question; a question over the chat's budget is moved as it is asked,
    with no event: then ``asked_at`` is the moment.
    """
    waiting = [v for v in values if v["state_needs_answer"]]
    for v in values:
        v["moved_to_app_at"] = v["open_question_asked_at"] if v["state_needs_answer"] else None
    if not waiting:
        return
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            """SELECT h.aggregate_id, max(h.occurred_at)
               FROM public.processing_history h
               JOIN unnest(%s::uuid[], %s::uuid[]) AS w(company_id, item_id)
                 ON h.company_id = w.company_id AND h.aggregate_type = 'System' AND h.aggregate_id = w.item_id
               WHERE h.event_type = 'ChannelQuestionExpired'
               GROUP BY h.aggregate_id""",
            [[v["company_id"] for v in waiting], [v["id"] for v in waiting]],
        )
        expired = {str(item_id): moment for item_id, moment in cursor.fetchall()}
    for v in waiting:
        if v["id"] in expired:
            v["moved_to_app_at"] = expired[v["id"]].isoformat()


def _answers_replaced(rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: _Failures) -> None:
    """Mark the items whose live row no longer holds an answer the app wrote.

    One query on the app's answer log for the whole batch; only the items the
    app ever answered are compared (``answers.log.replaced_answer``).
    """
    by_item: dict[str, list[ClarificationEvent]] = {}
    answered = ClarificationEvent.objects.filter(
        event_type=ClarificationEvent.ANSWERED, channel=ClarificationEvent.Channel.APP
    )
    # The batch's ids as one array parameter: an IN list of thousands of
    # placeholders costs more to build and parse than the lookup itself.
    table = ClarificationEvent._meta.db_table
    with connections["default"].cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT item_id FROM {table} WHERE item_id = ANY(%s) AND event_type = %s AND channel = %s",  # noqa: S608
            [[row[0] for row in rows], ClarificationEvent.ANSWERED, ClarificationEvent.Channel.APP],
        )
        ids = [item_id for (item_id,) in cursor.fetchall()]
    logged = answered.filter(item_id__in=ids) if ids else answered.none()
    for event in logged:
        by_item.setdefault(str(event.item_id), []).append(event)
    for position, (row, value) in enumerate(zip(rows, values, strict=True)):
        entries = by_item.get(value["id"])
        replaced = False
        if entries and value["id"] not in failures:
            try:
                live = InboxItem(id=row[0], channel_context=decode_json(row[5]), updated_at=row[4])
                replaced = replaced_answer(live, entries) is not None
            except Exception as error:  # one row must not stop the pass
                values[position] = failures.add(row, error)
                continue
        value[states.STATE_FIELDS[states.ANSWER_REPLACED]] = replaced


# How much of an exception's message a malformed reason keeps (the list and
# the admin show it beside the row; the log has the whole traceback).
FAILURE_MESSAGE_MAX_CHARS: Final = 200


def failure_reason(error: BaseException) -> str:
    """``"could not be indexed: OverflowError: int too large to convert to float"``."""
    try:
        message = " ".join(str(error).split())
    except Exception:  # a message that cannot be printed is no reason to stop
        message = ""
    if len(message) > FAILURE_MESSAGE_MAX_CHARS:
        message = message[: FAILURE_MESSAGE_MAX_CHARS - 1] + "…"
    kind = type(error).__name__
    return f"could not be indexed: {kind}: {message}" if message else f"could not be indexed: {kind}"


def _failed_values(row: Sequence[Any], reason: str) -> dict[str, Any]:
    """The columns of a row whose derivation raised: its ids and times, ``malformed`` with why.

    Nothing is read from its JSON (that is what failed); ``booked`` comes
    from plain columns, so a booked item still never needs an answer.
    """
    item_id, company_id, company_name, created_at, updated_at, _ctx, _data, booked, *ids = row
    values: dict[str, Any] = dict.fromkeys(name for name, _ in _COLUMNS)
    values.update({field: False for field in states.STATE_FIELDS.values()})
    values.update(
        {
            "id": str(item_id),
            "company_id": str(company_id),
            "company_name": _capped(company_name) if isinstance(company_name, str) else "",
            "created_at": created_at.isoformat(),
            "source_updated_at": updated_at.isoformat(),
            "currency": "SEK",
            "document_id": str(ids[0]) if ids[0] else None,
            "correlation_id": str(ids[1]) if ids[1] else None,
            "whatsapp_message_id": str(ids[2]) if ids[2] else None,
            "extraction_skipped": bool(ids[3]),
            states.STATE_FIELDS[states.MALFORMED]: True,
            states.STATE_FIELDS[states.BOOKED]: bool(booked),
            "search_text": "",
            "search_fields": [],
            "malformed_reason": reason,
        }
    )
    return values


class _Failures:
    """The rows of one batch whose derivation raised, by item id, and which of them were logged."""

    def __init__(self) -> None:
        self.errors: dict[str, tuple[Sequence[Any], BaseException]] = {}
        self.logged: set[str] = set()

    def __contains__(self, item_id: object) -> bool:
        return item_id in self.errors

    def add(self, row: Sequence[Any], error: BaseException) -> dict[str, Any]:
        """Record the failure; the row's columns as a malformed item."""
        self.errors[str(row[0])] = (row, error)
        return _failed_values(row, failure_reason(error))

    def log_new(self, values: Iterable[dict[str, Any]]) -> None:
        """Log each failed row version once: not when the index already holds it as such.

        Call it before the write. The overlap, a reconcile, another host or
        a re-index read the same version again; a new ``updated_at`` or a
        new reason is news.
        """
        waiting = {v["id"]: v for v in values if v["id"] in self.errors and v["id"] not in self.logged}
        if not waiting:
            return
        known = {
            str(pk): (updated, reason)
            for pk, updated, reason in IndexedItem.objects.filter(pk__in=list(waiting)).values_list(
                "pk", "source_updated_at", "malformed_reason"
            )
        }
        for item_id, value in waiting.items():
            self.logged.add(item_id)
            row, error = self.errors[item_id]
            if known.get(item_id) == (row[4], value["malformed_reason"]):
                continue
            log.warning(
                "item %s (updated_at %s) indexed as malformed: %s",
                item_id,
                row[4].isoformat(),
                value["malformed_reason"],
                exc_info=(type(error), error, error.__traceback__),
            )


def _derive(rows: Sequence[Sequence[Any]], failures: _Failures) -> list[dict[str, Any]]:
    values = []
    for row in rows:
        try:
            values.append(index_values(row))
        except Exception as error:  # one row must not stop the pass
            values.append(failures.add(row, error))
    return values


def _payload(rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: _Failures) -> str:
    try:
        return orjson.dumps(values).decode()
    except TypeError:  # an integer past 64 bits, which orjson refuses and json writes
        pass
    parts = []
    for position, (row, value) in enumerate(zip(rows, values, strict=True)):
        try:
            parts.append(json.dumps(value))
        except Exception as error:  # one row must not stop the pass
            values[position] = failures.add(row, error)
            parts.append(json.dumps(values[position]))
    return "[" + ", ".join(parts) + "]"


def _upsert(
    rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: _Failures, *, table: str | None = None
) -> None:
    """Write the batch; if PostgreSQL refuses it, row by row, each refused row as malformed.

    ``table``: a staging table of the bulk passes (``reviewapp.sync_bulk``) instead of the read model.
    """
    sql = _UPSERT if table is None else _upsert_sql(table)
    try:
        with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
            cursor.execute(sql, [_payload(rows, values, failures)])
        return
    except (OperationalError, InterfaceError):
        raise  # the database went away: the pass fails and --follow backs off
    except DatabaseError:
        pass  # a value PostgreSQL refuses: find the row
    for position, row in enumerate(rows):
        try:
            with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
                cursor.execute(sql, [_payload([row], [values[position]], failures)])
        except (OperationalError, InterfaceError):
            raise
        except DatabaseError as error:
            values[position] = failures.add(row, error)
            failures.log_new([values[position]])
            with transaction.atomic(using="default"), connections["default"].cursor() as cursor:
                cursor.execute(sql, [_payload([row], [values[position]], failures)])


def write_rows(rows: Sequence[Sequence[Any]]) -> int:
    """Derive and store a batch of ``select_sql`` rows; how many were written.

    A row whose derivation raises is stored as malformed; the rest go on.
    Every way of feeding the read model (the polls, ``index_items``, the
    replication mode's drain) writes through here, so each derives alike.
    """
    failures = _Failures()
    values = _derive(rows, failures)
    if not values:
        return 0
    _moved_to_app_at(values)
    _answers_replaced(rows, values, failures)
    # Logged against what the index held before this write, so once per row version.
    failures.log_new(values)
    _upsert(rows, values, failures)
    return len(values)


def _fetch(where: str, params: Sequence[Any], order: str, limit: int) -> list[tuple[Any, ...]]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(f"{_SELECT} WHERE {where} ORDER BY {order} LIMIT %s", [*params, limit])
        return list(cursor.fetchall())


@dataclass(frozen=True, slots=True)
class PassReport:
    ran: bool  # False when another process held the lock
    indexed: int = 0
    removed: int = 0
    read: int = 0  # rows a poll read from accounted (an idle poll: none)
    resettled: int = 0  # app answers whose conversation mark was put back (reviewapp.answers.resettle)


class SyncLock:
    """The review database's advisory lock for syncing, or nothing if another process holds it.

    ``with SyncLock() as held:``: only the host whose ``held`` is true applies changes.
    """

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
    from reviewapp import sync_workers  # it builds on this module: import late

    if not sync_workers.outside_transactions():
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
            rows = _fetch(f"i.updated_at >= %s{extra}", [since, *extra_params], "i.updated_at, i.id", BATCH)
        else:
            where = f"(i.updated_at, i.id) > (%s, %s){extra}"
            rows = _fetch(where, [*after, *extra_params], "i.updated_at, i.id", BATCH)
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
            from reviewapp import sync_bulk  # it builds on this module: import late

            indexed = read = sync_bulk.walk_all("index" if state.watermark is None else "re-index")
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
        from reviewapp.overview.events import copy_new  # the overview's copy of the question events

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
        from reviewapp import sync_bulk  # it builds on this module: import late

        indexed, removed = sync_bulk.reconcile_all()
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
            rows = _fetch("i.id = ANY(%s)", [ids], "i.id", len(ids))
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
