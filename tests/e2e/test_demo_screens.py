"""The screens over seed_demo's data: no browser errors on any state, and the README's screenshots.

``E2E_README_SCREENSHOTS=1 make e2e`` also writes the list and an item page
to ``docs/screenshots/`` (committed, linked from the README); without it the
same pictures go to ``test-artifacts/e2e/`` only.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp import roles, states
from reviewapp.forms.inbox import DEFAULT_PAGE_SIZE
from reviewapp.models import InboxItem
from tests.e2e.conftest import ARTIFACTS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DEMO_ITEMS = 400


def _keep(page: Page, name: str, *, height: int | None = None) -> None:
    """Screenshot the top of the page; ``height`` reaches below the window."""
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


@pytest.mark.e2e
def test_demo_data_renders_every_state_without_browser_errors(
    page: Page, make_user: Callable[..., object], log_in
) -> None:  # type: ignore[no-untyped-def]
    call_command("seed_demo", items=DEMO_ITEMS, seed=1, no_users=True, stdout=open(os.devnull, "w"))  # noqa: SIM115
    make_user(roles.BOOKKEEPER, username="bokforare", first_name="Bea", last_name="Bokförare")
    page.set_viewport_size({"width": 1360, "height": 960})
    log_in(page, "bokforare")

    # The list as a bookkeeper starts the day: the app's queue, oldest question first.
    page.locator("#facet-needs_answer").check()
    expect(page).to_have_url(re.compile(r"state=needs_answer"))
    page.locator("#id_sort").select_option("question_age")
    expect(page).to_have_url(re.compile(r"sort=question_age"))
    queue = InboxItem.objects.filter(state_needs_answer=True).count()
    expect(page.locator('.facet-count[data-state="needs_answer"]')).to_have_text(str(queue))
    expect(page.locator("#id_page_size")).to_have_value(str(DEFAULT_PAGE_SIZE))
    expect(page.locator("tr.inbox-row")).to_have_count(min(queue, DEFAULT_PAGE_SIZE))
    page.mouse.move(0, 0)
    _keep(page, "list.png")

    # An item page: a representation question the app owns, with its receipt, mid-answer.
    candidates = InboxItem.objects.filter(state_needs_answer=True, open_question_type="representation")
    item = candidates.exclude(document_file="").first() or candidates.first()
    assert item is not None, "seed_demo made no representation question for the app"
    page.goto(reverse("item_detail", args=[item.pk]) + "?state=needs_answer&sort=question_age")
    form = page.locator("#answer-form")
    form.locator('input[name="participants-0-name"]').fill("Elin Ström")
    form.locator('input[name="participants-0-company"]').fill("Nordljus AB")
    form.locator('textarea[name="purpose"]').fill("Avtalsförhandling om ramavtal 2027")
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text("Elin Ström")
    # Down to the live preview under the form: what the agent is told now and after saving.
    page.evaluate("window.scrollTo(0, 0)")  # bounding boxes are relative to the scrolled window
    bottom = page.locator("#answer-preview").bounding_box()
    assert bottom is not None
    _keep(page, "item.png", height=int(bottom["y"] + bottom["height"] + 24))

    # Every state's item page, on data shaped like production's, loads cleanly.
    for key in states.STATE_KEYS:
        sample = InboxItem.objects.filter(**{states.STATE_FIELDS[key]: True}).order_by("created_at").first()
        assert sample is not None, f"seed_demo made no item in state {key}"
        page.goto(reverse("item_detail", args=[sample.pk]))
        expect(page.locator(f".item-badges .badge-{key}")).to_be_visible()
        page.wait_for_load_state("load")
