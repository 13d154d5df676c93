"""The list's read model agrees with ``clarifications`` for every golden case.

Every golden case with a channel_context becomes an item in accounted's table
twice: as it is, and booked (a journal entry or a supplier invoice created
from it). For each state the ids the list returns must be exactly the items
whose golden summary (produced by the reference implementation) is in that
state, the facet counts must add up, and the API's summary must be the golden
one; ``malformed`` comes from ``clarifications.analyse``'s problems, which
the golden file does not record. Checked when the items are indexed directly
(as the factories and the answer path do) and again after another program
rewrites every ``channel_context`` with plain SQL and ``sync.poll`` runs.

The old stale-marking trigger on the items table and its refresh
(``refresh_stale_states``, the race tests around it) are gone with the
table: the app adds no trigger to accounted's tables. Their job, following
plain-SQL changes, is the poll's, tested here through the list.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.http import QueryDict
from django.urls import reverse

import clarifications
from reviewapp.bookkeeping.models import Company
from reviewapp.core import states
from reviewapp.inbox.sorting import neighbours
from reviewapp.readmodel import sync
from tests import factories
from tests.clarifications.golden import load_cases
from tests.inbox.helpers import (
    indexed,
    journal_entry,
    listed,
    note,
    pending,
    raw_insert,
    raw_update_context,
    raw_update_json,
    supplier_invoice,
)

# The golden file has no malformed input (the reference cannot report one);
# these are, with their summary from the library the golden file checks.
MALFORMED_CONTEXTS: list[Any] = [
    {"channel": "whatsapp", "representation": "ja"},
    {"channel": "whatsapp", "user_note": 42, "representation": {"participants": {"name": "Eva"}}},
    {"channel": "whatsapp", "pending_question": {"type": "x" * 60, "asked_at": "igår", "status": "moved_to_app"}},
    {"channel": "whatsapp", "representation": {"participants": [{"name": "Eva"}], "denied": "true"}},
    ["not", "an", "object"],
]


def expected_states(summary: dict[str, Any] | None, channel_context: object, *, booked: bool) -> set[str]:
    """The states a summary (the TypeScript shape) is in, read independently of states.py."""
    found = set()
    if booked:
        found.add("booked")
    if clarifications.analyse(channel_context).problems:
        found.add("malformed")
    if summary is None:
        return found | {"no_answers"}
    question = summary["openQuestion"]
    if question is None:
        found.add("answered")
    elif question["status"] == "moved_to_app" and not booked:
        # An answer given after booking cannot reach the verifikat.
        found.add("needs_answer")
    elif question["status"] == "open":
        found.add("waiting_in_chat")
    if summary["representationDenied"]:
        found.add("denied")
    if summary["representationPurposeMissing"]:
        found.add("purpose_missing")
    return found


def _cases() -> list[tuple[str, Any, Any, dict[str, Any] | None]]:
    """(name, channel_context, extracted_data, expected summary) for every case."""
    cases = [
        (
            case["name"],
            case["input"]["channel_context"],
            (case["input"].get("item") or {}).get("extracted_data"),
            case["expected"]["summary"],
        )
        for case in load_cases()
        if "channel_context" in case["input"]
    ]
    for n, ctx in enumerate(MALFORMED_CONTEXTS):
        summary = clarifications.summarise(ctx)
        cases.append((f"malformed {n}", ctx, None, summary.to_json() if summary else None))
    return cases


def _load_golden_items(company: Company) -> dict[str, dict[str, Any]]:
    """One item per case and one booked copy of it; case data by item id."""
    loaded = {}
    for n, (name, ctx, extracted, summary) in enumerate(_cases()):
        for booked in (False, True):
            booking: dict[str, Any] = {}
            if booked:
                # Either column books an item.
                if n % 2:
                    booking["created_journal_entry_id"] = journal_entry(company)
                else:
                    booking["created_supplier_invoice_id"] = supplier_invoice(company)
            item = factories.make_item(company=company, channel_context=ctx, extracted_data=extracted, **booking)
            loaded[str(item.id)] = {"name": name, "context": ctx, "summary": summary, "booked": booked}
    return loaded


def _api(client: Any, company: Company, **params: str) -> dict[str, Any]:
    response = client.get(reverse("api_items"), {"page_size": "500", "company": str(company.id), **params})
    assert response.status_code == 200
    return response.json()


def _assert_list_agrees(client: Any, company: Company, expected: dict[str, dict[str, Any]]) -> None:
    """Per state the API's ids, every row's states and summary, and the page's counts match ``expected``."""
    want_states = {
        item_id: expected_states(case["summary"], case["context"], booked=case["booked"])
        for item_id, case in expected.items()
    }
    for key in states.STATE_KEYS:
        data = _api(client, company, state=key)
        want = {item_id for item_id, found in want_states.items() if key in found}
        assert {row["id"] for row in data["results"]} == want, key
        assert data["count"] == len(want), key
    data = _api(client, company)
    assert len(data["results"]) == len(expected)
    for row in data["results"]:
        case = expected[row["id"]]
        assert set(row["states"]) == want_states[row["id"]], case["name"]
        assert row["summary"] == case["summary"], case["name"]
        # The open question the row shows: the summary's, unless booking closed it.
        question = case["summary"]["openQuestion"] if case["summary"] else None
        if question is not None and (question["status"] == "open" or not case["booked"]):
            assert row["open_question"]["status"] == question["status"], case["name"]
            if question["type"] in states.QUESTION_TYPES:
                assert row["open_question"]["type"] == question["type"], case["name"]
        else:
            assert row["open_question"] is None, case["name"]
    facets = data["facets"]
    assert facets == {key: sum(key in found for found in want_states.values()) for key in states.LIST_STATE_KEYS}
    page = client.get(reverse("inbox"), {"company": str(company.id)}).content.decode()
    for key, count in facets.items():
        assert f'data-state="{key}">{count}<' in page, key


def test_every_golden_case_is_listed_under_exactly_the_states_of_its_summary(qa_client, company):
    loaded = _load_golden_items(company)
    assert len(loaded) >= 60
    expected = [expected_states(case["summary"], case["context"], booked=case["booked"]) for case in loaded.values()]
    # The golden file exercises every state, or this test would prove little; all
    # but answer_replaced, which comes from the app's answer log, not channel_context.
    assert set().union(*expected) == set(states.STATE_KEYS) - {states.ANSWER_REPLACED}
    _assert_list_agrees(qa_client, company, loaded)


def test_a_malformed_row_says_why_in_the_read_model(company):
    for ctx in MALFORMED_CONTEXTS:
        row = indexed(factories.make_item(company=company, channel_context=ctx).id)
        assert row.state_malformed
        assert row.malformed_reason == "; ".join(clarifications.analyse(ctx).problems)


# --- Plain-SQL writes by another program, then a poll --------------------------
# These commit (transaction=True): accounted's trigger stamps updated_at with
# now(), which inside one test transaction would never move, and the poll
# finds changes by updated_at.

committed = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@committed
def test_the_list_follows_channel_context_rewritten_by_plain_sql_after_a_poll(qa_client, committed_bookkeeping):
    company = factories.make_company()
    loaded = _load_golden_items(company)
    assert sync.poll().ran  # the first pass; later ones read only what moved
    _assert_list_agrees(qa_client, company, loaded)

    # Rotate: every row gets the next case's context, written behind the app's back.
    ids = list(loaded)
    cases = [loaded[i] for i in ids]
    rotated = {
        item_id: {**case, "booked": loaded[item_id]["booked"]}
        for item_id, case in zip(ids, cases[2:] + cases[:2], strict=True)
    }
    for item_id, case in rotated.items():
        raw_update_context(item_id, case["context"])
    report = sync.poll()
    assert report.indexed == len(ids)
    _assert_list_agrees(qa_client, company, rotated)


@committed
def test_a_row_inserted_by_plain_sql_is_listed_under_its_states_after_a_poll(qa_client, committed_bookkeeping):
    company = factories.make_company()
    sync.poll()
    moved = pending("moved_to_app", type_="resend", asked_at="2026-11-01T09:00:00Z")
    new_id = raw_insert(company, moved)
    null_id = raw_insert(company, None)
    assert _api(qa_client, company)["count"] == 0  # the list reads the read model only
    sync.poll()
    assert {row["id"] for row in _api(qa_client, company, state="needs_answer", type="resend")["results"]} == {new_id}
    assert {row["id"] for row in _api(qa_client, company, state="no_answers")["results"]} == {null_id}
    assert indexed(new_id).open_question_asked_at.isoformat() == "2026-11-01T09:00:00+00:00"


@committed
def test_a_plain_sql_change_to_extracted_data_refreshes_the_search_after_a_poll(qa_client, committed_bookkeeping):
    company = factories.make_company()
    item = factories.make_item(company=company, extracted_data={"supplier": {"name": "Gamla Leverantören"}})
    sync.poll()
    raw_update_json(item.id, "extracted_data", json.dumps({"supplier": {"name": "Nya Bageriet"}}))
    sync.poll()
    assert [row["id"] for row in _api(qa_client, company, q="bageriet")["results"]] == [str(item.id)]
    assert _api(qa_client, company, q="gamla")["results"] == []


@committed
def test_neighbours_follow_plain_sql_changes_after_a_poll(committed_bookkeeping, support):
    company = factories.make_company()
    first = factories.make_item(company=company, channel_context=note("a"))
    second = factories.make_item(company=company, channel_context=note("b"))
    sync.poll()
    raw_update_context(first.id, pending("moved_to_app"))
    sync.poll()
    query = QueryDict(f"state=needs_answer&company={company.id}")
    assert neighbours(indexed(second.id), listed(query, support)) == (None, indexed(first.id))
