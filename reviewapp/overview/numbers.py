"""The overview's numbers, each aggregated in SQL and grouped by Europe/Stockholm day.

Three statements, whatever the period (7, 30 or 90 days) or the number of items:

1. accounted's ``processing_history`` (the ``bookkeeping`` database), through
   its index ``(company_id, occurred_at)``: per day, the questions
   accounted's 48-hour sweep moved to the app (``ChannelQuestionExpired``),
   the answers the chat wrote (``ChannelQuestionAnswered`` whose actor is the
   chat's, ``{"type": "system", "id": "whatsapp-inbound"}``: the app's own
   events carry ``review-app`` or a linked user's id), and of those the
   representation answers whose item now holds ``"denied": true`` (the
   event's payload says only the question type; the denial is in the row);
2. the app's own answer log (``ClarificationEvent``): per day and person,
   the answers written in the app, and of those the denials (the log keeps
   what was entered, ``payload.answer.denied``); corrections
   (``payload.amended``) are not new answers and are left out;
3. the read model (``IndexedItem``): the queue now, its size, oldest and
   median wait and the distribution of waits, from ``moved_to_app_at``.

Every statement is scoped to the companies the user may see
(``reviewapp.access``). The chat's events are read for those companies by
id even for a user who sees every company (ids from the sync's copy of
accounted's companies), so the index on ``(company_id, occurred_at)`` serves
it instead of a scan of the whole log.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo

from django.db import connections
from django.db.models import Aggregate, Count, FloatField, Min, Q
from django.db.models.functions import Extract
from django.utils import timezone

from reviewapp import access, index
from reviewapp.models import ClarificationEvent, IndexedItem
from reviewapp.routers import BOOKKEEPING_DB

ZONE_NAME: Final = "Europe/Stockholm"
ZONE: Final = ZoneInfo(ZONE_NAME)
PERIODS: Final = (7, 30, 90)
DEFAULT_PERIOD: Final = 30
# The chat's actor on the events it writes (the contract's question event, and
# accounted's whatsapp-inbound extension).
CHAT_ACTOR: Final = {"type": "system", "id": "whatsapp-inbound"}

# Upper bounds of the waiting-time buckets, in days; the last bucket is open.
WAIT_BUCKET_DAYS: Final = (1, 3, 7, 14, 30)

_HISTORY_SQL: Final = """
    SELECT (h.occurred_at AT TIME ZONE %(zone)s)::date AS day,
           count(*) FILTER (WHERE h.event_type = 'ChannelQuestionExpired') AS moved,
           count(*) FILTER (WHERE h.event_type = 'ChannelQuestionAnswered' AND h.actor @> %(chat)s::jsonb) AS chat,
           count(denial.item) AS denied
    FROM public.processing_history h
    -- Only the chat's representation answers look at their item, each by its
    -- primary key (LIMIT keeps the planner from hashing the whole table).
    LEFT JOIN LATERAL (
        SELECT i.id AS item FROM public.invoice_inbox_items i
        WHERE h.event_type = 'ChannelQuestionAnswered'
          AND h.actor @> %(chat)s::jsonb
          AND h.payload ->> 'question_type' = 'representation'
          AND i.id = h.aggregate_id
          AND i.channel_context -> 'representation' -> 'denied' = 'true'::jsonb
        LIMIT 1
    ) AS denial ON true
    WHERE h.company_id = ANY(%(companies)s::uuid[])
      AND h.occurred_at >= %(start)s
      AND h.aggregate_type = 'System'
      AND h.event_type IN ('ChannelQuestionExpired', 'ChannelQuestionAnswered')
    GROUP BY 1
"""

_LOG_SQL: Final = """
    SELECT (e.occurred_at AT TIME ZONE %(zone)s)::date AS day,
           e.actor_id,
           coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.username, e.actor_label) AS name,
           count(*) AS answered,
           count(*) FILTER (WHERE e.payload -> 'answer' -> 'denied' = 'true'::jsonb) AS denied
    FROM reviewapp_clarificationevent e
    LEFT JOIN auth_user u ON u.id = e.actor_id
    {scope}
    WHERE e.event_type = %(answered)s
      AND e.channel = %(channel)s
      AND e.occurred_at >= %(start)s
      AND (e.payload -> 'amended') IS DISTINCT FROM 'true'::jsonb
    GROUP BY 1, 2, 3
"""
_LOG_SCOPE: Final = "JOIN reviewapp_indexeditem i ON i.id = e.item_id AND i.company_id = ANY(%(companies)s::uuid[])"


@dataclass(frozen=True, slots=True)
class Day:
    date: dt.date
    moved_to_app: int = 0
    answered_in_app: int = 0
    answered_in_chat: int = 0
    denied: int = 0


@dataclass(frozen=True, slots=True)
class Person:
    """One person's answers in the app, one count per day of the period (oldest first)."""

    user_id: int | None
    name: str
    per_day: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.per_day)


@dataclass(frozen=True, slots=True)
class Queue:
    waiting: int
    oldest_waiting_hours: float | None
    median_wait_hours: float | None
    # Items per bucket of WAIT_BUCKET_DAYS, plus the open last one.
    buckets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Overview:
    days: tuple[Day, ...]
    queue: Queue
    people: tuple[Person, ...]
    # True: ``people`` holds everyone who answered; False: only the viewer.
    whole_team: bool


def period_dates(days: int, now: dt.datetime) -> tuple[dt.date, ...]:
    """The ``days`` Stockholm days ending today, oldest first."""
    today = now.astimezone(ZONE).date()
    return tuple(today - dt.timedelta(days=offset) for offset in range(days - 1, -1, -1))


def period_start(first: dt.date) -> dt.datetime:
    """Midnight in Stockholm at the start of ``first`` (23:00 or 22:00 UTC the day before)."""
    return dt.datetime.combine(first, dt.time(), tzinfo=ZONE)


class _Median(Aggregate):
    function = "percentile_cont"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def queue_now(user: Any, now: dt.datetime) -> Queue:
    """The user's queue at ``now``: one statement over the read model's needs-answer rows."""
    waits: dict[str, Any] = {}
    bounds = [now - dt.timedelta(days=d) for d in WAIT_BUCKET_DAYS]
    newer = None
    for n, bound in enumerate(bounds):
        # Waited less than WAIT_BUCKET_DAYS[n] (and at least the bucket before).
        condition = Q(moved_to_app_at__gt=bound)
        if newer is not None:
            condition &= Q(moved_to_app_at__lte=newer)
        waits[f"bucket{n}"] = Count("id", filter=condition)
        newer = bound
    waits[f"bucket{len(bounds)}"] = Count("id", filter=Q(moved_to_app_at__lte=bounds[-1]))
    row = (
        IndexedItem.objects.needs_answer()
        .visible_to(user)
        .aggregate(
            waiting=Count("id"),
            oldest=Min("moved_to_app_at"),
            # In UTC: Django would extract from the Stockholm wall-clock time, an hour off.
            median_epoch=_Median(Extract("moved_to_app_at", "epoch", tzinfo=dt.UTC)),
            **waits,
        )
    )
    oldest = row["oldest"]
    median = row["median_epoch"]
    return Queue(
        waiting=row["waiting"],
        oldest_waiting_hours=None if oldest is None else _hours(now - oldest),
        median_wait_hours=None if median is None else _hours(now - dt.datetime.fromtimestamp(median, dt.UTC)),
        buckets=tuple(row[f"bucket{n}"] for n in range(len(bounds) + 1)),
    )


def _hours(delta: dt.timedelta) -> float:
    return round(max(delta.total_seconds(), 0.0) / 3600, 1)


def _companies_in_scope(user: Any) -> list[str]:
    ids = access.company_ids(user)
    if ids is None:
        ids = frozenset(company_id for company_id, _name, _archived in index.synced().companies)
    return [str(company_id) for company_id in ids]


def _chat_by_day(companies: Sequence[str], start: dt.datetime) -> dict[dt.date, tuple[int, int, int]]:
    if not companies:
        return {}
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            _HISTORY_SQL,
            {"zone": ZONE_NAME, "chat": json.dumps(CHAT_ACTOR), "companies": list(companies), "start": start},
        )
        return {day: (moved, chat, denied) for day, moved, chat, denied in cursor.fetchall()}


def _app_by_day(companies: Sequence[str] | None, start: dt.datetime) -> list[tuple[dt.date, int | None, str, int, int]]:
    scope = "" if companies is None else _LOG_SCOPE
    with connections["default"].cursor() as cursor:
        cursor.execute(
            _LOG_SQL.format(scope=scope),
            {
                "zone": ZONE_NAME,
                "answered": ClarificationEvent.ANSWERED,
                "channel": ClarificationEvent.Channel.APP.value,
                "start": start,
                "companies": list(companies or []),
            },
        )
        return cursor.fetchall()


def overview(user: Any, days: int, *, whole_team: bool, now: dt.datetime | None = None) -> Overview:
    """Everything the overview shows for ``user`` over the last ``days`` Stockholm days (today included)."""
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}, not {days}")
    now = now or timezone.now()
    dates = period_dates(days, now)
    start = period_start(dates[0])
    visible = access.company_ids(user)
    chat = _chat_by_day(_companies_in_scope(user), start)
    app_rows = _app_by_day(None if visible is None else [str(c) for c in visible], start)

    app: dict[dt.date, list[int]] = {}
    # Keyed by user id; a deleted user's answers stay under the name they were logged with.
    people: dict[int | str, tuple[str, dict[dt.date, int]]] = {}
    for day, actor_id, name, answered, denied in app_rows:
        totals = app.setdefault(day, [0, 0])
        totals[0] += answered
        totals[1] += denied
        if whole_team or actor_id == user.pk:
            key: int | str = actor_id if actor_id is not None else f"label:{name}"
            people.setdefault(key, (name or "?", {}))[1][day] = answered
    if not whole_team and user.pk not in people:
        # Everyone sees their own row, zeros included.
        people[user.pk] = (user.get_full_name() or user.get_username(), {})

    result_days = tuple(
        Day(
            date=day,
            moved_to_app=chat.get(day, (0, 0, 0))[0],
            answered_in_app=app.get(day, [0, 0])[0],
            answered_in_chat=chat.get(day, (0, 0, 0))[1],
            denied=app.get(day, [0, 0])[1] + chat.get(day, (0, 0, 0))[2],
        )
        for day in dates
    )
    persons = sorted(
        (
            Person(
                user_id=key if isinstance(key, int) else None,
                name=name,
                per_day=tuple(counts.get(d, 0) for d in dates),
            )
            for key, (name, counts) in people.items()
        ),
        key=lambda p: (-p.total, p.name.casefold()),
    )
    return Overview(days=result_days, queue=queue_now(user, now), people=tuple(persons), whole_team=whole_team)
