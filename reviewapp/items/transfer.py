"""Export and import inbox items as JSON Lines, one row of accounted's table a line.

A line is ``to_jsonb(row)`` of ``public.invoice_inbox_items``, written as
PostgreSQL renders it: every column, including columns accounted added that
this app does not know, and values Python's ``json`` could not read back (a
5 000-digit number) pass through untouched. Export streams, oldest first
(``created_at``, then ``id``); ``--state`` picks items through the list's
read model (``IndexedItem``), brought up to date first.

Import upserts by ``id`` into the bookkeeping *replica* only (never into a
database ``create_bookkeeping_replica`` did not make), one savepoint a line:
a line is stored whole or not at all, and a bad one is reported with its
number. Keys that are columns of the table are written, others are ignored
(and counted); a column the line leaves out keeps its value (or gets its
default, for a new row). An identical row is not written at all, so
importing a file twice changes nothing. A changed row gets ``updated_at``
from accounted's trigger, as every update does. The rows it wrote are
re-indexed at once. The referenced rows (company, user, document, message,
booking) must exist: the database's foreign keys say which is missing.
"""

from __future__ import annotations

import functools
import itertools
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final, Protocol

from django.db import DatabaseError, connections, transaction
from django.db.models import Q

from reviewapp import readmodel
from reviewapp.bookkeeping import replica
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.models import IndexedItem
from reviewapp.readmodel import replication

TABLE: Final = "public.invoice_inbox_items"
# Rows per fetch on export; lines per transaction on import (each line has its own savepoint).
CHUNK: Final = 1000
# Written by accounted's trigger on every UPDATE, whatever the line says.
TRIGGER_SET: Final = frozenset({"updated_at"})


class BadLine(ValueError):
    """A line that cannot be stored; the message says why, for a person."""


class TextSink(Protocol):
    def write(self, text: str, /) -> object: ...


# --- Export -------------------------------------------------------------------


def _all_rows() -> Iterator[str]:
    """Every row, oldest first, through a server-side cursor (a consistent snapshot, any size)."""
    connection = connections[BOOKKEEPING_DB]
    with transaction.atomic(using=BOOKKEEPING_DB):
        connection.ensure_connection()
        raw = connection.connection
        assert raw is not None
        # An operator's export of the whole table, not a web request: its first
        # fetch sorts every row, which may take longer than the web's
        # BOOKKEEPING_STATEMENT_TIMEOUT. For this transaction only.
        with raw.cursor() as unbounded:
            unbounded.execute("SET LOCAL statement_timeout = 0")
        # Named: rows come CHUNK at a time. Inside the transaction, so it needs no WITH HOLD
        # and works behind a transaction-pooling proxy too.
        with raw.cursor(name="export_items") as cursor:
            cursor.itersize = CHUNK
            cursor.execute(f"SELECT to_jsonb(i)::text FROM {TABLE} i ORDER BY i.created_at, i.id")  # noqa: S608
            for (line,) in cursor:
                yield line


def _rows_in_states(state_keys: Sequence[str]) -> Iterator[str]:
    """The live rows of the items the read model has in any of ``state_keys``, oldest first."""
    items = IndexedItem.objects.in_states(*state_keys).order_by("created_at", "id")
    after: tuple[Any, uuid.UUID] | None = None
    while True:
        page = items
        if after is not None:
            page = page.filter(Q(created_at__gt=after[0]) | Q(created_at=after[0], id__gt=after[1]))
        keys = list(page.values_list("created_at", "id")[:CHUNK])
        if not keys:
            return
        ids = [pk for _, pk in keys]
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(f"SELECT i.id, to_jsonb(i)::text FROM {TABLE} i WHERE i.id = ANY(%s)", [ids])  # noqa: S608
            found = dict(cursor.fetchall())
        # A row deleted since it was indexed is gone: nothing to export.
        yield from (found[pk] for pk in ids if pk in found)
        after = keys[-1]


def export_lines(*, state_keys: Sequence[str] = ()) -> Iterator[str]:
    """One JSON text per row: all of them, or those in any of ``state_keys``."""
    unknown = set(state_keys) - set(states.STATE_KEYS)
    if unknown:
        raise ValueError(f"unknown state(s): {', '.join(sorted(unknown))}")
    if not state_keys:
        return _all_rows()
    # The states come from the read model: catch it up with what changed since the last sync.
    replication.catch_up()
    return _rows_in_states(state_keys)


def write_jsonl(lines: Iterable[str], out: TextSink) -> int:
    count = 0
    for line in lines:
        out.write(line + "\n")
        count += 1
    return count


# --- Import -------------------------------------------------------------------


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    ignored_keys: dict[str, int] = field(default_factory=dict)  # key -> lines that had it


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity; PostgreSQL's jsonb does not.
    raise BadLine(f"{name} is not valid JSON")


def _string_problem(text: str) -> str | None:
    if "\x00" in text:
        return "NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "lone surrogate escape (\\ud800-\\udfff)"
    return None


def _find_bad_string(value: Any, path: str = "$") -> str | None:
    """Where the first string (key or value) the database cannot store is, and why.

    PostgreSQL's jsonb and text refuse U+0000, and no UTF-8 column can hold a
    lone surrogate, though both are valid JSON escapes.
    """
    if isinstance(value, str):
        problem = _string_problem(value)
        return f"{problem} in {path}" if problem else None
    if isinstance(value, dict):
        for key, inner in value.items():
            problem = _string_problem(key)
            if problem:
                return f"{problem} in a key of {path}"
            found = _find_bad_string(inner, f"{path}.{key}")
            if found:
                return found
    if isinstance(value, list):
        for position, inner in enumerate(value):
            found = _find_bad_string(inner, f"{path}[{position}]")
            if found:
                return found
    return None


def _keys_of(text: str) -> list[str]:
    """The line's top-level keys, checked as far as Python can read it.

    A line Python's ``json`` cannot read although it is valid JSON (a number
    of 5 000 digits, nesting 10 000 deep) is left to PostgreSQL, which can.
    """
    try:
        row = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise BadLine(f"not JSON: {error.msg} at column {error.colno}") from None
    except (ValueError, RecursionError):
        return []
    if not isinstance(row, dict):
        raise BadLine(f"expected a JSON object, got {type(row).__name__}")
    problem = _find_bad_string(row)
    if problem:
        raise BadLine(f"{problem}: the database cannot store it")
    item_id = row.get("id")
    if not isinstance(item_id, str):
        raise BadLine('"id" is missing (every line needs the item\'s id)')
    try:
        uuid.UUID(item_id)
    except ValueError:
        raise BadLine(f'"id" is not a UUID: {item_id!r}') from None
    return list(row)


def _table_columns(cursor: Any) -> list[str]:
    cursor.execute(
        """SELECT attname FROM pg_attribute
           WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum""",
        [TABLE],
    )
    return [name for (name,) in cursor.fetchall()]


@functools.lru_cache(maxsize=64)
def _insert_sql(columns: tuple[str, ...]) -> str:
    names = ", ".join(f'"{name}"' for name in columns)
    return f"""
        INSERT INTO {TABLE} ({names})
        SELECT {names} FROM jsonb_populate_record(NULL::{TABLE}, %s::jsonb)
        RETURNING id
    """  # noqa: S608 - names are the table's own columns


@functools.lru_cache(maxsize=64)
def _update_sql(columns: tuple[str, ...]) -> str | None:
    """Set the line's columns, only when any differs; None when the line has nothing to set."""
    compared = [f'"{name}"' for name in columns if name != "id" and name not in TRIGGER_SET]
    if not compared:
        return None
    assignments = ", ".join(f"{name} = r.{name}" for name in compared)
    own = ", ".join(f"t.{name}" for name in compared)
    theirs = ", ".join(f"r.{name}" for name in compared)
    return f"""
        UPDATE {TABLE} AS t SET {assignments}
        FROM jsonb_populate_record(NULL::{TABLE}, %s::jsonb) AS r
        WHERE t.id = r.id AND ROW({own}) IS DISTINCT FROM ROW({theirs})
    """  # noqa: S608 - names are the table's own columns


def _id_of(cursor: Any, text: str) -> None:
    """The database's view of the line when Python could not read it: an object with a UUID id."""
    cursor.execute(
        "SELECT jsonb_typeof(%s::jsonb), (%s::jsonb ->> 'id')::uuid IS NOT NULL",
        [text, text],
    )
    kind, has_id = cursor.fetchone()
    if kind != "object":
        raise BadLine(f"expected a JSON object, got {kind}")
    if not has_id:
        raise BadLine('"id" is missing (every line needs the item\'s id)')


def _numbered_lines(source: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(source, start=1):
        if raw.strip():
            yield number, raw


def _store(cursor: Any, text: str, columns: list[str]) -> tuple[str, uuid.UUID | None, list[str]]:
    """Write one line: "created", "updated" or "unchanged", the id written (if any), the keys ignored."""
    keys = _keys_of(text)
    if not keys:
        _id_of(cursor, text)
        cursor.execute("SELECT array_agg(k) FROM jsonb_object_keys(%s::jsonb) AS k", [text])
        keys = list(cursor.fetchone()[0] or [])
    known = tuple(key for key in columns if key in keys)
    ignored = [key for key in keys if key not in columns]
    # Look first: an INSERT ... ON CONFLICT would refuse a line that leaves out a NOT NULL column
    # (user_id...) even for a row that exists, where the line only means to change what it names.
    cursor.execute(f"SELECT id FROM {TABLE} WHERE id = (%s::jsonb ->> 'id')::uuid FOR UPDATE", [text])  # noqa: S608
    found = cursor.fetchone()
    if found is None:
        cursor.execute(_insert_sql(known), [text])
        return "created", cursor.fetchone()[0], ignored
    update = _update_sql(known)
    if update is not None:
        cursor.execute(update, [text])
        if cursor.rowcount:
            return "updated", found[0], ignored
    return "unchanged", None, ignored


def import_lines(source: IO[bytes]) -> ImportResult:
    """Import a JSON Lines byte stream into the replica; bad lines are collected, never fatal.

    Raises ``replica.ReplicaRefused`` (before reading a line) for a database
    that is not a replica this project made.
    """
    connection = connections[BOOKKEEPING_DB]
    replica.require_replica(connection)
    result = ImportResult()
    lines = _numbered_lines(source)
    with connection.cursor() as cursor:
        columns = _table_columns(cursor)
    while chunk := list(itertools.islice(lines, CHUNK)):
        written: list[uuid.UUID] = []
        with transaction.atomic(using=BOOKKEEPING_DB), connection.cursor() as cursor:
            for number, raw in chunk:
                try:
                    try:
                        text = raw.decode("utf-8").strip()
                    except UnicodeDecodeError:
                        raise BadLine("not UTF-8") from None
                    with transaction.atomic(using=BOOKKEEPING_DB):
                        outcome, item_id, ignored = _store(cursor, text, columns)
                except BadLine as error:
                    result.bad.append((number, str(error)))
                    continue
                except DatabaseError as error:
                    reason = str(error).strip().replace("\n", " ")
                    result.bad.append((number, f"the database refused it: {reason}"))
                    continue
                setattr(result, outcome, getattr(result, outcome) + 1)
                for key in ignored:
                    result.ignored_keys[key] = result.ignored_keys.get(key, 0) + 1
                if item_id is not None:
                    written.append(item_id)
        readmodel.index_items(written)
    return result
