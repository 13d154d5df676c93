"""Previous/next within a list link: what the item page and the answer flow use.

``neighbours`` takes the item's row in the read model (the callers fetch it
by primary key) and returns read-model rows.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.contrib.auth.models import User
from django.http import QueryDict

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.inbox.sorting import neighbours
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories
from tests.inbox.helpers import indexed, journal_entry, listed, note, pending

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(support: User) -> User:
    # Sees every company: which companies a user may see is tests/access/'s subject.
    return support


T0 = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)


def _at(hours: float, **extra: object) -> IndexedItem:
    return indexed(factories.make_item(created_at=T0 + dt.timedelta(hours=hours), **extra).id)


def _walk(start: IndexedItem, query: str, direction: int, reader: User) -> list[IndexedItem]:
    seen = [start]
    while True:
        found = neighbours(seen[-1], listed(QueryDict(query), reader))[direction]
        if found is None:
            return seen
        assert found not in seen, "walking the list must never repeat an item"
        seen.append(found)


def test_next_is_the_older_item_in_the_default_newest_first_list(reader):
    old, middle, new = _at(0), _at(1), _at(2)
    assert neighbours(middle, listed(QueryDict(""), reader)) == (new, old)
    assert neighbours(new, listed(QueryDict(""), reader)) == (None, middle)
    assert neighbours(old, listed(QueryDict(""), reader)) == (middle, None)


def test_walking_next_and_previous_visits_every_item_once_even_with_equal_timestamps(reader):
    # Rows inserted in one transaction share created_at: the id breaks the tie.
    items = [_at(1), _at(1), _at(1), _at(0), _at(2), _at(2)]
    newest_first = sorted(items, key=lambda row: (row.created_at, row.id), reverse=True)
    assert _walk(newest_first[0], "", 1, reader) == newest_first
    assert _walk(newest_first[-1], "", 0, reader) == newest_first[::-1]


def test_neighbours_stay_within_the_state_filter(reader):
    first = _at(0, channel_context=pending("moved_to_app"))
    _at(1, channel_context=note("kontorsmaterial"))
    last = _at(2, channel_context=pending("moved_to_app"))
    assert neighbours(last, listed(QueryDict("state=needs_answer"), reader)) == (None, first)


def test_neighbours_stay_within_the_company_filter(reader):
    acme = factories.make_company(name="Acme AB")
    first = _at(0, company=acme)
    _at(1)
    last = _at(2, company=acme)
    assert neighbours(last, listed(QueryDict(f"company={acme.id}"), reader)) == (None, first)


def test_question_age_order_is_the_bookkeepers_queue_with_unasked_items_last(reader):
    young = _at(0, channel_context=pending("moved_to_app", asked_at="2026-11-10T09:00:00Z"))
    ancient = _at(1, channel_context=pending("moved_to_app", asked_at="2026-10-01T09:00:00Z"))
    waiting = _at(2, channel_context=pending("open", asked_at="2026-11-05T09:00:00Z"))
    unasked_old, unasked_new = _at(3, channel_context=note("a")), _at(4, channel_context=note("b"))
    assert _walk(ancient, "sort=question_age", 1, reader) == [ancient, waiting, young, unasked_old, unasked_new]
    assert _walk(unasked_new, "sort=question_age", 0, reader) == [unasked_new, unasked_old, young, waiting, ancient]
    assert neighbours(young, listed(QueryDict("sort=question_age&state=needs_answer"), reader)) == (ancient, None)


def test_an_answered_item_still_finds_the_next_question_from_where_it_was_listed(reader):
    first = _at(0, channel_context=pending("moved_to_app", asked_at="2026-10-01T09:00:00Z"))
    second = _at(1, channel_context=pending("moved_to_app", asked_at="2026-10-02T09:00:00Z"))
    as_listed = IndexedItem.objects.get(pk=first.pk)
    # The answer is written to accounted's row and indexed at once.
    live = InboxItem.objects.get(pk=first.pk)
    live.channel_context = note("answered in the app")
    live.save(update_fields=["channel_context"])
    sync.index_items([live.pk])
    assert not indexed(first.pk).state_needs_answer
    assert neighbours(as_listed, listed(QueryDict("state=needs_answer&sort=question_age"), reader))[1] == second


def test_a_booked_item_leaves_the_queue_of_questions_to_answer(reader):
    company = factories.make_company()
    first = _at(0, company=company, channel_context=pending("moved_to_app"))
    booked = _at(1, company=company, channel_context=pending("moved_to_app"))
    last = _at(2, company=company, channel_context=pending("moved_to_app"))
    InboxItem.objects.filter(pk=booked.pk).update(created_journal_entry_id=journal_entry(company))
    sync.index_items([booked.pk])
    assert neighbours(last, listed(QueryDict("state=needs_answer"), reader)) == (None, first)


def test_invalid_parameters_fall_back_to_the_defaults(reader):
    old, new = _at(0), _at(1)
    assert neighbours(old, listed(QueryDict("state=bogus&sort=sideways&page=-3&company=not-a-uuid"), reader)) == (
        new,
        None,
    )


def test_the_page_parameter_does_not_limit_the_neighbours(reader):
    old, new = _at(0), _at(1)
    assert neighbours(new, listed(QueryDict("page=7&page_size=1"), reader)) == (None, old)


def test_the_queue_order_walks_every_item_once_with_items_not_in_the_app_last(reader):
    moved_late = _at(0, channel_context=pending("moved_to_app", asked_at="2026-11-10T09:00:00Z"))
    moved_early = _at(1, channel_context=pending("moved_to_app", asked_at="2026-10-01T09:00:00Z"))
    others = sorted([_at(2, channel_context=note("a")), _at(3, channel_context=pending("open"))], key=lambda r: r.id)
    expected = [moved_early, moved_late, *others]
    assert _walk(moved_early, "sort=queue", 1, reader) == expected
    assert _walk(expected[-1], "sort=queue", 0, reader) == expected[::-1]
    assert neighbours(moved_late, listed(QueryDict("state=needs_answer&sort=queue"), reader)) == (moved_early, None)


@pytest.mark.django_db
def test_after_a_row_in_three_keys_a_tie_counts_only_on_all_the_keys_before(company):
    from reviewapp.inbox.query import SORT_QUESTION_AGE
    from reviewapp.inbox.sorting import SORTS, after_condition

    received = dt.datetime(2026, 11, 1, 8, 0, tzinfo=dt.UTC)

    def item(asked: str, item_id: str, created: dt.datetime = received) -> IndexedItem:
        made = factories.make_item(
            company=company, id=uuid.UUID(item_id), channel_context=pending("open", asked_at=asked), created_at=created
        )
        return indexed(made.id)

    # In question-age order (asked, received, id): earlier, current, later.
    earlier = item("2026-11-01T09:00:00Z", "ffffffff-0000-4000-8000-000000000000")
    current = item("2026-11-01T10:00:00Z", "00000000-0000-4000-8000-000000000001")
    later = item("2026-11-01T11:00:00Z", "00000000-0000-4000-8000-000000000002", received - dt.timedelta(days=1))
    tied = item("2026-11-01T10:00:00Z", "00000000-0000-4000-8000-000000000003", received + dt.timedelta(hours=1))
    assert earlier.open_question_asked_at < current.open_question_asked_at < later.open_question_asked_at

    values = (current.open_question_asked_at, current.created_at, current.id)
    after = IndexedItem.objects.filter(after_condition(SORTS[SORT_QUESTION_AGE], values))
    # "earlier" has the same received time and a larger id, but was asked first: it is before, not after.
    # "tied" was asked at the same moment and received later: after.
    assert set(after.values_list("id", flat=True)) == {later.id, tied.id}
