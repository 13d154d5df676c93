"""Which companies a user may see: the assigned ones, or all with the all-companies permission.

Every path that shows, searches, opens, answers or exports an item goes
through here: the list, its counts and neighbours (``ListQuery.company_ids``,
``IndexedItem.objects.visible_to``), the item page, its document and raw
download, the answer, the preview's ``?item=`` and the APIs
(``InboxItem.objects.visible_to``, ``reviewapp.web.visible.get_visible_item_or_404``),
the lookups, the admin and ``export_items --user``. An item of another
company is a 404, exactly as one that does not exist: its id says nothing.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

ALL_COMPANIES: Final = "reviewapp.view_all_companies"
_CACHE_ATTR: Final = "_visible_company_ids"


def company_ids(user: Any) -> frozenset[uuid.UUID] | None:
    """The companies ``user`` may see, or None for every company. Cached on the user object (one request)."""
    if user.has_perm(ALL_COMPANIES):
        return None
    cached = getattr(user, _CACHE_ATTR, None)
    if cached is None:
        cached = frozenset(user.company_assignments.values_list("company_id", flat=True)) if user.pk else frozenset()
        setattr(user, _CACHE_ATTR, cached)
    return cached


def remember_company_ids(user: Any, ids: frozenset[uuid.UUID]) -> None:
    """Record ``user``'s assigned companies, read with the user (``reviewapp.web.auth_backend``): one query fewer."""
    setattr(user, _CACHE_ATTR, ids)


def can_see(user: Any, company_id: uuid.UUID | str | None) -> bool:
    allowed = company_ids(user)
    if allowed is None:
        return True
    return company_id is not None and uuid.UUID(str(company_id)) in allowed
