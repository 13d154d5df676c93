"""Facet counts: the PostgreSQL tally always equals counting the rows; broad searches stop at a cap."""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.urls import reverse

from reviewapp import inbox, states
from reviewapp.inbox import counts
from reviewapp.models import InboxItem
from tests import factories
from tests.inbox.helpers import denial, note, participants_only, pending
from tests.inbox.test_states_in_db import raw_insert, raw_update_context

pytestmark = pytest.mark.django_db


def _every_structured_query(companies: list[object]) -> list[inbox.ListQuery]:
    state_sets = [(), *((k,) for k in states.STATE_KEYS), ("denied", "needs_answer"), ("malformed", "no_answers")]
    company_ids = [None, *(c.pk for c in companies)]  # type: ignore[attr-defined]
    types = [None, *states.QUESTION_TYPES]
    return [
        inbox.ListQuery(states=s, company_id=c, question_type=t)
        for s, c, t in itertools.product(state_sets, company_ids, types)
    ]


def _assert_tally_matches_rows(companies: list[object]) -> None:
    for query in _every_structured_query(companies):
        assert inbox._tally_counts(query) == inbox._aggregate_counts(query), query


@pytest.mark.postgres
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
    ]
    _assert_tally_matches_rows([a, b])
    assert inbox._tally_counts(inbox.ListQuery()).total == 5

    # Plain-SQL changes (rows go stale), an insert, then the refresh rewrites states.
    raw_update_context(str(items[0].id), note("answered"))
    raw_update_context(str(items[3].id), pending("moved_to_app", type_="representation"))
    raw_insert(a.id, pending("open", type_="context"))
    _assert_tally_matches_rows([a, b])
    inbox.refresh_stale_states()
    _assert_tally_matches_rows([a, b])

    # A row moved to another company, app saves, deletes one by one and in bulk.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE invoice_inbox_items SET company_id = %s WHERE id = %s", [str(a.id), str(items[2].id)])
    items[1].channel_context = note("settled")
    items[1].save()
    items[4].delete()
    _assert_tally_matches_rows([a, b])
    InboxItem.objects.filter(company=b).delete()
    _assert_tally_matches_rows([a, b])
    assert inbox._tally_counts(inbox.ListQuery(company_id=b.pk)).total == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_truncating_the_items_empties_the_tally():
    factories.make_item(channel_context=pending("moved_to_app"))
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE invoice_inbox_items CASCADE")
    assert inbox._tally_counts(inbox.ListQuery()).total == 0


@pytest.mark.postgres
def test_the_list_counts_come_from_the_tally_on_postgresql(qa_client, company):
    factories.make_item(company=company, channel_context=pending("moved_to_app"))
    # Make the tally disagree with the rows on purpose: the page must show the tally.
    with connection.cursor() as cursor:
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


@pytest.mark.postgres
def test_a_search_leaves_the_planner_settings_as_it_found_them(qa_client):
    factories.make_item(channel_context=note("kontorsmaterial"))
    assert qa_client.get(reverse("api_items"), {"q": "kontorsmaterial"}).json()["count"] == 1
    with connection.cursor() as cursor:
        cursor.execute("SHOW enable_seqscan")
        assert cursor.fetchone()[0] == "on"
