"""The item's history: accounted's ``processing_history`` and the app's own answer log, in one timeline.

accounted's log (the bookkeeping database) records what the intake, its
cron and other programs did: a question asked in the chat, answered there,
expired. The app's log (the review database) records the answers written
here, with the whole ``channel_context`` before and after. The two are read
separately, each bounded, and merged by time.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from typing import Any, Final

from reviewapp import states
from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
from reviewapp.items.changes import answer_change
from reviewapp.items.item_view import EventView
from reviewapp.items.labels import EVENT_LABELS, channel_label
from reviewapp.models import ClarificationEvent

#: The most recent entries shown; an item's history is short, a runaway writer's is not.
HISTORY_LIMIT: Final = 200

#: How far apart the two logs' records of one app answer may be. The answer
#: path writes both in one request; anything further apart is two events.
SAME_ANSWER_WINDOW: Final = dt.timedelta(seconds=5)

ACCOUNTED: Final = "accounted"
APP: Final = "app"


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _question_label(question_type: str) -> str:
    return str(states.QUESTION_TYPE_LABELS.get(question_type, question_type))


def accounted_event(row: ProcessingHistory) -> EventView:
    """One ``processing_history`` row; its actor is ``{"type": ..., "id": ..., "label"?: ...}``."""
    actor = _dict(row.actor)
    payload = _dict(row.payload)
    question_type = _text(payload.get("question_type"))
    channel = _text(payload.get("channel"))
    actor_id = actor.get("id")
    return EventView(
        event_type=row.event_type,
        label=str(EVENT_LABELS.get(row.event_type, row.event_type)),
        question_type=question_type,
        question_label=_question_label(question_type),
        occurred_at=row.occurred_at,
        actor=_text(actor.get("label")).strip() or (str(actor_id) if actor_id not in (None, "") else "?"),
        actor_type=_text(actor.get("type")),
        channel=channel,
        channel_label=channel_label(channel) if channel else "",
        change=None,
        source=ACCOUNTED,
    )


def app_event(event: ClarificationEvent) -> EventView:
    """One event of the app's own log; its actor is the review user who answered."""
    user = event.actor
    actor = (user.get_full_name() or user.get_username()) if user is not None else event.actor_label
    change = answer_change(event.payload) if event.event_type == ClarificationEvent.ANSWERED else None
    return EventView(
        event_type=event.event_type,
        label=str(EVENT_LABELS.get(event.event_type, event.event_type)),
        question_type=event.question_type,
        question_label=_question_label(event.question_type),
        occurred_at=event.occurred_at,
        actor=actor,
        actor_type="review_user" if user is not None else "",
        channel=event.channel,
        channel_label=channel_label(event.channel),
        change=change,
        source=APP,
    )


def _same_happening(app: EventView, accounted: EventView) -> bool:
    return (
        app.event_type == accounted.event_type
        and (not app.question_type or not accounted.question_type or app.question_type == accounted.question_type)
        and abs(app.occurred_at - accounted.occurred_at) <= SAME_ANSWER_WINDOW
    )


def merge(accounted: Iterable[EventView], app: Iterable[EventView], *, limit: int = HISTORY_LIMIT) -> list[EventView]:
    """Both logs in one timeline, oldest first, at most the ``limit`` most recent entries.

    An app answer that accounted's log records too (same event type and
    question, within ``SAME_ANSWER_WINDOW``) is one entry: the app's, which
    names the person and holds the before/after. Entries at the same moment
    keep accounted's first.
    """
    # Each log comes oldest first; the sorts are stable, so each keeps its own order within a moment.
    theirs = sorted(accounted, key=lambda e: e.occurred_at)
    ours: list[EventView] = []
    for event in sorted(app, key=lambda e: e.occurred_at):
        twin = next((other for other in theirs if _same_happening(event, other)), None)
        if twin is not None:
            theirs.remove(twin)
            event = dataclasses.replace(event, also_in_accounted=True)
        ours.append(event)
    timeline = sorted([*theirs, *ours], key=lambda e: (e.occurred_at, e.source != ACCOUNTED))
    return timeline[-limit:] if limit else []


def item_history(item: InboxItem, *, limit: int = HISTORY_LIMIT) -> list[EventView]:
    """The item's merged history (two queries, one per database), oldest first."""
    rows = list(
        ProcessingHistory.objects.filter(company_id=item.company_id, aggregate_id=item.pk)
        .only("event_type", "occurred_at", "seq", "actor", "payload")
        .order_by("-occurred_at", "-seq")[:limit]
    )
    events = list(
        ClarificationEvent.objects.filter(item_id=item.pk)
        .select_related("actor")
        .order_by("-occurred_at", "-id")[:limit]
    )
    return merge(
        [accounted_event(row) for row in reversed(rows)], [app_event(event) for event in reversed(events)], limit=limit
    )
