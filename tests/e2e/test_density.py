"""A dense queue: a dozen rows on a laptop screen, short cards and the filters folded away on a phone.

Each page reached is checked by axe; every page at 390 px is also checked for
sideways scroll by the shared fixture (tests/e2e/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.readmodel import sync
from tests import factories
from tests.e2e import data

pytestmark = pytest.mark.e2e

SUPPLIERS = ["Restaurang Tegel", "Taxi Stockholm", "ICA Kvantum", "Operakällaren", "SJ AB", "Clas Ohlson"]


def _queue(count: int, *, held_by: User | None = None) -> None:
    # Names as long as the demo's; waiting for months, as its oldest items do.
    company = factories.make_company(name="Kvarnholmen Design och Bygg Handelsbolag")
    items = []
    for n in range(count):
        question = ("representation", "context", "resend")[n % 3]
        supplier = f"{SUPPLIERS[n % len(SUPPLIERS)]} Systems Software Aktiebolag"
        items.append(data.waiting_item(company, supplier, question, moved_hours_ago=2500 - n))
    if held_by is not None:
        reservations.reserve(items[0].pk, held_by)
    sync.poll()  # as sync_index does beside the server: the list's index is built and current


def _axe_clean(page: Page) -> None:
    violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in violations]


def _rows_in_view(page: Page) -> int:
    return int(
        page.evaluate(
            "() => Array.from(document.querySelectorAll('#inbox-results .inbox-row'))"
            ".filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length"
        )
    )


def test_a_bookkeeper_sees_a_dozen_queue_rows_at_1440_by_900_without_scrolling(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    _queue(16)
    page = new_page(width=1440, height=900)
    log_in(page, "bea")
    page.wait_for_load_state("networkidle")

    first = page.locator("#inbox-results .inbox-row").first.bounding_box()
    print(f"\nrows in view at 1440x900: {_rows_in_view(page)}; first row at y={first and first['y']}")
    assert _rows_in_view(page) >= 12
    # The dates and the page size wait behind "More filters", a <details> (works without JavaScript).
    more = page.locator("details.filter-more")
    expect(more.locator("#id_received_from")).to_be_hidden()
    more.locator("summary").click()
    expect(more.locator("#id_received_from")).to_be_visible()
    # What the state facets mean is in the help, not above the rows.
    expect(page.locator("#facet-help")).to_be_hidden()
    page.keyboard.press("Escape")
    page.locator("body").press("?")
    expect(page.locator("#keyboard-help #facet-help")).to_be_visible()
    _axe_clean(page)


def test_on_a_phone_the_queue_cards_are_short_and_the_filters_wait_behind_a_button(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    _queue(6, held_by=make_user(roles.BOOKKEEPER, username="karin", first_name="Karin", last_name="Lund"))
    page = new_page(width=390, height=844)
    log_in(page, "bea")
    page.wait_for_load_state("networkidle")

    heights = page.evaluate(
        "() => Array.from(document.querySelectorAll('#inbox-results .inbox-row'))"
        ".map(r => r.getBoundingClientRect().height)"
    )
    print(f"\ncard heights at 390: {heights}")
    assert heights
    assert max(heights) <= 120
    # The filters are folded behind one button; the search stays at hand.
    expect(page.locator("#id_q")).to_be_visible()
    expect(page.locator("#id_company")).to_be_hidden()
    page.locator("details.filter-panel > summary").click()
    expect(page.locator("#id_company")).to_be_visible()
    # No key hints on a touch screen.
    touch = new_page(width=390, height=844, touch=True)
    log_in(touch, "bea")
    expect(touch.locator(".keyboard-hint, .answer-keys").first).to_be_hidden()
    _axe_clean(page)
