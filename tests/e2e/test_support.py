"""Journey 3: support inspects a denial and cannot answer anything; finds items by words and ids."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django.urls import reverse
from playwright.sync_api import Page, expect

from devtools import intake_simulator as intake
from reviewapp.answers.inputs import ResendAnswer
from reviewapp.answers.writing import answer_question
from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.data import eventually, shown_item_ids
from tests.items.bookkeeping import make_document, real_png

RAW_DENIAL = "nej, bara jag som åt"
# Shown verbatim (never translated): the line the agent gets for a denial.
DENIED_AGENT_TEXT = "detta är INTE representation"


@pytest.mark.e2e
def test_support_reads_a_denial_and_a_forged_answer_is_refused(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
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
    data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=2, received_hours_ago=52)

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
    assert not ClarificationEvent.objects.filter(item_id=denied.pk).exists()


PHONE_MASKED = "+46 70*** **12"
REPLY_WAMID = "wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUVCNzI1RjM0"
CUSTOMERS_NO = "Nej, bara jag som åt"


def _denied_in_whatsapp(company: Company) -> InboxItem:
    """A receipt photo, the question about it, and the customer's "nej", as the intake records them."""
    link = data.phone_link(company, masked=PHONE_MASKED)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        # The customer's conversation, so the intake's question goes to this phone.
        cursor.execute(
            "INSERT INTO public.whatsapp_conversations (phone_link_id, company_id) VALUES (%s, %s)", [link, company.pk]
        )
    photo = data.message(
        item_id=None,
        hours=50,
        body=None,
        message_type="image",
        media_mime="image/jpeg",
        phone_link_id=link,
        wamid="wamid.PHOTO0001",
    )
    denied = data.item(
        company, "Restaurang Tegel", {"channel": "whatsapp"}, received_hours_ago=50, whatsapp_message_id=photo
    )
    data.attach_message(photo, denied)
    intake.ask(denied.pk, "representation", now=data.hours_ago(49))
    data.message(
        item_id=denied.pk,
        hours=49,
        body="Vilka var med, och vad var syftet?",
        direction="outbound",
        message_type="template",
        template="representation_question",
        phone_link_id=link,
    )
    data.message(item_id=denied.pk, hours=48.5, body=CUSTOMERS_NO, phone_link_id=link, wamid=REPLY_WAMID)
    intake.deny(denied.pk, text=CUSTOMERS_NO, now=data.hours_ago(48.5))
    data.reindex(denied)
    return denied


@pytest.mark.e2e
def test_support_finds_items_by_the_customers_words_and_by_pasted_ids(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.SUPPORT, username="sven")
    answerer = make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company(name="Tegelbruket AB")
    denied = _denied_in_whatsapp(company)
    answered = data.item(company, "Operakällaren", data.full_answer(["Lena Sjö"], "Kundmiddag"), received_hours_ago=3)
    receipt = make_document(company, content=real_png())
    with_document = data.item(company, "Clas Ohlson", None, received_hours_ago=5, document=receipt)
    # A blurry receipt whose resend question a bookkeeper settled: "replaced by the newer item".
    blurry = data.waiting_item(company, "ICA Kvantum", "resend", moved_hours_ago=20, received_hours_ago=80)
    sharper = data.item(company, "ICA Kvantum", None, received_hours_ago=60)
    answer_question(item_id=blurry.pk, user=answerer, answer=ResendAnswer(replaced_by=str(sharper.pk)))
    data.reindex(blurry, sharper)

    log_in(page, "sven")
    search = page.locator("#id_q")

    # The customer's own word finds the denial, and only it.
    search.press_sequentially("nej", delay=30)
    expect(page).to_have_url(re.compile(r"[?&]q=nej(&|$)"))
    eventually(lambda: shown_item_ids(page), [str(denied.pk)], what="rows for the customer's word 'nej'")
    assert str(answered.pk) not in shown_item_ids(page)
    page.locator(f'tr.inbox-row a.row-link[href*="{denied.pk}"]').click()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[denied.pk]))))
    expect(page.locator("#human-said .denial")).to_contain_text(CUSTOMERS_NO)

    # The conversation: the photo, the question sent and the reply, with the phone masked, never its hash.
    conversation = page.locator("#conversation")
    expect(conversation.locator(".chat-message")).to_have_count(3)
    expect(conversation.locator(".chat-question")).to_contain_text("Vilka var med")
    expect(conversation.locator(".chat-message").last).to_contain_text(CUSTOMERS_NO)
    expect(conversation.locator(".chat-phone").first).to_have_text(PHONE_MASKED)
    assert "hashed-phone" not in page.content()

    # A wamid the customer quotes, pasted into the search: straight to the item it is about.
    page.goto("/?sort=received")
    search.fill(REPLY_WAMID)
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[denied.pk])) + "$"))

    # The document id from accounted's screens: straight to its item, which shows that id.
    assert with_document.document_id is not None
    page.goto("/?sort=received")
    search.fill(str(with_document.document_id))
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[with_document.pk])) + "$"))
    expect(page.locator("#document-facts")).to_contain_text(str(with_document.document_id))

    # The replaced receipt and its replacement link to each other.
    page.goto(reverse("item_detail", args=[blurry.pk]))
    forward = page.locator(f'#linked-items #replaced-by a[href="{reverse("item_detail", args=[sharper.pk])}"]')
    expect(forward).to_be_visible()
    forward.click()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[sharper.pk])) + "$"))
    back = page.locator(f'#linked-items .replaces a[href="{reverse("item_detail", args=[blurry.pk])}"]')
    expect(back).to_be_visible()
    back.click()
    expect(page).to_have_url(re.compile(re.escape(reverse("item_detail", args=[blurry.pk])) + "$"))
