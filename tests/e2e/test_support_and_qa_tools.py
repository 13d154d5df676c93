"""Issue 26, points 8 and 9, in Chromium at a phone's and a desktop's width, axe on every state reached.

Support: a search hit says where it matched; a mistyped state in a link is
shown; "Answered" combined with a question type; the history in the order
things happened, in Swedish. QA: the login lands on the preview; the
invalid-JSON state; golden cases in natural order; a one-field change is
one line of the diff; accepting asks first, on its own page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, GoldenCase
from reviewapp.previews.golden import save_golden_case
from tests import factories
from tests.e2e import data
from tests.e2e.data import eventually, shown_item_ids
from tests.items.bookkeeping import accounted_event, make_message

WIDTHS = {390: 844, 1440: 900}
AXE_OPTIONS = {"resultTypes": ["violations"]}


def assert_axe_clean(page: Page, state: str) -> None:
    page.wait_for_load_state("networkidle")
    results = Axe().run(page, options=AXE_OPTIONS)
    assert results.response["passes"], "axe checked nothing"
    violations: list[dict[str, Any]] = results.response["violations"]
    report = [f"{v['id']}: {' '.join(map(str, node['target']))}" for v in violations for node in v["nodes"][:5]]
    assert not violations, f"axe in state {state!r}:\n" + "\n".join(report)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{state!r} scrolls sideways by {overflow} px"


@pytest.mark.e2e
@pytest.mark.parametrize("width", list(WIDTHS), ids=[f"{w}px" for w in WIDTHS])
def test_support_sees_why_hits_match_refused_filters_answered_types_and_the_history_in_order(
    width: int, new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.SUPPORT, username="sven")
    company = factories.make_company(name="Tegelbruket AB")
    answered = data.item(
        company,
        "Restaurang Tegel",
        {
            **data.full_answer(["Anna Berg"], "Kundmöte om hösten"),
            "pending_question": {"type": "representation", "asked_at": data.iso_hours_ago(30), "status": "answered"},
        },
        received_hours_ago=31,
    )
    data.item(
        company,
        "Taxi Stockholm",
        {
            "channel": "whatsapp",
            "user_note": "Taxi till kunden",
            "context_answer": {"raw_answer": "taxi", "answered_at": data.iso_hours_ago(20)},
            "pending_question": {"type": "context", "asked_at": data.iso_hours_ago(21), "status": "answered"},
        },
        received_hours_ago=22,
    )
    data.waiting_item(company, "ICA Kvantum", "representation", moved_hours_ago=5)
    # The answer's message and its record in accounted's log in the same millisecond (seeded data do this).
    stamp = data.iso_hours_ago(29)
    accounted_event(answered, ClarificationEvent.ANSWERED, stamp)
    make_message(item_id=answered.pk, when=stamp, body="Anna Berg, kundmöte om hösten")

    page = new_page(width=width, height=WIDTHS[width])
    log_in(page, "sven")
    assert_axe_clean(page, "list")

    # Search: the hit names the field and marks the words.
    page.locator("#id_q").fill("berg")
    eventually(lambda: shown_item_ids(page), [str(answered.pk)], what="search hits")
    why = page.locator("tr.inbox-row .match-why")
    expect(why).to_contain_text("Deltagare:")
    expect(why.locator("mark").first).to_have_text("Berg")
    assert_axe_clean(page, "search")

    # A mistyped state in a link is shown, not dropped.
    page.goto(reverse("inbox") + "?state=besvarad")
    expect(page.locator("#filter-errors")).to_contain_text("”besvarad” är inget tillstånd")
    assert_axe_clean(page, "refused filter")

    # Answered representation items: the facet and the type together.
    page.goto(reverse("inbox") + "?state=answered&type=representation")
    eventually(lambda: shown_item_ids(page), [str(answered.pk)], what="answered representation")
    expect(page.locator("#facet-answered")).to_be_checked()
    assert_axe_clean(page, "answered representation")

    # The history: the message that carried the answer first, the actor kinds in Swedish.
    page.locator(f'a.row-link[href*="{answered.pk}"]').click()
    history = page.locator("#history .event-head")
    texts = history.all_inner_texts()
    received = next(i for i, text in enumerate(texts) if "Meddelande mottaget" in text)
    answer = next(i for i, text in enumerate(texts) if "Fråga besvarad" in text)
    assert received < answer, texts
    expect(page.locator("#history")).to_contain_text("(kund)")
    expect(page.locator("#history")).not_to_contain_text("(customer)")
    assert_axe_clean(page, "item history")


@pytest.mark.e2e
@pytest.mark.parametrize("width", list(WIDTHS), ids=[f"{w}px" for w in WIDTHS])
def test_qa_start_on_the_preview_and_accept_a_one_line_change_after_confirming(
    width: int, new_page: Callable[..., Page], make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.QA, username="qarin")
    note = {"channel_context": {"channel": "whatsapp", "user_note": "Pärmar till kontoret"}}
    for name in ("fall 10", "fall 2", "fall 1"):
        save_golden_case(name=name, value=note)
    changed = save_golden_case(name="fall 3", value=note)
    stored = changed.expected
    GoldenCase.objects.filter(pk=changed.pk).update(
        expected={**stored, "summary": {**stored["summary"], "userNote": "Gammal anteckning"}}
    )

    page = new_page(width=width, height=WIDTHS[width])
    log_in(page, "qarin")
    expect(page).to_have_url(re.compile(re.escape(reverse("preview")) + "$"))
    assert_axe_clean(page, "preview after login")

    page.goto(reverse("preview") + "?example=half-answer")
    editor = page.locator("#id_channel_context")
    editor.fill(editor.input_value().replace('"channel": "whatsapp",', '"channel": "whatsapp"', 1))
    expect(page.locator("#input-errors")).to_be_visible()
    expect(page.locator("#stale-rendering")).to_be_visible()
    assert_axe_clean(page, "invalid JSON")

    page.goto(reverse("golden_cases"))
    names = page.locator(".golden-table tbody td:nth-child(2) a").all_inner_texts()
    assert names == ["fall 3", "fall 1", "fall 2", "fall 10"]  # the failing one first, then 1, 2, 10
    assert_axe_clean(page, "cases")

    page.get_by_role("link", name="fall 3", exact=True).click()
    expect(page.locator("#golden-diff .diff-remove")).to_have_count(1)
    expect(page.locator("#golden-diff .diff-remove")).to_contain_text('"userNote": "Gammal anteckning"')
    assert_axe_clean(page, "failing case")

    page.locator("#golden-accept-link").click()
    expect(page).to_have_url(re.compile(re.escape(reverse("golden_case_accept", args=[changed.pk])) + "$"))
    expect(page.locator("#golden-diff .diff-remove")).to_have_count(1)
    assert_axe_clean(page, "accept: confirm")
    # Asking accepted nothing.
    assert GoldenCase.objects.get(pk=changed.pk).expected["summary"]["userNote"] == "Gammal anteckning"

    page.locator('#golden-accept button[name="confirm"]').click()
    expect(page).to_have_url(re.compile(re.escape(reverse("golden_case_detail", args=[changed.pk])) + "$"))
    expect(page.locator("#golden-result .badge-answered")).to_be_visible()
    assert GoldenCase.objects.get(pk=changed.pk).expected["summary"]["userNote"] == "Pärmar till kontoret"
    assert_axe_clean(page, "accepted")
