"""The 48-hour sweep: questions the chat waited too long for move to the app.

When nobody answers a WhatsApp question within ``states.CHAT_WINDOW`` (48 h),
its ``pending_question.status`` goes from ``open`` to ``moved_to_app`` and a
``ChannelQuestionExpired`` event records it. Run every minute (cron or a
systemd timer); any number of copies may run at once.

Why it is safe to run twice at once: candidates are read in batches with
``SELECT … FOR UPDATE SKIP LOCKED`` inside one transaction per batch, so a row
is only ever in one sweep's hands, and the condition is checked again on the
locked row (the newest committed version), so a question another sweep or an
answer already settled is left alone. A row that does not qualify is never
written: its ``updated_at`` and everything else stay as they were.

Candidates come from the indexed state columns (waiting in chat, asked before
the cut-off). Rows another program changed with plain SQL are marked
``states_stale`` and their columns cannot be trusted yet, so stale rows whose
JSON says ``open`` are checked too, from the JSON itself.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from reviewapp import states
from reviewapp.models import ClarificationEvent, InboxItem

logger = logging.getLogger(__name__)

ACTOR_LABEL: Final = "expire_questions"
DEFAULT_BATCH_SIZE: Final = 500


@dataclass
class SweepResult:
    expired: list[uuid.UUID] = field(default_factory=list)
    # Open questions whose asked_at is missing or not a timestamp: left alone, reported.
    unreadable: list[uuid.UUID] = field(default_factory=list)


def _open_pending(channel_context: object) -> dict[str, Any] | None:
    if not isinstance(channel_context, dict):
        return None
    pending = channel_context.get("pending_question")
    if isinstance(pending, dict) and pending.get("status") == "open":
        return pending
    return None


def _expire_locked(item: InboxItem, *, now: dt.datetime, result: SweepResult) -> None:
    """Expire ``item``'s question if it still qualifies; ``item`` is locked by the caller."""
    pending = _open_pending(item.channel_context)
    if pending is None:
        return  # answered, expired by another sweep, or never open
    computed = states.compute(item.channel_context, item.extracted_data)
    if states.WAITING_IN_CHAT not in computed.states:
        return  # the app does not show it as waiting in the chat either
    asked_at = computed.open_question_asked_at
    if asked_at is None:
        result.unreadable.append(item.pk)
        return
    if not asked_at < now - states.CHAT_WINDOW:
        return  # exactly 48 hours is not more than 48 hours
    assert isinstance(item.channel_context, dict)
    # Only the status changes; every other key, and the question's type and
    # asked_at, stay exactly as the chat wrote them.
    item.channel_context = {**item.channel_context, "pending_question": {**pending, "status": "moved_to_app"}}
    item.updated_at = timezone.now()
    item.save(update_fields=["channel_context", "updated_at"])
    question_type = pending.get("type")
    ClarificationEvent.objects.create(
        item=item,
        event_type=ClarificationEvent.EXPIRED,
        question_type=question_type[:20] if isinstance(question_type, str) else "",
        channel=ClarificationEvent.Channel.WHATSAPP,
        actor=None,
        actor_label=ACTOR_LABEL,
        payload={"asked_at": pending.get("asked_at"), "expired_at": now.astimezone(dt.UTC).isoformat()},
        occurred_at=now,
    )
    result.expired.append(item.pk)


def _sweep(candidates: QuerySet[InboxItem], *, now: dt.datetime, batch_size: int, result: SweepResult) -> None:
    # Keyset over the primary key: a candidate that turns out not to qualify
    # is passed over, never fetched again in this run.
    last_pk: uuid.UUID | None = None
    while True:
        with transaction.atomic():
            page = candidates if last_pk is None else candidates.filter(pk__gt=last_pk)
            batch = list(page.select_for_update(skip_locked=True, of=("self",)).order_by("pk")[:batch_size])
            for item in batch:
                _expire_locked(item, now=now, result=result)
        if len(batch) < batch_size:
            return
        last_pk = batch[-1].pk


def expire_questions(*, now: dt.datetime | None = None, batch_size: int = DEFAULT_BATCH_SIZE) -> SweepResult:
    """Move every question open in the chat for more than 48 hours to the app.

    Returns the ids expired in this run and the ids of open questions whose
    ``asked_at`` could not be read (those are never expired: reported).
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    now = now or timezone.now()
    if timezone.is_naive(now):
        raise ValueError("now must carry a time zone")
    result = SweepResult()
    cutoff = now - states.CHAT_WINDOW
    fresh = InboxItem.objects.filter(state_waiting_in_chat=True, open_question_asked_at__lt=cutoff)
    stale = InboxItem.objects.filter(states_stale=True, channel_context__pending_question__status="open")
    _sweep(fresh, now=now, batch_size=batch_size, result=result)
    _sweep(stale, now=now, batch_size=batch_size, result=result)
    # Fresh rows the index already knows to be waiting without a usable asked_at.
    unreadable = InboxItem.objects.filter(
        state_waiting_in_chat=True, open_question_asked_at__isnull=True, states_stale=False
    ).values_list("pk", flat=True)
    result.unreadable.extend(pk for pk in unreadable if pk not in result.unreadable)
    if result.unreadable:
        logger.warning(
            "expire_questions: %d open question(s) without a readable asked_at left alone", len(result.unreadable)
        )
    return result
