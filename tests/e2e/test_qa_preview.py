"""Journey 4: QA edits a gallery example in the preview and saves it as a golden case."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from reviewapp import roles
from reviewapp.models import GoldenCase

CASE_NAME = "halvt svar kompletterat med syfte"
PURPOSE = "Kundmöte om höstkampanjen i Malmö"


@pytest.mark.e2e
def test_qa_breaks_fixes_and_saves_an_example_as_a_passing_golden_case(
    page: Page, make_user: Callable[..., object], log_in
) -> None:  # type: ignore[no-untyped-def]
    make_user(roles.QA, username="qarin")
    log_in(page, "qarin")

    page.locator(f'header nav a[href="{reverse("preview")}"]').click()
    expect(page).to_have_url(re.compile(re.escape(reverse("preview")) + "$"))
    # A half answer: participants named, purpose missing.
    page.locator('.preview-gallery a[href$="example=half-answer"]').click()
    expect(page).to_have_url(re.compile(r"example=half-answer"))
    lines = page.locator("#result-lines")
    expect(lines).to_be_visible()
    lines_before = lines.inner_text()
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

    # Fixed, with the purpose the half answer lacked: the lines change.
    fixed = json.loads(original)
    fixed["representation"]["purpose"] = PURPOSE
    editor.fill(json.dumps(fixed, indent=2, ensure_ascii=False))
    expect(errors).to_have_count(0)
    expect(lines).to_contain_text(PURPOSE)
    assert lines.inner_text() != lines_before

    save = page.locator("#golden-save")
    save.locator('input[name="name"]').fill(CASE_NAME)
    save.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/preview/cases/\d+/$"))
    case = GoldenCase.objects.get(name=CASE_NAME)
    assert case.input["channel_context"] == fixed

    page.locator(f'header nav a[href="{reverse("golden_cases")}"]').click()
    row = page.locator("tr", has=page.get_by_role("link", name=CASE_NAME, exact=True))
    expect(row).to_have_count(1)
    expect(row).to_have_class(re.compile(r"\bgolden-pass\b"))
