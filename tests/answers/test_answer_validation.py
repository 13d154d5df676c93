"""Every validation rule of ``validate``, and the JSON it writes."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from reviewapp.answers.channel_context import answer_version, answered_context, utc_stamp
from reviewapp.answers.inputs import Answer, ContextAnswer, ParticipantInput, RepresentationAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid, answer_from_json, is_short_id, validate


def errors_of(answer: Answer, *, complete: bool = True) -> dict[str, list[str]]:
    with pytest.raises(AnswerInvalid) as caught:
        validate(answer, complete=complete)
    return caught.value.errors


def rep(
    *names: str, purpose: str = "Kundmöte", event_date: str = "", company: str | None = None
) -> RepresentationAnswer:
    return RepresentationAnswer(
        participants=tuple(ParticipantInput(name=n, company=company) for n in names),
        purpose=purpose,
        event_date=event_date,
    )


def image_bytes(kind: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, format=kind)
    return buffer.getvalue()


# --- Representation ---------------------------------------------------------------------


def test_a_full_answer_is_trimmed():
    cleaned = validate(rep("  Anna Berg ", purpose=" Möte \r\n om avtal ", company=" Volvo "))
    assert isinstance(cleaned, RepresentationAnswer)
    assert cleaned.participants == (ParticipantInput(name="Anna Berg", company="Volvo"),)
    assert cleaned.purpose == "Möte \n om avtal"


def test_an_empty_company_is_no_company():
    cleaned = validate(rep("Anna", company="   "))
    assert isinstance(cleaned, RepresentationAnswer)
    assert cleaned.participants[0].company is None


@pytest.mark.parametrize("name", ["", " ", "\t", "\u3000"])
def test_a_blank_name_is_refused(name):
    assert "participants.1.name" in errors_of(rep("Anna", name))


def test_a_name_of_200_characters_is_accepted_and_201_refused():
    validate(rep("n" * 200))
    assert "at most 200" in errors_of(rep("n" * 201))["participants.0.name"][0]


def test_a_company_of_201_characters_is_refused():
    assert "participants.0.company" in errors_of(rep("Anna", company="c" * 201))


def test_twenty_participants_are_accepted_and_twenty_one_refused():
    validate(rep(*[f"P{i}" for i in range(20)]))
    assert "At most 20 participants" in errors_of(rep(*[f"P{i}" for i in range(21)]))["participants"][0]


def test_a_purpose_of_2001_characters_is_refused():
    validate(rep("Anna", purpose="p" * 2000))
    assert "purpose" in errors_of(rep("Anna", purpose="p" * 2001))


def test_participants_need_a_purpose_and_a_purpose_needs_participants():
    assert set(errors_of(rep("Anna", purpose=""))) == {"purpose"}
    assert set(errors_of(rep(purpose="Möte"))) == {"participants"}


def test_the_preview_lets_a_half_answer_through_but_not_bad_characters():
    validate(rep("Anna", purpose=""), complete=False)
    assert "participants.0.name" in errors_of(rep("An\x00na", purpose=""), complete=False)


@pytest.mark.parametrize(
    ("field_value", "where"),
    [
        ("An\x00na", "name"),
        ("An\x07na", "name"),
        ("An\nna", "name"),
        ("An\tna", "name"),
        ("An\x85na", "name"),
        ("An\u2028na", "name"),
        ("An\ud800na", "name"),
        ("An\x1bna", "company"),
    ],
)
def test_control_characters_are_refused_in_names_and_companies(field_value, where):
    answer = rep(field_value) if where == "name" else rep("Anna", company=field_value)
    assert f"participants.0.{where}" in errors_of(answer)


def test_the_nul_message_says_it_cannot_be_stored():
    message = errors_of(rep("Anna", purpose="a\x00b"))["purpose"][0]
    assert "U+0000" in message


@pytest.mark.parametrize("text", ["rad ett\nrad två", "kolumn\tkolumn", "emoji 🍽️ och å"])
def test_free_text_keeps_line_breaks_tabs_and_any_letter(text):
    cleaned = validate(rep("Anna", purpose=text))
    assert isinstance(cleaned, RepresentationAnswer)
    assert cleaned.purpose == text


@pytest.mark.parametrize("text", ["a\x00b", "a\x0bb", "a\x7fb", "a\x9fb", "a\udfffb"])
def test_free_text_refuses_other_control_characters(text):
    assert "text" in errors_of(ContextAnswer(text=text))


@pytest.mark.parametrize("value", ["2026-07-29", "2000-01-01", "2099-12-31", ""])
def test_good_event_dates(value):
    cleaned = validate(rep("Anna", event_date=value))
    assert isinstance(cleaned, RepresentationAnswer)
    assert cleaned.event_date == value


@pytest.mark.parametrize(
    "value",
    [
        "29/07/2026",
        "20260729",
        "2026-7-29",
        "2026-02-30",
        "2026-13-01",
        "1999-12-31",
        "2100-01-01",
        "igår",
        "2026-W30-1",
    ],
)
def test_malformed_event_dates_are_refused(value):
    assert "event_date" in errors_of(rep("Anna", event_date=value))


def test_a_denial_carries_nothing_else():
    assert validate(RepresentationAnswer(denied=True)) == RepresentationAnswer(denied=True)
    errors = errors_of(
        RepresentationAnswer(participants=(ParticipantInput("A"),), purpose="p", event_date="2026-01-01", denied=True)
    )
    assert set(errors) == {"participants", "purpose", "event_date"}
    assert errors["participants"] == ["A denial names no participants."]
    assert errors["event_date"] == ["A denial has no event date."]


# --- Context -----------------------------------------------------------------------------


def test_context_text_is_required_and_limited():
    assert "text" in errors_of(ContextAnswer(text="  \n "))
    validate(ContextAnswer(text="t" * 2000))
    assert "text" in errors_of(ContextAnswer(text="t" * 2001))


# --- Resend ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("kvitto.png", image_bytes("PNG")),
        ("kvitto.jpg", image_bytes("JPEG")),
        ("kvitto.pdf", b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n"),
        # The name and the browser's type do not matter, the content does.
        ("kvitto.txt", image_bytes("PNG")),
    ],
)
def test_jpeg_png_and_pdf_are_accepted_by_content(name, content):
    upload = SimpleUploadedFile(name, content, content_type="text/plain")
    cleaned = validate(ResendAnswer(upload=upload))
    assert isinstance(cleaned, ResendAnswer)
    assert cleaned.choice == "upload"


@pytest.mark.parametrize(
    "content",
    [
        image_bytes("GIF"),
        image_bytes("BMP"),
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"<html></html>",
        image_bytes("PNG")[:40],  # a PNG cut short
        b"\xff\xd8\xff" + b"\x00" * 50,  # a JPEG signature on nothing
        b"",
    ],
)
def test_other_or_broken_files_are_refused(content):
    upload = SimpleUploadedFile("kvitto.png", content, content_type="image/png")
    assert "file" in errors_of(ResendAnswer(upload=upload))


def test_the_size_limit_comes_from_the_settings(settings):
    content = image_bytes("PNG")
    settings.RECEIPT_UPLOAD_MAX_BYTES = len(content)
    validate(ResendAnswer(upload=SimpleUploadedFile("a.png", content)))
    settings.RECEIPT_UPLOAD_MAX_BYTES = len(content) - 1
    assert "file" in errors_of(ResendAnswer(upload=SimpleUploadedFile("a.png", content)))


def test_resend_needs_exactly_one_choice():
    assert "file" in errors_of(ResendAnswer())
    both = ResendAnswer(readable=True, upload=SimpleUploadedFile("a.png", image_bytes("PNG")))
    assert "readable" in errors_of(both)


# --- The JSON written ------------------------------------------------------------------------


NOW = dt.datetime(2026, 8, 3, 12, 30, 5, 123456, tzinfo=dt.UTC)
STAMP = "2026-08-03T12:30:05.123Z"


def test_answered_at_is_like_javascripts_to_iso_string():
    # new Date("2026-08-03T14:30:05.123456+02:00").toISOString() === "2026-08-03T12:30:05.123Z"
    stockholm = NOW.astimezone(dt.timezone(dt.timedelta(hours=2)))
    assert utc_stamp(stockholm) == "2026-08-03T12:30:05.123Z"
    assert utc_stamp(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)) == "2026-01-02T03:04:05.000Z"
    assert utc_stamp(dt.datetime(2026, 1, 2, 3, 4, 5, 999999, tzinfo=dt.UTC)) == "2026-01-02T03:04:05.999Z"


# Written out from the wording in reviewapp/answers/evidence.py's docstring and the README:
# 12:30:05 UTC on 3 August 2026 is 14:30 summer time in Stockholm.
ENTERED = "Inmatat av byrån i granskningsappen 2026-08-03 14:30 CEST: "
WINTER_STAMP = "2026-12-01T15:05:59.999Z"
WINTER_ENTERED = "Inmatat av byrån i granskningsappen 2026-12-01 16:05 CET: "


def test_a_representation_is_written_in_the_intakes_shape():
    ctx = {
        "channel": "whatsapp",
        "pending_question": {"type": "representation", "asked_at": "x", "status": "moved_to_app"},
    }
    answer = validate(rep("Anna Berg", "Jakob", purpose="Avtal", event_date="2026-07-29", company="Volvo"))
    new = answered_context(ctx, answer, answered_at="2026-08-03T12:30:05.123Z")
    assert new["representation"] == {
        "participants": [{"name": "Anna Berg", "company": "Volvo"}, {"name": "Jakob", "company": "Volvo"}],
        "purpose": "Avtal",
        "event_date": "2026-07-29",
        "raw_answer": ENTERED + "Deltagare: Anna Berg (Volvo), Jakob (Volvo); syfte: Avtal; datum: 2026-07-29",
        "answered_at": "2026-08-03T12:30:05.123Z",
    }
    assert new["pending_question"] == {"type": "representation", "asked_at": "x", "status": "answered"}
    assert ctx["pending_question"]["status"] == "moved_to_app"  # the input is not changed


def test_the_customers_own_words_are_the_raw_answer_verbatim():
    answer = validate(
        RepresentationAnswer(
            participants=(ParticipantInput("Anna Berg"),),
            purpose="Avtal",
            raw_answer="  Anna från Volvo,\r\navtal  ",
            raw_answer_via="phone",
        )
    )
    new = answered_context({}, answer, answered_at=STAMP)
    assert new["representation"]["raw_answer"] == "Anna från Volvo,\navtal"


def test_no_bare_rendering_that_reads_like_a_quote_is_ever_written():
    answer = validate(rep("Anna", purpose="Möte"))
    raw = answered_context({}, answer, answered_at=WINTER_STAMP)["representation"]["raw_answer"]
    # Stockholm time, to the minute, with its zone: never the bare "Deltagare: Anna\nSyfte: Möte".
    assert raw == WINTER_ENTERED + "Deltagare: Anna; syfte: Möte"


def test_a_denial_is_written_in_the_intakes_shape():
    new = answered_context({}, RepresentationAnswer(denied=True), answered_at=STAMP)
    assert new["representation"] == {
        "participants": [],
        "purpose": None,
        "event_date": None,
        "raw_answer": ENTERED + "Inte representation",
        "answered_at": STAMP,
        "denied": True,
    }


def test_only_a_denial_carries_denied():
    new = answered_context({}, validate(rep("Anna")), answered_at=STAMP)
    assert "denied" not in new["representation"]


def test_a_context_answer_is_the_note_and_the_context_answer():
    new = answered_context(
        {"pending_question": {"type": "context", "status": "moved_to_app"}},
        validate(ContextAnswer(text="Taxi till kund", raw_answer="taxin till volvo", raw_answer_via="email")),
        answered_at=STAMP,
    )
    assert new["user_note"] == "Taxi till kund"
    assert new["context_answer"] == {"raw_answer": "taxin till volvo", "answered_at": STAMP}


def test_a_context_answer_without_the_customers_words_is_the_note_alone():
    new = answered_context({}, validate(ContextAnswer(text="Taxi till kund")), answered_at=STAMP)
    assert new["user_note"] == "Taxi till kund"
    assert "context_answer" not in new


def test_a_context_answer_without_words_removes_the_firms_text_an_old_answer_left_there():
    old = {"user_note": "Taxi", "context_answer": {"raw_answer": ENTERED + "Taxi", "answered_at": STAMP}}
    new = answered_context(old, validate(ContextAnswer(text="Taxi till kund")), answered_at=WINTER_STAMP)
    assert "context_answer" not in new


def test_an_answer_over_the_chats_half_answer_keeps_the_customers_words():
    half = {"representation": {"participants": [{"name": "Elias", "company": None}], "raw_answer": "Elias"}}
    new = answered_context(half, validate(rep("Elias", purpose="Säljmöte")), answered_at=STAMP)
    assert new["representation"]["raw_answer"] == "Elias\n" + ENTERED + "Deltagare: Elias; syfte: Säljmöte"


def test_an_amendment_appends_to_the_raw_answer_and_takes_its_own_answered_at():
    first = answered_context({}, validate(rep("Anna", purpose="Möte")), answered_at=STAMP)
    correction = RepresentationAnswer(
        participants=(ParticipantInput("Anna"), ParticipantInput("Bo Ek")),
        purpose="Möte",
        raw_answer="Bo Ek var också med",
        raw_answer_via="message",
        amend=True,
        expected_version="0" * 32,
    )
    second = answered_context(first, validate(correction), answered_at=WINTER_STAMP)
    assert second["representation"] == {
        "participants": [{"name": "Anna", "company": None}, {"name": "Bo Ek", "company": None}],
        "purpose": "Möte",
        "event_date": None,
        "raw_answer": ENTERED + "Deltagare: Anna; syfte: Möte\nBo Ek var också med",
        # accounted's intake sets answered_at to the second message's time (process-inbound.ts, 66851ff).
        "answered_at": WINTER_STAMP,
    }


def test_a_context_amendment_with_new_words_replaces_them():
    words = ContextAnswer(text="Taxi", raw_answer="taxi", raw_answer_via="phone")
    first = answered_context({}, validate(words), answered_at=STAMP)
    correction = ContextAnswer(
        text="Taxi till Volvo",
        raw_answer="taxi till volvo",
        raw_answer_via="email",
        amend=True,
        expected_version="0" * 32,
    )
    second = answered_context(first, validate(correction), answered_at=WINTER_STAMP)
    assert second["context_answer"] == {"raw_answer": "taxi till volvo", "answered_at": WINTER_STAMP}
    assert second["user_note"] == "Taxi till Volvo"


def test_readable_changes_nothing_but_the_status():
    ctx = {
        "quality": {"blur": 0.8, "resend_requested_at": "R"},
        "pending_question": {"type": "resend", "status": "moved_to_app"},
    }
    new = answered_context(ctx, ResendAnswer(readable=True), answered_at=STAMP)
    assert new == {
        "quality": {"blur": 0.8, "resend_requested_at": "R"},
        "pending_question": {"type": "resend", "status": "answered"},
    }


def test_a_replaced_item_is_superseded_like_the_intake_does_it():
    ctx = {
        "quality": {"resend_requested_at": "R", "checked_by": {"model": "v2"}},
        "pending_question": {"type": "resend", "asked_at": "A", "status": "moved_to_app"},
    }
    replaced = ResendAnswer(replaced_by="2b0d8a8e-3f55-4a55-9d4b-1d6c8c1b9f00")
    new = answered_context(ctx, replaced, answered_at=STAMP)
    # resolveResendQuestion (process-inbound.ts, 66851ff) writes these three keys and no other.
    assert new["quality"] == {"resend_requested_at": "R", "resent": True, "superseded": True}
    # Without any request time JavaScript's undefined leaves the key out of the JSON.
    bare = {"quality": {"blur_score": 0.7}, "pending_question": {"type": "resend", "status": "moved_to_app"}}
    assert answered_context(bare, replaced, answered_at=STAMP)["quality"] == {"resent": True, "superseded": True}


@pytest.mark.parametrize("quality", [None, {}, {"blur_score": 0.7}, {"resend_requested_at": None}, "garbage"])
def test_a_resend_moved_over_budget_takes_the_questions_asked_at(quality):
    ctx = {"pending_question": {"type": "resend", "asked_at": "A", "status": "moved_to_app"}}
    if quality is not None:
        ctx["quality"] = quality
    new = answered_context(ctx, ResendAnswer(replaced_by="2b0d8a8e-3f55-4a55-9d4b-1d6c8c1b9f00"), answered_at=STAMP)
    assert new["quality"] == {"resend_requested_at": "A", "resent": True, "superseded": True}


def test_a_pending_question_keeps_its_extra_keys():
    ctx = {"pending_question": {"type": "context", "asked_at": "A", "status": "moved_to_app", "wamid": "w1"}}
    new = answered_context(ctx, ContextAnswer(text="x"), answered_at=STAMP)
    assert new["pending_question"] == {"type": "context", "asked_at": "A", "status": "answered", "wamid": "w1"}


# --- The customer's words, resend choices, amendments ------------------------------------------


def test_the_customers_words_are_free_text_with_a_limit():
    validate(ContextAnswer(text="Taxi", raw_answer="r" * 2000, raw_answer_via="phone"))
    assert "raw_answer" in errors_of(ContextAnswer(text="Taxi", raw_answer="r" * 2001, raw_answer_via="phone"))
    assert "raw_answer" in errors_of(ContextAnswer(text="Taxi", raw_answer="a\x00b", raw_answer_via="phone"))


def test_a_denial_may_carry_the_customers_words():
    cleaned = validate(RepresentationAnswer(denied=True, raw_answer=" Nej, privat middag ", raw_answer_via="email"))
    assert cleaned == RepresentationAnswer(denied=True, raw_answer="Nej, privat middag", raw_answer_via="email")


@pytest.mark.parametrize(
    "answer",
    [
        ContextAnswer(text="Taxi", raw_answer="taxin"),
        RepresentationAnswer(denied=True, raw_answer="Nej"),
        RepresentationAnswer(participants=(ParticipantInput("Anna"),), purpose="Möte", raw_answer="Anna och jag"),
    ],
)
def test_the_customers_words_need_where_they_came_from(answer):
    assert errors_of(answer) == {
        "raw_answer_via": ["Say where the customer's words came from: phone, e-mail or a message."]
    }
    # The live preview shows a half-done answer: the source may still be chosen.
    validate(answer, complete=False)


@pytest.mark.parametrize("via", ["phone", "email", "message"])
def test_each_source_of_the_customers_words_is_taken(via):
    cleaned = validate(ContextAnswer(text="Taxi", raw_answer="taxin", raw_answer_via=via))
    assert cleaned.raw_answer_via == via


@pytest.mark.parametrize("words", ["", "  ", "\u200b"])
def test_a_source_without_words_is_refused(words):
    errors = errors_of(ContextAnswer(text="Taxi", raw_answer=words, raw_answer_via="phone"))
    assert errors == {
        "raw_answer_via": ["A source belongs to the customer's words: write them, or leave the source empty."]
    }


@pytest.mark.parametrize("via", ["sms", "chat", "PHONE", "telefon"])
def test_an_unknown_source_is_refused(via):
    errors = errors_of(ContextAnswer(text="Taxi", raw_answer="taxin", raw_answer_via=via))
    assert errors == {"raw_answer_via": ["Unknown source; use one of: phone, email, message."]}


@pytest.mark.parametrize("value", ["nej", "12345", "2b0d8a8", "2b0d8a8e-3f55-4a55-9d4b-1d6c8c1b9f00x"])
def test_a_replacing_item_is_named_by_a_uuid_or_its_first_eight_hex_digits(value):
    assert "replaced_by" in errors_of(ResendAnswer(replaced_by=value))


@pytest.mark.parametrize("value", ["2b0d8a8e", "2B0D8A8E-3f55"])
def test_the_start_of_an_id_passes_validation_to_be_looked_up(value):
    assert validate(ResendAnswer(replaced_by=value)) == ResendAnswer(replaced_by=value.lower())


def test_resend_takes_one_choice_only():
    both = ResendAnswer(readable=True, replaced_by="2b0d8a8e-3f55-4a55-9d4b-1d6c8c1b9f00")
    assert "readable" in errors_of(both)


def test_an_amendment_needs_the_version_it_corrects():
    assert "answer_version" in errors_of(ContextAnswer(text="Taxi", amend=True))
    assert "answer_version" in errors_of(ContextAnswer(text="Taxi", amend=True, expected_version="not-hex"))
    validate(ContextAnswer(text="Taxi", amend=True, expected_version="0123456789abcdef0123456789abcdef"))


def test_the_answer_version_follows_the_value_not_its_key_order():
    one = {"participants": [], "purpose": "A", "raw_answer": "x"}
    two = {"raw_answer": "x", "purpose": "A", "participants": []}
    assert answer_version(one) == answer_version(two)
    assert answer_version(one) != answer_version({**one, "purpose": "B"})


# --- The JSON API's shape errors -------------------------------------------------------------


def _shape_errors(body: dict[str, object]) -> dict[str, list[str]]:
    with pytest.raises(AnswerInvalid) as caught:
        answer_from_json(body)
    return caught.value.errors


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"question": "context", "text": "Taxi", "raw_answer": 5, "raw_answer_via": "phone"},
            "raw_answer",
            "Must be a string.",
        ),
        ({"question": "resend", "replaced_by": 5}, "replaced_by", "Must be a string."),
        ({"question": "resend", "replaced_by": "5eed1e55", "confirm": "yes"}, "confirm", "Must be true or false."),
        ({"question": "context", "text": "Taxi", "amend": "yes"}, "amend", "Must be true or false."),
    ],
)
def test_a_json_field_of_the_wrong_type_is_named_with_what_it_must_be(body, field, message):
    assert _shape_errors(body)[field] == [message]


def test_a_resend_answer_without_a_choice_says_which_to_send():
    (message,) = _shape_errors({"question": "resend"})["readable"]
    assert message.startswith('Send "readable": true, or "replaced_by": "<id of the newer item>".')


@pytest.mark.parametrize("content", [image_bytes("GIF"), b"<html></html>"])
def test_a_file_of_another_kind_is_told_which_kinds_are_taken(content):
    upload = SimpleUploadedFile("kvitto.png", content, content_type="image/png")
    assert errors_of(ResendAnswer(upload=upload))["file"] == [
        "Upload a JPEG, PNG or PDF file; this file is none of them."
    ]


def test_an_unknown_field_of_a_participant_is_named_by_its_path():
    body = {"question": "representation", "participants": [{"name": "Anna", "role": "vd"}], "purpose": "Möte"}
    assert _shape_errors(body)["participants.0.role"] == ["Unknown field for a participant."]


def test_a_short_id_is_8_to_31_hex_digits():
    assert [is_short_id("a" * n) for n in (7, 8, 31, 32)] == [False, True, True, False]
    assert is_short_id("a1b2c3d4-e5f6")
