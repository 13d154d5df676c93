"""The live preview (``item_answer_preview``): what the agent and the verifikat get after saving, nothing saved,
and the errors on the page re-checked as the person types."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clarifications import phrases
from reviewapp.models import ClarificationEvent
from tests.answers.conftest import HTMX, answer_url, moved_item, preview_url, representation_post, stored_context
from tests.html import Page

pytestmark = pytest.mark.django_db


# --- What it shows ----------------------------------------------------------------------------


def test_the_preview_shows_the_agent_view_after_saving_and_saves_nothing(bookkeeper_client):
    item = moved_item("representation")
    before = dict(item.channel_context)
    data = representation_post([("Anna Berg", "Volvo")], purpose="Avtalsförhandling")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    after = page.text("answer-preview")
    assert "Anna Berg (Volvo)" in after
    assert "Avtalsförhandling" in after
    # The current view still carries the open question's line, the preview no longer does.
    agent_now = page.text("preview-agent-now")
    agent_after = page.text("preview-agent-after")
    assert f"- {phrases.OPEN_QUESTION_MARKER}: {phrases.ASK_REPRESENTATION}" in agent_now
    assert f"{phrases.OPEN_QUESTION_MARKER}:" not in agent_after
    assert stored_context(item) == before
    assert not ClarificationEvent.objects.exists()


def test_the_preview_of_a_half_typed_answer_says_what_is_missing(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(preview_url(item), representation_post([("Anna", "")]), **HTMX)
    assert response.status_code == 200
    page = Page(response.content.decode())
    assert "Write the purpose" in page.text("answer-preview")
    assert "Anna" in page.text("answer-preview")


@pytest.mark.parametrize(
    "data",
    [
        {"question": "context", "text": "a\x00b"},
        {"question": "context", "text": "x" * 5000},
        {"question": "context"},
    ],
)
def test_invalid_input_in_the_preview_shows_the_current_view_and_a_note(bookkeeper_client, data):
    item = moved_item("context")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "preview-agent-now" in html
    assert "preview-note" in html or "Type an answer" in html
    assert "user_note" not in stored_context(item)


def test_the_preview_is_exactly_what_the_item_page_shows_after_saving(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna Berg", "Volvo"), ("Jakob W", "")], purpose="Avtal\nförhandling")
    preview = Page(bookkeeper_client.post(preview_url(item), data, **HTMX).content.decode())
    assert bookkeeper_client.post(answer_url(item), data).status_code == 302
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert preview.text("preview-agent-after") == page.text("agent-view-text")
    assert preview.text("preview-notes-after") == page.text("notes-text")
    assert "\n    - " in page.text("agent-view-text")  # one line per entry, as the model gets them


def test_after_a_refused_save_the_preview_still_shows_the_half_answer(bookkeeper_client):
    item = moved_item("representation")
    response = bookkeeper_client.post(answer_url(item), representation_post([("Anna Berg", "")]), **HTMX)
    page = Page(response.content.decode())
    assert page.has("id_purpose_error")
    assert "Anna Berg" in page.text("preview-agent-after")
    assert "Write the purpose" in page.text("answer-preview")


# --- Errors go once fixed ---------------------------------------------------------------------


def test_a_fixed_field_loses_its_error_on_the_next_preview(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], purpose="Möte", shown_errors="purpose")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert Page(response.content.decode()).out_of_band() == {"id_purpose_error": ""}


def test_a_field_still_wrong_keeps_its_error_on_the_next_preview(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post([("Anna", "")], "Möte", "2026-13-01", shown_errors="event_date")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert Page(response.content.decode()).out_of_band() == {
        "id_event_date_error": "2026-13-01 is not a date in the calendar."
    }


def test_the_preview_gives_no_field_a_new_error_while_typing(bookkeeper_client):
    item = moved_item("representation")
    # Purpose and date are wrong, but no message is on screen yet: the preview adds none.
    data = representation_post([("Anna", "")], "", "2026-13", shown_errors="")
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert Page(response.content.decode()).out_of_band() == {}


def test_the_answers_own_error_goes_once_a_participant_is_named(bookkeeper_client):
    item = moved_item("representation")
    shown = "__all__ participants-0-name"
    data = representation_post([("Anna", "")], "Möte", shown_errors=shown)
    response = bookkeeper_client.post(preview_url(item), data, **HTMX)
    assert Page(response.content.decode()).out_of_band() == {
        "id_participants-0-name_error": "",
        "answer-form_error": "",
    }
    still = representation_post([], "Möte", shown_errors=shown)
    response = bookkeeper_client.post(preview_url(item), still, **HTMX)
    slots = Page(response.content.decode()).out_of_band()
    assert slots["answer-form_error"] == "Name at least one participant, or answer “Not representation”."
