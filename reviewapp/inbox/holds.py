"""On hold: a bookkeeper who cannot answer now parks a question until a date.

A hold lives only in the review database (``Hold``). It is *active* while it
is not released, Stockholm midnight of its date is still ahead, and the item
still needs an answer in the app; the queue (``IndexedItemQuerySet.in_states``
and ``needs_answer``), ``n``, ``Ctrl+Enter`` and ``/next/`` skip active holds.
Nothing is moved: the queue orders by when the question moved to the app, so
an item whose hold ran out comes back in its old place by itself.

Whether a hold ended because the question was answered, booked or stopped
waiting in the app is read when it is shown (``hold_story``), from the read
model's states at that moment: no writer has to remember to end it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.core import states
from reviewapp.core.people import person_name
from reviewapp.models import Hold, IndexedItem

STOCKHOLM: Final = ZoneInfo("Europe/Stockholm")
MAX_DAYS: Final = 30
NOTE_MAX_CHARS: Final = 2_000


class HoldRefused(Exception):
    """The hold cannot be put: ``code`` is "not_waiting" or "already_held" (both a 409)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def stockholm_today(now: dt.datetime | None = None) -> dt.date:
    return timezone.localtime(now or timezone.now(), STOCKHOLM).date()


def next_working_day(day: dt.date) -> dt.date:
    """The first Monday–Friday after ``day`` (public holidays are not known here)."""
    following = day + dt.timedelta(days=1)
    while following.weekday() >= 5:
        following += dt.timedelta(days=1)
    return following


def default_until(now: dt.datetime | None = None) -> dt.date:
    return next_working_day(stockholm_today(now))


def latest_until(now: dt.datetime | None = None) -> dt.date:
    return stockholm_today(now) + dt.timedelta(days=MAX_DAYS)


def midnight(day: dt.date) -> dt.datetime:
    """When ``day`` starts in Stockholm: the moment a hold until ``day`` runs out."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=STOCKHOLM)


def _open(item_id: uuid.UUID) -> Hold | None:
    return Hold.objects.select_related("by").filter(item_id=item_id, released_at__isnull=True).first()


def active_hold(item: IndexedItem, now: dt.datetime | None = None) -> Hold | None:
    """The item's hold if it is active now (see the module), else None."""
    if not item.state_needs_answer:
        return None
    hold = _open(item.pk)
    if hold is None or hold.until_at <= (now or timezone.now()):
        return None
    return hold


def put_hold(
    item: IndexedItem, user: AbstractBaseUser, *, until: dt.date, reason: str, note: str, now: dt.datetime | None = None
) -> Hold:
    """Put ``item`` on hold for ``user`` until ``until`` (already validated); raises ``HoldRefused``.

    Only a question waiting in the app can be held. An unreleased hold that
    ran out is closed first; an open one is a conflict, whoever holds it, so two
    bookkeepers putting a hold at once get exactly one (the database's
    one-open-hold-per-item constraint decides the race).
    """
    now = now or timezone.now()
    if not item.state_needs_answer:
        raise HoldRefused("not_waiting", _("Only a question waiting for an answer in the app can be put on hold."))
    with transaction.atomic():
        current = active_hold(item, now)
        if current is not None:
            raise HoldRefused(
                "already_held", _("%(name)s already put this item on hold.") % {"name": person_name(current.by)}
            )
        # Only holds that ran out are closed here: closing any open one would
        # silently end a hold a colleague committed a moment ago.
        Hold.objects.filter(item_id=item.pk, released_at__isnull=True, until_at__lte=now).update(released_at=now)
        try:
            with transaction.atomic():
                return Hold.objects.create(
                    item_id=item.pk,
                    company_id=item.company_id,
                    until=until,
                    until_at=midnight(until),
                    reason=reason,
                    note=note,
                    by_id=user.pk,
                    created_at=now,
                )
        except IntegrityError:
            raise HoldRefused("already_held", _("Someone else put this item on hold just now.")) from None


def release_hold(item: IndexedItem, user: AbstractBaseUser, now: dt.datetime | None = None) -> bool:
    """End the item's active hold early (anyone who may see the item); whether there was one."""
    hold = active_hold(item, now)
    if hold is None:
        return False
    released = Hold.objects.filter(pk=hold.pk, released_at__isnull=True).update(
        released_at=now or timezone.now(), released_by_id=user.pk
    )
    return released > 0


def reason_label(reason: str) -> str:
    return str(Hold.Reason(reason).label) if reason in Hold.Reason.values else reason


def hold_json(hold: Hold | None) -> dict[str, Any] | None:
    """What the API says about an active hold (``null``: none)."""
    if hold is None:
        return None
    return {
        "until": hold.until.isoformat(),
        "until_at": states.to_iso(hold.until_at),
        "reason": hold.reason,
        "note": hold.note,
        "by": person_name(hold.by),
        "at": states.to_iso(hold.created_at),
    }


def hold_view(hold: Hold | None) -> dict[str, Any] | None:
    """An active hold as the item page shows it (None: none)."""
    if hold is None:
        return None
    return {
        "until": hold.until,
        "by_name": person_name(hold.by),
        "reason_text": reason_label(hold.reason),
        "note": hold.note,
    }


@dataclass(frozen=True, slots=True)
class HoldEvent:
    """One step of a hold's life, for the item's history."""

    at: dt.datetime
    kind: str  # "put", "released", "expired", "ended"
    text: str
    by: str = ""
    note: str = ""


def _end_why(item: IndexedItem | None) -> str:
    """Why a hold ended that the item no longer needs: from the read model's states now."""
    if item is None:
        return _("The hold ended: the item is no longer in the list.")
    if item.state_booked:
        return _("The hold ended: the item was booked.")
    if item.state_answered:
        return _("The hold ended: the question was answered.")
    return _("The hold ended: the question no longer waits for an answer in the app.")


def hold_story(item: IndexedItem | None, item_id: uuid.UUID, now: dt.datetime | None = None) -> list[HoldEvent]:
    """Every hold of the item as history events: put, and how each ended (if it has)."""
    now = now or timezone.now()
    events: list[HoldEvent] = []
    holds = Hold.objects.select_related("by", "released_by").filter(item_id=item_id).order_by("created_at", "pk")
    for hold in holds:
        until_text = hold.until.isoformat()
        events.append(
            HoldEvent(
                hold.created_at,
                "put",
                _("Put on hold until %(until)s: %(reason)s")
                % {"until": until_text, "reason": reason_label(hold.reason)},
                by=person_name(hold.by),
                note=hold.note,
            )
        )
        if hold.released_at is not None and hold.released_by is not None:
            events.append(
                HoldEvent(hold.released_at, "released", _("Released from hold"), by=person_name(hold.released_by))
            )
        elif hold.until_at <= now:
            events.append(
                HoldEvent(
                    hold.until_at, "expired", _("Back from hold (%(reason)s)") % {"reason": reason_label(hold.reason)}
                )
            )
        elif item is None or not item.state_needs_answer:
            # When exactly the question stopped waiting is the read model's last change to the row.
            at = item.indexed_at if item is not None else now
            events.append(HoldEvent(max(at, hold.created_at), "ended", _end_why(item)))
    return events


def back_from_hold(item_ids: list[uuid.UUID], now: dt.datetime | None = None) -> dict[uuid.UUID, str]:
    """For the listed items that came back from a hold that ran out (and none since): the hold's reason, shown."""
    now = now or timezone.now()
    latest: dict[uuid.UUID, Hold] = {}
    for hold in Hold.objects.filter(item_id__in=item_ids).order_by("item_id", "created_at", "pk"):
        latest[hold.item_id] = hold
    return {
        item_id: reason_label(hold.reason)
        for item_id, hold in latest.items()
        if hold.until_at <= now and (hold.released_at is None or hold.released_by_id is None)
    }
