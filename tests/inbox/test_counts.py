"""Facet counts: the tally always equals counting the rows; broad searches stop at a cap."""

from __future__ import annotations

import itertools

import pytest
from django.db import connections
from django.urls import reverse

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import roles, states
from reviewapp.inbox import counts, holds
from reviewapp.inbox.counts import Counts, tally_counts
from reviewapp.inbox.query import ListQuery
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories
from tests.inbox.helpers import (
    denial,
    indexed,
    journal_entry,
    note,
    participants_only,
    pending,
    raw_insert,
    raw_update_context,
)

pytestmark = pytest.mark.django_db


def _every_structured_query(companies: list[Company]) -> list[ListQuery]:
    state_sets = [
        (),
        *((k,) for k in states.LIST_STATE_KEYS),
        ("denied", "needs_answer"),
        ("denied", "on_hold"),
        ("needs_answer", "on_hold"),
        ("malformed", "no_answers"),
        ("booked", "waiting_in_chat"),
    ]
    company_ids = [None, *(c.pk for c in companies)]
    types = [None, *states.QUESTION_TYPES]
    return [
        ListQuery(states=s, company_id=c, question_type=t)
        for s, c, t in itertools.product(state_sets, company_ids, types)
    ]


def _counted_row_by_row(query: ListQuery) -> Counts:
    """The same numbers counted in Python over the read model's rows, without the tally.

    The rule, spelled out independently: the list shows rows in any ticked
    state (all rows when none is ticked); a state's number is its rows that
    are in no other ticked state.
    """
    rows = IndexedItem.objects.all()
    if query.company_id:
        rows = rows.filter(company_id=query.company_id)
    if query.question_type:
        # The open question's type, or the answered question's.
        rows = [row for row in rows if query.question_type in (row.open_question_type, row.answered_question_type)]
    ticked = set(query.states)
    total = 0
    facets = dict.fromkeys(states.LIST_STATE_KEYS, 0)
    held = set(IndexedItem.objects.on_hold().values_list("pk", flat=True))
    for row in rows:
        found = set(row.state_keys)
        if row.pk in held:
            # A question on hold waits in the app, but the list counts it as on hold only.
            found = (found - {states.NEEDS_ANSWER}) | {states.ON_HOLD}
        if not ticked or found & ticked:
            total += 1
        for key in found:
            if not found & (ticked - {key}):
                facets[key] += 1
    return Counts(total=total, facets=facets)


def _assert_tally_matches_rows(companies: list[Company]) -> None:
    for query in _every_structured_query(companies):
        assert tally_counts(query) == _counted_row_by_row(query), query


def test_the_tally_equals_counting_rows_after_every_kind_of_write():
    a, b = factories.make_company(), factories.make_company()
    items = [
        factories.make_item(company=a, channel_context=pending("moved_to_app", type_="resend")),
        factories.make_item(
            company=a, channel_context={**denial(), "pending_question": pending("open")["pending_question"]}
        ),
        factories.make_item(company=b, channel_context=participants_only("Eva")),
        factories.make_item(company=b, channel_context=note("x")),
        factories.make_item(company=b, channel_context=["malformed"]),
        factories.make_item(
            company=b, channel_context=pending("moved_to_app"), created_journal_entry_id=journal_entry(b)
        ),
    ]
    _assert_tally_matches_rows([a, b])
    assert tally_counts(ListQuery()).total == 6

    # Questions put on hold leave "needs answer" for "on hold" (a denial among them stays a denial).
    held = factories.make_item(
        company=a, channel_context={**denial(), "pending_question": pending("moved_to_app")["pending_question"]}
    )
    user = factories.make_user(roles.BOOKKEEPER)
    for item in (items[0], held):
        holds.put_hold(indexed(item.id), user, until=holds.default_until(), reason="called", note="")
    _assert_tally_matches_rows([a, b])
    assert tally_counts(ListQuery(states=("on_hold",))).total == 2
    assert tally_counts(ListQuery(states=("needs_answer",))).total == 0
    InboxItem.objects.filter(pk=held.pk).delete()
    sync.index_items([held.id])

    # Plain-SQL changes and an insert by another program, then a poll (the first walks every row).
    raw_update_context(items[0].id, note("answered"))
    raw_update_context(items[3].id, pending("moved_to_app", type_="representation"))
    raw_insert(a, pending("open", type_="context"))
    sync.poll()
    _assert_tally_matches_rows([a, b])
    assert [tally_counts(ListQuery(company_id=c.pk)).total for c in (a, b)] == [3, 4]

    # Re-indexing unchanged rows changes nothing.
    sync.index_items([item.id for item in items])
    _assert_tally_matches_rows([a, b])

    # A row moved to another company, booked, rows deleted in accounted, then in bulk here.
    InboxItem.objects.filter(pk=items[2].pk).update(company=a)
    InboxItem.objects.filter(pk=items[1].pk).update(created_journal_entry_id=journal_entry(a))
    InboxItem.objects.filter(pk=items[4].pk).delete()
    sync.index_items([items[1].id, items[2].id, items[4].id])
    _assert_tally_matches_rows([a, b])
    assert tally_counts(ListQuery(company_id=b.pk)).total == 2
    IndexedItem.objects.filter(company_id=b.pk).delete()
    _assert_tally_matches_rows([a, b])
    assert tally_counts(ListQuery(company_id=b.pk)).total == 0


def test_truncating_the_read_model_empties_the_tally():
    factories.make_item(channel_context=pending("moved_to_app"))
    with connections["default"].cursor() as cursor:
        cursor.execute(f"TRUNCATE {IndexedItem._meta.db_table}")
    assert tally_counts(ListQuery()).total == 0


def test_the_list_counts_come_from_the_tally(qa_client, company):
    factories.make_item(company=company, channel_context=pending("moved_to_app"))
    # Make the tally disagree with the rows on purpose: the page must show the tally.
    with connections["default"].cursor() as cursor:
        cursor.execute("UPDATE inbox_state_tally SET n = n + 40")
    assert qa_client.get(reverse("api_items")).json()["count"] == 41


def test_counts_with_a_search_stop_at_the_cap_and_say_so(qa_client, monkeypatch):
    monkeypatch.setattr(counts, "COUNT_CAP", 3)
    for _ in range(5):
        factories.make_item(channel_context=note("kontorsmaterial"), extracted_data=None)
    data = qa_client.get(reverse("api_items"), {"q": "kontorsmaterial"}).json()
    assert data["count"] == 3
    assert data["exact"] is False
    assert data["facets"]["answered"] == 3
    assert data["facets"]["needs_answer"] == 0
    body = qa_client.get(reverse("inbox"), {"q": "kontorsmaterial"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "of 3+ items" in body
    assert 'data-state="answered">3+<' in body


def test_counts_with_a_search_under_the_cap_are_exact(qa_client, monkeypatch):
    monkeypatch.setattr(counts, "COUNT_CAP", 3)
    for _ in range(2):
        factories.make_item(channel_context=note("kontorsmaterial"), extracted_data=None)
    supplier = {"supplier": {"name": "Kontorsmaterial AB"}}
    factories.make_item(channel_context=pending("moved_to_app"), extracted_data=supplier)
    factories.make_item(channel_context=note("annat"))
    data = qa_client.get(reverse("api_items"), {"q": "kontorsmaterial"}).json()
    assert (data["count"], data["exact"]) == (3, True)
    assert data["facets"]["needs_answer"] == 1
    assert data["facets"]["answered"] == 2


def test_counts_without_a_search_are_exact_past_the_cap(qa_client, monkeypatch):
    monkeypatch.setattr(counts, "COUNT_CAP", 3)
    for _ in range(5):
        factories.make_item(channel_context=note("x"))
    data = qa_client.get(reverse("api_items"), {"state": "answered"}).json()
    assert data["count"] == 5
    assert data["exact"] is True
    body = qa_client.get(reverse("inbox"), {"state": "answered"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-state="answered">5<' in body
    assert "of 5 items" in body


def test_a_search_leaves_the_planner_settings_as_it_found_them(qa_client):
    factories.make_item(channel_context=note("kontorsmaterial"))
    assert qa_client.get(reverse("api_items"), {"q": "kontorsmaterial"}).json()["count"] == 1
    with connections["default"].cursor() as cursor:
        cursor.execute("SHOW enable_seqscan")
        assert cursor.fetchone()[0] == "on"
