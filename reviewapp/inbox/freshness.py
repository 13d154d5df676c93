"""How fresh the list is: when ``sync_index`` last caught up with accounted.

The list reads the read model only, so what it shows is as old as the last
poll. The page says so ("Updated 3 s ago"), warns when the sync seems to have
stopped, and says how to build the index when it never ran.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

from django.utils.timesince import timesince
from django.utils.translation import gettext as _

# ``sync_index --follow`` polls every 2 s by default: a poll older than this
# means it is not running (or cannot reach a database).
STALE_AFTER: Final = dt.timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class Freshness:
    indexed_at: dt.datetime | None
    now: dt.datetime

    @property
    def built(self) -> bool:
        return self.indexed_at is not None

    @property
    def age(self) -> dt.timedelta | None:
        if self.indexed_at is None:
            return None
        # Another host's clock may run a little ahead of ours.
        return max(self.now - self.indexed_at, dt.timedelta(0))

    @property
    def stale(self) -> bool:
        age = self.age
        return age is not None and age > STALE_AFTER

    @property
    def age_text(self) -> str:
        """``"3 s"`` under a minute, else Django's ``timesince`` (``"5 minutes"``)."""
        age = self.age
        if age is None or self.indexed_at is None:
            return ""
        if age < dt.timedelta(minutes=1):
            return _("%(seconds)d s") % {"seconds": int(age.total_seconds())}
        return timesince(self.indexed_at, self.now)
