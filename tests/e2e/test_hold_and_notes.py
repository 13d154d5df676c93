"""On hold and notes for colleagues (issue 38 parts 1 and 2), in Chromium, by two bookkeepers.

Bea, at 1440 px, finds ``h`` in the queue's ``?`` list, selects the first row
with ``j`` and presses ``h``: the item page opens at the hold form with its
first field focused. She puts the item on hold with a reason, a date and a
note, and sees who, why and until when; she leaves a note for colleagues and
finds it in the item's history with her name. Anna, on a phone (390 px),
opens the same item: she sees Bea's hold, releases it early, and the history
says so. axe checks the panel (form, hold status, release button, note form)
at both widths, on the item page and on the answer page.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.inbox import holds
from reviewapp.models import Hold
from tests import factories
from tests.e2e import data

pytestmark = pytest.mark.e2e

NOTE_ON_HOLD = "Kunden ringer tillbaka om kvittot på fredag"
TEAM_NOTE = "Anna vet vilken resa det gäller <b>fet</b>"


def _axe_clean(page: Page, state: str, include: str = "#team") -> None:
    """No axe violation in ``include`` (the hold and notes panel) in its current state."""
    result = Axe().run(page, context={"include": [[include]]}, options={"resultTypes": ["violations"]})
    violations = result.response["violations"]
    report = [f"{v['id']}: {v['help']} {[' '.join(map(str, n['target'])) for n in v['nodes'][:3]]}" for v in violations]
    assert not report, f"axe on {state}:\n" + "\n".join(report)


def test_a_hold_with_a_reason_date_and_note_is_seen_by_a_colleague_released_early_and_a_note_joins_the_history(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[..., None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Bokförare")
    make_user(roles.BOOKKEEPER, username="anna", first_name="Anna", last_name="Berg")
    company = factories.make_company(name="Tegelbruket AB")
    first = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=30)
    later = data.waiting_item(company, "ICA Kvantum", "context", moved_hours_ago=10)
    until = holds.stockholm_today() + dt.timedelta(days=3)

    bea = new_page(width=1440, height=900)
    log_in(bea, "bea")
    expect(bea.locator(f"#row-{first.pk}")).to_be_visible()
    # "?" lists the hold key among the queue's keys.
    bea.locator("body").press("?")
    help_list = bea.locator("#keyboard-help")
    expect(help_list).to_be_visible()
    hold_key = help_list.locator("dt", has=bea.locator("kbd", has_text=re.compile(r"^h$")))
    expect(hold_key).to_have_count(1)
    expect(help_list.locator("dt:has(kbd:text-is('h')) + dd")).to_contain_text("paus", ignore_case=True)
    bea.keyboard.press("Escape")
    expect(help_list).to_be_hidden()

    # j selects the first row (the oldest in the queue); h opens it at the hold form, its first field focused.
    bea.keyboard.press("j")
    expect(bea.locator(f"#row-{first.pk}")).to_have_class(re.compile(r"\bis-selected\b"))
    bea.keyboard.press("h")
    bea.wait_for_url(re.compile(rf"/items/{first.pk}/.*#hold-form$"))
    expect(bea.locator("#hold_reason")).to_be_focused()
    _axe_clean(bea, "the item page's hold form at 1440 px")

    # The reason, the date and the note, then the button.
    bea.locator("#hold_reason").select_option("emailed")
    bea.locator("#hold_until").fill(until.isoformat())
    bea.locator("#hold_note").fill(NOTE_ON_HOLD)
    bea.locator("#hold-form button[data-hold-submit]").click()
    status = bea.locator("#hold-status")
    expect(status).to_contain_text(f"Pausad till {until.isoformat()}")
    expect(status).to_contain_text("Bea Bokförare")
    expect(status).to_contain_text("Mejlat kunden")
    expect(status).to_contain_text(NOTE_ON_HOLD)
    hold = Hold.objects.get(item_id=first.pk, released_at__isnull=True)
    assert (hold.reason, hold.note) == ("emailed", NOTE_ON_HOLD)

    # A note for colleagues: shown in the history with its author, as text (never as markup).
    bea.locator("#team_note_text").fill(TEAM_NOTE)
    bea.locator("#team form.note-form button[type=submit]").click()
    bea.reload()
    note_entry = bea.locator("#history li.event", has_text=TEAM_NOTE)
    expect(note_entry).to_have_count(1)
    expect(note_entry).to_contain_text("Anteckning")
    expect(note_entry).to_contain_text("Bea Bokförare")
    expect(note_entry.locator("b")).to_have_count(0)
    _axe_clean(bea, "the item page with the hold and the note at 1440 px")
    _axe_clean(bea, "the history with the note at 1440 px", include="#history")

    # Back in the queue the held item is gone; the other is first.
    bea.goto("/?state=needs_answer&sort=queue")
    expect(bea.locator(f"#row-{later.pk}")).to_be_visible()
    expect(bea.locator(f"#row-{first.pk}")).to_have_count(0)

    # Anna, on a phone, sees who put it on hold, why and until when, and releases it early.
    anna = new_page(width=390, height=844, touch=True)
    log_in(anna, "anna")
    anna.goto(reverse("item_detail", args=[first.pk]))
    seen = anna.locator("#hold-status")
    expect(seen).to_contain_text(f"Pausad till {until.isoformat()}")
    expect(seen).to_contain_text("Bea Bokförare")
    expect(seen).to_contain_text("Mejlat kunden")
    _axe_clean(anna, "the item page on hold at 390 px")
    anna.locator("#team").get_by_role("button", name="Avsluta pausen").click()
    expect(anna.locator("#hold-status")).to_have_count(0)
    expect(anna.locator("#hold-form")).to_be_visible()
    assert not Hold.objects.filter(item_id=first.pk, released_at__isnull=True).exists()
    _axe_clean(anna, "the item page's hold form at 390 px")
    anna.reload()
    expect(anna.locator("#history li.event", has_text="Pausen avslutad")).to_contain_text("Anna Berg")

    # The answer page carries the same panel: clean at both widths.
    for page, width in ((anna, 390), (bea, 1440)):
        page.goto(reverse("item_answer", args=[first.pk]))
        expect(page.locator("#team")).to_be_visible()
        _axe_clean(page, f"the answer page's hold and notes panel at {width} px")
