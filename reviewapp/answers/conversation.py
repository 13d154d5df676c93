"""The WhatsApp conversation of an item answered in the app.

accounted's intake routes a late reply, for 7 days, to the newest
``recent_questions`` entry that is not ``'answered'`` and writes it over what
is there. So an answer given in the app marks the conversation's entry for
the item ``'answered'`` too (a late reply then becomes a follow-up note),
drops the item from ``question_queue`` and, if the conversation still waits
for this item, clears its ``pending_question`` and sets it back to ``idle``.

Conversations are written as accounted writes them: ``UPDATE … WHERE id = ?
AND updated_at = <the value read>``, retried up to 4 times. The row is also
locked for the rest of the answer's transaction, so the intake's own
compare-and-set sees our write and retries instead of undoing it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.db import connections

from reviewapp.bookkeeping.models import decode_json
from reviewapp.routers import BOOKKEEPING_DB

ATTEMPTS: Final = 4


class ConversationBusy(Exception):
    """The conversation changed under every one of the compare-and-set attempts."""


@dataclass(frozen=True, slots=True)
class ConversationChange:
    """What the answer changed in one conversation (for the app's log)."""

    id: str
    marked: int
    dropped: int
    cleared_pending: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "marked_answered": self.marked,
            "dropped_from_queue": self.dropped,
            "cleared_pending": self.cleared_pending,
        }


def _about(entry: object, item_id: str) -> bool:
    return isinstance(entry, dict) and entry.get("inbox_item_id") == item_id


def settled_context(context: dict[str, Any], item_id: str, question: str) -> tuple[dict[str, Any], int, int, bool]:
    """``context`` with the item's question settled; also how many entries were marked and dropped.

    Pure: ``context`` is not changed. Entries of ``recent_questions`` about
    the item and of this question type (or of no type) become ``'answered'``;
    every ``question_queue`` entry about the item is dropped; a
    ``pending_question`` about the item is removed.
    """
    new = dict(context)
    marked = dropped = 0
    recent = context.get("recent_questions")
    if isinstance(recent, list):
        entries = []
        for entry in recent:
            if _about(entry, item_id) and entry.get("type") in (question, None) and entry.get("status") != "answered":
                entry = {**entry, "status": "answered"}
                marked += 1
            entries.append(entry)
        new["recent_questions"] = entries
    queue = context.get("question_queue")
    if isinstance(queue, list):
        kept = [entry for entry in queue if not _about(entry, item_id)]
        dropped = len(queue) - len(kept)
        new["question_queue"] = kept
    cleared = _about(context.get("pending_question"), item_id)
    if cleared:
        del new["pending_question"]
    return new, marked, dropped, cleared


_FIND: Final = """
    SELECT id FROM public.whatsapp_conversations
    WHERE context -> 'recent_questions' @> %(entry)s::jsonb
       OR context -> 'question_queue' @> %(entry)s::jsonb
       OR context -> 'pending_question' ->> 'inbox_item_id' = %(item)s
    ORDER BY id
"""


def settle_in_conversations(item_id: uuid.UUID | str, question: str) -> list[ConversationChange]:
    """Settle the item's question in every conversation that holds it; call inside the answer's transaction."""
    item = str(item_id)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(_FIND, {"entry": json.dumps([{"inbox_item_id": item}]), "item": item})
        ids = [row[0] for row in cursor.fetchall()]
    changes = []
    for conversation_id in ids:
        change = _settle_one(conversation_id, item, question)
        if change is not None:
            changes.append(change)
    return changes


def _settle_one(conversation_id: uuid.UUID, item_id: str, question: str) -> ConversationChange | None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        for _attempt in range(ATTEMPTS):
            cursor.execute(
                "SELECT context::text, state, updated_at FROM public.whatsapp_conversations WHERE id = %s FOR UPDATE",
                [conversation_id],
            )
            row = cursor.fetchone()
            if row is None:
                return None
            context = decode_json(row[0])
            if not isinstance(context, dict):
                # Unreadable or not an object: not ours to repair, and nothing to mark.
                return None
            new, marked, dropped, cleared = settled_context(context, item_id, question)
            if not (marked or dropped or cleared):
                return None
            state = "idle" if cleared else row[1]
            cursor.execute(
                "UPDATE public.whatsapp_conversations SET context = %s::jsonb, state = %s"
                " WHERE id = %s AND updated_at = %s",
                [json.dumps(new), state, conversation_id, row[2]],
            )
            if cursor.rowcount == 1:
                return ConversationChange(str(conversation_id), marked, dropped, cleared)
    raise ConversationBusy(str(conversation_id))
