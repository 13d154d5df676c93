"""Garbage in the query string: the list, the API, the item page and the admin still answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.robustness.conftest import lenient, moved

GARBAGE = [
    "page=abc",
    "page=0",
    "page=-5",
    f"page={10**30}",
    "page=1e3",
    "page=2&page=3",
    "page_size=-1",
    "page_size=0",
    f"page_size={10**30}",
    "page_size=abc",
    "state=bogus",
    "state=needs_answer&state=needs_answer&state=bogus",
    "state=",
    "state[]=needs_answer",
    "type=bogus",
    "type=representation&type=context",
    "sort=bogus",
    "sort=-created_at",
    "sort=id;DROP TABLE invoice_inbox_items",
    "q=%00",
    "q=a%00b",
    "q=" + "x" * 10_000,
    "q=%25%5F%5C",
    "q=%ED%A0%80",
    "q=%FF%FE",
    "q=" + "%F0%9F%98%80" * 100,
    "received_from=2026-02-30",
    "received_from=0000-01-01",
    "received_to=9999-12-31",
    "received_from=0001-01-01",
    "received_from=9999-12-31",
    "received_to=0001-01-01",
    "received_from=2026-12-01&received_to=2026-01-01",
    "received_from=" + "9" * 500,
    "company=bogus",
    "company=00000000-0000-0000-0000-000000000000",
    "company=%00",
    "company=1&company=2",
    "%00=%00",
    "&&&==",
]


@pytest.fixture
def listed(db):  # type: ignore[no-untyped-def]
    for question in ("representation", "context", "resend"):
        moved(question)
    return factories.make_item(channel_context={"user_note": "Fika"})


@pytest.mark.parametrize("query", GARBAGE)
def test_the_list_the_api_and_the_item_page_answer_any_query_string(query, listed, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    client = lenient(bookkeeper)
    statuses = {
        "list": client.get(f"{reverse('inbox')}?{query}").status_code,
        "list htmx": client.get(f"{reverse('inbox')}?{query}", headers={"HX-Request": "true"}).status_code,
        "item": client.get(f"{reverse('item_detail', args=[listed.pk])}?{query}").status_code,
        "api item": client.get(f"{reverse('api_item', args=[listed.pk])}?{query}").status_code,
    }
    assert set(statuses.values()) == {200}, statuses
    # The API refuses what the page shrugs off, with the errors by field.
    api = client.get(f"{reverse('api_items')}?{query}")
    assert api.status_code in (200, 400)
    if api.status_code == 400:
        assert api.json()["fields"]


@pytest.mark.parametrize(
    "query", [*GARBAGE, "o=99", "o=-1.x", "p=abc", "p=99999999", "all=", "_changelist_filters=%00"]
)
def test_the_admin_changelists_answer_any_query_string(query, listed) -> None:  # type: ignore[no-untyped-def]
    client = lenient(factories.make_user(is_staff=True, is_superuser=True))
    for changelist in ("indexeditem", "clarificationevent", "goldencase", "apitoken"):
        response = client.get(f"{reverse(f'admin:reviewapp_{changelist}_changelist')}?{query}")
        assert response.status_code < 500, changelist


def test_an_unknown_state_is_named_as_an_error_and_the_list_still_shows_every_item(listed, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    response = lenient(bookkeeper).get(f"{reverse('inbox')}?state=bogus")
    assert response.status_code == 200
    html = response.content.decode()
    assert "“bogus” is not a state. The states are: needs_answer," in html
    assert str(listed.pk) in html


def test_the_last_day_of_the_calendar_as_the_end_date_lists_everything(listed, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    response = lenient(bookkeeper).get(f"{reverse('api_items')}?received_from=0001-01-01&received_to=9999-12-31")
    assert response.status_code == 200
    assert response.json()["count"] == 4


def test_a_nul_in_the_search_is_a_message_not_a_server_error(listed, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    response = lenient(bookkeeper).get(f"{reverse('inbox')}?q=Fi%00ka")
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()


def test_the_api_names_a_bad_page_size_in_its_errors(listed, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    response = lenient(bookkeeper).get(f"{reverse('api_items')}?page_size=-1")
    assert response.status_code == 400
    assert "page_size" in response.json()["fields"]


@pytest.mark.parametrize("query", ["status=bogus", "status=%00", "status=pass&status=fail"])
def test_the_golden_case_list_answers_any_filter(query, qa) -> None:  # type: ignore[no-untyped-def]
    assert lenient(qa).get(f"{reverse('golden_cases')}?{query}").status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "example=bogus",
        "item=not-a-uuid",
        "item=00000000-0000-0000-0000-000000000000",
        "case=-1",
        f"case={10**30}",
        "case=%00",
    ],
)
def test_the_playground_answers_any_source_query(query, qa) -> None:  # type: ignore[no-untyped-def]
    assert lenient(qa).get(f"{reverse('preview')}?{query}").status_code in (200, 404)
