"""Dates from accounted's rows, shown in the reader's time zone when they fit.

A timestamp column may hold any moment PostgreSQL accepts. Python holds
years 1 to 9999 only, so the last second of 9999 in UTC is year 10000 in
Stockholm: such a moment is shown in UTC rather than failing the page.
"""

from __future__ import annotations

import datetime as dt

from django.template.defaultfilters import date as date_filter
from django.utils import formats, timezone


def local_time(value: dt.datetime, zone: dt.tzinfo | None = None) -> dt.datetime:
    """``value`` in ``zone`` (the current time zone unless given), or in UTC when that would leave Python's calendar.

    The last second of 9999 UTC comes back unchanged, in UTC. A page of rows
    looks the zone up once and passes it.
    """
    if timezone.is_naive(value):
        return value
    try:
        return value.astimezone(zone or timezone.get_current_timezone())
    except OverflowError:
        return value.astimezone(dt.UTC)


def local_date(value: dt.date | str | None, arg: str = "") -> str:
    """Like ``|date``, with ``local_time``'s fallback: ``{{ item.created_at|local_date("Y-m-d H:i") }}``."""
    if value in (None, ""):
        return ""
    if not isinstance(value, dt.datetime):
        return date_filter(value, arg)
    try:
        return formats.date_format(local_time(value), arg or None)
    except AttributeError:
        return ""
