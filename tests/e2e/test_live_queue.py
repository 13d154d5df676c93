"""Two bookkeepers on one queue (issue 38 part 3): what Anna answers leaves Bea's open queue by itself.

Bea has her queue open with the cursor (``j``) on one row and another row
ticked (``x``). Anna answers the first item in her own browser. Within the
poll interval (shortened here by the INBOX_POLL_SECONDS setting; 10 s in
production) the item leaves Bea's queue without a reload, while Bea's focus,
her cursor and her tick stay where they were. A question that arrives
meanwhile is announced ("1 ny fråga — visa dem"), not pushed in under the
cursor. axe checks the list with the announcement at 1440 and 390 px.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from tests import factories
from tests.e2e import data

pytestmark = pytest.mark.e2e

POLL_SECONDS = 1
# The bound: a colleague's answer leaves an open queue within 10 s.
WITHIN_MS = 10_000


def _axe_clean(page: Page, state: str) -> None:
    violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    report = [f"{v['id']}: {v['help']} {[' '.join(map(str, n['target'])) for n in v['nodes'][:3]]}" for v in violations]
    assert not report, f"axe on {state}:\n" + "\n".join(report)


def _row(page: Page, item_id: object):  # type: ignore[no-untyped-def]
    return page.locator(f"#row-{item_id}")


def test_a_colleagues_answer_leaves_my_open_queue_and_my_cursor_and_ticks_stay(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None], settings
) -> None:
    settings.INBOX_POLL_SECONDS = POLL_SECONDS
    make_user(roles.BOOKKEEPER, username="anna", first_name="Anna", last_name="Berg")
    make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Bokförare")
    company = factories.make_company(name="Tegelbruket AB")
    # The queue, oldest first: answered (Anna's), ticked (Bea's tick), current (Bea's cursor), last.
    answered = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=40)
    ticked = data.waiting_item(company, "Restaurang Tegel", "context", moved_hours_ago=30)
    current = data.waiting_item(company, "ICA Kvantum", "context", moved_hours_ago=20)
    last = data.waiting_item(company, "Pressbyrån", "context", moved_hours_ago=10)

    bea = new_page(width=1440, height=900)
    log_in(bea, "bea")
    for item in (answered, ticked, current, last):
        expect(_row(bea, item.pk)).to_be_visible()
    # j j: the cursor on the second row; x ticks it; j: the cursor on the third, its link focused.
    bea.keyboard.press("j")
    bea.keyboard.press("j")
    bea.keyboard.press("x")
    bea.keyboard.press("j")
    expect(_row(bea, current.pk)).to_have_class(re.compile(r"\bis-selected\b"))
    expect(_row(bea, current.pk).locator(".row-link")).to_be_focused()
    expect(_row(bea, ticked.pk).locator("input[data-bulk-tick]")).to_be_checked()
    scrolled = bea.evaluate("window.scrollY")

    # Anna answers the first item in her own browser.
    anna = new_page(width=1440, height=900)
    log_in(anna, "anna")
    anna.goto(reverse("item_detail", args=[answered.pk]))
    field = anna.locator("#id_text")
    field.fill("Taxi till kundmötet")
    field.press("Control+Enter")
    anna.wait_for_url(lambda url: str(answered.pk) not in url)

    # It leaves Bea's queue by itself; nothing else of hers moved.
    expect(_row(bea, answered.pk)).to_have_count(0, timeout=WITHIN_MS)
    expect(_row(bea, current.pk)).to_have_class(re.compile(r"\bis-selected\b"))
    expect(_row(bea, current.pk).locator(".row-link")).to_be_focused()
    expect(_row(bea, ticked.pk).locator("input[data-bulk-tick]")).to_be_checked()
    expect(bea.locator("#bulk-count")).to_have_text("1")
    assert bea.evaluate("window.scrollY") == scrolled
    # The cursor moves on from where it is, not from where the removed row had put it.
    bea.keyboard.press("j")
    expect(_row(bea, last.pk)).to_have_class(re.compile(r"\bis-selected\b"))
    bea.keyboard.press("k")
    expect(_row(bea, current.pk)).to_have_class(re.compile(r"\bis-selected\b"))

    # A new question is announced, not inserted under the cursor.
    arrived = data.waiting_item(company, "Espresso House", "context", moved_hours_ago=1)
    news = bea.locator("#inbox-news")
    expect(news).to_contain_text("1 ny fråga", timeout=WITHIN_MS)
    expect(_row(bea, arrived.pk)).to_have_count(0)
    expect(_row(bea, current.pk).locator(".row-link")).to_be_focused()
    _axe_clean(bea, "the queue announcing a new question, 1440 px")
    bea.set_viewport_size({"width": 390, "height": 844})
    _axe_clean(bea, "the queue announcing a new question, 390 px")
    bea.set_viewport_size({"width": 1440, "height": 900})

    # "show them" brings the list up to date.
    news.get_by_role("link", name="visa dem").click()
    expect(_row(bea, arrived.pk)).to_be_visible()
    expect(news.locator(".live-news-text")).to_have_text("")

    # A hidden tab does not poll; shown again, it polls again (at once: inbox.js asks on visibilitychange).
    polls: list[str] = []
    bea.on("request", lambda r: polls.append(r.url) if r.headers.get("hx-trigger") == "inbox-live" else None)
    bea.evaluate(_SET_VISIBILITY, "hidden")
    bea.wait_for_timeout(300)  # a poll already on its way may still land
    polls.clear()
    bea.wait_for_timeout(3_000 * POLL_SECONDS)
    assert polls == [], "a hidden tab kept polling"
    bea.evaluate(_SET_VISIBILITY, "visible")
    bea.wait_for_timeout(1_500 * POLL_SECONDS)
    assert polls, "the tab did not poll again once shown"


# The tab's visibility as the browser would report it when the person switches tabs.
_SET_VISIBILITY = """(state) => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => state});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
