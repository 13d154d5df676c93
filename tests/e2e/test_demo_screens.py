"""The screens over seed_demo's data: no browser errors on any state, and the README's screenshots.

``E2E_README_SCREENSHOTS=1 make e2e`` also writes the pictures to
``docs/screenshots/`` (committed, linked from the README): the queue
(``list.png``, and ``queue-390.png`` on a phone), an item mid-answer
(``item.png``) and the answer screen at both widths (``answer-1440.png``,
``answer-390.png``). Without it the same pictures go to
``test-artifacts/e2e/`` only.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Page, ViewportSize, expect

from reviewapp.core import roles, states
from reviewapp.inbox.query import DEFAULT_PAGE_SIZE
from reviewapp.models import IndexedItem
from tests.e2e.conftest import ARTIFACTS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DEMO_ITEMS = 400
PHONE = ViewportSize(width=390, height=844)
WIDE = ViewportSize(width=1440, height=900)


def _keep(page: Page, name: str, *, height: int | None = None) -> None:
    """Screenshot the window; ``height`` reaches below it, from the top of the page."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    if height is None:
        page.screenshot(path=str(target))
    else:
        width = page.viewport_size["width"] if page.viewport_size else 1360
        page.screenshot(path=str(target), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height})
    if os.environ.get("E2E_README_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, DOCS / name)


def _fill_representation(page: Page) -> None:
    form = page.locator("#answer-form")
    form.locator('input[name="participants-0-name"]').fill("Elin Ström")
    form.locator('input[name="participants-0-company"]').fill("Nordljus AB")
    form.locator('textarea[name="purpose"]').fill("Avtalsförhandling om ramavtal 2027")
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text("Elin Ström")


def _answer_screen_in_view(page: Page) -> None:
    """The answer panel at the top of the window, as a bookkeeper works it; the pointer out of the way."""
    page.locator("#answer-panel").evaluate("panel => panel.scrollIntoView({block: 'start'})")
    page.mouse.move(0, 0)


@pytest.mark.e2e
def test_demo_data_renders_every_state_without_browser_errors(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    # The bookkeeper first, as seed_demo makes her: the answers it logs in the app are then hers.
    make_user(roles.BOOKKEEPER, username="bokforare", first_name="Bea", last_name="Bokförare")
    call_command("seed_demo", items=DEMO_ITEMS, seed=1, no_users=True, stdout=open(os.devnull, "w"))  # noqa: SIM115
    page = new_page(width=1360, height=960)
    log_in(page, "bokforare")

    # The list as a bookkeeper starts the day: they land on the queue, longest waiting in the app first.
    expect(page.locator("#facet-needs_answer")).to_be_checked()
    expect(page.locator("#id_sort")).to_have_value("queue")
    queue = IndexedItem.objects.filter(state_needs_answer=True).count()
    assert queue > 0, "seed_demo left nothing in the queue"
    expect(page.locator('.facet-count[data-state="needs_answer"]')).to_have_text(str(queue))
    expect(page.locator("#id_page_size")).to_have_value(str(DEFAULT_PAGE_SIZE))
    expect(page.locator("tr.inbox-row")).to_have_count(min(queue, DEFAULT_PAGE_SIZE))
    page.mouse.move(0, 0)
    _keep(page, "list.png")

    # An item page: a representation question the app owns, with its receipt, mid-answer.
    candidates = IndexedItem.objects.filter(state_needs_answer=True, open_question_type="representation")
    item = candidates.exclude(document_id=None).first() or candidates.first()
    assert item is not None, "seed_demo made no representation question for the app"
    item_url = reverse("item_detail", args=[item.pk]) + "?state=needs_answer&sort=queue"
    page.goto(item_url)
    _fill_representation(page)
    # Down to the live preview under the form: what the agent is told now and after saving.
    page.evaluate("window.scrollTo(0, 0)")  # bounding boxes are relative to the scrolled window
    bottom = page.locator("#answer-preview").bounding_box()
    assert bottom is not None
    _keep(page, "item.png", height=int(bottom["y"] + bottom["height"] + 24))

    # The answer screen on a wide screen: the receipt beside the form, the preview in view.
    page.set_viewport_size(WIDE)
    page.goto(item_url)
    _fill_representation(page)
    _answer_screen_in_view(page)
    _keep(page, "answer-1440.png")

    # Every state's item page, on data shaped like production's, loads cleanly.
    for key in states.STATE_KEYS:
        sample = IndexedItem.objects.filter(**{states.STATE_FIELDS[key]: True}).order_by("created_at").first()
        assert sample is not None, f"seed_demo made no item in state {key}"
        page.goto(reverse("item_detail", args=[sample.pk]))
        if key == states.ANSWER_REPLACED:
            # Known from the app's own log, not from the row: the answer panel says it, with both answers.
            expect(page.locator("#answer-replaced")).to_be_visible()
        else:
            expect(page.locator(f".item-badges .badge-{key}")).to_be_visible()
        page.wait_for_load_state("load")

    # On a phone: the queue as cards, and the answer screen (another person, so the item is theirs to answer).
    make_user(roles.BOOKKEEPER, username="telefon", first_name="Tove", last_name="Telefon")
    phone = new_page(**PHONE)
    log_in(phone, "telefon")
    expect(phone.locator("#facet-needs_answer")).to_be_checked()
    phone.mouse.move(0, 0)
    # From the top of the page down to the third card: the filters, "N left" and the first rows.
    third = phone.locator("tr.inbox-row").nth(2).bounding_box()
    assert third is not None
    _keep(phone, "queue-390.png", height=int(third["y"] + third["height"] + 12))
    other = candidates.exclude(pk=item.pk).exclude(document_id=None).first() or candidates.exclude(pk=item.pk).first()
    assert other is not None, "seed_demo made only one representation question for the app"
    phone.goto(reverse("item_detail", args=[other.pk]) + "?state=needs_answer&sort=queue")
    _fill_representation(phone)
    _answer_screen_in_view(phone)
    _keep(phone, "answer-390.png")
