"""The overview's numbers, each aggregated in SQL and grouped by Europe/Stockholm day.

Three statements on the review database, whatever the period (7, 30 or 90
days) or the number of items, and none on accounted's:

1. the copy of accounted's question events (``OverviewEvent``, kept by every
   sync poll: ``reviewapp.overview.events``): per day, the questions
   accounted's 48-hour sweep moved to the app (``ChannelQuestionExpired``),
   the answers the chat wrote (``ChannelQuestionAnswered`` by the chat's own
   actor), and of those the representation answers that left the item with
   ``"denied": true``;
2. the app's own answer log (``ClarificationEvent``): per day and person,
   the answers written in the app, and of those the denials (the log keeps
   what was entered, ``payload.answer.denied``); corrections
   (``payload.amended``) are not new answers and are left out;
3. the read model (``IndexedItem``): the queue now, its size, oldest wait and
   the distribution of waits from ``moved_to_app_at`` in one aggregate, and
   the median as the middle row(s) of the queue's own index
   (``index_queue_idx``) rather than a sort of every waiting row.

Every statement is scoped to the companies the user may see (``reviewapp.access``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo

from django.db import connections
from django.utils import timezone

from reviewapp import access
from reviewapp.forms.inbox import SORT_QUEUE
from reviewapp.inbox.sorting import ordered
from reviewapp.models import ClarificationEvent, IndexedItem

ZONE_NAME: Final = "Europe/Stockholm"
ZONE: Final = ZoneInfo(ZONE_NAME)
PERIODS: Final = (7, 30, 90)
DEFAULT_PERIOD: Final = 30
# The chat's actor on the events it writes (the contract's question event, and
# accounted's whatsapp-inbound extension).
CHAT_ACTOR: Final = {"type": "system", "id": "whatsapp-inbound"}

# Upper bounds of the waiting-time buckets, in days; the last bucket is open.
WAIT_BUCKET_DAYS: Final = (1, 3, 7, 14, 30)

_EVENTS_SQL: Final = """
    SELECT day,
           count(*) FILTER (WHERE kind = 'moved') AS moved,
           count(*) FILTER (WHERE kind = 'chat') AS chat,
           count(*) FILTER (WHERE kind = 'chat' AND denied) AS denied
    FROM reviewapp_overviewevent
    WHERE day >= %(first)s {scope}
    GROUP BY day
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
# Each logged answer's item looked up by primary key (LIMIT keeps the planner
# from hashing half the read model for a bookkeeper: 290 ms at 1 M items).
_LOG_SCOPE: Final = """
    JOIN LATERAL (
        SELECT 1 FROM reviewapp_indexeditem i
        WHERE i.id = e.item_id AND i.company_id = ANY(%(companies)s::uuid[]) LIMIT 1
    ) AS visible ON true
"""


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


def queue_now(user: Any, now: dt.datetime) -> Queue:
    """The user's queue at ``now``: one statement of counts, then the middle of the queue in its index order.

    Each count is its own subquery on purpose: a range of ``moved_to_app_at``
    is a range of the queue's index (``index_queue_idx``), where one pass
    with a FILTER per bucket reads every waiting row's time (at 100 000
    waiting, 77 ms against about 25; bench/README.md).
    """
    if access.company_ids(user) == frozenset():
        # No company: nothing waits (and Django compiles no SQL for "id IN ()").
        return Queue(0, None, None, (0,) * (len(WAIT_BUCKET_DAYS) + 1))
    waiting = IndexedItem.objects.needs_answer().visible_to(user)
    bounds = [now - dt.timedelta(days=d) for d in WAIT_BUCKET_DAYS]
    parts = {
        "waiting": _count(waiting),
        "untimed": _count(waiting.filter(moved_to_app_at__isnull=True)),
        "oldest": ordered(waiting.filter(moved_to_app_at__isnull=False), SORT_QUEUE).values("moved_to_app_at")[:1],
        # Waited less than each bound: the buckets are the differences.
        **{f"newer{n}": _count(waiting.filter(moved_to_app_at__gt=b)) for n, b in enumerate(bounds)},
    }
    row = _select(parts)
    newer = [row[f"newer{n}"] for n in range(len(bounds))]
    timed = row["waiting"] - row["untimed"]
    buckets = [newer[0], *(newer[n] - newer[n - 1] for n in range(1, len(newer))), timed - newer[-1]]
    oldest = row["oldest"]
    return Queue(
        waiting=row["waiting"],
        oldest_waiting_hours=None if oldest is None else _hours(now - oldest),
        median_wait_hours=_median_wait(waiting, timed, now),
        buckets=tuple(buckets),
    )


def _count(queryset: Any) -> tuple[str, tuple[Any, ...]]:
    sql, params = queryset.order_by().values("id").query.sql_with_params()
    # Django's own compiled query, its values in params.
    return f"SELECT count(*) FROM ({sql}) AS counted", params  # noqa: S608


def _select(parts: dict[str, Any]) -> dict[str, Any]:
    """One statement: each part (a queryset of one value, or SQL with its parameters) as a scalar subquery."""
    columns, params = [], []
    for name, part in parts.items():
        sql, part_params = part if isinstance(part, tuple) else part.query.sql_with_params()
        columns.append(f"({sql}) AS {name}")
        params.extend(part_params)
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(columns), params)
        values = cursor.fetchone()
    return dict(zip(parts, values, strict=True))


def _median_wait(waiting: Any, timed: int, now: dt.datetime) -> float | None:
    """The middle wait (the mean of the two middle ones for an even count), read in the queue's index order."""
    if timed == 0:
        return None
    middle = list(
        waiting.filter(moved_to_app_at__isnull=False)
        # Not the queue's order (SORTS): without the id the company index answers alone, no table rows.
        .order_by("moved_to_app_at")
        .values_list("moved_to_app_at", flat=True)[(timed - 1) // 2 : timed // 2 + 1]
    )
    waits = [(now - moment).total_seconds() for moment in middle]
    return _hours(dt.timedelta(seconds=sum(waits) / len(waits)))


def _hours(delta: dt.timedelta) -> float:
    return round(max(delta.total_seconds(), 0.0) / 3600, 1)


def _chat_by_day(companies: Sequence[str] | None, first: dt.date) -> dict[dt.date, tuple[int, int, int]]:
    scope = "" if companies is None else "AND company_id = ANY(%(companies)s::uuid[])"
    with connections["default"].cursor() as cursor:
        cursor.execute(_EVENTS_SQL.format(scope=scope), {"first": first, "companies": list(companies or [])})
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
    scope = None if visible is None else [str(c) for c in visible]
    chat = _chat_by_day(scope, dates[0])
    app_rows = _app_by_day(scope, start)

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
