"""Save and next: the next question to answer in the list the person is working through.

The list is the one the item page was opened from (its query string, filters
and order), or the person's landing list (a bookkeeper's queue) when the page
was opened from nowhere. Only items of that list whose question waits for an
answer in the app are offered, never one outside it: when none is left the
person is told so on the list itself. Items someone else is answering are
skipped (``reviewapp.queue``), and the one offered is reserved before it is
returned, so two people finishing at the same moment are sent to different
items.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import QueryDict
from django.urls import reverse

from reviewapp import inbox, queue
from reviewapp.models import IndexedItem


@dataclass(frozen=True, slots=True)
class NextStep:
    """Where to go after saving: the next item, or the list with ``empty`` set when nothing is left."""

    url: str
    item: IndexedItem | None
    # Nothing left that nobody else holds; ``held`` counts those others hold.
    empty: bool = False
    held: int = 0


def working_list(list_query: str, user: AbstractBaseUser) -> QueryDict:
    """The list the person works through: the page's list query, else their landing list."""
    return QueryDict(list_query) if list_query else inbox.landing_query(user)


def _waiting(query: inbox.ListQuery) -> QuerySet[IndexedItem]:
    return inbox.filtered_items(query).filter(state_needs_answer=True)


def next_to_answer(listed: IndexedItem | None, list_query: str, user: AbstractBaseUser) -> NextStep:
    """The next item of the list that needs an answer and nobody else holds, reserved for ``user``.

    ``listed`` is the answered item's read-model row as it was listed (before
    the answer), so "next" is counted from where it stood; items before it
    still waiting (someone else let go of them) come after those behind it.
    """
    params = working_list(list_query, user)
    query = inbox.parse_list_query(params, user=user)
    suffix = "?" + params.urlencode() if params else ""
    free = _waiting(query).exclude(pk__in=queue.held_by_others(user))
    if listed is not None:
        free = free.exclude(pk=listed.pk)
    for start in (listed, None) if listed is not None else (None,):
        cursor = start
        while (candidate := inbox.following(free, query, cursor)) is not None:
            if queue.reserve(candidate.pk, user).pk == user.pk:
                return NextStep(url=reverse("item_detail", args=[candidate.pk]) + suffix, item=candidate)
            cursor = candidate  # taken a moment ago by someone else: the one after it
    held = _waiting(query).filter(pk__in=queue.held_by_others(user)).count()
    return NextStep(url=reverse("inbox") + suffix, item=None, empty=True, held=held)
