"""A warning, never a refusal, about an event date that looks mistyped.

A representation's event date in the future, or more than a year before the
receipt's own date, is most likely a typo (2031 for 2021, a wrong month), but
it may be true, so the answer is saved as typed and the bookkeeper is told::

    event_date_warning("2031-05-02", receipt_date=date(2026, 5, 2), today=date(2026, 5, 3))  # "… in the future …"
    event_date_warning("2026-05-01", receipt_date=date(2026, 5, 2), today=date(2026, 5, 3))  # None
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.bookkeeping.models import InboxItem

MAX_BEFORE_RECEIPT: Final = dt.timedelta(days=365)


def event_date_warning(event_date: str | None, *, receipt_date: dt.date | None, today: dt.date) -> str | None:
    """What looks wrong about ``event_date`` (``YYYY-MM-DD``), or None; an unreadable date is the form's business."""
    try:
        day = dt.date.fromisoformat(event_date or "")
    except ValueError:
        return None
    if day > today:
        return _("The event date %(date)s is in the future. It is saved as typed: check it.") % {"date": day}
    if receipt_date is not None and day < receipt_date - MAX_BEFORE_RECEIPT:
        return _(
            "The event date %(date)s is more than a year before the receipt's date (%(receipt)s). "
            "It is saved as typed: check it."
        ) % {"date": day, "receipt": receipt_date}
    return None


def receipt_date(item: InboxItem) -> dt.date:
    """The receipt's own date as read from it (``invoice.invoiceDate``), else the day it arrived."""
    data: Any = item.extracted_data if isinstance(item.extracted_data, dict) else {}
    invoice = data.get("invoice") if isinstance(data.get("invoice"), dict) else {}
    try:
        return dt.date.fromisoformat(str(invoice.get("invoiceDate") or "")[:10])
    except ValueError:
        return timezone.localdate(item.created_at)


def item_event_date_warning(item: InboxItem, event_date: str | None) -> str | None:
    """``event_date_warning`` for ``item``, today in the app's time zone (Stockholm)."""
    return event_date_warning(event_date, receipt_date=receipt_date(item), today=timezone.localdate())


def warnings_json(item: InboxItem, event_date: str | None) -> list[dict[str, str]]:
    """The JSON API's ``warnings`` for an answer with ``event_date``: ``[{"field", "message"}]``, [] when none."""
    warning = item_event_date_warning(item, (event_date or "").strip())
    return [{"field": "event_date", "message": warning}] if warning else []
