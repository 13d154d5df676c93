"""Import and export inbox items as JSON Lines in the bookkeeping application's row shape.

One JSON object a line, the columns of ``invoice_inbox_items``::

    {"id", "company_id", "status", "source", "document_id", "extracted_data",
     "channel_context", "whatsapp_message_id", "correlation_id", "created_at", "updated_at"}

plus, optionally, ``"company": {"id", "name", "organisation_number"}``. Export
always writes it, so an export loads into an empty database; on import it
creates the company when ``company_id`` is not there yet (an existing company
is never changed: the bookkeeping application owns companies). A row from the
bookkeeping database without it needs its company present already.

Our derived ``state_*`` columns are never read from or written to the file:
they are recomputed from ``channel_context`` on import. Receipt files
(``document_file``) are not carried; other unknown keys are ignored.

Import is idempotent on ``id``: a new id is created, a known one is updated to
the line's values, an identical one is left alone (no write). A bad line is
reported with its number and skipped; each line is written in its own
savepoint, so a line is either stored whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final, Protocol

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone

from reviewapp import states
from reviewapp.models import Company, InboxItem

ROW_KEYS: Final = (
    "id",
    "company_id",
    "status",
    "source",
    "document_id",
    "extracted_data",
    "channel_context",
    "whatsapp_message_id",
    "correlation_id",
    "created_at",
    "updated_at",
)
# Lines per transaction on import; each line still has its own savepoint.
CHUNK: Final = 500


class BadLine(ValueError):
    """A line that cannot be stored; the message says why, for a person."""


# --- Export -------------------------------------------------------------------


def _timestamp(value: dt.datetime | None) -> str | None:
    return value.astimezone(dt.UTC).isoformat() if value is not None else None


def row_of(item: InboxItem) -> dict[str, Any]:
    """One item as the bookkeeping application's row, plus its company."""
    return {
        "id": str(item.pk),
        "company_id": str(item.company_id),
        "status": item.status,
        "source": item.source,
        "document_id": str(item.document_id) if item.document_id else None,
        "extracted_data": item.extracted_data,
        "channel_context": item.channel_context,
        "whatsapp_message_id": item.whatsapp_message_id,
        "correlation_id": item.correlation_id,
        "created_at": _timestamp(item.created_at),
        "updated_at": _timestamp(item.updated_at),
        "company": {
            "id": str(item.company.pk),
            "name": item.company.name,
            "organisation_number": item.company.organisation_number,
        },
    }


def export_rows(*, state_keys: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
    """Every item, oldest first, or those in any of ``state_keys``.

    Rows marked stale (changed by another program) are judged from their
    JSON, not from columns that may be out of date.
    """
    unknown = set(state_keys) - set(states.STATE_KEYS)
    if unknown:
        raise ValueError(f"unknown state(s): {', '.join(sorted(unknown))}")
    items = InboxItem.objects.select_related("company").order_by("created_at", "id")
    if state_keys:
        wanted = Q(states_stale=True)
        for key in state_keys:
            wanted |= Q(**{states.STATE_FIELDS[key]: True})
        items = items.filter(wanted)
    for item in items.iterator(chunk_size=2000):
        if (
            state_keys
            and item.states_stale
            and not set(state_keys) & states.compute(item.channel_context, item.extracted_data).states
        ):
            continue
        yield row_of(item)


class TextSink(Protocol):
    def write(self, text: str, /) -> object: ...


def write_jsonl(rows: Iterable[dict[str, Any]], out: TextSink) -> int:
    count = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


# --- Import -------------------------------------------------------------------


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)


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
        for index, inner in enumerate(value):
            found = _find_bad_string(inner, f"{path}[{index}]")
            if found:
                return found
    return None


def _uuid(row: dict[str, Any], key: str, *, required: bool) -> uuid.UUID | None:
    value = row.get(key)
    if value is None:
        if required:
            raise BadLine(f"{key} is missing")
        return None
    if not isinstance(value, str):
        raise BadLine(f"{key} must be a UUID string, got {type(value).__name__}")
    try:
        return uuid.UUID(value)
    except ValueError:
        raise BadLine(f"{key} is not a UUID: {value!r}") from None


def _text(row: dict[str, Any], key: str, *, max_length: int, nullable: bool) -> str | None:
    value = row[key]
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise BadLine(f"{key} must be a string{' or null' if nullable else ''}")
    if len(value) > max_length:
        raise BadLine(f"{key} is longer than {max_length} characters")
    return value


def _moment(row: dict[str, Any], key: str) -> dt.datetime:
    parsed = states.parse_iso(row[key])
    if parsed is None:
        raise BadLine(f"{key} is not an ISO 8601 timestamp: {row[key]!r}")
    return parsed


def parse_line(text: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The item's field values and the optional company from one line, or BadLine."""
    try:
        row = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(row, dict):
        raise BadLine(f"expected a JSON object, got {type(row).__name__}")
    problem = _find_bad_string(row)
    if problem:
        raise BadLine(f"{problem}: the database cannot store it")
    values: dict[str, Any] = {"id": _uuid(row, "id", required=True)}
    values["company_id"] = _uuid(row, "company_id", required=True)
    for key in ("status", "source"):
        if key in row:
            values[key] = _text(row, key, max_length=40, nullable=False)
    if "document_id" in row:
        values["document_id"] = _uuid(row, "document_id", required=False)
    for key in ("extracted_data", "channel_context"):
        if key in row:
            values[key] = row[key]
    for key in ("whatsapp_message_id", "correlation_id"):
        if key in row:
            values[key] = _text(row, key, max_length=200, nullable=True)
    for key in ("created_at", "updated_at"):
        if key in row:
            values[key] = _moment(row, key)
    company = row.get("company")
    if company is None:
        return values, None
    if not isinstance(company, dict):
        raise BadLine("company must be an object {id, name, organisation_number}")
    company_id = _uuid(company, "id", required=False) or values["company_id"]
    if company_id != values["company_id"]:
        raise BadLine("company.id differs from company_id")
    name = company.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise BadLine("company.name must be a non-empty string of at most 200 characters")
    number = company.get("organisation_number") or ""
    if not isinstance(number, str) or len(number) > 20:
        raise BadLine("company.organisation_number must be a string of at most 20 characters")
    return values, {"id": company_id, "name": name, "organisation_number": number}


def _store(values: dict[str, Any], company: dict[str, Any] | None) -> str:
    """Create, update or leave one item; returns "created", "updated" or "unchanged"."""
    if company is not None:
        Company.objects.get_or_create(
            id=company["id"], defaults={"name": company["name"], "organisation_number": company["organisation_number"]}
        )
    elif not Company.objects.filter(pk=values["company_id"]).exists():
        raise BadLine(f'company {values["company_id"]} does not exist (add a "company" object to create it)')
    item = InboxItem.objects.select_for_update().filter(pk=values["id"]).first()
    if item is None:
        values.setdefault("updated_at", values.get("created_at") or timezone.now())
        InboxItem(**values).save(force_insert=True)
        return "created"
    changed = [key for key, value in values.items() if key != "id" and getattr(item, key) != value]
    if not changed:
        return "unchanged"
    for key in changed:
        setattr(item, key, values[key])
    item.save(update_fields=changed)
    return "updated"


def _numbered_lines(source: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(source, start=1):
        if raw.strip():
            yield number, raw


def import_lines(source: IO[bytes]) -> ImportResult:
    """Import a JSON Lines byte stream; bad lines are collected, never fatal."""
    result = ImportResult()
    lines = _numbered_lines(source)
    while True:
        chunk = list(itertools.islice(lines, CHUNK))
        if not chunk:
            return result
        with transaction.atomic():
            for number, raw in chunk:
                try:
                    try:
                        text = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        raise BadLine("not UTF-8") from None
                    values, company = parse_line(text)
                    with transaction.atomic():
                        outcome = _store(values, company)
                except BadLine as exc:
                    result.bad.append((number, str(exc)))
                    continue
                except DatabaseError as exc:
                    result.bad.append((number, f"the database refused it: {exc}".strip()))
                    continue
                setattr(result, outcome, getattr(result, outcome) + 1)
