"""Answer text that looks empty or reads differently than it is stored: blank, or refused with a message."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from reviewapp.answers.inputs import Answer, ContextAnswer, ParticipantInput, RepresentationAnswer
from reviewapp.answers.validation import AnswerInvalid, validate
from reviewapp.core import text
from tests.answers.conftest import HTMX, moved_item
from tests.html import Page

INVISIBLE_ONLY = [
    "\u200b",  # zero width space
    "\u200d",  # zero width joiner
    "\u2060",  # word joiner
    "\ufeff",  # byte order mark
    "\u00ad",  # soft hyphen
    " \u200b\u200c \u2060\ufeff ",
    "\u3164",  # Hangul filler, a "letter" that shows nothing
    "\u2800",  # blank braille pattern
]
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f"]


def errors_of(answer: Answer) -> dict[str, list[str]]:
    with pytest.raises(AnswerInvalid) as caught:
        validate(answer)
    return caught.value.errors


# --- reviewapp.core.text, on its own -------------------------------------------------------------------


@pytest.mark.parametrize("value", INVISIBLE_ONLY)
def test_invisible_characters_alone_are_blank(value):
    assert text.is_blank(value)
    assert text.clean(value, max_length=10) == ""


@pytest.mark.parametrize(
    "value",
    [
        "Anna\u200bBerg",
        "👨\u200d👩\u200d👧",  # a family emoji is joined with U+200D
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland's flag ends in tag characters
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with a zero width non-joiner
    ],
)
def test_invisible_characters_inside_visible_text_are_kept(value):
    assert not text.is_blank(value)
    assert text.clean(value, max_length=100) == value


@pytest.mark.parametrize("control", BIDI)
def test_bidi_controls_are_refused_naming_the_character(control):
    with pytest.raises(ValueError, match=f"U\\+{ord(control):04X}") as refused:
        text.clean(f"Anna {control}Berg", max_length=100)
    assert "text direction" in str(refused.value)
    assert text.problem(f"a{control}b", multiline=True) is not None


def test_an_arabic_letter_mark_is_a_bidi_control_too():
    with pytest.raises(ValueError, match="U\\+061C"):
        text.clean("a\u061cb", max_length=10)


@pytest.mark.parametrize(
    ("value", "multiline", "code"),
    [("a\x00b", True, "U+0000"), ("a\x07b", True, "U+0007"), ("a\nb", False, "U+000A"), ("a\ud800b", True, "U+D800")],
)
def test_control_characters_and_lone_surrogates_are_refused(value, multiline, code):
    with pytest.raises(ValueError, match=code.replace("+", "\\+")):
        text.clean(value, max_length=10, multiline=multiline)


def test_free_text_keeps_tabs_and_line_breaks():
    assert text.clean("a\tb\r\nc\rd", max_length=20, multiline=True) == "a\tb\nc\nd"


def test_names_kept_on_record_lose_their_controls():
    assert text.without_controls("kvitto\u202egnp.exe\x00") == "kvittognp.exe"


# --- Through validate -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", INVISIBLE_ONLY)
def test_an_invisible_purpose_is_missing(value):
    errors = errors_of(RepresentationAnswer(participants=(ParticipantInput("Anna"),), purpose=value))
    assert errors["purpose"] == ["Write the purpose of the representation."]


@pytest.mark.parametrize("value", INVISIBLE_ONLY)
def test_an_invisible_name_is_not_a_name(value):
    errors = errors_of(RepresentationAnswer(participants=(ParticipantInput(value),), purpose="Möte"))
    assert errors["participants.0.name"] == [
        "Enter the participant's name (white space or invisible characters alone are not a name)."
    ]


@pytest.mark.parametrize("value", INVISIBLE_ONLY)
def test_an_invisible_context_answer_is_missing(value):
    assert errors_of(ContextAnswer(text=value))["text"] == ["Write what the purchase was for."]


def test_an_invisible_company_and_own_words_are_left_out():
    cleaned = validate(
        RepresentationAnswer(participants=(ParticipantInput("Anna", "\u200b"),), purpose="Möte", raw_answer="\ufeff")
    )
    assert isinstance(cleaned, RepresentationAnswer)
    assert cleaned.participants[0].company is None
    assert cleaned.raw_answer == ""


@pytest.mark.parametrize(
    ("answer", "field"),
    [
        (
            RepresentationAnswer(participants=(ParticipantInput("Anna \u202eBerg"),), purpose="Möte"),
            "participants.0.name",
        ),
        (
            RepresentationAnswer(participants=(ParticipantInput("Anna", "Vol\u2066vo"),), purpose="Möte"),
            "participants.0.company",
        ),
        (RepresentationAnswer(participants=(ParticipantInput("Anna"),), purpose="Mö\u200fte"), "purpose"),
        (ContextAnswer(text="Taxi\u202e"), "text"),
        (ContextAnswer(text="Taxi", raw_answer="ja \u2067taxi"), "raw_answer"),
    ],
)
def test_bidi_controls_are_refused_in_every_text_field(answer, field):
    errors = errors_of(answer)
    assert len(errors[field]) == 1
    assert "text direction control" in errors[field][0]


# --- On the page and in the API ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_purpose_of_zero_width_spaces_gets_the_required_message_on_the_page(bookkeeper_client):
    item = moved_item("representation")
    data = {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": "Anna",
        "participants-0-company": "",
        "purpose": "\u200b\u200b",
        "action": "save",
    }
    page = Page(bookkeeper_client.post(reverse("item_answer", args=[item.pk]), data, **HTMX).content.decode())
    assert page.text("id_purpose_error") == "Write the purpose of the representation."
    item.refresh_from_db()
    assert item.channel_context["pending_question"]["status"] == "moved_to_app"


@pytest.mark.django_db
def test_a_right_to_left_override_is_refused_on_the_page_under_its_field(bookkeeper_client):
    item = moved_item("context")
    response = bookkeeper_client.post(
        reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Lunch \u202eabc"}, **HTMX
    )
    page = Page(response.content.decode())
    assert "text direction control U+202E" in page.text("id_text_error")
    item.refresh_from_db()
    assert "user_note" not in item.channel_context


@pytest.mark.django_db
def test_the_api_refuses_bidi_controls_and_invisible_answers(bookkeeper_client):
    item = moved_item("context")
    url = reverse("api_item_answer", args=[item.pk])
    body = {"question": "context", "text": "\u2066Taxi\u2069"}
    response = bookkeeper_client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert "text direction control U+2066" in response.json()["errors"]["text"][0]
    body = {"question": "context", "text": "\u200b"}
    response = bookkeeper_client.post(url, json.dumps(body), content_type="application/json")
    assert response.json()["errors"]["text"] == ["Write what the purchase was for."]
    item.refresh_from_db()
    assert "user_note" not in item.channel_context


def test_a_representation_answer_that_names_nothing_reads_as_an_empty_answer():
    from reviewapp.answers.log import answer_text

    # Written by another program (the app refuses such an answer): no one, no purpose, no date.
    shown = answer_text("representation", {"participants": [], "purpose": "", "event_date": None})
    assert shown is not None
    assert (shown.summary, shown.raw_answer) == ("an empty answer", None)
