"""Suggestions from the company's own answers: who attended and why before, what earlier purchases were for.

A bookkeeper answering a representation question usually types what the
same customer said for an earlier receipt (the same colleagues, "Kundmöte
med Volvo"), and a context question for a supplier is often answered as the
last one of that supplier was. ``suggestions_for`` offers those answers,
each with the item it came from and when it was given.

Where they are read: the live rows of accounted's ``invoice_inbox_items``,
never the read model, because the read model keeps only lower-cased search
text and a summary, not the participants as typed. The read is bounded and
served by accounted's own index ``(company_id, created_at DESC)``: the
company's newest ``SCAN_ITEMS`` items, of which those whose
``channel_context`` has the answer's key (``representation``, or
``context_answer``). Both the chat's and the app's answers are there in the
same shape (the contract's "channel_context, step by step", 3 and 6;
accounted's ``processAnswerMessage`` in
``extensions/general/whatsapp-inbox/lib/process-inbound.ts`` at 06a8b90
writes ``representation.participants`` as ``{name, company | null}``, and a
context answer as ``user_note`` with ``context_answer: {raw_answer,
answered_at}``; a reply it cannot read is stored as a representation with no
participants and no purpose, which offers nothing here).

Only the item's own company's items are read (the query filters on its
``company_id``), so another client's participants are never offered. A
denial names nobody and is skipped; a half answer (no purpose) still offers
its participants.

Order: what was said for the same supplier first, then the most frequent,
then the most recent; the source shown is the newest item it came from
(of the same supplier when there is one).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Final

from reviewapp.answers.inputs import CONTEXT, REPRESENTATION
from reviewapp.bookkeeping.models import InboxItem

# The company's newest items read for suggestions (accounted's company index serves it).
SCAN_ITEMS: Final = 2000
MAX_PARTICIPANTS: Final = 5
MAX_PURPOSES: Final = 4
MAX_CONTEXT: Final = 5
# A suggestion longer than this is not offered: it would not fit a field (validation's limits).
MAX_TEXT: Final = 2000
MAX_NAME: Final = 200


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One earlier answer to offer: ``kind`` participant (``name``, ``company``), purpose or context (``text``)."""

    kind: str
    text: str
    source_item: uuid.UUID
    source_at: dt.datetime
    count: int
    same_supplier: bool
    company: str = ""


@dataclass(slots=True)
class _Tally:
    count: int = 0
    same_supplier: bool = False
    source: tuple[uuid.UUID, dt.datetime] | None = None
    source_same: bool = False

    def add(self, item_id: uuid.UUID, at: dt.datetime, same: bool) -> None:
        self.count += 1
        # Rows come newest first: keep the first seen, upgraded once to one of the same supplier.
        if self.source is None or (same and not self.source_same):
            self.source, self.source_same = (item_id, at), same
        self.same_supplier = self.same_supplier or same


def _supplier_key(value: object) -> str:
    return value.strip().casefold() if isinstance(value, str) else ""


def _answered_at(value: object, fallback: dt.datetime) -> dt.datetime:
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
    return fallback


def _earlier_answers(item: InboxItem, key: str) -> list[InboxItem]:
    newest = InboxItem.objects.filter(company_id=item.company_id).order_by("-created_at", "-id").values("pk")
    return list(
        InboxItem.objects.filter(company_id=item.company_id, pk__in=newest[:SCAN_ITEMS], channel_context__has_key=key)
        .exclude(pk=item.pk)
        .only("id", "created_at", "extracted_data", "channel_context")
        .order_by("-created_at", "-id")
    )


def _ranked(tallies: dict[Any, _Tally], limit: int) -> list[tuple[Any, _Tally]]:
    def key(entry: tuple[Any, _Tally]) -> tuple[bool, int, dt.datetime]:
        tally = entry[1]
        assert tally.source is not None
        return (tally.same_supplier, tally.count, tally.source[1])

    return sorted(tallies.items(), key=key, reverse=True)[:limit]


def suggestions_for(item: InboxItem, question: str | None) -> list[Suggestion]:
    """Earlier answers of ``item``'s company to offer for ``question`` (see the module doc); [] for others."""
    supplier = _supplier_key(item.supplier_name)
    if question == REPRESENTATION:
        return _representation(item, supplier)
    if question == CONTEXT and supplier:
        return _context(item, supplier)
    return []


def _representation(item: InboxItem, supplier: str) -> list[Suggestion]:
    people: dict[tuple[str, str], _Tally] = {}
    purposes: dict[str, _Tally] = {}
    for row in _earlier_answers(item, "representation"):
        ctx = row.channel_context
        value = ctx.get("representation") if isinstance(ctx, dict) else None
        if not isinstance(value, dict) or value.get("denied") is True:
            continue
        same = bool(supplier) and _supplier_key(row.supplier_name) == supplier
        at = _answered_at(value.get("answered_at"), row.created_at)
        participants = value.get("participants")
        for person in participants if isinstance(participants, list) else []:
            name = person.get("name") if isinstance(person, dict) else None
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
                continue
            company = person.get("company")
            company = company.strip() if isinstance(company, str) and len(company) <= MAX_NAME else ""
            people.setdefault((name.strip(), company), _Tally()).add(row.pk, at, same)
        purpose = value.get("purpose")
        if isinstance(purpose, str) and purpose.strip() and len(purpose) <= MAX_TEXT:
            purposes.setdefault(purpose.strip(), _Tally()).add(row.pk, at, same)
    found = [
        _suggestion("participant", name, tally, company=company)
        for (name, company), tally in _ranked(people, MAX_PARTICIPANTS)
    ]
    found += [_suggestion("purpose", text, tally) for text, tally in _ranked(purposes, MAX_PURPOSES)]
    return found


def _context(item: InboxItem, supplier: str) -> list[Suggestion]:
    notes: dict[str, _Tally] = {}
    for row in _earlier_answers(item, "context_answer"):
        if _supplier_key(row.supplier_name) != supplier:
            continue
        ctx = row.channel_context
        if not isinstance(ctx, dict):
            continue
        note, answer = ctx.get("user_note"), ctx.get("context_answer")
        if not isinstance(note, str) or not note.strip() or len(note) > MAX_TEXT:
            continue
        at = _answered_at(answer.get("answered_at") if isinstance(answer, dict) else None, row.created_at)
        notes.setdefault(note.strip(), _Tally()).add(row.pk, at, True)
    return [_suggestion("context", text, tally) for text, tally in _ranked(notes, MAX_CONTEXT)]


def _suggestion(kind: str, text: str, tally: _Tally, *, company: str = "") -> Suggestion:
    assert tally.source is not None
    return Suggestion(
        kind=kind,
        text=text,
        company=company,
        source_item=tally.source[0],
        source_at=tally.source[1],
        count=tally.count,
        same_supplier=tally.same_supplier,
    )
