"""One row whose JSON Python cannot read never takes down the list, the API or the admin.

PostgreSQL stores a 5 000-digit number and 10 000-deep nesting happily;
Python's json refuses the first (its 4 300-digit limit) and runs out of
stack on the second. Such a row, written with plain SQL by another program,
is indexed as ``malformed`` with the reason, and every page keeps answering.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import Company
from reviewapp.readmodel import sync
from tests import factories
from tests.inbox.helpers import deep_json, huge_number_json, indexed, pending, raw_update_context, raw_update_json

POISONS = [
    pytest.param("channel_context", deep_json(10_000), "nested too deep", id="context-nested-10000-deep"),
    pytest.param("channel_context", huge_number_json(5_000), "5000 digits", id="context-5000-digit-number"),
    pytest.param("extracted_data", '{"totals": {"total": ' + "9" * 5_000 + "}}", "5000 digits", id="data-5000-digits"),
    pytest.param("extracted_data", deep_json(10_000), "nested too deep", id="data-nested-10000-deep"),
]

PAGE_QUERIES = ["", "state=malformed", "q=leverant", "sort=question_age", "sort=oldest&page_size=25"]


def _row_html(body: str, item_id: object) -> str:
    match = re.search(
        rf'<tr class="inbox-row"[^>]*>(?:(?!</tr>).)*/items/{item_id}/(?:(?!</tr>).)*</tr>', body, re.DOTALL
    )
    assert match, f"item {item_id} is not in the list"
    return match.group(0)


def _assert_everything_answers(client, company: Company, poisoned: object, healthy: object, column: str, reason: str):  # type: ignore[no-untyped-def]
    for query in PAGE_QUERIES:
        assert client.get(f"{reverse('inbox')}?{query}").status_code == 200, query
        assert client.get(f"{reverse('api_items')}?{query}").status_code == 200, query
    body = client.get(reverse("inbox"), {"company": str(company.id)}).content.decode()
    assert 'class="badge badge-malformed"' in _row_html(body, poisoned)
    assert 'class="badge badge-needs_answer"' in _row_html(body, healthy)
    assert 'class="badge badge-malformed"' not in _row_html(body, healthy)

    data = client.get(reverse("api_items"), {"company": str(company.id)}).json()
    rows = {row["id"]: row for row in data["results"]}
    assert "malformed" in rows[str(poisoned)]["states"]
    assert column in rows[str(poisoned)]["malformed_reason"]
    assert rows[str(healthy)]["states"] == ["needs_answer"]
    assert data["facets"]["malformed"] == 1
    malformed = client.get(reverse("api_items"), {"company": str(company.id), "state": "malformed"}).json()
    assert [row["id"] for row in malformed["results"]] == [str(poisoned)]

    changelist = client.get(reverse("admin:reviewapp_indexeditem_changelist"), {"state": "malformed"})
    assert changelist.status_code == 200
    assert f"/admin/reviewapp/indexeditem/{poisoned}/change/" in changelist.content.decode()
    change = client.get(reverse("admin:reviewapp_indexeditem_change", args=[poisoned]))
    assert change.status_code == 200
    assert reason in change.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("column", "poison", "reason"), POISONS)
def test_a_poison_row_indexed_at_once_is_malformed_and_nothing_fails(admin_client, company, column, poison, reason):
    poisoned = factories.make_item(company=company, channel_context=pending("moved_to_app"))
    healthy = factories.make_item(company=company, channel_context=pending("moved_to_app"))
    raw_update_json(poisoned.id, column, poison)
    sync.index_items([poisoned.id, healthy.id])
    row = indexed(poisoned.id)
    assert row.state_malformed
    assert row.malformed_reason.startswith(f"{column}: ")
    _assert_everything_answers(admin_client, company, poisoned.id, healthy.id, column, reason)


@pytest.mark.django_db
def test_a_poll_over_poison_rows_indexes_them_and_every_other_row(admin_client, company):
    healthy = factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    poisoned = factories.make_item(company=company)
    raw_update_json(poisoned.id, "channel_context", deep_json(10_000))
    raw_update_context(healthy.id, pending("moved_to_app"))
    assert sync.poll().ran
    _assert_everything_answers(admin_client, company, poisoned.id, healthy.id, "channel_context", "nested too deep")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_incremental_poll_after_a_plain_sql_poison_write_marks_it_malformed(admin_client, committed_bookkeeping):
    company = factories.make_company()
    poisoned = factories.make_item(company=company, channel_context=pending("moved_to_app"))
    healthy = factories.make_item(company=company, channel_context={"channel": "whatsapp"})
    sync.poll()
    raw_update_json(poisoned.id, "channel_context", huge_number_json(5_000))
    raw_update_context(healthy.id, pending("moved_to_app"))
    assert sync.poll().indexed == 2
    _assert_everything_answers(admin_client, company, poisoned.id, healthy.id, "channel_context", "5000 digits")
