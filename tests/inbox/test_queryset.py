"""The read model's rules on ``IndexedItem.objects``: what the list, the queue, the export and the admin filter by."""

from __future__ import annotations

import datetime as dt

import pytest
from django.http import QueryDict

from reviewapp.core import roles
from reviewapp.inbox.query import SORT_QUEUE, filtered_items
from reviewapp.inbox.sorting import ordered
from reviewapp.models import CompanyAssignment, IndexedItem
from reviewapp.web.forms.inbox import parse_list_query
from tests import factories
from tests.inbox.helpers import denial, moved_to_app, note, pending

pytestmark = pytest.mark.django_db


def _ids(items) -> set[str]:
    return {str(pk) for pk in items.values_list("pk", flat=True)}


def test_in_states_lists_an_item_in_any_of_the_states_and_no_states_means_every_item():
    company = factories.make_company()
    waiting = factories.make_item(company, channel_context=pending("open"))
    denied = factories.make_item(company, channel_context=denial())
    plain = factories.make_item(company, channel_context=note("kaffe"))
    mine = IndexedItem.objects.for_companies([company.pk])
    assert _ids(mine.in_states("waiting_in_chat", "denied")) == {str(waiting.pk), str(denied.pk)}
    assert _ids(mine.in_states("denied")) == {str(denied.pk)}
    assert _ids(mine.in_states()) == {str(waiting.pk), str(denied.pk), str(plain.pk)}


def test_needs_answer_is_the_queue_and_the_queue_order_is_the_longest_waiting_first():
    company = factories.make_company()
    later = factories.make_item(company, channel_context=pending("moved_to_app"))
    earlier = factories.make_item(company, channel_context=pending("moved_to_app"))
    factories.make_item(company, channel_context=pending("open"))
    moved_to_app(later, dt.datetime(2026, 11, 2, 9, tzinfo=dt.UTC))
    moved_to_app(earlier, dt.datetime(2026, 11, 1, 9, tzinfo=dt.UTC))
    queue = IndexedItem.objects.for_companies([company.pk]).needs_answer()
    assert list(ordered(queue, SORT_QUEUE).values_list("pk", flat=True)) == [earlier.pk, later.pk]
    support = factories.make_user(roles.SUPPORT)
    listed = filtered_items(parse_list_query(QueryDict("state=needs_answer&sort=queue"), user=support))
    assert [pk for pk in ordered(listed, SORT_QUEUE).values_list("pk", flat=True) if pk in {earlier.pk, later.pk}] == [
        earlier.pk,
        later.pk,
    ]


def test_visible_to_a_user_with_assigned_companies_is_only_their_items():
    ours, theirs = factories.make_company(), factories.make_company()
    mine = factories.make_item(ours, channel_context=note("a"))
    factories.make_item(theirs, channel_context=note("b"))
    bookkeeper = factories.make_user(roles.BOOKKEEPER)
    CompanyAssignment.objects.create(user=bookkeeper, company_id=ours.pk)
    assert _ids(IndexedItem.objects.visible_to(bookkeeper).filter(company_id__in=[ours.pk, theirs.pk])) == {
        str(mine.pk)
    }


def test_search_needs_every_word_in_any_case_or_the_start_of_the_id():
    company = factories.make_company()
    coffee = factories.make_item(company, channel_context=note("Kaffe till kundmötet"))
    factories.make_item(company, channel_context=note("Kaffe"))
    mine = IndexedItem.objects.for_companies([company.pk])
    assert _ids(mine.search("KAFFE kundmötet")) == {str(coffee.pk)}
    assert _ids(mine.search(str(coffee.pk)[:8])) == {str(coffee.pk)}
    assert mine.search("").count() == 2
