"""Reading the JSON API's body into an answer: its shape only, the rules are ``validate``'s."""

from __future__ import annotations

from typing import Any, Final

from django.utils.translation import gettext as _

from reviewapp.answers.inputs import (
    CONTEXT,
    QUESTION_TYPES,
    REPRESENTATION,
    RESEND,
    Answer,
    ContextAnswer,
    ParticipantInput,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.validation import MAX_PARTICIPANTS, AnswerInvalid, too_many_participants

_API_FIELDS: Final = {
    REPRESENTATION: frozenset(
        {"question", "participants", "purpose", "event_date", "denied", "raw_answer", "amend", "answer_version"}
    ),
    CONTEXT: frozenset({"question", "text", "raw_answer", "amend", "answer_version"}),
    RESEND: frozenset({"question", "readable", "replaced_by"}),
}


def _json_text(data: dict[str, Any], key: str, errors: dict[str, list[str]]) -> str:
    """An optional string field; ``null`` and absent read as empty."""
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        errors.setdefault(key, []).append(_("Must be a string."))
        return ""
    return value


def answer_from_json(data: object) -> Answer:
    """The answer a JSON body describes, or ``AnswerInvalid`` for its shape.

    Only the shape is checked here (types, known fields); the rules are
    ``validate``'s, applied by ``answer_question`` like for the page.
    ``raw_answer`` is the customer's own words (optional); ``amend: true``
    with ``answer_version`` (from the item's state) corrects the app's answer.
    """
    if not isinstance(data, dict):
        raise AnswerInvalid({"question": [_("The body must be a JSON object.")]})
    question = data.get("question")
    if question not in QUESTION_TYPES:
        raise AnswerInvalid(
            {"question": [_("Unknown question type; use one of: %(types)s.") % {"types": ", ".join(QUESTION_TYPES)}]}
        )
    errors: dict[str, list[str]] = {
        key: [_("Unknown field for this question.")] for key in data if key not in _API_FIELDS[question]
    }
    answer: Answer
    raw_answer = _json_text(data, "raw_answer", errors)
    amend = data.get("amend", False)
    if not isinstance(amend, bool):
        errors["amend"] = [_("Must be true or false.")]
        amend = False
    version = _json_text(data, "answer_version", errors)
    if question == REPRESENTATION:
        denied = data.get("denied", False)
        if not isinstance(denied, bool):
            errors["denied"] = [_("Must be true or false.")]
        participants = _json_participants(data.get("participants"), errors)
        purpose = _json_text(data, "purpose", errors)
        event_date = _json_text(data, "event_date", errors)
        answer = RepresentationAnswer(
            participants=participants,
            purpose=purpose,
            event_date=event_date,
            denied=denied is True,
            raw_answer=raw_answer,
            amend=amend,
            expected_version=version,
        )
    elif question == CONTEXT:
        if "text" not in data:
            errors["text"] = [_("Write what the purchase was for.")]
        answer = ContextAnswer(
            text=_json_text(data, "text", errors), raw_answer=raw_answer, amend=amend, expected_version=version
        )
    else:
        replaced_by = _json_text(data, "replaced_by", errors)
        readable = data.get("readable", False)
        if readable is not True and not replaced_by:
            errors["readable"] = [
                _(
                    'Send "readable": true, or "replaced_by": "<id of the newer item>". '
                    "A sharper file can only be uploaded on the item page."
                )
            ]
        answer = ResendAnswer(readable=readable is True, replaced_by=replaced_by)
    if errors:
        raise AnswerInvalid(errors)
    return answer


def _json_participants(value: object, errors: dict[str, list[str]]) -> tuple[ParticipantInput, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        errors["participants"] = [_('Must be a list of {"name", "company"} objects.')]
        return ()
    if len(value) > MAX_PARTICIPANTS:
        errors["participants"] = [too_many_participants(len(value))]
        return ()
    people: list[ParticipantInput] = []
    for index, person in enumerate(value):
        path = f"participants.{index}"
        if not isinstance(person, dict):
            errors[path] = [_("Must be an object with a name and an optional company.")]
            continue
        for key in person:
            if key not in ("name", "company"):
                errors[f"{path}.{key}"] = [_("Unknown field for a participant.")]
        name, company = person.get("name"), person.get("company")
        if not isinstance(name, str):
            errors[f"{path}.name"] = [_("Enter the participant's name as a string.")]
        if company is not None and not isinstance(company, str):
            errors[f"{path}.company"] = [_("Must be a string or null.")]
        if isinstance(name, str) and (company is None or isinstance(company, str)):
            people.append(ParticipantInput(name=name, company=company))
    return tuple(people)
