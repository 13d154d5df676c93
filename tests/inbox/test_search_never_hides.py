"""A search in the queue never hides what exists: matches in other states are named and offered (issue 37 point 3)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviewapp.core import text
from tests import factories
from tests.html import texts
from tests.inbox.helpers import note, pending

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
QUEUE = {"state": "needs_answer", "sort": "queue"}


def _ids_shown(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode())


def _elsewhere(response) -> str:  # type: ignore[no-untyped-def]
    (shown,) = texts(response.content.decode(), id="matches-elsewhere")
    return " ".join(shown.split())


@pytest.fixture
def answered(company):  # type: ignore[no-untyped-def]
    """One answered item with an emoji in its note, and one item waiting in the queue."""
    factories.make_item(company=company, channel_context=pending("moved_to_app"))
    return factories.make_item(company=company, channel_context=note("Lunch 🍕 med kund Tegel"))


def test_a_queue_search_matching_an_answered_item_says_so_and_offers_it(bookkeeper_client, answered):
    response = bookkeeper_client.get(URL, {**QUEUE, "q": "tegel"})
    assert _ids_shown(response) == []
    body = response.content.decode()
    assert "The queue is empty" not in body
    assert _elsewhere(response) == "No question waits here; 1 item in another state matches: open it · search all items"
    assert f'href="/items/{answered.pk}/">open it</a>' in body
    search_all = re.search(r'<a href="([^"]+)">search all items</a>', body)
    assert search_all
    assert _ids_shown(bookkeeper_client.get(search_all.group(1).replace("&amp;", "&"))) == [str(answered.pk)]


@pytest.mark.parametrize("query", ["🍕", "tegel\u200f", "\u200ftegel", "lunch 🍕", "\ufefftegel\u200b"])
def test_an_emoji_or_an_invisible_character_in_the_search_still_finds_the_item(bookkeeper_client, answered, query):
    assert _ids_shown(bookkeeper_client.get(URL, {"q": query, "sort": "received"})) == [str(answered.pk)]
    assert "1 item in another state matches" in _elsewhere(bookkeeper_client.get(URL, {**QUEUE, "q": query}))


def test_search_text_drops_format_characters_but_keeps_emoji_sequences():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert text.for_search("Taxi\u200f  till\u202e kund") == "Taxi till kund"
    assert text.for_search(f"{family} \U0001f44d\U0001f3fd") == f"{family} \U0001f44d\U0001f3fd"


def test_the_short_id_the_list_shows_opens_the_item_from_the_queue(bookkeeper_client, answered):
    short = str(answered.pk)[:8]
    # The list shows it as the row's id.
    listed = bookkeeper_client.get(URL, {"sort": "received"}).content.decode()
    assert f'<span class="muted mono item-id">{short}</span>' in listed
    response = bookkeeper_client.get(URL, {**QUEUE, "q": short})
    assert response.status_code == 302
    assert response["Location"] == f"/items/{answered.pk}/"


def test_a_short_id_that_also_matches_another_items_words_lists_them(bookkeeper_client, company, answered):
    short = str(answered.pk)[:8]
    other = factories.make_item(company=company, channel_context=note(f"kvitto {short}"))
    response = bookkeeper_client.get(URL, {"q": short, "sort": "received"})
    assert sorted(_ids_shown(response)) == sorted([str(answered.pk), str(other.pk)])


def test_clear_filters_in_the_queue_stays_in_the_queue(bookkeeper_client, answered):
    body = bookkeeper_client.get(URL, {**QUEUE, "q": "tegel", "type": "context"}).content.decode()
    clear = re.search(r'<a href="([^"]+)" class="button">Clear filters</a>', body)
    assert clear
    assert clear.group(1).replace("&amp;", "&") == "/?state=needs_answer&sort=queue"


def test_as_many_matches_elsewhere_as_the_cap_are_counted_more_say_more_than(bookkeeper_client, company, monkeypatch):
    from reviewapp.inbox import query

    monkeypatch.setattr(query, "ELSEWHERE_CAP", 2)  # the cap (100) made small: the rule is the same
    for _ in range(2):
        factories.make_item(company=company, channel_context=note("Tegel"))
    response = bookkeeper_client.get(URL, {**QUEUE, "q": "tegel"})
    assert _elsewhere(response).startswith("No question waits here; 2 items in other states match:")

    factories.make_item(company=company, channel_context=note("Tegel"))
    response = bookkeeper_client.get(URL, {**QUEUE, "q": "tegel"})
    assert _elsewhere(response).startswith("No question waits here; more than 2 items in other states match:")
