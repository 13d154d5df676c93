"""Soft reservations: who is answering which item, so two bookkeepers are steered apart.

Opening an item's answer form reserves it for its opener for a few minutes
(``reserve``); the queue's "next" skips items someone else holds
(``next_in_queue``, ``claim_next``) and the list shows who holds one
(``inbox.page.page_rows`` reads the same table). Nothing here blocks an answer:
the compare-and-set on the live row stays the guarantee that two answers never overwrite each other.

Everything is in the review database (``Reservation``), with the database's
clock, so any number of web hosts agree on who holds what; there is no state
in the process. A reservation ends when its holder releases it, or by itself
when it expires.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Final
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Q, QuerySet
from django.db.models.functions import Now
from django.utils import timezone

from reviewapp.core import states
from reviewapp.inbox.page import ListPage
from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.inbox.sorting import following
from reviewapp.models import ClarificationEvent, IndexedItem, IndexedItemQuerySet, Reservation, active_holds

DEFAULT_MINUTES: Final = 5
# Expired rows are harmless (every read ignores them) but are swept once
# they are this old, so the table stays as small as the number of people.
SWEEP_AFTER: Final = dt.timedelta(hours=1)

_TABLE: Final = Reservation._meta.db_table
# One statement decides the holder: a new row, or a takeover of this user's
# own or an expired one. A row another transaction holds uncommitted makes
# this wait for it, so two people reserving at once get exactly one holder.
# The same round trip sweeps other items' long-expired rows (never this
# item's: one statement must not both delete and update a row).
_TAKE: Final = f"""
    WITH swept AS (
        DELETE FROM {_TABLE}
        WHERE expires_at < statement_timestamp() - make_interval(secs => %s) AND item_id <> %s
    )
    INSERT INTO {_TABLE} AS r (item_id, user_id, expires_at)
    VALUES (%s, %s, statement_timestamp() + make_interval(secs => %s))
    ON CONFLICT (item_id) DO UPDATE SET user_id = EXCLUDED.user_id, expires_at = EXCLUDED.expires_at
    WHERE r.user_id = EXCLUDED.user_id OR r.expires_at <= statement_timestamp()
    RETURNING r.user_id
"""  # noqa: S608 - the table name is ours
_HOLDER: Final = f"SELECT user_id FROM {_TABLE} WHERE item_id = %s AND expires_at > statement_timestamp()"  # noqa: S608


def reserve(item_id: uuid.UUID | str, user: AbstractBaseUser, minutes: float = DEFAULT_MINUTES) -> AbstractBaseUser:
    """Reserve the item for ``user`` for ``minutes`` from now, unless someone else holds it; the holder.

    Returns ``user`` when the reservation is theirs (new, renewed, or taken
    over from an expired one), else the other person holding it::

        holder = queue.reserve(item.pk, request.user)
        if holder.pk != request.user.pk: ...  # "Anna is answering"
    """
    item_id = uuid.UUID(str(item_id))
    with connection.cursor() as cursor:
        # The loop only repeats when the holder let go between our two
        # statements (released, or expired that very moment).
        for _attempt in range(5):
            cursor.execute(_TAKE, [SWEEP_AFTER.total_seconds(), item_id, item_id, user.pk, minutes * 60])
            if cursor.fetchone() is not None:
                return user
            cursor.execute(_HOLDER, [item_id])
            row = cursor.fetchone()
            if row is not None:
                return get_user_model().objects.get(pk=row[0])
    raise RuntimeError(f"could not settle who holds item {item_id}")  # pragma: no cover - needs a pathological race


def release(item_id: uuid.UUID | str, user: AbstractBaseUser) -> bool:
    """Let go of ``user``'s reservation of the item (someone else's is left alone); whether there was one."""
    deleted, _ = Reservation.objects.filter(item_id=item_id, user_id=user.pk).delete()
    return deleted > 0


def _live() -> QuerySet[Reservation]:
    # Now() is the database's statement time: every host reads the same clock.
    return Reservation.objects.filter(expires_at__gt=Now())


def _held_by_others(user: AbstractBaseUser) -> QuerySet[Reservation]:
    return _live().exclude(user_id=user.pk)


def held_by_others(user: AbstractBaseUser) -> set[uuid.UUID]:
    """The items someone other than ``user`` holds now."""
    return set(_held_by_others(user).values_list("item_id", flat=True))


def next_in_queue(
    after_item: IndexedItem | None, query: ListQuery, user: AbstractBaseUser, *, waiting_only: bool = False
) -> IndexedItem | None:
    """The next item after ``after_item`` in the list ``query`` describes that nobody else holds.

    ``query`` is the list as the person chose it (``web.forms.inbox.parse_list_query``
    reads it from the query string the item page received); its filters and order are
    kept, ``page`` is ignored, so save-and-next never leaves the list the person chose.
    ``after_item`` is the item's read-model row as listed (see
    ``inbox.sorting.neighbours``); None asks for the first free item. None is
    returned when no item is left: the queue is empty. Items ``user`` holds
    are not skipped, nor offered from companies ``user`` may not see.
    ``waiting_only``: only the list's items that need an answer in the app.
    """
    items = _free(query, user)
    return following(items.needs_answer() if waiting_only else items, query, after_item)


def _free(query: ListQuery, user: AbstractBaseUser) -> IndexedItemQuerySet:
    items = filtered_items(query).exclude(pk__in=_held_by_others(user).values("item_id"))
    if states.ON_HOLD not in query.states:
        # A question on hold is skipped by "next" whatever the list, unless the list is of held ones.
        items = items.exclude(Q(state_needs_answer=True) & active_holds())
    return items


def first_free(page: ListPage, user: AbstractBaseUser) -> IndexedItem | None:
    """The first item of ``page``'s list that nobody else holds: ``next_in_queue(None, ...)`` for a page.

    The first page's rows come with their holders (``inbox.page.page_rows``), in
    the list's order, so the answer is usually among them and costs no query.
    """
    if page.number == 1:
        free = next((row.item for row in page.rows if row.holder_id in (None, user.pk)), None)
        if free is not None or len(page.rows) < page.page_size:
            return free
    return following(_free(page.query, user), page.query, None)


def claim_next(
    after_item: IndexedItem | None,
    query: ListQuery,
    user: AbstractBaseUser,
    minutes: float = DEFAULT_MINUTES,
    *,
    waiting_only: bool = False,
) -> IndexedItem | None:
    """``next_in_queue``, reserved for ``user`` before it is returned.

    Two people finishing an item at the same moment may both be offered the
    same next one; only one wins the reservation, and the other is offered
    the one after it. None when the queue is empty.
    """
    cursor_item = after_item
    while True:
        candidate = next_in_queue(cursor_item, query, user, waiting_only=waiting_only)
        if candidate is None:
            return None
        if reserve(candidate.pk, user, minutes).pk == user.pk:
            return candidate
        cursor_item = candidate


def done_today(user: AbstractBaseUser, *, now: dt.datetime | None = None) -> int:
    """How many questions ``user`` answered in the app since midnight, Stockholm time (corrections not counted)."""
    local_now = timezone.localtime(now or timezone.now(), ZoneInfo("Europe/Stockholm"))
    midnight = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    answers = ClarificationEvent.objects.filter(
        actor_id=user.pk, event_type=ClarificationEvent.ANSWERED, channel=ClarificationEvent.Channel.APP
    )
    return answers.filter(occurred_at__gte=midnight).exclude(payload__amended=True).count()
