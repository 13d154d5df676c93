"""One row of accounted's inbox, derived into one row of the read model: what every pass shares.

``SELECT`` reads accounted's columns, ``derive`` turns a batch into the read
model's values (a row no rule foresaw becomes ``malformed``, counted in
``Failures``), ``moved_to_app_at`` and ``answers_replaced`` add what the
app's and accounted's logs say, and ``upsert``/``write`` store the batch.
The polls (``sync``), the whole-table walks (``bulk``) and their helper
processes (``workers``) all derive through here, so a row is indexed the
same way whichever pass reads it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson
from django.db import DatabaseError, InterfaceError, OperationalError, connections, transaction

from reviewapp.answers.log import replaced_answer
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.core.rendering_caps import SHORT_TEXT_MAX_CHARS
from reviewapp.core.stored_json import Undecodable, decode_json
from reviewapp.models import ClarificationEvent, IndexedItem

# The sync's own logger: a row that fails to derive is logged as the pass that read it logs.
log = logging.getLogger("reviewapp.readmodel.sync")


# The columns of accounted's invoice_inbox_items (and companies) the derivation reads: the
# replication mode's publication lists exactly these (reviewapp/readmodel/replication.py).
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


SELECT: Final = select_sql()


COLUMNS: Final = (
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
    names = ", ".join(name for name, _ in COLUMNS)
    record = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    if table is not None:
        return f"""INSERT INTO {table} ({names}, indexed_at)
                   SELECT {names}, now() FROM jsonb_to_recordset(%s::jsonb) AS r({record})"""  # noqa: S608
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name, _ in COLUMNS[1:])
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
    """The IndexedItem columns for one row of ``SELECT`` (``answer_replaced`` aside: see ``answers_replaced``)."""
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


def moved_to_app_at(values: list[dict[str, Any]]) -> None:
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


def answers_replaced(rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: Failures) -> None:
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
    values: dict[str, Any] = dict.fromkeys(name for name, _ in COLUMNS)
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


class Failures:
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


def derive(rows: Sequence[Sequence[Any]], failures: Failures) -> list[dict[str, Any]]:
    values = []
    for row in rows:
        try:
            values.append(index_values(row))
        except Exception as error:  # one row must not stop the pass
            values.append(failures.add(row, error))
    return values


def _payload(rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: Failures) -> str:
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


def upsert(
    rows: Sequence[Sequence[Any]], values: list[dict[str, Any]], failures: Failures, *, table: str | None = None
) -> None:
    """Write the batch; if PostgreSQL refuses it, row by row, each refused row as malformed.

    ``table``: a staging table of the bulk passes (``reviewapp.readmodel.bulk``) instead of the read model.
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
    values, failures = derived(rows)
    if not values:
        return 0
    upsert(rows, values, failures)
    return len(values)


def derived(rows: Sequence[Sequence[Any]]) -> tuple[list[dict[str, Any]], Failures]:
    """A batch derived as every pass derives it, with what the logs add; the rows that failed in ``Failures``.

    The failures are logged against what the index held before this batch is
    written, so once per row version.
    """
    failures = Failures()
    values = derive(rows, failures)
    if values:
        moved_to_app_at(values)
        answers_replaced(rows, values, failures)
        failures.log_new(values)
    return values, failures


def fetch(where: str, params: Sequence[Any], order: str, limit: int) -> list[tuple[Any, ...]]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(f"{SELECT} WHERE {where} ORDER BY {order} LIMIT %s", [*params, limit])
        return list(cursor.fetchall())
