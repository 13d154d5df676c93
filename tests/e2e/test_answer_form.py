"""The answer form in a real browser: rows, errors, upload (``make e2e``).

The browser fixtures are this folder's: every journey fails on a console
error, a CSP violation or an unexpected 4xx/5xx.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.storage import storages
from django.urls import reverse
from PIL import Image
from playwright.sync_api import Page, expect

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.e2e import data
from tests.items.bookkeeping import make_document

pytestmark = pytest.mark.e2e


def _open(page: Page, item: InboxItem) -> None:
    page.goto(reverse("item_detail", args=[item.pk]))
    expect(page.locator("#answer-form")).to_be_visible()


def test_a_removed_row_leaves_the_preview_and_the_answer(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "Restaurang Tegel", "representation", moved_hours_ago=12)
    log_in(page, "bea")
    _open(page, item)

    form = page.locator("#answer-form")
    form.locator('input[name="participants-0-name"]').fill("Anna Berg")
    form.locator("[data-add-participant]").click()
    form.locator('input[name="participants-1-name"]').fill("Fel Person")
    form.locator("[data-add-participant]").click()
    form.locator('input[name="participants-2-name"]').fill("Erik Ek")
    form.locator('textarea[name="purpose"]').fill("Kundmöte")
    after = page.locator("#preview-agent-after")
    expect(after).to_contain_text("Fel Person")

    # The JavaScript remove button replaces the checkbox and updates the preview.
    row = form.locator("[data-participant-row]").nth(1)
    expect(row.locator("[data-remove-field]")).to_be_hidden()
    row.locator("[data-remove-participant]").click()
    expect(row).to_be_hidden()
    expect(after).not_to_contain_text("Fel Person")
    expect(after).to_contain_text("Erik Ek")

    page.locator('textarea[name="purpose"]').press("Control+Enter")
    expect(page.locator(".messages .message-success")).to_be_visible()
    item.refresh_from_db()
    assert [p["name"] for p in item.channel_context["representation"]["participants"]] == ["Anna Berg", "Erik Ek"]


def test_an_error_after_saving_is_under_its_field_and_has_the_focus(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "Taxi", "representation", moved_hours_ago=12)
    log_in(page, "bea")
    _open(page, item)

    page.locator('input[name="participants-0-name"]').fill("Anna Berg")
    page.locator('input[name="event_date"]').fill("2026-07-29")
    page.locator("[data-answer-save]").click()

    error = page.locator("#id_purpose_error")
    expect(error).to_be_visible()
    purpose = page.locator("#id_purpose")
    expect(purpose).to_be_focused()
    expect(purpose).to_have_attribute("aria-describedby", re.compile(r"\bid_purpose_error\b"))
    expect(page.locator('input[name="participants-0-name"]')).to_have_value("Anna Berg")
    expect(page.locator('input[name="event_date"]')).to_have_value("2026-07-29")
    assert not ClarificationEvent.objects.filter(item_id=item.pk).exists()
    assert data.pending_status(item) == "moved_to_app"


def test_a_sharper_photo_uploaded_in_the_browser_becomes_a_new_item(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None], tmp_path: Path
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "ICA", "resend", moved_hours_ago=12)
    photo = tmp_path / "skarpare.jpg"
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(buffer, format="JPEG")
    photo.write_bytes(buffer.getvalue())
    log_in(page, "bea")
    _open(page, item)

    page.locator('input[name="choice"][value="upload"]').check()
    page.locator('input[name="file"]').set_input_files(str(photo))
    page.locator("[data-answer-save]").click()
    expect(page.locator(".messages .message-success")).to_be_visible()

    # A new item of the same company holds the uploaded file, as accounted's own upload makes one.
    new = InboxItem.objects.select_related("document").exclude(pk=item.pk).get()
    assert (new.company_id, new.user_id, new.source) == (item.company_id, item.user_id, "upload")
    assert new.document is not None
    with storages["documents"].open(new.document.storage_path, "rb") as handle:
        assert handle.read() == photo.read_bytes()
    item.refresh_from_db()
    assert item.channel_context["quality"]["superseded"] is True
    assert item.channel_context["pending_question"]["status"] == "answered"
    # Written as accounted writes an upload it does not extract, and the bookkeeper is told so.
    assert (new.status, new.extraction_skipped) == ("received", True)
    expect(page.locator(".messages")).to_contain_text("Tolka om")


def test_a_file_the_company_already_has_settles_the_question_with_the_item_holding_it_in_one_click(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None], tmp_path: Path
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    company = factories.make_company()
    item = data.waiting_item(company, "ICA", "resend", moved_hours_ago=12)
    photo = tmp_path / "samma.jpg"
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(buffer, format="JPEG")
    photo.write_bytes(buffer.getvalue())
    # The customer sent the sharper photo again later; it is already an item of the company.
    # The same receipt as accounted read it (a sharply different one asks for a confirmation first).
    holder = factories.make_item(
        company, document=make_document(company, content=photo.read_bytes()), extracted_data=item.extracted_data
    )
    log_in(page, "bea")
    _open(page, item)

    page.locator('input[name="choice"][value="upload"]').check()
    page.locator('input[name="file"]').set_input_files(str(photo))
    page.locator("[data-answer-save]").click()
    expect(page.locator("#resend-duplicate-info")).to_contain_text(str(holder.pk))
    page.locator("[data-resend-duplicate]").click()
    expect(page.locator(".messages .message-success")).to_be_visible()

    item.refresh_from_db()
    assert item.channel_context["quality"]["superseded"] is True
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["resend"] == {"choice": "replaced", "new_item_id": str(holder.pk), "document_id": None}
    assert InboxItem.objects.filter(company_id=company.pk).count() == 2


def test_ctrl_enter_on_the_resend_form_shows_the_error_for_an_unknown_newer_item(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.BOOKKEEPER, username="bea")
    item = data.waiting_item(factories.make_company(), "ICA", "resend", moved_hours_ago=12)
    log_in(page, "bea")
    _open(page, item)

    page.locator('input[name="choice"][value="replaced"]').check()
    field = page.locator('input[name="replaced_by"]')
    field.fill("00000000-0000-4000-8000-000000000000")
    field.press("Control+Enter")

    # The error the server returned stays on screen (clicking Save always showed it).
    expect(page.locator("#id_replaced_by_error .error")).to_be_visible()
    expect(page.locator('input[name="replaced_by"]')).to_have_attribute("aria-invalid", "true")
    page.wait_for_timeout(300)
    expect(page.locator("#id_replaced_by_error .error")).to_be_visible()
    assert data.pending_status(item) == "moved_to_app"
