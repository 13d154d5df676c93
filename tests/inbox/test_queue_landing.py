"""Where each role lands, and the bookkeeper's queue: order, "N left", waiting time, the nav's link."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connections
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.inbox.sorting import neighbours
from tests import factories
from tests.inbox.helpers import denial, indexed, listed, moved_to_app, note, pending

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
QUEUE_LINK = "/?state=needs_answer&amp;sort=queue"


def _ids_shown(response) -> list[str]:  # type: ignore[no-untyped-def]
    return re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode())


def _nav_inbox_href(body: str) -> str:
    nav = re.search(r'<nav aria-label="Main">(.*?)</nav>', body, re.DOTALL)
    assert nav, "no main navigation"
    match = re.search(r'<a href="([^"]*)"[^>]*>Inbox</a>', nav.group(1))
    assert match, "no Inbox link in the navigation"
    return match.group(1)


def _iso(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.fixture
def three_in_queue(company):  # type: ignore[no-untyped-def]
    """Three questions moved to the app in an order that is neither the receipts' nor the questions'.

    first: asked 11-05, moved by the expiry cron 11-07, received last;
    second: asked 11-10 and moved at once (over the chat's budget), received first;
    third: asked 11-01 (the oldest question), moved 11-20, received in between.
    """
    day = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    second = factories.make_item(
        company=company,
        channel_context=pending("moved_to_app", asked_at=_iso(day + dt.timedelta(days=9))),
        created_at=day - dt.timedelta(days=30),
    )
    third = factories.make_item(
        company=company,
        channel_context=pending("moved_to_app", asked_at=_iso(day)),
        created_at=day - dt.timedelta(days=20),
    )
    first = factories.make_item(
        company=company,
        channel_context=pending("moved_to_app", asked_at=_iso(day + dt.timedelta(days=4))),
        created_at=day - dt.timedelta(days=10),
    )
    moved_to_app(first, day + dt.timedelta(days=6))
    moved_to_app(third, day + dt.timedelta(days=19))
    # Not in the queue: waiting in the chat, answered, denied without a question.
    factories.make_item(company=company, channel_context=pending("open", asked_at=_iso(day)))
    factories.make_item(company=company, channel_context=note("kontorsmaterial"))
    factories.make_item(company=company, channel_context=denial())
    return first, second, third


def test_a_bookkeeper_lands_on_the_queue_longest_waiting_in_the_app_first(bookkeeper_client, three_in_queue):
    first, second, third = three_in_queue
    response = bookkeeper_client.get(URL)
    assert response.status_code == 200
    assert _ids_shown(response) == [str(first.id), str(second.id), str(third.id)]
    body = response.content.decode()
    assert "<strong>3 left</strong>" in body
    assert re.search(r'<input type="checkbox" name="state" value="needs_answer" id="facet-needs_answer" checked>', body)
    assert re.search(r'<option value="queue" selected>Longest waiting in the app first</option>', body)


def test_the_queue_says_how_long_each_question_has_waited_in_the_app_not_the_receipts_age(bookkeeper_client):
    now = timezone.now()
    factories.make_item(
        channel_context=pending("moved_to_app", asked_at=_iso(now - dt.timedelta(days=3, minutes=5))),
        created_at=now - dt.timedelta(days=40),
    )
    body = bookkeeper_client.get(URL).content.decode()
    waiting = re.search(r'<time class="waiting" datetime="[^"]+">([^<]+)</time>', body)
    assert waiting, "no waiting time shown"
    assert waiting.group(1) == "3\xa0days"
    assert "Waiting in the app" in body


def test_an_item_waiting_in_the_chat_has_no_waiting_time_in_the_app(qa_client):
    factories.make_item(channel_context=pending("open", asked_at=_iso(timezone.now() - dt.timedelta(hours=2))))
    body = qa_client.get(URL).content.decode()
    assert 'class="waiting"' not in body


@pytest.mark.parametrize("client_fixture", ["support_client", "qa_client"])
def test_support_and_qa_land_on_every_item_newest_first(request, client_fixture, three_in_queue):
    first, second, third = three_in_queue
    response = request.getfixturevalue(client_fixture).get(URL)
    shown = _ids_shown(response)
    assert len(shown) == 6
    # Newest received first: "first" was received after "third", which came after "second".
    assert [i for i in shown if i in {str(first.id), str(second.id), str(third.id)}] == [
        str(first.id),
        str(third.id),
        str(second.id),
    ]
    assert " left</strong>" not in response.content.decode()


def test_the_nav_keeps_a_bookkeepers_queue_with_its_parameters_spelled_out(bookkeeper_client):
    body = bookkeeper_client.get(URL, {"sort": "received"}).content.decode()
    assert _nav_inbox_href(body) == QUEUE_LINK
    # On every page, not only the list.
    assert _nav_inbox_href(bookkeeper_client.get(reverse("api_tokens")).content.decode()) == QUEUE_LINK


@pytest.mark.parametrize("client_fixture", ["support_client", "qa_client"])
def test_the_nav_takes_support_and_qa_to_the_plain_list(request, client_fixture):
    assert _nav_inbox_href(request.getfixturevalue(client_fixture).get(URL).content.decode()) == "/"


def test_the_nav_link_shows_the_same_queue_as_landing(bookkeeper_client, three_in_queue):
    landed = bookkeeper_client.get(URL)
    linked = bookkeeper_client.get(URL + "?" + QUEUE_LINK.split("?", 1)[1].replace("&amp;", "&"))
    assert _ids_shown(linked) == _ids_shown(landed)
    assert len(_ids_shown(linked)) == 3


def test_any_query_string_is_taken_as_asked_for_so_a_bookkeeper_can_see_everything(bookkeeper_client, three_in_queue):
    everything = bookkeeper_client.get(URL, {"sort": "received"})
    assert len(_ids_shown(everything)) == 6
    searched = bookkeeper_client.get(URL, {"q": "kontorsmaterial"})
    assert len(_ids_shown(searched)) == 1


def test_clear_filters_outside_the_queue_shows_everything_even_to_a_bookkeeper(bookkeeper_client, three_in_queue):
    body = bookkeeper_client.get(URL, {"sort": "received", "q": "kontorsmaterial"}).content.decode()
    clear = re.search(r'<a href="([^"]+)" class="button">Clear filters</a>', body)
    assert clear, "no Clear filters link"
    assert clear.group(1) == "/?sort=received"
    assert len(_ids_shown(bookkeeper_client.get(clear.group(1)))) == 6


def test_the_old_queue_link_still_works(bookkeeper_client, three_in_queue):
    first, second, third = three_in_queue
    response = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "question_age"})
    # Oldest question first (asked 11-01, 11-05, 11-10), the order it always had.
    assert _ids_shown(response) == [str(third.id), str(first.id), str(second.id)]
    assert "<strong>3 left</strong>" in response.content.decode()


def test_each_queue_row_links_with_the_queue_so_the_item_pages_next_stays_in_it(
    bookkeeper_client, bookkeeper, three_in_queue
):
    first, second, _third = three_in_queue
    body = bookkeeper_client.get(URL).content.decode()
    assert f'href="/items/{first.id}/?state=needs_answer&amp;sort=queue"' in body
    assert neighbours(indexed(first.id), listed(QueryDict("state=needs_answer&sort=queue"), bookkeeper))[1] == indexed(
        second.id
    )


def test_the_queue_count_follows_the_other_filters(bookkeeper_client, three_in_queue, company):
    factories.make_item(channel_context=pending("moved_to_app"))  # another company
    assert "<strong>4 left</strong>" in bookkeeper_client.get(URL).content.decode()
    narrowed = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "queue", "company": str(company.id)})
    assert "<strong>3 left</strong>" in narrowed.content.decode()


def test_an_empty_queue_says_so(bookkeeper_client):
    factories.make_item(channel_context=note("klart"))
    body = bookkeeper_client.get(URL).content.decode()
    assert "<strong>0 left</strong>" in body
    assert "The queue is empty: no question waits for an answer here." in body
    assert "Answer the next free item" not in body


def test_the_queue_offers_the_first_item_nobody_else_is_answering(bookkeeper_client, bookkeeper, three_in_queue):
    first, second, _third = three_in_queue
    anna = factories.make_user(roles.BOOKKEEPER, username="anna")
    reservations.reserve(first.id, anna)
    body = bookkeeper_client.get(URL).content.decode()
    start = re.search(r'<a class="button primary next-free" href="([^"]+)">Answer the next free item</a>', body)
    assert start, "no link to the next free item"
    assert start.group(1) == f"/items/{second.id}/?state=needs_answer&amp;sort=queue"
    # Anna's item stays in the list, marked.
    assert str(first.id) in _ids_shown(bookkeeper_client.get(URL))
    assert "anna is answering" in body


def test_when_others_hold_every_row_shown_the_next_free_item_is_found_beyond_the_page(bookkeeper_client, company):
    day = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    items = [
        factories.make_item(
            company=company, channel_context=pending("moved_to_app", asked_at=_iso(day + dt.timedelta(hours=n)))
        )
        for n in range(26)
    ]
    anna = factories.make_user(roles.BOOKKEEPER, username="anna")
    for item in items[:25]:
        reservations.reserve(item.id, anna)
    link = f'class="button primary next-free" href="/items/{items[25].id}/'
    first_page = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "queue", "page_size": "25"})
    assert link in first_page.content.decode()
    # From the second page too, the link starts the queue at its first free item.
    reservations.release(items[3].id, anna)
    second_page = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "queue", "page_size": "25", "page": "2"})
    assert f'class="button primary next-free" href="/items/{items[3].id}/' in second_page.content.decode()


def test_a_reader_who_cannot_answer_is_not_offered_the_next_item(support_client, three_in_queue):
    body = support_client.get(URL, {"state": "needs_answer", "sort": "queue"}).content.decode()
    assert "<strong>3 left</strong>" in body
    assert "Answer the next free item" not in body


def test_htmx_swaps_carry_the_queue_count(bookkeeper_client, three_in_queue):
    response = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "queue"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="inbox-results"')
    assert "<strong>3 left</strong>" in body


def test_the_queue_costs_the_same_queries_whatever_its_length(bookkeeper_client, company):
    def review_queries(page_size: str) -> int:
        with CaptureQueriesContext(connections["default"]) as review:
            assert bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "queue", "page_size": page_size})
        return len(review)

    for _ in range(30):
        factories.make_item(company=company, channel_context=pending("moved_to_app"))
    small = review_queries("25")
    # Session, user, permissions, freshness, counts, rows (with who holds each), the next free item.
    assert small <= 9
    assert review_queries("500") == small
