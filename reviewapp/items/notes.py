"""Notes for colleagues on an item: plain text in the review database, kept for good.

The author may correct a note for ``EDIT_WINDOW`` after writing it; after that
it is never changed or removed, only followed by another (the server refuses,
whatever the page shows). Never written to accounted's tables.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.core import states
from reviewapp.core.people import person_name
from reviewapp.models import ItemNote

MAX_CHARS: Final = 2_000
EDIT_WINDOW: Final = dt.timedelta(minutes=10)
# A search names at most this many items by their notes (the rest still match their own texts).
SEARCH_LIMIT: Final = 1_000


class NoteLocked(Exception):
    """The note is someone else's, or its edit window has passed."""


def add_note(
    item_id: uuid.UUID, company_id: uuid.UUID, user: AbstractBaseUser, text: str, *, now: dt.datetime | None = None
) -> ItemNote:
    """A new note by ``user`` (``text`` already cleaned)."""
    return ItemNote.objects.create(
        item_id=item_id, company_id=company_id, text=text, author_id=user.pk, created_at=now or timezone.now()
    )


def may_edit(note: ItemNote, user: AbstractBaseUser, now: dt.datetime | None = None) -> bool:
    """Only its author, and only within ``EDIT_WINDOW`` of writing it (the boundary itself is too late)."""
    return note.author_id == user.pk and (now or timezone.now()) < note.created_at + EDIT_WINDOW


def edit_note(note: ItemNote, user: AbstractBaseUser, text: str, *, now: dt.datetime | None = None) -> ItemNote:
    """``note`` with its text replaced; raises ``NoteLocked`` outside the author's window.

    The check is repeated in the UPDATE itself, so a request that started
    inside the window cannot land after it.
    """
    now = now or timezone.now()
    if not may_edit(note, user, now):
        raise NoteLocked(_("A note can be changed only by its author, within 10 minutes of writing it."))
    changed = ItemNote.objects.filter(pk=note.pk, author_id=user.pk, created_at__gt=now - EDIT_WINDOW).update(
        text=text, edited_at=now
    )
    if not changed:
        raise NoteLocked(_("A note can be changed only by its author, within 10 minutes of writing it."))
    note.text, note.edited_at = text, now
    return note


def notes_of(item_id: uuid.UUID) -> list[ItemNote]:
    return list(ItemNote.objects.select_related("author").filter(item_id=item_id).order_by("created_at", "pk"))


def note_json(note: ItemNote) -> dict[str, Any]:
    return {
        "id": note.pk,
        "text": note.text,
        "by": person_name(note.author),
        "at": states.to_iso(note.created_at),
        "edited_at": states.to_iso(note.edited_at),
    }


def items_with_note_text(text: str) -> list[uuid.UUID]:
    """The items with a note holding every word of ``text`` (as the list searches), at most ``SEARCH_LIMIT``.

    Read first, as a short list of ids, so the list's own search keeps its
    trigram index and adds these ids beside it.
    """
    words = text.lower().split()
    if not words:
        return []
    condition = Q()
    for word in words:
        condition &= Q(text__icontains=word)
    found = ItemNote.objects.filter(condition).values_list("item_id", flat=True).distinct()
    return list(found[:SEARCH_LIMIT])


def matching_notes(item_ids: list[uuid.UUID], text: str) -> dict[uuid.UUID, list[str]]:
    """For a page's rows: the texts of their notes holding every word of ``text``."""
    words = text.lower().split()
    found: dict[uuid.UUID, list[str]] = {}
    if not words or not item_ids:
        return found
    condition = Q(item_id__in=item_ids)
    for word in words:
        condition &= Q(text__icontains=word)
    for item_id, note_text in ItemNote.objects.filter(condition).order_by("created_at").values_list("item_id", "text"):
        found.setdefault(item_id, []).append(note_text)
    return found
