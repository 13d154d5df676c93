"""Journey 5: a search and a facet are in the URL, so reload and Back keep them."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from tests import factories
from tests.e2e import data
from tests.e2e.data import eventually, shown_item_ids


@pytest.mark.e2e
def test_search_and_facet_survive_reload_and_back(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Kafé Tegel AB")
    answered = data.item(
        company, "Restaurang Prinsen", data.full_answer(["Anna Berg"], "Kundmöte"), received_hours_ago=3
    )
    denied = data.item(company, "Restaurang Prinsen", data.denial("nej, bara jag"), received_hours_ago=2)
    taxi = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=12, received_hours_ago=70)
    other = data.item(company, "Clas Ohlson", None, received_hours_ago=1)
    everything = [str(other.pk), str(denied.pk), str(answered.pk), str(taxi.pk)]  # newest received first

    # A bookkeeper lands on the queue; "Clear filters" clears the filters and stays in the queue (issue 37).
    log_in(page, "bea")
    eventually(lambda: shown_item_ids(page), [str(taxi.pk)], what="rows of the queue")
    page.get_by_role("link", name="Rensa filter").click()
    expect(page.locator("#facet-needs_answer")).to_be_checked()
    eventually(lambda: shown_item_ids(page), [str(taxi.pk)], what="rows of the queue, cleared")
    # Every item, newest received first: untick the queue's state and sort by when received.
    page.locator("#facet-needs_answer").uncheck()
    page.locator("#id_sort").select_option("received")
    expect(page.locator("#facet-needs_answer")).not_to_be_checked()
    eventually(lambda: shown_item_ids(page), everything, what="rows of the unfiltered list")

    # Typing searches after a pause, swaps the rows and puts the search in the URL.
    page.locator("#id_q").press_sequentially("prinsen", delay=30)
    expect(page).to_have_url(re.compile(r"[?&]q=prinsen(&|$)"))
    eventually(lambda: shown_item_ids(page), [str(denied.pk), str(answered.pk)], what="rows after the search")

    page.locator("#facet-denied").check()
    expect(page).to_have_url(re.compile(r"[?&]state=denied(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]q=prinsen(&|$)"))
    eventually(lambda: shown_item_ids(page), [str(denied.pk)], what="rows after ticking 'not representation'")

    # A reload is a plain GET of that URL: the same filters, the same rows.
    page.reload()
    expect(page.locator("#id_q")).to_have_value("prinsen")
    expect(page.locator("#facet-denied")).to_be_checked()
    assert shown_item_ids(page) == [str(denied.pk)]

    # Into the item and Back: the filtered list is still there.
    page.locator("tr.inbox-row a.row-link").first.click()
    expect(page).to_have_url(re.compile(rf"/items/{denied.pk}/"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"[?&]state=denied(&|$)"))
    expect(page.locator("#facet-denied")).to_be_checked()
    eventually(lambda: shown_item_ids(page), [str(denied.pk)], what="rows after Back from the item")

    # Back again undoes the facet, then the search, one step at a time.
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"state="))
    expect(page).to_have_url(re.compile(r"[?&]q=prinsen(&|$)"))
    expect(page.locator("#facet-denied")).not_to_be_checked()
    expect(page.locator("#id_q")).to_have_value("prinsen")
    eventually(lambda: shown_item_ids(page), [str(denied.pk), str(answered.pk)], what="rows after Back to the search")

    page.go_back()
    expect(page).not_to_have_url(re.compile(r"q=prinsen"))
    expect(page.locator("#id_q")).to_have_value("")
    eventually(lambda: shown_item_ids(page), everything, what="rows after Back to every item")

    # And once more: the queue the bookkeeper landed on.
    page.go_back()
    expect(page.locator("#facet-needs_answer")).to_be_checked()
    eventually(lambda: shown_item_ids(page), [str(taxi.pk)], what="rows after Back to the queue")
