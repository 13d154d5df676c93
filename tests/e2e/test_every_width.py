"""Every screen at every width (issue 37, point 1): no page is wider than the window.

Each role visits the queue, all items, a search, an item, its answer page and
the overview at 1280, 1440 and 1920 px, and at 390 px on a touch screen. The
shared fixture (tests/e2e/conftest.py) reports sideways scroll on every page
load at any width; this test also measures each page itself, so it names the
page and the width that failed.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from reviewapp.core import roles, states
from reviewapp.readmodel import sync
from tests import factories
from tests.e2e import data

pytestmark = pytest.mark.e2e

# Long names, as real companies and suppliers have; two states on one row; a chat's window.
COMPANY = "Kvarnholmen Design och Bygg Handelsbolag i Nacka"
SUPPLIERS = ["Restaurang Tegel Gamla Stan", "Taxi Stockholm 15 00 00 AB", "Adobe Systems Software Ireland Ltd"]
ALL_ITEMS = "/?" + urlencode([("state", key) for key in states.STATE_KEYS])


def _items() -> str:
    company = factories.make_company(name=COMPANY)
    waiting = [
        data.waiting_item(
            company, SUPPLIERS[n % 3], ("representation", "context", "resend")[n % 3], moved_hours_ago=2500 - n
        )
        for n in range(16)
    ]
    for n in range(4):
        data.chat_item(company, SUPPLIERS[n % 3], "representation", asked_hours_ago=3 + n)
    sync.poll()
    return str(waiting[0].pk)


def _width_problem(page: Page) -> str | None:
    wide, window = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    return None if wide <= window else f"{page.url}: {wide} px wide in a {window} px window"


def _visit_everything(page: Page, item_id: str, *, answers: bool) -> list[str]:
    problems = []
    # Only a bookkeeper may open the answer page (Support and QA get 403).
    answer_page = [f"/items/{item_id}/answer/"] if answers else []
    for url in [
        "/",
        ALL_ITEMS,
        "/?q=taxi",
        ALL_ITEMS + "&q=Stockholm",
        f"/items/{item_id}/",
        *answer_page,
        "/overview/",
    ]:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        problem = _width_problem(page)
        if problem:
            problems.append(problem)
    return problems


@pytest.mark.parametrize(
    ("width", "height", "touch"), [(1280, 800, False), (1440, 900, False), (1920, 1080, False), (390, 844, True)]
)
def test_no_page_is_wider_than_the_window_for_any_role(
    new_page: Callable[..., Page],
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
    width: int,
    height: int,
    touch: bool,
) -> None:
    item_id = _items()
    problems = []
    for role, username in [(roles.BOOKKEEPER, "bea"), (roles.SUPPORT, "sam"), (roles.QA, "quinn")]:
        make_user(role, username=username)
        page = new_page(width=width, height=height, touch=touch)
        log_in(page, username)
        problems += [
            f"{username} at {width}: {p}" for p in _visit_everything(page, item_id, answers=role == roles.BOOKKEEPER)
        ]
    assert not problems, "\n".join(problems)


def test_a_dozen_queue_rows_are_wholly_in_view_at_1440_by_900(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    _items()
    make_user(roles.BOOKKEEPER, username="bea")
    page = new_page(width=1440, height=900)
    log_in(page, "bea")
    page.wait_for_load_state("networkidle")
    # Wholly: the bottom and the right edge of the row in the window, not only its top.
    whole = page.evaluate(
        "() => Array.from(document.querySelectorAll('#inbox-results .inbox-row')).filter(r => {"
        " const box = r.getBoundingClientRect(); return box.bottom <= innerHeight && box.right <= innerWidth; }).length"
    )
    print(f"\nqueue rows wholly in view at 1440x900: {whole}")
    assert whole >= 12


# Text a keyboard user reads as a key: a <kbd>, or the "+" and "/" left between two hidden ones.
_VISIBLE_KEY_HINTS = """
() => Array.from(document.querySelectorAll("body *")).filter((e) => e.checkVisibility()).flatMap((e) => {
  if (e.tagName === "KBD") return [e.tagName + ": " + e.textContent];
  return Array.from(e.childNodes).filter((n) => n.nodeType === 3 && /[+\\/]/.test(n.textContent)
      && /^[\\s+/]*$/.test(n.textContent)).map(() => "a lone '+' in " + e.tagName + ": " + e.innerText.slice(0, 40));
})
"""


def test_on_a_touch_phone_no_key_hints_the_answer_page_opens_at_its_top_and_a_card_is_on_the_first_screen(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    item_id = _items()
    make_user(roles.BOOKKEEPER, username="bea")
    page = new_page(width=390, height=844, touch=True)
    log_in(page, "bea")
    page.wait_for_load_state("networkidle")
    card = page.locator("#inbox-results .inbox-row").first.bounding_box()
    assert card is not None
    print(f"\nfirst card at y={card['y']} of 844")
    assert card["y"] + card["height"] <= 844, "the first card is not wholly on the first screen"
    # The state facets are one compact row, not eight lines of checkboxes above the cards.
    facets = page.locator("fieldset.facets").bounding_box()
    assert facets is not None
    assert facets["height"] <= 60, f"the state facets are {facets['height']} px tall"
    hints = page.evaluate(_VISIBLE_KEY_HINTS)
    for url in [f"/items/{item_id}/", f"/items/{item_id}/answer/"]:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        hints += page.evaluate(_VISIBLE_KEY_HINTS)
        assert page.evaluate("scrollY") == 0, f"{url} opened {page.evaluate('scrollY')} px down"
    assert not hints, hints


@pytest.mark.parametrize(("width", "touch"), [(390, True), (1920, False)])
def test_the_overviews_chart_text_is_readable_and_the_last_date_is_whole(
    new_page: Callable[..., Page],
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
    width: int,
    touch: bool,
) -> None:
    _items()
    make_user(roles.SUPPORT, username="sam")
    page = new_page(width=width, height=844, touch=touch)
    log_in(page, "sam")
    page.goto("/overview/")
    sizes, cut = page.evaluate(
        """() => {
          const texts = Array.from(document.querySelectorAll(".chart-svg text")).filter((t) => t.checkVisibility());
          const sizes = texts.map((t) => t.getBoundingClientRect().height);
          const cut = Array.from(document.querySelectorAll(".chart-svg")).flatMap((svg) => {
            const edge = svg.getBoundingClientRect();
            return Array.from(svg.querySelectorAll("text")).filter((t) => t.checkVisibility()).filter((t) => {
              const box = t.getBoundingClientRect();
              return box.right > edge.right + 0.5 || box.left < edge.left - 0.5;
            }).map((t) => t.textContent);
          });
          return [sizes, cut];
        }"""
    )
    print(f"\nchart text heights at {width}: {min(sizes):.1f}–{max(sizes):.1f} px")
    assert min(sizes) >= 10, f"chart text {min(sizes):.1f} px tall at {width} px"
    assert not cut, f"cut off at {width} px: {cut}"
