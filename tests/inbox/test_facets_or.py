"""State facets combine with OR, and each number is what its checkbox would change.

The rule: the list shows items in any ticked state (every item when none is
ticked); beside each state, how many of its items no other ticked state
already lists. So ticking an unticked state adds exactly its number of rows,
and unticking a ticked one takes exactly its number away.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from reviewapp.core import states
from tests import factories
from tests.inbox.helpers import denial, note, participants_only, pending

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
API = reverse("api_items")


@pytest.fixture
def mixed(company):  # type: ignore[no-untyped-def]
    """Items in overlapping states, every supplier matching the search "leverant"."""
    both = factories.make_item(
        company=company, channel_context={**denial(), "pending_question": pending("moved_to_app")["pending_question"]}
    )
    denied = factories.make_item(company=company, channel_context=denial())
    needs = factories.make_item(company=company, channel_context=pending("moved_to_app"))
    waiting = factories.make_item(company=company, channel_context=pending("open"))
    answered = factories.make_item(company=company, channel_context=note("x"))
    partial = factories.make_item(company=company, channel_context=participants_only("Eva"))
    nothing = factories.make_item(company=company, channel_context=None)
    return {
        "both": both,
        "denied": denied,
        "needs": needs,
        "waiting": waiting,
        "answered": answered,
        "partial": partial,
        "nothing": nothing,
    }


def _api(client, company, ticked: tuple[str, ...], **extra: str) -> dict:  # type: ignore[no-untyped-def]
    params: dict[str, object] = {"company": str(company.id), "state": list(ticked), "page_size": "500", **extra}
    response = client.get(API, params)
    assert response.status_code == 200
    return response.json()


def test_two_ticked_states_list_the_items_in_either_once_each(qa_client, company, mixed):
    data = _api(qa_client, company, ("denied", "needs_answer"))
    assert sorted(r["id"] for r in data["results"]) == sorted(str(mixed[k].id) for k in ("both", "denied", "needs"))
    assert data["count"] == 3


def test_the_counts_beside_two_ticked_states_are_what_each_brings_in_alone(qa_client, company, mixed):
    page = qa_client.get(URL, {"company": str(company.id), "state": ["denied", "needs_answer"]}).content.decode()
    # "both" is in both ticked states: it counts for neither (unticking one keeps it listed).
    assert 'data-state="denied">1<' in page
    assert 'data-state="needs_answer">1<' in page
    # Unticked: waiting_in_chat would add its one item.
    assert 'data-state="waiting_in_chat">1<' in page
    assert "of 3 items" in page


def test_with_nothing_ticked_each_count_is_the_states_own_size(qa_client, company, mixed):
    facets = _api(qa_client, company, ())["facets"]
    assert facets["needs_answer"] == 2
    assert facets["denied"] == 2
    assert facets["waiting_in_chat"] == 1
    assert facets["no_answers"] == 1


@pytest.mark.parametrize("search", [{}, {"q": "leverant"}], ids=["tally", "counted-with-a-search"])
def test_ticking_a_state_adds_its_number_and_unticking_takes_its_number_away(qa_client, company, mixed, search):
    """Checked against the list itself, for every pair of ticked states, on both counting paths."""
    ticked_sets = [(), *((key,) for key in states.STATE_KEYS), *itertools.combinations(states.STATE_KEYS, 2)]
    checked = 0
    for ticked in ticked_sets:
        data = _api(qa_client, company, ticked, **search)
        assert data["exact"] is True
        for key in states.STATE_KEYS:
            if key in ticked:
                rest = tuple(k for k in ticked if k != key)
                if not rest:
                    continue  # unticking the only state shows every item
                after = _api(qa_client, company, rest, **search)["count"]
                assert after == data["count"] - data["facets"][key], (ticked, key)
            else:
                if not ticked:
                    after = _api(qa_client, company, (key,), **search)["count"]
                    assert after == data["facets"][key], (ticked, key)
                    continue
                after = _api(qa_client, company, (*ticked, key), **search)["count"]
                assert after == data["count"] + data["facets"][key], (ticked, key)
            checked += 1
    assert checked > 100


def test_the_page_states_the_rule_in_its_help(qa_client):
    body = qa_client.get(URL).content.decode()
    # In the help (the ? dialog), not above the rows.
    dialog = re.search(r'<dialog id="keyboard-help".*?</dialog>', body, re.DOTALL)
    assert dialog
    assert re.search(r'<p class="facet-help" id="facet-help">Ticked states combine with “any of”\.', dialog.group(0))


@pytest.mark.parametrize("search", [{}, {"q": "leverant"}], ids=["tally", "counted-with-a-search"])
def test_ticking_more_states_costs_no_more_queries(qa_client, company, mixed, search):
    def review_queries(ticked: list[str]) -> int:
        with CaptureQueriesContext(connections["default"]) as review:
            assert qa_client.get(URL, {"state": ticked, **search}).status_code == 200
        return len(review)

    one = review_queries(["denied"])
    assert review_queries(["denied", "needs_answer", "waiting_in_chat", "malformed"]) == one
    assert review_queries([]) == one
