"""Save-and-next: the next item of the list the person chose that nobody else holds, or None at its end."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.http import QueryDict

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories
from tests.inbox.helpers import indexed, listed, note, pending

QUEUE = "state=needs_answer&sort=queue"
DAY = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)


def _asked(days: int) -> str:
    return (DAY + dt.timedelta(days=days)).isoformat()


def _bookkeeper(username: str) -> User:
    # Firm-wide, like tests/conftest.py's bookkeeper: the queue's order is the
    # subject here; tests/access/ covers bookkeepers assigned some companies.
    user = factories.make_user(roles.BOOKKEEPER, username=username)
    user.user_permissions.add(Permission.objects.get(codename="view_all_companies"))
    return user


@pytest.fixture
def anna(db):  # type: ignore[no-untyped-def]
    return _bookkeeper("anna")


@pytest.fixture
def bea(db):  # type: ignore[no-untyped-def]
    return _bookkeeper("bea")


def _queue_of(company, count: int) -> list[IndexedItem]:  # type: ignore[no-untyped-def]
    """``count`` questions moved to the app a day apart, oldest first; received in the opposite order."""
    items = [
        factories.make_item(
            company=company,
            channel_context=pending("moved_to_app", asked_at=_asked(n)),
            created_at=DAY - dt.timedelta(days=n),
        )
        for n in range(count)
    ]
    return [indexed(item.id) for item in items]


@pytest.mark.django_db
def test_next_is_the_following_item_in_the_queues_order(anna, company):
    first, second, third = _queue_of(company, 3)
    assert reservations.next_in_queue(first, listed(QUEUE, anna), anna) == second
    assert reservations.next_in_queue(second, listed(QUEUE, anna), anna) == third
    assert reservations.next_in_queue(None, listed(QUEUE, anna), anna) == first


@pytest.mark.django_db
def test_next_follows_whatever_order_the_list_had(anna, company):
    first, second, third = _queue_of(company, 3)
    # Oldest received first is the queue's order backwards: third was received first.
    assert reservations.next_in_queue(second, listed("state=needs_answer&sort=oldest", anna), anna) == first
    assert reservations.next_in_queue(third, listed(QueryDict("state=needs_answer&sort=oldest"), anna), anna) == second
    assert reservations.next_in_queue(first, listed("state=needs_answer&sort=oldest", anna), anna) is None


@pytest.mark.django_db
def test_next_skips_items_someone_else_holds_but_not_ones_own(anna, bea, company):
    first, second, third, _fourth = _queue_of(company, 4)
    reservations.reserve(second.id, bea)
    reservations.reserve(third.id, anna)
    assert reservations.next_in_queue(first, listed(QUEUE, anna), anna) == third
    assert reservations.next_in_queue(first, listed(QUEUE, bea), bea) == second
    assert reservations.next_in_queue(None, listed(QUEUE, bea), bea) == first


@pytest.mark.django_db
def test_next_is_none_at_the_end_of_a_filtered_queue_even_with_items_beyond_the_filter(anna, company):
    first, second = _queue_of(company, 2)
    # Later in the same order, but for another company or not needing an answer.
    factories.make_item(channel_context=pending("moved_to_app", asked_at=_asked(5)))
    factories.make_item(company=company, channel_context=note("klart"))
    filtered = f"{QUEUE}&company={company.id}"
    assert reservations.next_in_queue(first, listed(filtered, anna), anna) == second
    assert reservations.next_in_queue(second, listed(filtered, anna), anna) is None


@pytest.mark.django_db
def test_next_is_none_when_everything_left_is_held_by_others(anna, bea, company):
    first, second, third = _queue_of(company, 3)
    reservations.reserve(second.id, bea)
    reservations.reserve(third.id, bea)
    assert reservations.next_in_queue(first, listed(QUEUE, anna), anna) is None


@pytest.mark.django_db
def test_an_empty_queue_has_no_first_item(anna, company):
    factories.make_item(company=company, channel_context=note("klart"))
    assert reservations.next_in_queue(None, listed(QUEUE, anna), anna) is None


@pytest.mark.django_db
def test_after_answering_the_next_comes_from_where_the_item_was_listed(anna, company):
    first, second = _queue_of(company, 2)
    as_listed = IndexedItem.objects.get(pk=first.pk)
    live = InboxItem.objects.get(pk=first.pk)
    live.channel_context = note("answered in the app")
    live.save(update_fields=["channel_context"])
    sync.index_items([live.pk])
    assert not indexed(first.pk).state_needs_answer
    assert reservations.next_in_queue(as_listed, listed(QUEUE, anna), anna) == second


@pytest.mark.django_db
def test_an_expired_hold_does_not_hide_an_item(anna, bea, company):
    first, second = _queue_of(company, 2)
    reservations.reserve(second.id, bea, minutes=-1)
    assert reservations.next_in_queue(first, listed(QUEUE, anna), anna) == second


@pytest.mark.django_db
def test_claim_next_reserves_what_it_returns(anna, bea, company):
    first, second, third = _queue_of(company, 3)
    assert reservations.claim_next(None, listed(QUEUE, anna), anna) == first
    assert reservations.held_by_others(bea) == {first.id}
    # Bea, starting at the top too, is given the next one nobody holds.
    assert reservations.claim_next(None, listed(QUEUE, bea), bea) == second
    assert reservations.claim_next(second, listed(QUEUE, bea), bea) == third
    assert reservations.claim_next(first, listed(QUEUE, anna), anna) is None


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_people_working_one_queue_at_once_are_never_given_the_same_item():
    company = factories.make_company()
    items = _queue_of(company, 24)
    anna, bea = _bookkeeper("anna"), _bookkeeper("bea")
    barrier = threading.Barrier(2, timeout=10)
    given: dict[str, list[str]] = {"anna": [], "bea": []}

    def work(user) -> None:  # type: ignore[no-untyped-def]
        try:
            barrier.wait()
            current = None
            while (current := reservations.claim_next(current, listed(QUEUE, user), user)) is not None:
                given[user.username].append(str(current.id))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(user,)) for user in (anna, bea)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not set(given["anna"]) & set(given["bea"])
    assert sorted(given["anna"] + given["bea"]) == sorted(str(item.id) for item in items)


@pytest.mark.django_db
def test_next_in_a_list_of_answered_items_offers_them_unless_only_waiting_ones_are_asked_for(anna, company):
    answered = indexed(factories.make_item(company=company, channel_context=note("klart")).id)
    _queue_of(company, 1)
    assert reservations.next_in_queue(None, listed("state=answered", anna), anna) == answered
    assert reservations.next_in_queue(None, listed("state=answered", anna), anna, waiting_only=True) is None
