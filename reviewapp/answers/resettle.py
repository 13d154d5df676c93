"""Putting back the conversation's ``'answered'`` mark of an app answer that accounted's sweep undid.

An app answer marks the item's ``recent_questions`` entries ``'answered'``
(``conversation.mark_answered``), so a late chat reply becomes a follow-up
note instead of an answer written over the app's. accounted's 48-hour sweep
(``erp-mafia/accounted`` 66851ff, ``whatsapp-inbox/lib/sweep.ts`` pass 3)
writes the whole conversation context it read before, by ``id`` and
``state`` only, with no compare on ``updated_at``: when it read before the
app's mark and writes after it, the entry is ``'open'`` or ``'moved_to_app'``
again, after the app's transaction committed. Nothing in accounted puts it
back, and the next unquoted or quoted reply is routed onto the app's answer.

``resettle_app_answers`` runs on every poll of the sync (inside its advisory
lock, so one host does it per round) and marks such entries again:

- only answers the app logged in the last 7 days (``LATE_REPLY_WINDOW``): a
  reply is routed only to questions asked within 7 days
  (``conversation.ts`` ``LATE_ANSWER_MAX_AGE_MS``), and an answer is younger
  than its question, so an older answer's entry can no longer be reached;
- only in the conversations the app's log says held the item's entries when
  it answered (primary-key reads, no scan of every conversation);
- never an item the chat answered since: the live row must still hold the
  app's answer (``log.app_answer_in_place``) and its ``pending_question`` must
  still be the one the app wrote ``'answered'``; both are checked under a
  share lock on the item, so the intake's next write waits for the mark;
- with the answer's own compare-and-set (``conversation.mark_answered``);
  run twice, the second run finds nothing to do.

Each mark is logged; the count goes into the sync's output.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections import defaultdict
from typing import Any, Final

from django.db import DatabaseError, connections, transaction
from django.utils import timezone

from reviewapp.answers.conversation import ConversationBusy, mark_answered
from reviewapp.answers.log import COMPARED, app_answer_in_place, app_answers
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core.stored_json import decode_json
from reviewapp.models import ClarificationEvent

log = logging.getLogger(__name__)

LATE_REPLY_WINDOW: Final = dt.timedelta(days=7)

# The logged conversations' entries about the logged items that are not 'answered'.
_UNMARKED: Final = """
    SELECT c.id, e ->> 'inbox_item_id'
    FROM public.whatsapp_conversations c
    CROSS JOIN LATERAL jsonb_array_elements(
        CASE WHEN jsonb_typeof(c.context -> 'recent_questions') = 'array'
             THEN c.context -> 'recent_questions' ELSE '[]'::jsonb END
    ) AS e
    WHERE c.id = ANY(%s::uuid[])
      AND jsonb_typeof(e) = 'object'
      AND e ->> 'inbox_item_id' = ANY(%s::text[])
      AND e ->> 'status' IS DISTINCT FROM 'answered'
"""


def _logged_pairs(since: dt.datetime) -> dict[str, set[str]]:
    """Item id → the conversations the app's answers to it recorded, for answers since ``since``."""
    pairs: dict[str, set[str]] = defaultdict(set)
    rows = ClarificationEvent.objects.filter(
        event_type=ClarificationEvent.ANSWERED, channel=ClarificationEvent.Channel.APP, occurred_at__gte=since
    ).values_list("item_id", "payload__conversations")
    for item_id, conversations in rows:
        for change in conversations if isinstance(conversations, list) else []:
            conversation_id = _uuid(change.get("id") if isinstance(change, dict) else None)
            if conversation_id is not None:
                pairs[str(item_id)].add(conversation_id)
    return pairs


def _uuid(value: object) -> str | None:
    """The conversation id as logged, if it is one (a log entry is data: it never breaks the poll)."""
    try:
        return str(uuid.UUID(value)) if isinstance(value, str) else None
    except ValueError:
        return None


def _unmarked(pairs: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(item, conversation) among ``pairs`` whose entry is no longer ``'answered'``."""
    conversations = sorted({conversation for ids in pairs.values() for conversation in ids})
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(_UNMARKED, [conversations, sorted(pairs)])
        found = {(str(item_id), str(conversation_id)) for conversation_id, item_id in cursor.fetchall()}
    return sorted((item, conversation) for item, conversation in found if conversation in pairs.get(item, ()))


def still_the_apps(ctx: Any, events: list[ClarificationEvent]) -> bool:
    """Whether the live ``channel_context`` still holds the app's latest answer, question settled as it wrote it."""
    if not isinstance(ctx, dict):
        return False
    latest = max(
        (e for e in events if isinstance(e.payload, dict) and isinstance(e.payload.get("after"), dict)),
        key=lambda e: (e.occurred_at, e.pk or 0),
        default=None,
    )
    if latest is None:
        return False
    written = latest.payload["after"].get("pending_question")
    if not isinstance(written, dict) or ctx.get("pending_question") != written:
        return False
    question = latest.question_type
    return question not in COMPARED or app_answer_in_place(ctx, question, events) is not None


def _resettle_item(item_id: str, conversation_ids: list[str]) -> int:
    """Mark the item's entries again in these conversations if the app's answer still stands; how many marked."""
    events = app_answers(item_id)
    marked = 0
    with transaction.atomic(using=BOOKKEEPING_DB), connections[BOOKKEEPING_DB].cursor() as cursor:
        # Same lock order as an answer (item, then conversation): no deadlock with one.
        cursor.execute(
            "SELECT channel_context::text FROM public.invoice_inbox_items WHERE id = %s FOR SHARE", [item_id]
        )
        row = cursor.fetchone()
        if row is None or not still_the_apps(decode_json(row[0]), events):
            log.info("re-settle: item %s no longer holds the app's answer; left to the chat", item_id)
            return 0
        for conversation_id in conversation_ids:
            count = mark_answered(conversation_id, item_id) or 0
            if count:
                log.info(
                    "re-settle: marked %d entr(y/ies) of item %s 'answered' again in conversation %s",
                    count,
                    item_id,
                    conversation_id,
                )
            marked += count
    return marked


def resettle_app_answers(now: dt.datetime | None = None) -> int:
    """Re-mark the app's answers of the last 7 days whose conversation entry lost its mark; how many items.

    A conversation that keeps changing, or an item whose row cannot be read,
    is skipped with a log line: the next poll tries again.
    """
    pairs = _logged_pairs((now or timezone.now()) - LATE_REPLY_WINDOW)
    if not pairs:
        return 0
    by_item: dict[str, list[str]] = defaultdict(list)
    for item_id, conversation_id in _unmarked(pairs):
        by_item[item_id].append(conversation_id)
    resettled = 0
    for item_id, conversation_ids in by_item.items():
        try:
            if _resettle_item(item_id, conversation_ids):
                resettled += 1
        except (ConversationBusy, DatabaseError):
            log.exception("re-settle: item %s skipped this round", item_id)
    return resettled
