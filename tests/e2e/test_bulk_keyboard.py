"""Ten queue items answered with the keyboard alone, five of them in one bulk answer, every key press counted.

The journey ticks five taxi receipts with Shift+J, answers them together
(``b``, one text, Ctrl+Enter), then answers the other five one by one, taking
the company's earlier answers as suggestions (Alt+Shift+number) and naming a
replacing item by the eight characters the list shows. axe-core checks every
page and state it reaches at 1440 px; the bulk screen is checked at 390 px too.
After logging in it acts through ``page.keyboard`` alone; the page counts
pointer events and must count none. The figure is printed (``pytest -s``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.data import shown_item_ids
from tests.e2e.test_keyboard import _POINTER_WATCH, CountedKeyboard

TAXI_TEXT = "Taxi till kundmötet"
LAST_CONTEXT = "Fika med kund"
NEWER_ID = uuid.UUID("1ca0e5e5-7000-4000-8000-000000000001")
SHORT_ID = str(NEWER_ID)[:8]

# The key presses from the queue to the tenth saved answer (a chord is one press):
#   bulk:            Shift+J five times (tick the five taxis), b (answer them together)           6
#                    type the text; Ctrl+Enter; Enter on "Back to list" (it has the focus)      2
#   representation:  j, Enter (open the first row); Alt+Shift+1 (the participant),
#                    Alt+Shift+2 (the purpose); Ctrl+Enter                                      5
#   context:         Alt+Shift+1 (the same supplier's earlier answer); Ctrl+Enter               2
#   resend:          Alt+2 ("a newer item replaces it"); type its 8 characters; Ctrl+Enter      2
#   context:         type what it was for; Ctrl+Enter                                           1
#   resend:          Alt+1 ("readable"); Ctrl+Enter                                             2
COMMAND_KEYS = 6 + 2 + 5 + 2 + 2 + 1 + 2
TYPED_CHARACTERS = len(TAXI_TEXT) + len(SHORT_ID) + len(LAST_CONTEXT)
KEY_PRESSES = COMMAND_KEYS + TYPED_CHARACTERS
AXE_OPTIONS = {"resultTypes": ["violations"]}


def assert_axe_clean(page: Page, state: str) -> None:
    page.wait_for_load_state("networkidle")
    violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    report = [f"{v['id']}: {v['help']} {[' '.join(map(str, n['target'])) for n in v['nodes'][:3]]}" for v in violations]
    assert not report, f"axe on {state}:\n" + "\n".join(report)


def _at(item: InboxItem) -> re.Pattern[str]:
    return re.compile(re.escape(reverse("item_detail", args=[item.pk])) + r"\?")


def _answered_context(company: Company, supplier: str, note: str) -> InboxItem:
    return data.item(
        company,
        supplier,
        {
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": data.iso_hours_ago(200), "status": "answered"},
            "user_note": note,
            "context_answer": {"raw_answer": note, "answered_at": data.iso_hours_ago(199)},
        },
        received_hours_ago=201,
    )


def _queue(company: Company) -> dict[str, Any]:
    taxis = [
        data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=60 - n, received_hours_ago=120 - n)
        for n in range(5)
    ]
    representation = data.waiting_item(company, "Restaurang Tegel", "representation", moved_hours_ago=30)
    kiosk = data.waiting_item(company, "Pressbyrån", "context", moved_hours_ago=25)
    blurry = data.waiting_item(company, "ICA Kvantum", "resend", moved_hours_ago=20)
    coffee = data.waiting_item(company, "Espresso House", "context", moved_hours_ago=15)
    readable = data.waiting_item(company, "Clas Ohlson", "resend", moved_hours_ago=10)
    # The company's history: what the suggestions offer.
    data.item(company, "Restaurang Tegel", data.full_answer(["Anna Berg"], "Kundmöte"), received_hours_ago=300)
    _answered_context(company, "Pressbyrån", "Tidningar till väntrummet")
    # The sharper photo the customer sent of the ICA receipt: a newer item, no question.
    data.item(company, "ICA Kvantum", {"channel": "whatsapp"}, received_hours_ago=2, id=NEWER_ID)
    return {
        "taxis": taxis,
        "representation": representation,
        "kiosk": kiosk,
        "blurry": blurry,
        "coffee": coffee,
        "readable": readable,
    }


@pytest.mark.e2e
def test_ten_answers_five_of_them_in_one_bulk_answer_with_the_keyboard_alone(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[..., None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    q = _queue(company)
    page = new_page(width=1440, height=900)
    page.add_init_script(_POINTER_WATCH)
    log_in(page, "bea", keyboard=True)
    keys = CountedKeyboard(page)

    # The queue: the five taxis wait longest.
    expect(page.locator("tr.inbox-row")).to_have_count(10)
    assert shown_item_ids(page)[:5] == [str(item.pk) for item in q["taxis"]]
    assert_axe_clean(page, "the queue")
    for _ in range(5):
        keys.press("Shift+J")
    ticks = page.locator("input[data-bulk-tick]")
    expect(ticks.nth(4)).to_be_checked()
    expect(ticks.nth(5)).not_to_be_checked()
    expect(page.locator("#bulk-count")).to_have_text("5")
    assert_axe_clean(page, "the queue with five ticked")
    keys.press("b")

    # The bulk page: the five items, one text for all.
    expect(page).to_have_url(re.compile(r"/answers/bulk/\?"))
    expect(page.locator("#bulk-items tbody tr")).to_have_count(5)
    expect(page.locator("#bulk-text")).to_be_focused()
    assert_axe_clean(page, "the bulk form")
    keys.type(TAXI_TEXT)
    keys.press("Control+Enter")
    expect(page.locator("#bulk-outcomes-title")).to_have_text(re.compile(r"^5 av 5 "))
    expect(page.locator(".bulk-outcome.status-200")).to_have_count(5)
    expect(page.locator('a[data-nav="list"]')).to_be_focused()
    assert_axe_clean(page, "the bulk outcomes")
    keys.press("Enter")

    # Back in the queue: five left; the representation first.
    expect(page.locator("tr.inbox-row")).to_have_count(5)
    keys.press("j")
    keys.press("Enter")
    expect(page).to_have_url(_at(q["representation"]))
    expect(page.locator("#answer-suggestions")).to_contain_text("Anna Berg")
    assert_axe_clean(page, "a representation question with suggestions")
    keys.press("Alt+Shift+1")
    expect(page.locator("#id_participants-0-name")).to_have_value("Anna Berg")
    keys.press("Alt+Shift+2")
    expect(page.locator("#id_purpose")).to_have_value("Kundmöte")
    keys.press("Control+Enter")

    expect(page).to_have_url(_at(q["kiosk"]))
    expect(page.locator("#id_text")).to_be_focused()
    assert_axe_clean(page, "a context question with a suggestion")
    keys.press("Alt+Shift+1")
    expect(page.locator("#id_text")).to_have_value("Tidningar till väntrummet")
    keys.press("Control+Enter")

    expect(page).to_have_url(_at(q["blurry"]))
    expect(page.locator("#newer-items")).to_contain_text(SHORT_ID)
    assert_axe_clean(page, "a resend question with the newer items")
    keys.press("Alt+2")
    expect(page.locator("#id_replaced_by")).to_be_focused()
    keys.type(SHORT_ID)
    keys.press("Control+Enter")

    expect(page).to_have_url(_at(q["coffee"]))
    expect(page.locator("#id_text")).to_be_focused()
    keys.type(LAST_CONTEXT)
    keys.press("Control+Enter")

    expect(page).to_have_url(_at(q["readable"]))
    keys.press("Alt+1")
    expect(page.locator('input[name="choice"][value="readable"]')).to_be_checked()
    keys.press("Control+Enter")

    # The queue is empty.
    expect(page).to_have_url(re.compile(r"^https?://[^/]+/\?(.*&)?state=needs_answer"))
    expect(page.locator("tr.inbox-row")).to_have_count(0)
    assert_axe_clean(page, "the empty queue")

    answered = [*q["taxis"], q["representation"], q["kiosk"], q["blurry"], q["coffee"], q["readable"]]
    assert [data.pending_status(item) for item in answered] == ["answered"] * 10
    for taxi in q["taxis"]:
        taxi.refresh_from_db()
        assert taxi.channel_context["user_note"] == TAXI_TEXT
    q["representation"].refresh_from_db()
    representation = q["representation"].channel_context["representation"]
    assert (representation["participants"], representation["purpose"]) == (
        [{"name": "Anna Berg", "company": None}],
        "Kundmöte",
    )
    q["blurry"].refresh_from_db()
    assert q["blurry"].channel_context["quality"]["superseded"] is True
    logged = ClarificationEvent.objects.filter(actor_label="bea", event_type=ClarificationEvent.ANSWERED)
    assert logged.count() == 10
    assert logged.get(item_id=q["blurry"].pk).payload["resend"]["new_item_id"] == str(NEWER_ID)

    assert page.evaluate("Number(sessionStorage.getItem('pointerEvents') || 0)") == 0
    print(
        f"\nKeyboard only: {keys.total} key presses for ten answers, five in one bulk answer "
        f"({len(keys.presses)} keys: {', '.join(keys.presses)}; {keys.typed} characters typed)."
    )
    assert (len(keys.presses), keys.typed) == (COMMAND_KEYS, TYPED_CHARACTERS)
    assert keys.total == KEY_PRESSES


@pytest.mark.e2e
def test_the_bulk_screen_at_390_px_is_accessible_and_does_not_scroll_sideways(
    new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[..., None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    taxis = [data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=60 - n) for n in range(3)]
    page = new_page(width=390, height=844)
    log_in(page, "bea")
    page.goto(reverse("answers_bulk") + "?" + "&".join(f"items={t.pk}" for t in taxis))
    expect(page.locator("#bulk-items tbody tr")).to_have_count(3)
    for state in ("the bulk form", "the bulk outcomes"):
        assert_axe_clean(page, f"{state} at 390 px")
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], f"{state} scrolls sideways at 390 px: {width}"
        if state == "the bulk form":
            page.locator("#bulk-text").fill(TAXI_TEXT)
            page.locator("[data-bulk-save]").click()
            expect(page.locator(".bulk-outcome.status-200")).to_have_count(3)
