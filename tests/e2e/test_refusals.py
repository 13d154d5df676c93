"""A request refused as a whole is shown in place by htmx, and what was typed stays (``make e2e``).

base.html's htmx-config (responseHandling) has htmx swap a 413 or a 503 into
the page's refusal region, #request-refused; static/js/refusals.js clears it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.e2e.conftest import BrowserProblems

pytestmark = pytest.mark.e2e


def test_an_answer_too_large_to_send_is_refused_in_place_and_the_form_keeps_what_was_typed(
    page: Page,
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
    problems: BrowserProblems,
    settings,  # type: ignore[no-untyped-def]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "Restaurang Tegel", "representation", moved_hours_ago=12)
    log_in(page, "bea")
    page.goto(reverse("item_detail", args=[item.pk]))
    form = page.locator("#answer-form")
    expect(form).to_be_visible()

    # A cap so small that this form's own fields go past it (the live preview's posts too).
    settings.REQUEST_BODY_MAX_BYTES = 200
    settings.RECEIPT_UPLOAD_MAX_BYTES = 0
    problems.allow(413, r"/items/[0-9a-f-]+/answer/")

    form.locator('input[name="participants-0-name"]').fill("Anna Berg")
    form.locator('textarea[name="purpose"]').fill("Kundmöte om avtalet")
    form.locator("[data-answer-save]").click()

    region = page.locator("#request-refused")
    expect(region).to_contain_text("så inget sparades")
    expect(region).to_be_visible()
    # The form is where it was, with what was typed.
    expect(form.locator('input[name="participants-0-name"]')).to_have_value("Anna Berg")
    expect(form.locator('textarea[name="purpose"]')).to_have_value("Kundmöte om avtalet")
    assert not ClarificationEvent.objects.exists()
