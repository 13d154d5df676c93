"""The flow of a working day, at 1440 and 390 px: n for the next free item, the toast that names the saved one,
e and "Correct it" for a correction (called so in the history), Done today, counters and date warnings.

axe checks every page and state reached; the shared fixture fails a page at 390 px that scrolls sideways.
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
from reviewapp.inbox import reservations
from tests import factories
from tests.e2e import data

pytestmark = pytest.mark.e2e

WIDTHS = {1440: 900, 390: 844}


def _axe_clean(page: Page, where: str) -> None:
    page.wait_for_load_state("networkidle")
    violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    assert not violations, (where, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in violations])


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def test_n_answers_the_next_free_item_and_the_toast_leads_back_to_correct_it(
    width: int, new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Bokförare")
    karin = make_user(roles.BOOKKEEPER, username="karin", first_name="Karin", last_name="Lund")
    company = factories.make_company(name="Tegelbruket AB")
    held = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=40)
    first = data.waiting_item(company, "Restaurang Tegel", "context", moved_hours_ago=30)
    data.waiting_item(company, "ICA Kvantum", "context", moved_hours_ago=20)
    reservations.reserve(held.pk, karin)
    page = new_page(width=width, height=WIDTHS[width])
    log_in(page, "bea")
    expect(page.locator("#done-today")).to_have_text("· Klart i dag: 0")
    # The list names who is answering by full name.
    expect(page.locator("tr.inbox-row", has_text="Taxi Stockholm")).to_contain_text("Karin Lund")
    _axe_clean(page, "list")

    # n: the oldest item nobody else holds (the one Karin holds is skipped).
    page.keyboard.press("n")
    page.wait_for_url(re.compile(re.escape(reverse("item_detail", args=[first.pk]))))
    field = page.locator("#id_text")
    field.fill("Lunch med kund")
    field.press("Control+Enter")
    page.wait_for_url(lambda url: str(first.pk) not in url)
    toast = page.locator(".messages .message-success")
    expect(toast).to_contain_text("Sparat: Restaurang Tegel, 1 234,50 SEK")
    _axe_clean(page, "next item with the toast")

    # "Correct it" opens the saved item with its correction form unfolded.
    toast.get_by_role("link", name="Rätta det").click()
    page.wait_for_url(re.compile(re.escape(reverse("item_detail", args=[first.pk]))))
    expect(page.locator("#answer-amend")).to_have_attribute("open", "")
    amend = page.locator("#answer-amend textarea[name=text]")
    expect(amend).to_be_visible()
    amend.fill("Lunch med kund och leverantör")
    amend.press("Control+Enter")
    expect(page.locator(".messages .message-success")).to_contain_text("Rättat: Restaurang Tegel")
    history = page.locator("#history")
    expect(history).to_contain_text("Svaret rättat")
    expect(history).to_contain_text("Lunch med kund och leverantör")
    expect(page.locator("#answer-answered")).to_contain_text("Bea Bokförare")
    _axe_clean(page, "corrected item")

    # e, on an answered item, unfolds the correction with the focus in it.
    page.goto(reverse("item_detail", args=[first.pk]))
    expect(page.locator("#answer-amend")).not_to_have_attribute("open", "")
    page.locator("body").press("e")
    expect(page.locator("#answer-amend textarea[name=text]")).to_be_focused()
    _axe_clean(page, "correction opened with e")

    page.goto("/")
    expect(page.locator("#done-today")).to_have_text("· Klart i dag: 1")


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def test_a_counter_beside_each_limit_and_a_warning_for_an_odd_event_date(
    width: int, new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "Restaurang Tegel", "representation", moved_hours_ago=12)
    page = new_page(width=width, height=WIDTHS[width])
    log_in(page, "bea")
    page.goto(reverse("item_detail", args=[item.pk]))

    page.locator('input[name="participants-0-name"]').fill("Anna Berg")
    expect(page.locator("#id_participants-0-name_count")).to_have_text("9 / 200")
    purpose = page.locator("#id_purpose")
    purpose.fill("x" * 2001)  # a paste past the limit is kept whole, not cut
    expect(page.locator("#id_purpose_count")).to_have_text("1 tecken över gränsen")
    assert len(purpose.input_value()) == 2001
    purpose.press("Control+Enter")
    expect(page.locator("#id_purpose_error")).to_contain_text("1 tecken över gränsen")
    _axe_clean(page, "purpose over its limit")

    page.locator("#id_purpose").fill("Kundmöte")
    expect(page.locator("#id_purpose_count")).to_have_text("8 / 2000")
    page.locator('input[name="event_date"]').fill("2099-05-02")
    expect(page.locator("#event-date-warning")).to_contain_text("2099-05-02")
    _axe_clean(page, "event date warning")
    page.locator('input[name="event_date"]').press("Control+Enter")
    expect(page.locator(".messages")).to_contain_text("Datumet för tillfället, 2099-05-02, ligger i framtiden")
    item.refresh_from_db()
    assert item.channel_context["representation"]["event_date"] == "2099-05-02"
    assert item.channel_context["representation"]["purpose"] == "Kundmöte"
