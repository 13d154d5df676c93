"""The overview's copy of the question events and of the app's answers: each sync poll reads the new ones.

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

The app's answers come from its own log (``ClarificationEvent``), by the
same poll, in the same way: past the highest log id already copied (the
copy's own rows know it: ``overview_event_app_seq_idx``), less
``ANSWER_OVERLAP`` ids for an answer whose transaction committed after a
later one's. Each is copied with its person, whether it was a denial, and
its item's company as the read model has it (the poll has just indexed the
item); corrections (``"amended": true``) are not new answers and are not
copied. A copied answer's ``event_id`` is derived from its log id, so a
copy read twice, by one host or two, is still one row.
"""

from __future__ import annotations

import json
from typing import Final

from django.db import connections, transaction

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent, OverviewEvent, SyncState

# The overview's days are Stockholm's (the firm's).
ZONE_NAME: Final = "Europe/Stockholm"
# The chat's actor on the events it writes (the contract's question event, and
# accounted's whatsapp-inbound extension).
CHAT_ACTOR: Final = {"type": "system", "id": "whatsapp-inbound"}

BATCH: Final = 50_000
# Answers logged while an earlier answer's transaction was still open: far more than
# people write in the seconds one stays open, and a poll re-reads only these.
ANSWER_OVERLAP: Final = 1_000
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

# One statement in the review database: the log, the read model and the copy are all there.
_COPY_ANSWERS: Final = """
    INSERT INTO reviewapp_overviewevent
        (event_id, seq, company_id, item_id, kind, question_type, denied, occurred_at, day, person_id, person_label)
    SELECT md5('reviewapp-answer-' || e.id)::uuid, e.id, i.company_id, e.item_id, %(kind)s, e.question_type,
           coalesce(e.payload -> 'answer' -> 'denied' = 'true'::jsonb, false),
           e.occurred_at, (e.occurred_at AT TIME ZONE %(zone)s)::date, e.actor_id, e.actor_label
    FROM reviewapp_clarificationevent e
    LEFT JOIN reviewapp_indexeditem i ON i.id = e.item_id
    WHERE e.id > %(after)s AND e.id <= %(upto)s
      AND e.event_type = %(answered)s
      AND e.channel = %(channel)s
      AND (e.payload -> 'amended') IS DISTINCT FROM 'true'::jsonb
    ON CONFLICT (event_id) DO NOTHING
"""


def copy_new() -> int:
    """Copy the new question events, then the app's new answers; how many rows were new. Call under the sync's lock."""
    return copy_question_events() + copy_app_answers()


def copy_app_answers() -> int:
    """Copy the app's answers past the highest log id copied (less the overlap); how many rows were new."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT max(seq) FROM reviewapp_overviewevent WHERE kind = %s),"
            " (SELECT max(id) FROM reviewapp_clarificationevent)",
            [OverviewEvent.APP],
        )
        copied_upto, newest = cursor.fetchone()
        if newest is None:
            return 0
        copied = 0
        after = max((copied_upto or 0) - ANSWER_OVERLAP, 0)
        while after < newest:
            upto = min(after + BATCH, newest)
            cursor.execute(
                _COPY_ANSWERS,
                {
                    "kind": OverviewEvent.APP,
                    "zone": ZONE_NAME,
                    "after": after,
                    "upto": upto,
                    "answered": ClarificationEvent.ANSWERED,
                    "channel": ClarificationEvent.Channel.APP.value,
                },
            )
            copied += cursor.rowcount
            after = upto
    return copied


def copy_question_events() -> int:
    """Copy the question events past the mark (less the overlap); how many rows were new."""
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
