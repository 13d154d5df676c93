"""The WhatsApp conversation of an item answered in the app.

accounted's intake routes a late reply, for 7 days, to the newest
``recent_questions`` entry that is not ``'answered'`` and writes it over what
is there. So an answer given in the app marks the conversation's entries for
the item ``'answered'`` too: a late reply that quotes the question then
becomes a follow-up note, and one that does not goes to another question.

What is written follows accounted (``erp-mafia/accounted`` at ``66851ff``,
``extensions/general/whatsapp-inbox/lib/``):

- ``process-inbound.ts`` settles every answer through ``conversation.ts``
  ``markRecentQuestion``, which marks EVERY entry whose ``inbox_item_id`` is
  the item, whatever its ``type`` or status. ``question_queue`` is not part of
  that write: it is left as it is.
- The same block ("Conversation bookkeeping") deletes ``pending_question``
  and sets the state ``'idle'`` only when the reply is not ``late``, that is
  when it answered the question the conversation is awaiting
  (``conversation.ts`` ``resolveAnswerTarget``: ``late`` is "matched outside
  an awaiting_* state"), and then asks the next queued question. A question
  answered in the app has moved to the app, so it is always answered late:
  ``pending_question`` and ``state`` are left as they are. Should the
  conversation still await the item (the sweep died between writing the item
  and the conversation), ``sweep.ts``'s next pass finishes the expiry: it
  visits only conversations that are not ``'idle'``, and it is what moves the
  queued questions to the app. Setting ``'idle'`` here would strand them, as
  the app never asks a question.

Conversations are written as accounted writes them (``conversation.ts``
``updateConversation``): ``UPDATE … WHERE id = ? AND updated_at = <the value
read>``, retried up to 4 times. The row is also locked for the rest of the
answer's transaction, so the intake's own compare-and-set sees our write and
retries instead of undoing it. accounted's 48-hour sweep does not compare
(``sweep.ts`` pass 3 writes by ``id`` and ``state``), so it can still undo a
mark after our commit: ``reviewapp.answers.resettle`` puts it back.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.db import connections

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core.stored_json import decode_json

ATTEMPTS: Final = 4
ANSWERED: Final = "answered"


class ConversationBusy(Exception):
    """The conversation changed under every one of the compare-and-set attempts."""


@dataclass(frozen=True, slots=True)
class ConversationChange:
    """A conversation that holds the item's question, and how many of its entries the answer marked.

    ``marked`` may be 0 (the entries were already ``'answered'``): the app's
    log keeps the conversation anyway, so ``resettle`` knows where to look.
    """

    id: str
    marked: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "marked_answered": self.marked}


def _about(entry: object, item_id: str) -> bool:
    return isinstance(entry, dict) and entry.get("inbox_item_id") == item_id


def marked_context(context: dict[str, Any], item_id: str) -> tuple[dict[str, Any], int]:
    """``context`` with every ``recent_questions`` entry of the item ``'answered'``; how many changed.

    Pure: ``context`` is not changed. accounted's ``markRecentQuestion``: no
    filter on the entry's type, nothing else in the context touched.
    """
    recent = context.get("recent_questions")
    if not isinstance(recent, list):
        return dict(context), 0
    marked = 0
    entries = []
    for entry in recent:
        if _about(entry, item_id) and entry.get("status") != ANSWERED:
            entry = {**entry, "status": ANSWERED}
            marked += 1
        entries.append(entry)
    return {**context, "recent_questions": entries}, marked


_FIND: Final = """
    SELECT id FROM public.whatsapp_conversations
    WHERE context -> 'recent_questions' @> %(entry)s::jsonb
    ORDER BY id
"""


def settle_in_conversations(item_id: uuid.UUID | str) -> list[ConversationChange]:
    """Mark the item's entries ``'answered'`` in every conversation holding one; inside the answer's transaction."""
    item = str(item_id)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(_FIND, {"entry": json.dumps([{"inbox_item_id": item}])})
        ids = [row[0] for row in cursor.fetchall()]
    changes = []
    for conversation_id in ids:
        marked = mark_answered(conversation_id, item)
        if marked is not None:
            changes.append(ConversationChange(str(conversation_id), marked))
    return changes


def mark_answered(conversation_id: uuid.UUID | str, item_id: str) -> int | None:
    """Mark the item's entries in one conversation ``'answered'``, with the compare-and-set; how many changed.

    None when the conversation is gone or its context is not a readable
    object (not ours to repair). Nothing is written when nothing changes.
    Raises ``ConversationBusy`` after 4 lost compare-and-sets.
    """
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        for _attempt in range(ATTEMPTS):
            cursor.execute(
                "SELECT context::text, updated_at FROM public.whatsapp_conversations WHERE id = %s FOR UPDATE",
                [conversation_id],
            )
            row = cursor.fetchone()
            if row is None:
                return None
            context = decode_json(row[0])
            if not isinstance(context, dict):
                return None
            new, marked = marked_context(context, item_id)
            if not marked:
                return 0
            cursor.execute(
                "UPDATE public.whatsapp_conversations SET context = %s::jsonb WHERE id = %s AND updated_at = %s",
                [json.dumps(new), conversation_id, row[1]],
            )
            if cursor.rowcount == 1:
                return marked
    raise ConversationBusy(str(conversation_id))
