"""Journey 4: QA edits a gallery example in the preview and saves it as a golden case; accepts a deliberate change."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp.core import roles
from reviewapp.models import GoldenCase
from tests.clarifications.golden import load_cases

CASE_NAME = "halvt svar kompletterat med syfte"
PURPOSE = "Kundmöte om höstkampanjen i Malmö"


@pytest.mark.e2e
def test_qa_breaks_fixes_and_saves_an_example_as_a_passing_golden_case(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.QA, username="qarin")
    log_in(page, "qarin")

    page.locator(f'header nav a[href="{reverse("preview")}"]').click()
    expect(page).to_have_url(re.compile(re.escape(reverse("preview")) + "$"))
    # A half answer: participants named, purpose missing.
    page.locator('.preview-gallery a[href$="example=half-answer"]').click()
    expect(page).to_have_url(re.compile(r"example=half-answer"))
    # The current rendering's lines (a stale one sits inside #stale-rendering instead).
    lines = page.locator("#preview-results > #result-lines")
    expect(lines).to_be_visible()
    lines_before = lines.inner_text()
    each_line_before = lines.locator(".verbatim-line").all_inner_texts()
    assert PURPOSE not in lines_before

    editor = page.locator("#id_channel_context")
    original = editor.input_value()
    # Drop one comma: the JSON is broken at a place we can name.
    assert '"channel": "whatsapp",' in original
    broken = original.replace('"channel": "whatsapp",', '"channel": "whatsapp"', 1)
    with pytest.raises(json.JSONDecodeError) as where:
        json.loads(broken)
    editor.fill(broken)
    errors = page.locator("#input-errors")
    expect(errors).to_be_visible()
    # Line and column of the trouble, as any JSON parser counts them.
    expect(errors).to_contain_text(re.compile(rf"\b{where.value.lineno}\b.*\b{where.value.colno}\b", re.S))
    expect(lines).to_have_count(0)
    # Beside the error, the last good rendering stays, marked stale: the same lines as before.
    expect(page.locator("#stale-note")).to_be_visible()
    expect(page.locator("#stale-rendering #result-lines .verbatim-line")).to_have_text(each_line_before)

    # Fixed, with the purpose the half answer lacked: the lines change.
    fixed = json.loads(original)
    fixed["representation"]["purpose"] = PURPOSE
    editor.fill(json.dumps(fixed, indent=2, ensure_ascii=False))
    expect(errors).to_have_count(0)
    expect(page.locator("#stale-rendering")).to_have_count(0)
    expect(lines).to_contain_text(PURPOSE)
    assert lines.inner_text() != lines_before

    # Enter in the name field saves the case (the name's own form, not the preview's "Render").
    save = page.locator("#golden-save")
    name = save.locator('input[name="name"]')
    name.fill(CASE_NAME)
    name.press("Enter")
    expect(page).to_have_url(re.compile(r"/preview/cases/\d+/$"))
    case = GoldenCase.objects.get(name=CASE_NAME)
    assert case.input["channel_context"] == fixed

    page.locator(f'header nav a[href="{reverse("golden_cases")}"]').click()
    row = page.locator("tr", has=page.get_by_role("link", name=CASE_NAME, exact=True))
    expect(row).to_have_count(1)
    expect(row).to_have_class(re.compile(r"\bgolden-pass\b"))


def _shared_case_with_notes() -> dict[str, Any]:
    """A case of the shared golden file whose verifikat line is text (it gets reworded below)."""
    return next(case for case in load_cases() if isinstance(case["expected"].get("notes"), str))


@pytest.mark.e2e
def test_qa_accepts_a_deliberate_change_and_the_case_passes(
    page: Page, make_user: Callable[..., User], log_in: Callable[[Page, str], None]
) -> None:
    make_user(roles.QA, username="qarin")
    shared = _shared_case_with_notes()
    # Stored when the verifikat line was worded differently: the current code renders the shared file's wording.
    old_notes = "Före omformuleringen: " + shared["expected"]["notes"]
    case = GoldenCase.objects.create(
        name="verifikatrad före omformulering",
        input=shared["input"],
        expected={**shared["expected"], "notes": old_notes},
    )

    log_in(page, "qarin")
    page.locator(f'header nav a[href="{reverse("golden_cases")}"]').click()
    row = page.locator("tr", has=page.get_by_role("link", name=case.name, exact=True))
    expect(row).to_have_class(re.compile(r"\bgolden-fail\b"))
    expect(row).to_contain_text("notes")  # the changed output is named
    row.get_by_role("link", name=case.name, exact=True).click()
    expect(page).to_have_url(re.compile(re.escape(reverse("golden_case_detail", args=[case.pk])) + "$"))

    # The diff shows the stored wording against the current one.
    diff = page.locator("#golden-diff .diff")
    expect(diff).to_contain_text("Före omformuleringen")
    # Accepting asks first, on its own page with the same diff.
    page.locator("#golden-accept-link").click()
    expect(page).to_have_url(re.compile(re.escape(reverse("golden_case_accept", args=[case.pk])) + "$"))
    expect(page.locator("#golden-diff .diff")).to_contain_text("Före omformuleringen")
    page.locator("#golden-accept button[type=submit]").click()

    expect(page).to_have_url(re.compile(re.escape(reverse("golden_case_detail", args=[case.pk])) + "$"))
    expect(page.locator(".messages .message-success")).to_be_visible()
    expect(page.locator("#golden-result .badge-answered")).to_be_visible()  # Pass
    expect(page.locator("#golden-diff")).to_have_count(0)
    # Recorded: accepted, by whom, with the old and new output.
    change = page.locator("#golden-changes .golden-change-accepted")
    expect(change).to_have_count(1)
    expect(change).to_contain_text("qarin")
    case.refresh_from_db()
    assert case.expected["notes"] == shared["expected"]["notes"]

    page.locator(f'header nav a[href="{reverse("golden_cases")}"]').click()
    row = page.locator("tr", has=page.get_by_role("link", name=case.name, exact=True))
    expect(row).to_have_class(re.compile(r"\bgolden-pass\b"))
