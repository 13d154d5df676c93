"""Two bookkeepers on one queue never open the same item; a filtered queue ends inside its filter."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.data import eventually, item_id_in_url, shown_item_ids

LIST_URL = re.compile(r"^https?://[^/]+/\?")


def _answer_context(page: Page, text: str) -> None:
    """Type the context answer and save: save-and-next takes the page to what comes next."""
    field = page.locator("#id_text")
    expect(field).to_be_focused()
    field.fill(text)
    field.press("Control+Enter")


def _opened(page: Page, url_before: str) -> str | None:
    """The item the page moved to after a save (None: it went to the list)."""
    page.wait_for_url(lambda url: url != url_before)
    expect(page.locator(".messages .message-success")).to_be_visible()
    return item_id_in_url(page)


@pytest.mark.e2e
def test_two_bookkeepers_on_one_queue_never_open_the_same_item(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Berg")
    make_user(roles.BOOKKEEPER, username="bo", first_name="Bo", last_name="Ek")
    company = factories.make_company(name="Tegelbruket AB")
    queue: list[InboxItem] = [
        data.waiting_item(company, f"Leverantör {n}", "context", moved_hours_ago=40 - n) for n in range(4)
    ]
    ids = [str(item.pk) for item in queue]
    bea, bo = new_page(), new_page()
    log_in(bea, "bea")
    log_in(bo, "bo")
    eventually(lambda: shown_item_ids(bea), ids, what="Bea's queue")
    opened: dict[str, list[str | None]] = {"bea": [], "bo": []}

    # Bea starts: the first free item is the longest waiting one.
    bea.locator("a.next-free").click()
    expect(bea.locator("#answer-form")).to_be_visible()
    opened["bea"].append(item_id_in_url(bea))
    assert opened["bea"] == [ids[0]]

    # Bo's queue, reloaded, shows Bea on it; his first free item is the next one.
    bo.reload()
    held = bo.locator(f'tr.inbox-row:has(a.row-link[href*="{ids[0]}"]) .held-by')
    # (by name, or by user name: the list and the item page do not agree yet on which)
    expect(held).to_contain_text(re.compile(r"\b(Bea Berg|bea)\b"))
    bo.locator("a.next-free").click()
    expect(bo.locator("#answer-form")).to_be_visible()
    expect(bo.locator("#answer-held")).to_have_count(0)  # nobody else holds it
    opened["bo"].append(item_id_in_url(bo))
    assert opened["bo"] == [ids[1]]

    # They save and go on, in turns: each is sent past the item the other holds.
    for person, page, text in [
        ("bea", bea, "Lunch med kund"),
        ("bo", bo, "Parkering vid kundbesök"),
        ("bea", bea, "Fika med styrelsen"),
    ]:
        before = page.url
        _answer_context(page, text)
        opened[person].append(_opened(page, before))

    # Nothing is free for Bea now: the one item left is Bo's, and her queue says so.
    expect(bea).to_have_url(LIST_URL)
    expect(bea.locator(".messages .message-info")).to_be_visible()
    expect(bea.locator("tr.inbox-row")).to_have_count(1)
    expect(bea.locator("tr.inbox-row .held-by")).to_contain_text(re.compile(r"\b(Bo Ek|bo)\b"))
    expect(bea.locator("a.next-free")).to_have_count(0)

    before = bo.url
    _answer_context(bo, "Taxi till mässan")
    opened["bo"].append(_opened(bo, before))

    # Every item was opened by exactly one of them, and Bo, last, ended on the empty queue.
    assert opened == {"bea": [ids[0], ids[2], None], "bo": [ids[1], ids[3], None]}
    expect(bo).to_have_url(LIST_URL)
    expect(bo).to_have_url(re.compile(r"state=needs_answer"))
    expect(bo.locator(".messages .message-info")).to_be_visible()
    expect(bo.locator("tr.inbox-row")).to_have_count(0)
    answered_by = dict(
        ClarificationEvent.objects.filter(event_type=ClarificationEvent.ANSWERED).values_list("item_id", "actor_label")
    )
    assert {str(key): value for key, value in answered_by.items()} == {
        ids[0]: "bea",
        ids[1]: "bo",
        ids[2]: "bea",
        ids[3]: "bo",
    }


@pytest.mark.e2e
def test_the_end_of_a_filtered_queue_says_so_and_stays_in_the_filter(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    mine = factories.make_company(name="Tegelbruket AB")
    other = factories.make_company(name="Annat Bolag AB")
    first = data.waiting_item(mine, "Taxi Stockholm", "context", moved_hours_ago=30)
    last = data.waiting_item(mine, "Pressbyrån", "context", moved_hours_ago=20)
    # Waiting in the queue too, and longer than either: but outside the filter.
    outside = data.waiting_item(other, "Restaurang Tegel", "context", moved_hours_ago=50)

    log_in(page, "bea")
    eventually(lambda: shown_item_ids(page), [str(outside.pk), str(first.pk), str(last.pk)], what="the whole queue")
    page.locator("#id_company").select_option(str(mine.pk))
    expect(page).to_have_url(re.compile(rf"[?&]company={mine.pk}(&|$)"))
    eventually(lambda: shown_item_ids(page), [str(first.pk), str(last.pk)], what="the queue of one company")

    page.locator("tr.inbox-row a.row-link").first.click()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[first.pk]))))
    _answer_context(page, "Taxi till kund")
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[last.pk]))))
    expect(page).to_have_url(re.compile(rf"company={mine.pk}"))

    # The last item of the filtered queue: save-and-next says the queue is empty, on the filtered list.
    _answer_context(page, "Tidningar till väntrummet")
    expect(page).to_have_url(LIST_URL)
    expect(page).to_have_url(re.compile(rf"[?&]company={mine.pk}(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]state=needs_answer(&|$)"))
    expect(page.locator(".messages .message-success")).to_be_visible()
    expect(page.locator(".messages .message-info")).to_be_visible()
    expect(page.locator("tr.inbox-row")).to_have_count(0)
    expect(page.locator("#id_company")).to_have_value(str(mine.pk))
    # The item outside the filter was neither opened nor answered.
    assert data.pending_status(outside) == "moved_to_app"
    assert not ClarificationEvent.objects.filter(item_id=outside.pk).exists()
    assert data.pending_status(first) == data.pending_status(last) == "answered"


@pytest.mark.e2e
def test_esc_in_the_search_box_leaves_it_and_keeps_the_search(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    taxi = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=30)
    data.waiting_item(company, "Pressbyrån", "context", moved_hours_ago=20)

    log_in(page, "bea")
    page.keyboard.press("/")
    page.keyboard.type("taxi")
    eventually(lambda: shown_item_ids(page), [str(taxi.pk)], what="the search's one row")
    page.keyboard.press("Escape")
    # Out of the box, as Esc leaves a field of the answer form; the search stays as typed, and so do its rows.
    expect(page.locator("#id_q")).not_to_be_focused()
    expect(page.locator("#id_q")).to_have_value("taxi")
    page.wait_for_timeout(600)  # longer than the search's debounce: a cleared box would have searched again
    assert shown_item_ids(page) == [str(taxi.pk)]
    # j works at once: the list's keys are back.
    page.keyboard.press("j")
    expect(page.locator("#inbox-results .inbox-row.is-selected")).to_have_count(1)
