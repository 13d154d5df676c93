"""summarise() and analyse(): the states an asking surface branches on, and
what a schemaless record can get wrong."""

from typing import Any

import pytest

from clarifications import (
    Analysis,
    Clarifications,
    OpenQuestion,
    Participant,
    Representation,
    analyse,
    summarise,
)
from clarifications.model import new_analysis, new_clarifications
from tests.clarifications.records import rep, wa

DENIAL = wa(representation=rep([], denied=True))
HALF_ANSWER = wa(representation=rep([{"name": "Elias Karlsson", "company": "Canguro Media"}]))


def base(**changes: Any) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "representation": None,
        "representationDenied": False,
        "representationPurposeMissing": False,
        "eventDate": None,
        "userNote": None,
        "contextAnswerRaw": None,
        "openQuestion": None,
        "channel": "whatsapp",
    }
    summary.update(changes)
    return summary


NO_ANSWER = [
    None,
    {},
    wa(),
    wa(caption="lunch"),
    wa(user_note="   "),
    wa(context_answer={"raw_answer": "\ufeff"}),
    wa(pending_question={"type": "context", "status": "answered"}),
    # An event date alone is not an answer.
    wa(representation=rep([], event_date="2026-07-30")),
    wa(representation=rep([{"name": " \u3000", "company": "X"}], "  ")),
    {"channel": "mail_hunt", "mail_subject": "Kvitto"},
]


@pytest.mark.parametrize("ctx", NO_ANSWER)
def test_a_record_without_a_human_answer_summarises_to_none(ctx: Any) -> None:
    assert summarise(ctx) is None


STATES = [
    (DENIAL, base(representationDenied=True)),
    (
        HALF_ANSWER,
        base(
            representation={"participants": [{"name": "Elias Karlsson", "company": "Canguro Media"}], "purpose": None},
            representationPurposeMissing=True,
        ),
    ),
    # A denial wins over participants that were stored anyway.
    (wa(representation=rep([{"name": "Anna", "company": None}], "fika", denied=True)), base(representationDenied=True)),
    # Names are carried as stored (untrimmed, "" company kept); purpose is trimmed.
    (
        wa(representation=rep([{"name": " Eva ", "company": ""}], " kundmöte ")),
        base(representation={"participants": [{"name": " Eva ", "company": ""}], "purpose": "kundmöte"}),
    ),
    # The event date is carried untrimmed, even when empty.
    (
        wa(representation=rep([], "x", event_date="")),
        base(representation={"participants": [], "purpose": "x"}, eventDate=""),
    ),
    # A missing company key stays missing, as JSON.stringify leaves it out.
    (
        wa(representation=rep([{"name": "Bo"}])),
        base(representation={"participants": [{"name": "Bo"}], "purpose": None}, representationPurposeMissing=True),
    ),
    (wa(user_note=" taxi ", context_answer={"raw_answer": "taxi"}), base(userNote="taxi", contextAnswerRaw="taxi")),
    (
        wa(pending_question={"type": "resend", "status": "moved_to_app"}),
        base(openQuestion={"type": "resend", "status": "moved_to_app"}),
    ),
    # Without a channel the reference carries `undefined`, which JSON drops.
    ({"user_note": "x"}, {key: value for key, value in base(userNote="x").items() if key != "channel"}),
    ({"channel": "mail_hunt", "user_note": "x"}, base(userNote="x", channel="mail_hunt")),
]


@pytest.mark.parametrize(("ctx", "expected"), STATES)
def test_the_summary_matches_the_reference_shape(ctx: Any, expected: dict[str, Any]) -> None:
    summary = summarise(ctx)
    assert summary is not None
    assert summary.to_json() == expected


def test_a_denial_is_a_settled_answer_not_an_unasked_question() -> None:
    summary = summarise(DENIAL)
    assert summary is not None
    assert summary.representation is None
    assert summary.representation_denied is True
    assert summary.representation_purpose_missing is False


def test_a_half_answer_wants_only_the_purpose() -> None:
    summary = summarise(HALF_ANSWER)
    assert summary == Clarifications(
        representation=Representation((Participant("Elias Karlsson", "Canguro Media"),), None),
        representation_denied=False,
        representation_purpose_missing=True,
        event_date=None,
        user_note=None,
        context_answer_raw=None,
        open_question=None,
        channel="whatsapp",
    )


def test_an_expired_question_is_still_open_and_owned_by_the_app() -> None:
    summary = summarise(wa(pending_question={"type": "representation", "asked_at": "x", "status": "moved_to_app"}))
    assert summary is not None
    assert summary.open_question == OpenQuestion("representation", "moved_to_app")


PROBLEMS = [
    ([], ("channel_context: expected an object, got array",)),
    ("whatsapp", ("channel_context: expected an object, got string",)),
    (3, ("channel_context: expected an object, got number",)),
    (False, ("channel_context: expected an object, got boolean",)),
    ({"user_note": "x"}, ("channel: missing",)),
    ({"channel": None}, ("channel: expected a string, got null",)),
    ({"channel": ["whatsapp"]}, ("channel: expected a string, got array",)),
    ({"channel": "what\nsapp"}, ("channel: contains white space or markdown (flattened in prompt lines)",)),
    (wa(representation="ja"), ("representation: expected an object, got string",)),
    (wa(representation=rep("Anna")), ("representation.participants: expected an array, got string",)),
    (
        wa(representation=rep([7, None])),
        (
            "representation.participants[0]: expected an object, got number",
            "representation.participants[1]: expected an object, got null",
        ),
    ),
    (
        wa(representation=rep([{"name": 7}, {"company": "X"}])),
        (
            "representation.participants[0].name: expected a string, got number",
            "representation.participants[1].name: missing",
        ),
    ),
    (
        wa(representation=rep([{"name": "A", "company": 5}])),
        ("representation.participants[0].company: expected a string, got number",),
    ),
    (wa(representation=rep([], 12)), ("representation.purpose: expected a string, got number",)),
    (wa(representation=rep([], denied="true")), ("representation.denied: expected true or false, got string",)),
    (wa(representation=rep([], event_date=20260730)), ("representation.event_date: expected a string, got number",)),
    (wa(user_note={"text": "x"}), ("user_note: expected a string, got object",)),
    (wa(context_answer="taxi"), ("context_answer: expected an object, got string",)),
    (wa(context_answer={"raw_answer": 1}), ("context_answer.raw_answer: expected a string, got number",)),
    (wa(pending_question=["open"]), ("pending_question: expected an object, got array",)),
    (
        wa(pending_question={"type": "photo", "status": "open"}),
        ('pending_question.type: unknown value "photo" (expected one of representation, context, resend)',),
    ),
    (
        wa(pending_question={"type": "context", "status": "expired"}),
        ('pending_question.status: unknown value "expired" (expected one of open, answered, moved_to_app)',),
    ),
    # An unknown value is quoted as JSON, its first 60 characters, not ASCII-escaped.
    (
        wa(pending_question={"type": "ä" * 70, "status": "open"}),
        (f'pending_question.type: unknown value "{"ä" * 60}" (expected one of representation, context, resend)',),
    ),
    (wa(pending_question={"status": "open"}), ("pending_question.type: missing",)),
    (
        wa(pending_question={"type": "context", "status": True}),
        ("pending_question.status: expected a string, got boolean",),
    ),
    (wa(caption=["a"]), ("caption: expected a string, got array",)),
]


@pytest.mark.parametrize(("ctx", "expected"), PROBLEMS)
def test_each_malformed_field_is_named_with_what_was_found(ctx: Any, expected: tuple[str, ...]) -> None:
    assert analyse(ctx).problems == expected


MALFORMED_READ_AS_ABSENT = [
    # denied must be === true: the string is no denial, so the names count.
    (
        wa(representation=rep([{"name": "Anna", "company": None}], denied="true")),
        base(
            representation={"participants": [{"name": "Anna", "company": None}], "purpose": None},
            representationPurposeMissing=True,
        ),
    ),
    # A participant with a bad company keeps its name, without the company.
    (
        wa(representation=rep([{"name": "A", "company": 5}], "p")),
        base(representation={"participants": [{"name": "A", "company": None}], "purpose": "p"}),
    ),
    (wa(representation=rep([], 12), user_note="x"), base(userNote="x")),
    # An unknown type is kept (the prompt asks what the purchase was); a
    # missing one is left out, as JSON.stringify drops undefined.
    (wa(pending_question={"type": "photo", "status": "open"}), base(openQuestion={"type": "photo", "status": "open"})),
    (wa(pending_question={"type": 3, "status": "open"}), base(openQuestion={"status": "open"})),
    ({"channel": 7, "user_note": "x"}, {key: value for key, value in base(userNote="x").items() if key != "channel"}),
]


@pytest.mark.parametrize(("ctx", "expected"), MALFORMED_READ_AS_ABSENT)
def test_a_field_of_the_wrong_type_is_read_as_absent(ctx: Any, expected: dict[str, Any]) -> None:
    summary = analyse(ctx).summary
    assert summary is not None
    assert summary.to_json() == expected


def test_a_well_formed_record_has_no_problems() -> None:
    ctx = wa(
        representation=rep([{"name": "Anna", "company": "Volvo"}], "lunch", denied=False, answered_at="y"),
        user_note="n",
        context_answer={"raw_answer": "r", "answered_at": "x"},
        pending_question={"type": "context", "asked_at": "x", "status": "answered"},
        caption=None,
        quality={"resend_requested_at": "x"},
    )
    assert analyse(ctx) == Analysis(summarise(ctx), ())


def test_the_per_row_constructors_build_the_same_values_as_the_dataclasses() -> None:
    question = OpenQuestion("context", "open")
    representation = Representation((Participant("A", None),), "p")
    values = (representation, False, True, "2026-01-01", "note", "answer", question, "whatsapp")
    fast = new_clarifications(*values)
    assert fast == Clarifications(*values)
    assert fast.to_json() == Clarifications(*values).to_json()
    assert hash(fast) == hash(Clarifications(*values))
    assert new_analysis(fast, ("x",)) == Analysis(Clarifications(*values), ("x",))


def test_the_summary_does_not_change_when_the_input_is_mutated_afterwards() -> None:
    ctx = wa(representation=rep([{"name": "Anna", "company": "Volvo"}]))
    summary = summarise(ctx)
    assert summary is not None
    ctx["representation"]["participants"][0]["company"] = "Saab"
    assert summary.to_json()["representation"] == {
        "participants": [{"name": "Anna", "company": "Volvo"}],
        "purpose": None,
    }
