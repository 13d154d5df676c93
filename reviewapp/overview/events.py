"""The overview's copy of accounted's question events: each sync poll reads the new ones.

accounted's ``processing_history`` is append-only and numbers its rows with
``seq`` (a bigserial with a unique index), so the new events are the ones
past the last ``seq`` read (``SyncState.history_seq``), found through that
index in ranges of ``BATCH``. Each poll reads again from ``SEQ_OVERLAP``
before the mark: a transaction that took its number earlier can commit after
a later one, and an event copied twice is one row (its ``event_id``).

Copied: the sweep's ``ChannelQuestionExpired`` (a question moved to the app)
and ``ChannelQuestionAnswered`` written by the chat itself (actor
``{"type": "system", "id": "whatsapp-inbound"}``, the contract's question
event; the app's own carry ``review-app`` or a linked user's id). For a chat
answer to a representation question, whether the item then holds
``"denied": true`` (the event's payload names only the question type).
"""

from __future__ import annotations

import json
from typing import Final

from django.db import connections, transaction

from reviewapp.models import OverviewEvent, SyncState
from reviewapp.overview.numbers import CHAT_ACTOR, ZONE_NAME
from reviewapp.routers import BOOKKEEPING_DB

BATCH: Final = 50_000
# About a day of events at 1 M items in three years (2.3 per item): far more than any
# transaction stays open, and each poll re-reads only this much (21 ms at 10 000).
SEQ_OVERLAP: Final = 2_000

_SELECT: Final = """
    SELECT h.event_id, h.seq, h.company_id, h.aggregate_id,
           CASE WHEN h.event_type = 'ChannelQuestionExpired' THEN 'moved' ELSE 'chat' END,
           coalesce(h.payload ->> 'question_type', ''),
           h.occurred_at, (h.occurred_at AT TIME ZONE %(zone)s)::date,
           coalesce((SELECT i.channel_context -> 'representation' -> 'denied' = 'true'::jsonb
                     FROM public.invoice_inbox_items i
                     WHERE h.event_type = 'ChannelQuestionAnswered'
                       AND h.payload ->> 'question_type' = 'representation'
                       AND i.id = h.aggregate_id), false)
    FROM public.processing_history h
    WHERE h.seq > %(after)s AND h.seq <= %(upto)s
      AND h.aggregate_type = 'System'
      AND (h.event_type = 'ChannelQuestionExpired'
           OR (h.event_type = 'ChannelQuestionAnswered' AND h.actor @> %(chat)s::jsonb))
"""


def copy_new() -> int:
    """Copy the question events past the mark (less the overlap); how many rows were new. Call under the sync's lock."""
    state, _ = SyncState.objects.get_or_create(pk=1)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT max(seq) FROM public.processing_history")
        newest = cursor.fetchone()[0]
    if newest is None:
        return 0
    copied = 0
    after = max(state.history_seq - SEQ_OVERLAP, 0)
    while after < newest:
        upto = min(after + BATCH, newest)
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(_SELECT, {"zone": ZONE_NAME, "after": after, "upto": upto, "chat": json.dumps(CHAT_ACTOR)})
            rows = cursor.fetchall()
        with transaction.atomic():
            created = OverviewEvent.objects.bulk_create(
                [
                    OverviewEvent(
                        event_id=event_id,
                        seq=seq,
                        company_id=company_id,
                        item_id=item_id,
                        kind=kind,
                        question_type=question_type[:20],
                        occurred_at=occurred_at,
                        day=day,
                        denied=bool(denied),
                    )
                    for event_id, seq, company_id, item_id, kind, question_type, occurred_at, day, denied in rows
                ],
                ignore_conflicts=True,
            )
            copied += len(created)
            SyncState.objects.filter(pk=1, history_seq__lt=upto).update(history_seq=upto)
        after = upto
    return copied
