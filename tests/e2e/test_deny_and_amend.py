"""A denial asks first and keeps what was typed when cancelled; an answer given in the app can be corrected."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.answers.inputs import ParticipantInput, RepresentationAnswer
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.models import ProcessingHistory
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data

# Verbatim, never translated: the line the agent gets for a denial.
DENIED_AGENT_TEXT = "detta är INTE representation"


@pytest.mark.e2e
def test_a_denial_asks_first_keeps_the_typing_when_cancelled_and_saves_when_confirmed(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "Restaurang Tegel", "representation", moved_hours_ago=12)
    log_in(page, "bea")
    page.goto(reverse("item_detail", args=[item.pk]))

    form = page.locator("#answer-form")
    form.locator('input[name="participants-0-name"]').fill("Anna Berg")
    form.locator('textarea[name="purpose"]').fill("Kundmöte")

    # "Not representation…" only asks, and shows what saving would change.
    form.locator("[data-answer-deny]").click()
    confirm = page.locator("#answer-confirm-deny")
    expect(confirm).to_be_visible()
    expect(confirm).to_be_focused()  # the question, not its destructive button: a stray Enter confirms nothing
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text(DENIED_AGENT_TEXT)
    assert data.pending_status(item) == "moved_to_app"

    # Cancelled: the form is back with everything typed, nothing saved.
    confirm.locator("[data-answer-edit]").click()
    expect(page.locator("#answer-confirm-deny")).to_have_count(0)
    expect(form.locator('input[name="participants-0-name"]')).to_have_value("Anna Berg")
    expect(form.locator('textarea[name="purpose"]')).to_have_value("Kundmöte")
    assert data.pending_status(item) == "moved_to_app"
    assert not ClarificationEvent.objects.filter(item_id=item.pk).exists()

    # The same by keys: Alt+D asks, Esc goes back to the answer, still as typed.
    form.locator('textarea[name="purpose"]').press("Alt+d")
    expect(confirm).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#answer-confirm-deny")).to_have_count(0)
    expect(form.locator('textarea[name="purpose"]')).to_have_value("Kundmöte")
    assert data.pending_status(item) == "moved_to_app"

    # Confirmed: the denial is saved in the intake's shape, and nothing typed goes with it.
    form.locator("[data-answer-deny]").click()
    confirm.locator("[data-answer-save]").click()
    expect(page.locator(".messages .message-success")).to_be_visible()
    item.refresh_from_db()
    representation = item.channel_context["representation"]
    assert representation["denied"] is True
    assert representation["participants"] == []
    assert representation["purpose"] is None
    assert item.channel_context["pending_question"]["status"] == "answered"
    assert ClarificationEvent.objects.filter(item_id=item.pk, event_type=ClarificationEvent.ANSWERED).count() == 1

    page.goto(reverse("item_detail", args=[item.pk]))
    expect(page.locator("#human-said .denial")).to_be_visible()
    expect(page.locator("#agent-view-text")).to_contain_text(DENIED_AGENT_TEXT)


@pytest.mark.e2e
def test_a_bookkeeper_corrects_an_answer_given_in_the_app_but_not_one_given_in_the_chat(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    bea = make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    item = data.waiting_item(company, "Restaurang Tegel", "representation", moved_hours_ago=12)
    answer_question(
        item_id=item.pk,
        user=bea,
        answer=RepresentationAnswer(participants=(ParticipantInput("Anna Berg"),), purpose="Kundmöte"),
    )
    data.reindex(item)
    in_chat = data.item(company, "Operakällaren", data.full_answer(["Lena Sjö"], "Kundmiddag"))

    log_in(page, "bea")
    page.goto(reverse("item_detail", args=[item.pk]))
    expect(page.locator("#answer-answered")).to_contain_text("Kundmöte")
    amend = page.locator("#answer-amend")
    form = amend.locator("#answer-form")
    expect(form).to_be_hidden()  # folded away until asked for
    amend.locator("summary").click()
    expect(form).to_be_visible()
    # The correction starts from the answer as saved.
    expect(form.locator('input[name="participants-0-name"]')).to_have_value("Anna Berg")
    purpose = form.locator('textarea[name="purpose"]')
    expect(purpose).to_have_value("Kundmöte")
    purpose.fill("Kundmöte om ramavtal")
    expect(page.locator("#answer-preview .preview-agent-after")).to_contain_text("Kundmöte om ramavtal")
    form.locator("[data-answer-save]").click()

    # Corrected, and still on this item (a correction is no step in the queue).
    expect(page.locator(".messages .message-success")).to_be_visible()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[item.pk]))))
    expect(page.locator("#answer-answered")).to_contain_text("Kundmöte om ramavtal")
    item.refresh_from_db()
    assert item.channel_context["representation"]["purpose"] == "Kundmöte om ramavtal"
    assert item.channel_context["representation"]["participants"] == [{"name": "Anna Berg", "company": None}]
    # Both answers in the app's log, and accounted's log has the correction marked as one.
    assert ClarificationEvent.objects.filter(item_id=item.pk, event_type=ClarificationEvent.ANSWERED).count() == 2
    logged = ProcessingHistory.objects.filter(aggregate_id=item.pk, event_type="ChannelQuestionAnswered")
    assert sorted(bool(event.payload.get("amended")) for event in logged) == [False, True]
    history = page.locator("#history .event-channelquestionanswered")
    expect(history).to_have_count(2)
    expect(history.last.locator(".lines-after")).to_contain_text("Kundmöte om ramavtal")

    # An answer the customer gave in the chat is theirs: no correction in the app.
    page.goto(reverse("item_detail", args=[in_chat.pk]))
    expect(page.locator("#human-said")).to_contain_text("Lena Sjö")
    expect(page.locator("#answer-amend")).to_have_count(0)
    expect(page.locator("#answer-form")).to_have_count(0)
