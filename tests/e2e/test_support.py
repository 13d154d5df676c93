"""Journey 3: support inspects a denial and cannot answer anything."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp import roles
from reviewapp.models import ClarificationEvent, InboxItem
from tests import factories
from tests.e2e import data
from tests.e2e.data import eventually, shown_item_ids

RAW_DENIAL = "nej, bara jag som åt"
# Shown verbatim (never translated): the line the agent gets for a denial.
DENIED_AGENT_TEXT = "detta är INTE representation"


@pytest.mark.e2e
def test_support_reads_a_denial_and_a_forged_answer_is_refused(
    page: Page, make_user: Callable[..., object], log_in
) -> None:  # type: ignore[no-untyped-def]
    make_user(roles.SUPPORT, username="sven")
    company = factories.make_company(name="Tegelbruket AB")
    # A denial whose follow-up question (what was it for?) moved to the app:
    # a bookkeeper would get a form here, support must not.
    denial_ctx = data.denial(
        RAW_DENIAL, pending_question=data.moved_question("context", asked_hours_ago=70)["pending_question"]
    )
    denied = data.item(company, "Restaurang Tegel", denial_ctx, received_hours_ago=75)
    other_denial = data.item(company, "Pizzeria Roma", data.denial("nej"), received_hours_ago=200)
    data.item(company, "Operakällaren", data.full_answer(["Lena Sjö"], "Kundmiddag"), received_hours_ago=3)
    data.item(company, "Taxi Stockholm", data.moved_question("context", asked_hours_ago=50), received_hours_ago=52)

    log_in(page, "sven")
    page.locator("#facet-denied").check()
    expect(page).to_have_url(re.compile(r"[?&]state=denied(&|$)"))
    eventually(lambda: shown_item_ids(page), [str(denied.pk), str(other_denial.pk)], what="denials")
    page.locator(f'tr.inbox-row a.row-link[href*="{denied.pk}"]').click()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[denied.pk]))))

    # What the human said, in their own words.
    expect(page.locator("#human-said .denial")).to_contain_text(RAW_DENIAL)
    # Nothing goes on the verifikat, and the page says why instead of showing a blank.
    expect(page.locator("#notes-text")).to_have_count(0)
    explanation = page.locator("#notes #notes-empty")
    expect(explanation).to_be_visible()
    assert explanation.inner_text().strip()
    # The agent is still told not to ask again.
    expect(page.locator("#agent-view-text")).to_contain_text(DENIED_AGENT_TEXT)
    # The question is the app's, but support gets no way to answer it.
    expect(page.locator("#answer-panel")).to_be_visible()
    expect(page.locator("#answer-form")).to_have_count(0)
    expect(page.locator(f'form[action*="{reverse("item_answer", args=[denied.pk])}"]')).to_have_count(0)
    expect(page.locator("[data-answer-save]")).to_have_count(0)

    # A forged answer, sent with this session and its valid CSRF token, as a
    # script on the page could: refused by role, not by CSRF, and nothing written.
    token = json.loads(page.locator("body").get_attribute("hx-headers") or "{}")["X-CSRFToken"]
    # (page.request shares the page's cookies but not its network events: the
    # two 403s below are not browser problems, they are the answers expected.)
    form_post = page.request.post(
        reverse("item_answer", args=[denied.pk]),
        form={"question": "context", "text": "Lunch med kund", "action": "save"},
        headers={"X-CSRFToken": token},
    )
    assert form_post.status == 403
    api_post = page.request.post(
        reverse("api_item_answer", args=[denied.pk]),
        data=json.dumps({"question": "context", "text": "Lunch med kund"}),
        headers={"X-CSRFToken": token, "Content-Type": "application/json"},
    )
    assert api_post.status == 403
    # The JSON API says which check refused it: the role, so the token was good.
    assert api_post.json()["error"] != "CSRF token missing or incorrect"

    stored = InboxItem.objects.get(pk=denied.pk)
    assert stored.channel_context == denial_ctx
    assert not ClarificationEvent.objects.filter(item=denied).exists()
