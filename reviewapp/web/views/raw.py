"""The stored JSON of an item, downloaded exactly as accounted's database holds it.

The item page and the API show at most a capped part of a long value
(``reviewapp.core.rendering_caps``); this is the "show all". PostgreSQL prints the
jsonb column itself (``channel_context::text``), so a value Python cannot
decode (a 5 000-digit number, 10 000-deep nesting) downloads too.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Final

from django.contrib.auth.decorators import permission_required
from django.db.models import TextField
from django.db.models.functions import Cast
from django.http import Http404, HttpRequest, StreamingHttpResponse
from django.views.decorators.http import require_safe

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles

# The jsonb columns that may be downloaded.
COLUMNS: Final = ("channel_context", "extracted_data")
_CHUNK: Final = 64 * 1024


def _stored_text(request: HttpRequest, item_id: uuid.UUID, column: str) -> str | None:
    """The column as PostgreSQL prints it (``channel_context::text``), never decoded in Python.

    Http404 when there is no such column, no such item, or the item is of a
    company the user may not see (``InboxItem.objects.visible_to``: the same
    answer as a missing item, so the id says nothing).
    """
    if column not in COLUMNS:
        raise Http404("No such column")
    items = InboxItem.objects.visible_to(request.user).filter(pk=item_id)
    row = items.values_list("pk", Cast(column, TextField())).first()
    if row is None:
        raise Http404("No such item")
    return row[1]


def _chunks(text: str) -> Iterator[bytes]:
    # Encoded a piece at a time: a 26 MB value is never copied whole as bytes.
    for start in range(0, len(text), _CHUNK):
        yield text[start : start + _CHUNK].encode("utf-8")


@require_safe
@permission_required(roles.VIEW_RAW, raise_exception=True)
def item_raw(request: HttpRequest, item_id: uuid.UUID, column: str) -> StreamingHttpResponse:
    """``GET /items/<id>/raw/<column>/``: the stored value as an ``application/json`` download."""
    text = _stored_text(request, item_id, column)
    if text is None:
        # SQL NULL: nothing is stored, which is not a JSON document either.
        raise Http404("Nothing stored")
    response = StreamingHttpResponse(_chunks(text), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{item_id}-{column}.json"'
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response
