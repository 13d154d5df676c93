"""A bookkeeper works the queue with the keyboard alone: three answers, every key press counted.

After the login page loads, the journey uses ``page.keyboard`` and nothing
else to act (no clicks, no ``fill``); the page itself counts pointer events
and must count none. The figure is printed (``pytest -s``) and goes in the
README.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.data import shown_item_ids

NAME = "Anna Berg"
PURPOSE = "Kundmöte"
CONTEXT_TEXT = "Lunch med kund"

# The key presses from the queue to the third saved answer (a chord such as Ctrl+Enter is one press):
#   the queue:        j, Enter (select the first row, open it)                                      2
#   representation:   type the name; Tab to the company, Tab to "Add a participant", Tab to the
#                     purpose (3); type the purpose; Ctrl+Enter (save and go to the next)          4
#   context:          type what it was for; Ctrl+Enter                                              1
#   resend:           Alt+1 ("the current photo is readable"); Ctrl+Enter                           2
COMMAND_KEYS = 2 + 4 + 1 + 2
TYPED_CHARACTERS = len(NAME) + len(PURPOSE) + len(CONTEXT_TEXT)
KEY_PRESSES = COMMAND_KEYS + TYPED_CHARACTERS

# Counts pointer events in the page, across page loads (sessionStorage is per tab).
_POINTER_WATCH = """
for (const type of ["mousedown", "mouseup", "click", "pointerdown", "touchstart", "wheel"]) {
  document.addEventListener(type, (event) => {
    // A click a script makes, or one a key makes (Enter on a link or button: detail 0), is no pointer.
    if (!event.isTrusted || (event.type === "click" && event.detail === 0)) return;
    sessionStorage.setItem("pointerEvents", String(Number(sessionStorage.getItem("pointerEvents") || 0) + 1));
  }, true);
}
"""


@dataclass
class CountedKeyboard:
    """``page.keyboard``, counting: each press (or chord) one, each typed character one."""

    page: Page
    presses: list[str] = field(default_factory=list)
    typed: int = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.presses.append(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text, delay=10)
        self.typed += len(text)

    @property
    def total(self) -> int:
        return len(self.presses) + self.typed


def _at(item: InboxItem) -> re.Pattern[str]:
    return re.compile(re.escape(reverse("item_detail", args=[item.pk])) + r"\?")


@pytest.mark.e2e
def test_bookkeeper_answers_three_items_with_the_keyboard_alone(
    page: Page, make_user: Callable[..., User], log_in: Callable[..., None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    # The queue, longest waiting in the app first: one question of each kind.
    representation = data.waiting_item(company, "Restaurang Tegel", "representation", moved_hours_ago=30)
    context = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=20)
    resend = data.waiting_item(company, "ICA Kvantum", "resend", moved_hours_ago=10)
    # Not in the queue: still waiting for the customer in WhatsApp.
    data.chat_item(company, "Pressbyrån", "context", asked_hours_ago=3)

    page.add_init_script(_POINTER_WATCH)
    log_in(page, "bea", keyboard=True)  # not counted: logging in is not answering
    keys = CountedKeyboard(page)

    # The queue, where a bookkeeper lands.
    expect(page.locator("#facet-needs_answer")).to_be_checked()
    expect(page.locator("tr.inbox-row")).to_have_count(3)
    assert shown_item_ids(page) == [str(representation.pk), str(context.pk), str(resend.pk)]
    keys.press("j")
    expect(page.locator("tr.inbox-row").first).to_have_attribute("aria-current", "true")
    keys.press("Enter")

    # 1. Representation: the keyboard starts in the first participant's name.
    expect(page).to_have_url(_at(representation))
    expect(page.locator("#id_participants-0-name")).to_be_focused()
    keys.type(NAME)
    keys.press("Tab")
    expect(page.locator("#id_participants-0-company")).to_be_focused()
    keys.press("Tab")
    expect(page.locator("[data-add-participant]")).to_be_focused()
    keys.press("Tab")
    expect(page.locator("#id_purpose")).to_be_focused()
    keys.type(PURPOSE)
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text(PURPOSE)
    keys.press("Control+Enter")

    # 2. Context: saved, on to the next in the queue, the keyboard in its one field.
    expect(page).to_have_url(_at(context))
    expect(page.locator(".messages .message-success")).to_be_visible()
    expect(page.locator("#id_text")).to_be_focused()
    keys.type(CONTEXT_TEXT)
    keys.press("Control+Enter")

    # 3. Resend: Alt+1 picks "the current photo is readable".
    expect(page).to_have_url(_at(resend))
    readable = page.locator('input[name="choice"][value="readable"]')
    keys.press("Alt+1")
    expect(readable).to_be_checked()
    keys.press("Control+Enter")

    # The queue is empty, and the list says so.
    expect(page).to_have_url(re.compile(r"^https?://[^/]+/\?(.*&)?state=needs_answer"))
    expect(page.locator(".messages .message-info")).to_be_visible()  # "The queue is empty: …"
    expect(page.locator("tr.inbox-row")).to_have_count(0)
    assert data.pending_status(representation) == "answered"
    assert data.pending_status(context) == "answered"
    assert data.pending_status(resend) == "answered"
    representation.refresh_from_db()
    assert representation.channel_context["representation"]["participants"] == [{"name": NAME, "company": None}]
    assert representation.channel_context["representation"]["purpose"] == PURPOSE
    context.refresh_from_db()
    assert context.channel_context["user_note"] == CONTEXT_TEXT
    assert ClarificationEvent.objects.filter(actor_label="bea", event_type=ClarificationEvent.ANSWERED).count() == 3

    # Nothing but the keyboard: the page saw no pointer at all.
    assert page.evaluate("Number(sessionStorage.getItem('pointerEvents') || 0)") == 0
    print(
        f"\nKeyboard only: {keys.total} key presses for three answers from the queue "
        f"({len(keys.presses)} keys: {', '.join(keys.presses)}; {keys.typed} characters typed)."
    )
    assert (len(keys.presses), keys.typed) == (COMMAND_KEYS, TYPED_CHARACTERS)
    assert keys.total == KEY_PRESSES
