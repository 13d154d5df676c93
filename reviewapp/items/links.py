"""Linked items: an item whose resend question was settled by a newer item, and that newer item.

accounted keeps no link: a new photo in the chat is an ordinary new item.
The app's own answer log does: a resend answered in the app with "replaced
by item X" or with an uploaded file logs ``payload.resend`` =
``{"choice": "replaced"|"upload", "new_item_id": ...}`` on the old item's
``ClarificationEvent`` (``reviewapp.answers.writing``). Both item pages and
``GET /api/items/<id>`` read the link from there, in both directions.

A linked item of a company the reader may not see (``reviewapp.core.access``) is
left out, as if there were no link: its id, supplier and who linked it are
not shown. A linked item no longer in accounted's table has no company to
check and is shown as gone.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from django.db.models import Q

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import access
from reviewapp.core.people import actor_name
from reviewapp.core.rendering_caps import PERSON_TEXT_MAX_CHARS
from reviewapp.items.caps import Cuts, with_cuts
from reviewapp.models import ClarificationEvent

REPLACED: Final = "replaced"
UPLOADED: Final = "uploaded"

# The answer log's resend choices, as link kinds.
_KINDS: Final = {"replaced": REPLACED, "upload": UPLOADED}

#: At most this many older items listed as replaced by one item.
LINK_LIMIT: Final = 20


@dataclass(frozen=True, slots=True)
class LinkedItem:
    """The other item of a link, with who made the link and when."""

    item_id: uuid.UUID
    kind: str
    at: dt.datetime
    by: str
    exists: bool
    supplier_name: str | None
    cut: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "item_id": str(self.item_id),
                "kind": self.kind,
                "at": self.at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
                "by": self.by or None,
                "exists": self.exists,
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class ItemLinks:
    replaced_by: LinkedItem | None = None
    replaces: tuple[LinkedItem, ...] = ()

    def __bool__(self) -> bool:
        return self.replaced_by is not None or bool(self.replaces)


def _resend(event: ClarificationEvent) -> tuple[uuid.UUID, str] | None:
    """The newer item and the link's kind an answer event records, or None."""
    payload = event.payload if isinstance(event.payload, dict) else {}
    resend = payload.get("resend")
    if not isinstance(resend, dict) or not isinstance(resend.get("new_item_id"), str):
        return None
    try:
        new_id = uuid.UUID(resend["new_item_id"])
    except ValueError:
        return None
    choice = resend.get("choice")
    return new_id, _KINDS.get(choice if isinstance(choice, str) else "", REPLACED)


def _actor(event: ClarificationEvent) -> str:
    return actor_name(event.actor, event.actor_label)


def _answers() -> Any:
    return ClarificationEvent.objects.filter(event_type=ClarificationEvent.ANSWERED, question_type="resend")


def item_links(item_id: uuid.UUID, user: Any = None) -> ItemLinks:
    """The item that replaced this one (the latest resend answer) and the items this one replaced (one query).

    With ``user``, only the linked items of companies ``user`` may see (or
    gone from accounted's table); without, every one (a command, a test).
    """
    events = (
        _answers()
        .filter(Q(item_id=item_id) | Q(payload__resend__new_item_id=str(item_id)))
        .select_related("actor")
        .order_by("occurred_at", "id")[: LINK_LIMIT + 1]
    )
    newer: tuple[uuid.UUID, str, ClarificationEvent] | None = None
    older: list[tuple[uuid.UUID, str, ClarificationEvent]] = []
    for event in events:
        found = _resend(event)
        if found is None:
            continue
        if event.item_id == item_id:
            newer = (*found, event)  # oldest first: the latest answer wins
        elif found[0] == item_id:
            older.append((event.item_id, found[1], event))
    linked = [*([newer] if newer else []), *older]
    if not linked:
        return ItemLinks()
    live = _live({other for other, _, _ in linked})

    def hidden(other: uuid.UUID) -> bool:
        row = live.get(other)
        return user is not None and row is not None and not access.can_see(user, row.company_id)

    def view(other: uuid.UUID, kind: str, event: ClarificationEvent) -> LinkedItem:
        row = live.get(other)
        cuts = Cuts()
        supplier = row.supplier_name if row is not None else None
        return LinkedItem(
            item_id=other,
            kind=kind,
            at=event.occurred_at,
            by=cuts.required("by", _actor(event), max_chars=PERSON_TEXT_MAX_CHARS),
            exists=row is not None,
            supplier_name=cuts.text("supplier_name", supplier, max_chars=PERSON_TEXT_MAX_CHARS),
            cut=cuts.original,
        )

    return ItemLinks(
        replaced_by=view(*newer) if newer and not hidden(newer[0]) else None,
        replaces=tuple(view(*link) for link in older if not hidden(link[0])),
    )


def _live(ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, InboxItem]:
    """The linked items still in accounted's table (an item can be deleted there)."""
    rows = InboxItem.objects.filter(pk__in=list(ids)).only("id", "company_id", "extracted_data")
    return {row.pk: row for row in rows}
