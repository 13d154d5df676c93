"""Journeys 1 and 2: a bookkeeper works the "needs answer in app" queue."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from devtools import intake_simulator as intake
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.conftest import BrowserProblems
from tests.e2e.data import eventually, shown_item_ids


def _item_url(item: InboxItem) -> re.Pattern[str]:
    return re.compile(re.escape(reverse("item_detail", args=[item.pk])))


@pytest.mark.e2e
def test_bookkeeper_answers_the_oldest_question_and_moves_on(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    # The queue, longest waiting in the app first: oldest (representation), then middle (context), then newest.
    # Received in another order, so a list by receipt date would disagree.
    oldest = data.waiting_item(
        company, "Restaurang Tegel", "representation", moved_hours_ago=150, received_hours_ago=199
    )
    middle = data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=52, received_hours_ago=300)
    newest = data.waiting_item(company, "Pizzeria Roma", "representation", moved_hours_ago=12, received_hours_ago=61)
    # Not in the queue: answered already, and still waiting in WhatsApp.
    data.item(company, "Operakällaren", data.full_answer(["Lena Sjö"], "Kundmiddag"), received_hours_ago=30)
    data.chat_item(company, "Max", "context", asked_hours_ago=2)

    # A bookkeeper lands on the queue: the facet ticked, the queue's order, nothing to click.
    log_in(page, "bea")
    expect(page.locator("#facet-needs_answer")).to_be_checked()
    expect(page.locator("#id_sort")).to_have_value("queue")
    queue = [str(oldest.pk), str(middle.pk), str(newest.pk)]
    eventually(lambda: shown_item_ids(page), queue, what="the queue, longest waiting in the app first")
    expect(page.locator(".queue-left")).to_contain_text("3")

    page.locator("tr.inbox-row a.row-link").first.click()
    expect(page).to_have_url(_item_url(oldest))
    form = page.locator("#answer-form")
    expect(form).to_be_visible()
    after = page.locator("#answer-preview .preview-agent-after")
    expect(after).to_have_count(0)  # nothing typed, nothing to preview yet

    form.locator('input[name="participants-0-name"]').fill("Anna Berg")
    form.locator('input[name="participants-0-company"]').fill("Kund AB")
    form.locator("[data-add-participant]").click()
    form.locator('input[name="participants-1-name"]').fill("Erik Ek")
    purpose = form.locator('textarea[name="purpose"]')
    purpose.press_sequentially("Avtalsförhandling", delay=20)

    # The live preview shows the answer before anything is saved.
    expect(after).to_contain_text("Anna Berg")
    expect(after).to_contain_text("Erik Ek")
    expect(after).to_contain_text("Avtalsförhandling")
    assert data.pending_status(oldest) == "moved_to_app"

    purpose.press("Control+Enter")

    # Saved, and on to the next question in the same queue.
    expect(page).to_have_url(_item_url(middle))
    expect(page).to_have_url(re.compile(r"state=needs_answer"))
    expect(page.locator(".messages .message-success")).to_be_visible()
    oldest.refresh_from_db()
    assert oldest.channel_context["pending_question"]["status"] == "answered"
    representation = oldest.channel_context["representation"]
    assert [p["name"] for p in representation["participants"]] == ["Anna Berg", "Erik Ek"]
    assert representation["purpose"] == "Avtalsförhandling"
    assert "denied" not in representation
    event = ClarificationEvent.objects.get(item_id=oldest.pk, event_type=ClarificationEvent.ANSWERED)
    assert event.channel == "app"
    assert event.actor_label == "bea"

    # Back in the list the queue no longer holds it; among the answered it is.
    page.locator('a[data-nav="list"]').click()
    eventually(lambda: shown_item_ids(page), [str(middle.pk), str(newest.pk)], what="the queue after answering")
    page.locator("#facet-needs_answer").uncheck()
    expect(page).not_to_have_url(re.compile(r"state=needs_answer"))
    page.locator("#facet-answered").check()
    expect(page).to_have_url(re.compile(r"[?&]state=answered(&|$)"))
    row = page.locator(f'tr.inbox-row:has(a.row-link[href*="{oldest.pk}"])')
    expect(row.locator(".badge-answered")).to_be_visible()
    expect(row.locator(".badge-needs_answer")).to_have_count(0)

    # Its history shows the answer, given in the app, with what it changed.
    row.locator("a.row-link").click()
    expect(page).to_have_url(_item_url(oldest))
    answered = page.locator("#history .event-channelquestionanswered")
    expect(answered).to_have_count(1)
    expect(answered.locator(".lines-after")).to_contain_text("Anna Berg")
    expect(answered.locator(".lines-after")).to_contain_text("Avtalsförhandling")
    # No form to answer it again: only the correction, folded away.
    expect(page.locator("#answer-answered")).to_contain_text("bea")
    expect(page.locator("#answer-form")).to_be_hidden()


@pytest.mark.e2e
def test_an_answer_settled_elsewhere_shows_a_conflict_and_keeps_the_typing(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None], problems: BrowserProblems
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    item = data.waiting_item(company, "Restaurang Tegel", "representation", moved_hours_ago=30)

    log_in(page, "bea")
    page.goto(reverse("item_detail", args=[item.pk]))
    form = page.locator("#answer-form")
    form.locator('input[name="participants-0-name"]').fill("Anna Berg")
    form.locator('textarea[name="purpose"]').fill("Avtalsförhandling")
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text("Anna Berg")

    # Meanwhile the customer's late WhatsApp reply settles the question: the
    # intake routes it to the newest entry not yet answered (this one, moved
    # to the app) and writes the answer over it, as accounted does.
    routed = intake.late_reply(
        item.pk,
        text="Karin Lund, personalfest",
        participants=[intake.Participant("Karin Lund")],
        purpose="Personalfest",
    )
    assert (routed.outcome, routed.item_id) == ("answered", str(item.pk))
    winner = intake.read_context(item.pk)

    # The conflict comes as what it is, a 409, and htmx swaps it in (base.html's htmx-config).
    problems.allow(409, r"/items/[0-9a-f-]+/answer/$")
    page.locator('textarea[name="purpose"]').press("Control+Enter")

    conflict = page.locator("#answer-conflict")
    expect(conflict).to_be_visible()
    expect(conflict.locator(".conflict-lines")).to_contain_text("Karin Lund")
    typed = page.locator("#answer-typed")
    expect(typed.locator('input[name="participants-0-name"]')).to_have_value("Anna Berg")
    expect(typed.locator('textarea[name="purpose"]')).to_have_value("Avtalsförhandling")
    expect(page).to_have_url(_item_url(item))  # no move to another item

    item.refresh_from_db()
    assert item.channel_context == winner
    assert not ClarificationEvent.objects.filter(item_id=item.pk, channel="app").exists()
