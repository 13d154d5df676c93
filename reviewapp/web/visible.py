"""The inbox item a request may open, or a 404: the one fetch behind every item view.

The item page, its document, the answer form and its preview, the
playground's ``?item=`` and the golden case saved from an item all open the
item here. An item of a company the user may not see is filtered out by
the query itself (``InboxItem.objects.visible_to``), so it answers exactly
as a missing id does: its id says nothing. The JSON APIs use the same
``visible_to`` and answer their own JSON 404.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from reviewapp.bookkeeping.models import InboxItem, InboxItemQuerySet


def get_visible_item_or_404(
    request: HttpRequest, item_id: uuid.UUID | str, queryset: InboxItemQuerySet | None = None
) -> InboxItem:
    """The item ``item_id`` of ``queryset`` (every column by default), if ``request.user`` may see it; else Http404."""
    items = InboxItem.objects.all() if queryset is None else queryset
    return get_object_or_404(items.visible_to(request.user), pk=item_id)
