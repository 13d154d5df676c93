"""Rows for the overview's tests, written as accounted and the app write them, at moments the tests choose.

Every expected number in these tests is counted by hand from the rows a test
writes here; none comes from ``reviewapp.overview``.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections import Counter
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User

from reviewapp.bookkeeping.models import Company, InboxItem, ProcessingHistory
from reviewapp.models import ClarificationEvent, IndexedItem
from tests import factories

STOCKHOLM = ZoneInfo("Europe/Stockholm")
CHAT = {"type": "system", "id": "whatsapp-inbound"}
APP = {"type": "system", "id": "review-app"}
CRON = {"type": "cron", "id": "whatsapp-sweep"}


def stockholm_midnight(days_ago: int) -> dt.datetime:
    """Midnight in Stockholm ``days_ago`` days before today, as an aware moment."""
    today = dt.datetime.now(STOCKHOLM).date()
    return dt.datetime.combine(today - dt.timedelta(days=days_ago), dt.time(), tzinfo=STOCKHOLM)


def day_iso(days_ago: int) -> str:
    return (dt.datetime.now(STOCKHOLM).date() - dt.timedelta(days=days_ago)).isoformat()


def history(item: InboxItem, event_type: str, at: dt.datetime, *, actor: dict[str, str], question: str) -> None:
    ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id or item.pk,
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type=event_type,
        payload={"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": question},
        actor=actor,
        occurred_at=at,
    )


def app_answer(
    item: InboxItem, user: User | None, at: dt.datetime, *, question: str = "context", **answer: Any
) -> ClarificationEvent:
    amended = answer.pop("amended", False)
    return ClarificationEvent.objects.create(
        item_id=item.pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type=question,
        actor=user,
        actor_label=user.get_username() if user else "gone",
        channel=ClarificationEvent.Channel.APP,
        payload={"answer": answer or {"text": "Taxi"}, "amended": amended, "history_event_id": str(uuid.uuid4())},
        occurred_at=at,
    )


def waiting(company: Company, moved_at: dt.datetime | None) -> IndexedItem:
    """A read-model row whose question waits in the app since ``moved_at``."""
    return IndexedItem.objects.create(
        id=uuid.uuid4(),
        company_id=company.pk,
        created_at=moved_at or dt.datetime.now(dt.UTC),
        source_updated_at=dt.datetime.now(dt.UTC),
        state_needs_answer=True,
        state_no_answers=False,
        open_question_type="context",
        moved_to_app_at=moved_at,
    )


def item(company: Company, **extra: Any) -> InboxItem:
    return factories.make_item(company, indexed=True, **extra)


def expected_from_the_log(dates: tuple[dt.date, ...]) -> dict[str, tuple[int, ...]]:
    """Per person and day, the app's answers in its log, counted here without ``reviewapp.overview``.

    One line a person: the user's name now (full name, else username) while the user
    exists, the name logged with the answer once deleted; corrections left out.
    """
    counts: Counter[tuple[str, dt.date]] = Counter()
    for event in ClarificationEvent.objects.select_related("actor"):
        if event.event_type != ClarificationEvent.ANSWERED or event.payload.get("amended"):
            continue
        if event.actor is not None:
            full = f"{event.actor.first_name} {event.actor.last_name}".strip()
            who = full or event.actor.username
        else:
            who = event.actor_label
        counts[(who, event.occurred_at.astimezone(STOCKHOLM).date())] += 1
    people = {who for who, _ in counts}
    return {who: tuple(counts[(who, day)] for day in dates) for who in people}
