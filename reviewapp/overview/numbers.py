"""The overview's numbers, each aggregated in SQL and grouped by Europe/Stockholm day.

Three statements on the review database, whatever the period (7, 30 or 90
days) or the number of items, and none on accounted's:

1. the question events the sync copied into ``OverviewEvent`` (every sync
   poll: ``reviewapp.overview.events``), per day, kind and person: the
   questions accounted's 48-hour sweep moved to the app
   (``ChannelQuestionExpired``), the answers the chat wrote
   (``ChannelQuestionAnswered`` by the chat's own actor), the answers
   written in the app (its own log, ``ClarificationEvent``, corrections
   left out: they are not new answers), and of the answers the denials. One
   index answers it (``overview_event_company_day_idx`` for a user scoped to
   companies, ``overview_event_day_idx`` for one who sees them all);
2. the read model (``IndexedItem``): the queue now in one statement, its size
   from the read model's tally (``inbox_state_tally``), its oldest wait and the
   distribution of waits from ``moved_to_app_at``, and
3. the median as the middle row(s) of the queue's own index
   (``index_queue_idx``) rather than a sort of every waiting row.

Every statement is scoped to the companies the user may see (``reviewapp.core.access``).
An answer written in the app is counted from the sync's next poll on (two
seconds with ``sync_index --follow``), as the chat's are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo

from django.db import connections
from django.utils import timezone

from reviewapp.core import access, states
from reviewapp.core.people import person_name
from reviewapp.inbox.counts import state_bits
from reviewapp.inbox.query import SORT_QUEUE
from reviewapp.inbox.sorting import ordered
from reviewapp.models import IndexedItem, OverviewEvent
from reviewapp.overview.events import ZONE_NAME

ZONE: Final = ZoneInfo(ZONE_NAME)
PERIODS: Final = (7, 30, 90)
DEFAULT_PERIOD: Final = 30

# Each kind of copied event's place in a day's totals (moved, in the app, in the chat).
_COLUMN: Final = {OverviewEvent.MOVED: 0, OverviewEvent.APP: 1, OverviewEvent.CHAT: 2}

_NEEDS_ANSWER_BIT: Final = state_bits([states.NEEDS_ANSWER])

# The key of the "everyone else" line in ``overview``'s grouping (never a user id or a logged label).
_OTHERS: Final = "others"
# Upper bounds of the waiting-time buckets, in days; the last bucket is open.
WAIT_BUCKET_DAYS: Final = (1, 3, 7, 14, 30)

# Grouped first, named after: the names of at most a few dozen people, not of every answer.
# Grouped by the person's id, not their name (numbers hash and sort in half the time
# of text); only the answers of people since deleted, whose logged name is all that
# is left of them, are grouped by it, read through their own small index.
_COUNTS_SQL: Final = """
    WITH counted AS (
        SELECT day, kind, person_id, NULL AS label, denied, count(*) AS n
        FROM reviewapp_overviewevent
        WHERE day >= %(first)s {scope} AND (kind <> %(app)s OR person_id IS NOT NULL)
        GROUP BY day, kind, person_id, denied
        UNION ALL
        SELECT day, kind, NULL, person_label, denied, count(*)
        FROM reviewapp_overviewevent
        WHERE day >= %(first)s {scope} AND kind = %(app)s AND person_id IS NULL
        GROUP BY day, kind, person_label, denied
    )
    SELECT c.day, c.kind, c.person_id,
           coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.username, c.label),
           c.denied, c.n
    FROM counted c
    LEFT JOIN auth_user u ON u.id = c.person_id
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
    # True for the line "everyone else" beside a viewer's own (``whole_team`` False): the
    # answers of the others in the companies the viewer sees, unnamed, so the lines add up
    # to the day's "answered in the app".
    others: bool = False

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
    # Questions waiting in the app that a bookkeeper put on hold (reviewapp.inbox.holds):
    # not in ``waiting`` nor the buckets, counted beside them.
    on_hold: int = 0


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


def queue_now(user: Any, now: dt.datetime) -> Queue:
    """The user's queue at ``now``: one statement of counts, then the middle of the queue in its index order.

    Each count is its own subquery on purpose: a range of ``moved_to_app_at``
    is a range of the queue's index (``index_queue_idx``), where one pass
    with a FILTER per bucket reads every waiting row's time (at 100 000
    waiting, 77 ms against about 25; bench/README.md). How many wait in all
    is a sum over the read model's tally (migration 0002, kept by triggers
    in the same transaction as every change), not a count of the queue.
    """
    visible = access.company_ids(user)
    if visible == frozenset():
        # No company: nothing waits (and Django compiles no SQL for "id IN ()").
        return Queue(0, None, None, (0,) * (len(WAIT_BUCKET_DAYS) + 1))
    waiting = IndexedItem.objects.needs_answer().visible_to(user)
    bounds = [now - dt.timedelta(days=d) for d in WAIT_BUCKET_DAYS]
    parts = {
        "waiting": _tally_waiting(visible),
        # The tally counts held questions as waiting; the queue does not.
        "on_hold": _count(IndexedItem.objects.on_hold().visible_to(user)),
        "untimed": _count(waiting.filter(moved_to_app_at__isnull=True)),
        "oldest": ordered(waiting.filter(moved_to_app_at__isnull=False), SORT_QUEUE).values("moved_to_app_at")[:1],
        # Waited less than each bound: the buckets are the differences.
        **{f"newer{n}": _count(waiting.filter(moved_to_app_at__gt=b)) for n, b in enumerate(bounds)},
    }
    row = _select(parts)
    newer = [row[f"newer{n}"] for n in range(len(bounds))]
    waiting_now = row["waiting"] - row["on_hold"]
    timed = waiting_now - row["untimed"]
    buckets = [newer[0], *(newer[n] - newer[n - 1] for n in range(1, len(newer))), timed - newer[-1]]
    oldest = row["oldest"]
    return Queue(
        waiting=waiting_now,
        oldest_waiting_hours=None if oldest is None else _hours(now - oldest),
        median_wait_hours=_median_wait(waiting, timed, now),
        buckets=tuple(buckets),
        on_hold=row["on_hold"],
    )


def _tally_waiting(companies: frozenset[Any] | None) -> tuple[str, tuple[Any, ...]]:
    # The tally's rows are sets of states as bits (``inbox.counts.state_bits``, migration 0002).
    sql = "SELECT coalesce(sum(n), 0)::bigint FROM inbox_state_tally WHERE states & %s <> 0"
    if companies is None:
        return sql, (_NEEDS_ANSWER_BIT,)
    return sql + " AND company_id = ANY(%s::uuid[])", (_NEEDS_ANSWER_BIT, [str(c) for c in companies])


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


def counts_by_day(
    companies: Sequence[str] | None, first: dt.date
) -> list[tuple[dt.date, str, int | None, str | None, bool, int]]:
    """(day, kind, person id, person's name, denied, events) from ``first`` on, for these companies (None: all)."""
    scope = "" if companies is None else "AND company_id = ANY(%(companies)s::uuid[])"
    with connections["default"].cursor() as cursor:
        cursor.execute(
            _COUNTS_SQL.format(scope=scope),
            {"first": first, "companies": list(companies or []), "app": OverviewEvent.APP},
        )
        return cursor.fetchall()


def overview(user: Any, days: int, *, whole_team: bool, now: dt.datetime | None = None) -> Overview:
    """Everything the overview shows for ``user`` over the last ``days`` Stockholm days (today included)."""
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}, not {days}")
    now = now or timezone.now()
    dates = period_dates(days, now)
    visible = access.company_ids(user)
    scope = None if visible is None else [str(c) for c in visible]

    # Per day: moved, in the app, in the chat, denied.
    totals: dict[dt.date, list[int]] = {}
    # Keyed by user id; a deleted user's answers stay under the name they were logged with.
    people: dict[int | str, tuple[str, dict[dt.date, int]]] = {}
    for day, kind, person_id, name, denied, n in counts_by_day(scope, dates[0]):
        day_totals = totals.setdefault(day, [0, 0, 0, 0])
        day_totals[_COLUMN[kind]] += n
        if denied:
            day_totals[3] += n
        if kind != OverviewEvent.APP:
            continue
        key: int | str
        if whole_team or person_id == user.pk:
            # One line a person: by id while the user exists (a rename keeps the line, under the
            # new name); a deleted user's answers under the name logged with them.
            key = person_id if person_id is not None else f"label:{name}"
        else:
            key = _OTHERS
        per_day = people.setdefault(key, (name or "?", {}))[1]
        per_day[day] = per_day.get(day, 0) + n
    if not whole_team and user.pk not in people:
        # Everyone sees their own row, zeros included.
        people[user.pk] = (person_name(user), {})

    empty = [0, 0, 0, 0]
    result_days = tuple(
        Day(
            date=day,
            moved_to_app=totals.get(day, empty)[0],
            answered_in_app=totals.get(day, empty)[1],
            answered_in_chat=totals.get(day, empty)[2],
            denied=totals.get(day, empty)[3],
        )
        for day in dates
    )
    persons = sorted(
        (
            Person(
                user_id=key if isinstance(key, int) else None,
                name="" if key == _OTHERS else name,
                per_day=tuple(counts.get(d, 0) for d in dates),
                others=key == _OTHERS,
            )
            for key, (name, counts) in people.items()
        ),
        # The viewer's own line first when it is not the whole team; then most answers first.
        key=lambda p: (p.others, -p.total, p.name.casefold()),
    )
    return Overview(days=result_days, queue=queue_now(user, now), people=tuple(persons), whole_team=whole_team)
