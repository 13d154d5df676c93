"""The overview in the browser: from the header to the charts and their tables, axe-clean at 1440 and 390 px.

``E2E_README_SCREENSHOTS=1`` also writes ``docs/screenshots/overview.png``
(1440 px) for the README, as tests/e2e/test_demo_screens.py does for the others.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.readmodel import sync
from tests import factories
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_accessibility import AXE_OPTIONS, _report
from tests.overview.conftest import CHAT, CRON, app_answer, history, stockholm_midnight, waiting

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _scene(lead: User, colleague: User) -> None:
    """Thirty days of moves and answers as a month goes (busy weekdays, quiet weekends), and a queue of waits.

    Drawn from a seeded generator, so the README's picture is the same each run, and shows what a
    real month looks like rather than one saw-tooth week again and again (issue 37).
    """
    company = factories.make_company(name="Tegelbruket AB")
    items = [factories.make_item(company) for _ in range(4)]
    rng = random.Random(37)
    for days_ago in range(30):
        noon = stockholm_midnight(days_ago) + dt.timedelta(hours=12)
        busy = 0.15 if noon.weekday() >= 5 else rng.uniform(0.6, 1.4)

        def draw(mean: float, busy: float = busy) -> int:
            return max(0, round(rng.gauss(mean * busy, mean * busy / 3)))

        for n in range(draw(5)):
            history(items[n % 4], "ChannelQuestionExpired", noon, actor=CRON, question="context")
        for n in range(draw(2.5)):
            history(items[n % 4], "ChannelQuestionAnswered", noon, actor=CHAT, question="context")
        for n in range(draw(3.5)):
            app_answer(items[n % 4], lead if n % 2 else colleague, noon + dt.timedelta(minutes=n))
        if busy > 1.2:
            app_answer(items[0], lead, noon, question="representation", denied=True)
    now = dt.datetime.now(dt.UTC)
    for hours in (1, 5, 20, 30, 50, 80, 120, 200, 400, 500):
        waiting(company, now - dt.timedelta(hours=hours))
    sync.poll()  # the sync copies the question events the overview counts


def _axe_and_width(page: Page, width: int) -> list[str]:
    results = Axe().run(page, options=AXE_OPTIONS)
    assert results.response["passes"], "axe checked nothing"
    problems = [_report(results.response["violations"])] if results.response["violations"] else []
    scroll = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    if width == 390 and scroll[0] > scroll[1]:
        problems.append(f"scrolls sideways at 390 px: scrollWidth {scroll[0]} > {scroll[1]}")
    return problems


@pytest.mark.e2e
@pytest.mark.parametrize("width", [1440, 390])
def test_a_lead_reads_the_overview_from_the_header(
    width: int,
    new_page: Callable[..., Page],
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
) -> None:
    lead = make_user(roles.BOOKKEEPER, username="lena", first_name="Lena", last_name="Lind")
    lead.user_permissions.add(Permission.objects.get(codename="view_team_overview"))
    colleague = make_user(roles.BOOKKEEPER, username="olle", first_name="Olle", last_name="Ek")
    _scene(lead, colleague)
    page = new_page(width=width, height=900 if width == 1440 else 844)
    log_in(page, "lena")

    page.get_by_role("navigation", name="Huvudmeny").get_by_role("link", name="Översikt").click()
    expect(page.locator("h1")).to_have_text("Översikt")
    expect(page.get_by_role("img", name="Frågor och svar per dag")).to_be_visible()
    expect(page.locator("#figure-waiting")).to_have_text("10")
    expect(page.locator("#figure-oldest")).to_have_text("500,0")
    # Both people's answers, as the team permission allows.
    expect(page.locator("#people-table thead")).to_contain_text("Lena Lind")
    expect(page.locator("#people-table thead")).to_contain_text("Olle Ek")

    problems = _axe_and_width(page, width)

    page.locator("#id_days").select_option("7")
    page.get_by_role("button", name="Visa").click()
    page.wait_for_url("**/overview/?days=7")
    for summary in page.locator("details.chart-table summary").all():
        summary.click()
    expect(page.locator("#people-table tbody tr")).to_have_count(7)
    problems += _axe_and_width(page, width)
    assert not problems, "\n".join(problems)

    if width == 1440:
        page.goto("/overview/?days=30")
        page.mouse.move(0, 0)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTIFACTS / "overview.png"
        page.screenshot(path=str(target), full_page=True)
        if os.environ.get("E2E_README_SCREENSHOTS") == "1":
            DOCS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target, DOCS / "overview.png")
