"""GET /api/items: the list's rows as JSON, same filters and numbers as the page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviewapp.core import states
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.inbox.helpers import denial, journal_entry, note, pending

pytestmark = pytest.mark.django_db

URL = reverse("api_items")


def test_it_returns_the_count_facets_and_rows(qa_client, company):
    item = factories.make_item(
        company=company,
        channel_context=pending("open", type_="representation", asked_at="2026-11-01T09:00:00Z"),
        extracted_data={"supplier": {"name": "Pelikan"}, "totals": {"total": 812.5}, "invoice": {"currency": "SEK"}},
    )
    response = qa_client.get(URL)
    assert response.status_code == 200
    data = response.json()
    assert data["count"] == 1
    assert data["exact"] is True
    assert data["facets"]["waiting_in_chat"] == 1
    assert data["next"] is None
    [row] = data["results"]
    assert row["id"] == str(item.id)
    assert row["company"] == {"id": str(company.id), "name": company.name}
    assert row["supplier"] == "Pelikan"
    assert row["total"] == 812.5
    assert row["states"] == ["waiting_in_chat"]
    assert row["open_question"] == {
        "type": "representation",
        "status": "open",
        "asked_at": "2026-11-01T09:00:00Z",
        "window_ends_at": "2026-11-03T09:00:00Z",
    }
    assert row["summary"]["openQuestion"] == {"type": "representation", "status": "open"}


def test_a_booked_item_is_listed_as_booked_without_a_question_to_answer(qa_client, company):
    item = factories.make_item(
        company=company,
        channel_context=pending("moved_to_app", type_="representation"),
        created_journal_entry_id=journal_entry(company),
    )
    data = qa_client.get(URL).json()
    [row] = data["results"]
    assert row["id"] == str(item.id)
    assert row["states"] == ["booked"]
    assert row["open_question"] is None
    assert data["facets"]["booked"] == 1
    assert data["facets"]["needs_answer"] == 0
    # The summary still says what the chat left open; only the list's queue drops it.
    assert row["summary"]["openQuestion"] == {"type": "representation", "status": "moved_to_app"}


def test_an_item_without_answers_has_no_summary_and_no_open_question(qa_client):
    factories.make_item(channel_context=None)
    [row] = qa_client.get(URL).json()["results"]
    assert row["summary"] is None
    assert row["open_question"] is None
    assert row["states"] == ["no_answers"]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "state=needs_answer",
        "state=denied&state=needs_answer",
        "type=resend",
        "q=kontors",
        "sort=question_age&state=waiting_in_chat",
        "received_from=2020-01-01",
        "state=booked",
    ],
)
def test_the_api_and_the_page_show_the_same_items_and_numbers(qa_client, query, company):
    factories.make_item(
        company=company, channel_context=pending("moved_to_app"), created_journal_entry_id=journal_entry(company)
    )
    factories.make_item(channel_context={**denial(), **pending("moved_to_app", type_="resend")})
    factories.make_item(channel_context=pending("moved_to_app", type_="context"))
    factories.make_item(channel_context=pending("open", asked_at="2026-11-02T09:00:00Z"))
    factories.make_item(channel_context=pending("open", asked_at="2026-11-01T09:00:00Z"))
    factories.make_item(channel_context=note("kontorsmaterial"))
    data = qa_client.get(f"{URL}?{query}").json()
    page = qa_client.get(f"{reverse('inbox')}?{query}").content.decode()
    assert [r["id"] for r in data["results"]] == re.findall(r'href="/items/([0-9a-f-]{36})/', page)
    assert set(data["facets"]) == set(states.LIST_STATE_KEYS)
    for key, count in data["facets"].items():
        assert f'data-state="{key}">{count}<' in page
    assert data["count"] == len(data["results"])


def test_page_size_may_go_up_to_500_and_no_further(qa_client):
    factories.make_item()
    assert qa_client.get(URL, {"page_size": "500"}).status_code == 200
    response = qa_client.get(URL, {"page_size": "501"})
    assert response.status_code == 400
    assert "page_size" in response.json()["fields"]


def test_an_unknown_state_is_a_400_naming_the_parameter(qa_client):
    response = qa_client.get(URL, {"state": "done"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid query parameters"
    assert "state" in response.json()["fields"]


def test_next_and_previous_are_absolute_links_that_keep_the_filters(qa_client):
    for _ in range(3):
        factories.make_item(channel_context=pending("moved_to_app"))
    first = qa_client.get(URL, {"state": "needs_answer", "page_size": "2"}).json()
    assert first["next"] == "http://testserver/api/items?state=needs_answer&page_size=2&page=2"
    assert first["previous"] is None
    second = qa_client.get(first["next"]).json()
    assert len(second["results"]) == 1
    assert second["next"] is None
    assert {r["id"] for r in first["results"]}.isdisjoint(r["id"] for r in second["results"])


def test_a_script_may_use_a_bearer_token_instead_of_a_session(client, qa):
    factories.make_item()
    token = create_token(qa)
    response = client.get(URL, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_anonymous_callers_get_a_json_401(client):
    response = client.get(URL)
    assert response.status_code == 401
    assert "error" in response.json()


def test_a_user_without_a_role_gets_a_json_403(client):
    client.force_login(factories.make_user(None))
    assert client.get(URL).status_code == 403


def test_it_refuses_post_with_405(qa_client):
    response = qa_client.post(URL)
    assert response.status_code == 405
    assert response["Allow"] == "GET"
