"""The rules an answer must pass before anything is written, and the JSON API's body read into an answer.

Limits (generous for a receipt, small enough that nobody pastes a novel
into a prompt line):

- at most ``MAX_PARTICIPANTS`` (20) participants; a name or company of at most
  200 characters, a purpose or context text of at most 2000;
- a name must not be blank or white space only; a company may be left empty;
- every text goes through ``reviewapp.core.text``: single-line fields (name,
  company) refuse every control character, the free-text fields (purpose,
  context text) allow line breaks and tabs; bidi controls are refused
  everywhere; text made only of white space and invisible characters
  (U+200B …) is blank, so a required field says it is missing. NUL in
  particular: PostgreSQL cannot store ``\\u0000`` in jsonb, so it is a
  validation message, never a server error; lone UTF-16 surrogates (possible
  in JSON) are refused for the same reason;
- an event date is ``YYYY-MM-DD``, a real date between 2000 and 2099;
- a new document passes ``uploads.check_file`` (its real type, no
  JavaScript in a PDF, a pixel cap on images);
- the customer's own words (``raw_answer``) are optional free text of at most
  2000 characters; given, they need where they came from (``raw_answer_via``:
  ``phone``, ``email`` or ``message``), and a source without words is refused;
- a replacing item is named by its id (a UUID), or by the start of it as the
  list shows it (``SHORT_ID``: 8 or more hex digits, dashes allowed), which
  ``resend.replacement`` resolves within the item's company.

``answer_from_json`` checks only the body's shape (types, known fields),
``upload_from_form`` the API's multipart upload of a sharper file;
``validate`` applies the rules, for the API exactly as for the page.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Callable
from typing import Any, Final

from django.utils.translation import gettext as _

from reviewapp.answers.evidence import WORDS_SOURCES
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
    TypedAnswer,
)
from reviewapp.answers.uploads import check_file
from reviewapp.core import text

MAX_PARTICIPANTS: Final = 20
MAX_NAME_LENGTH: Final = 200
MAX_COMPANY_LENGTH: Final = 200
MAX_PURPOSE_LENGTH: Final = 2000
MAX_TEXT_LENGTH: Final = 2000
MAX_RAW_ANSWER_LENGTH: Final = 2000
MIN_EVENT_YEAR: Final = 2000
MAX_EVENT_YEAR: Final = 2099

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_VERSION = re.compile(r"[0-9a-f]{16,64}")
# The start of an item id: the list shows eight hex digits; dashes where the id has them may be typed.
SHORT_ID: Final = re.compile(r"[0-9a-f-]{8,36}")
MIN_SHORT_ID: Final = 8

# The fields the JSON API accepts for each question.
API_FIELDS: Final = {
    REPRESENTATION: frozenset(
        {
            "question",
            "participants",
            "purpose",
            "event_date",
            "denied",
            "raw_answer",
            "raw_answer_via",
            "amend",
            "answer_version",
        }
    ),
    CONTEXT: frozenset({"question", "text", "raw_answer", "raw_answer_via", "amend", "answer_version"}),
    RESEND: frozenset({"question", "readable", "replaced_by", "confirm"}),
}


class AnswerInvalid(Exception):
    """The answer breaks a rule; ``errors`` maps a field path to messages.

    Paths: ``question``, ``participants``, ``participants.<i>.name``,
    ``participants.<i>.company``, ``purpose``, ``event_date``, ``denied``,
    ``text``, ``raw_answer``, ``raw_answer_via``, ``readable``, ``replaced_by``, ``confirm``, ``file``,
    ``answer_version``.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


# --- One field -------------------------------------------------------------------------


def clean_name(value: str) -> str:
    name = text.clean(value, max_length=MAX_NAME_LENGTH)
    if not name:
        raise ValueError(_("Enter the participant's name (white space or invisible characters alone are not a name)."))
    return name


def clean_company(value: str | None) -> str | None:
    if value is None:
        return None
    return text.clean(value, max_length=MAX_COMPANY_LENGTH) or None


def clean_event_date(value: str) -> str:
    """``""`` or an ISO date ``YYYY-MM-DD`` between 2000 and 2099."""
    value = value.strip()
    if not value:
        return ""
    if not _ISO_DATE.fullmatch(value):
        raise ValueError(_("Enter the date as YYYY-MM-DD, for example 2026-07-29."))
    try:
        parsed = dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(_("%(value)s is not a date in the calendar.") % {"value": value}) from None
    if not MIN_EVENT_YEAR <= parsed.year <= MAX_EVENT_YEAR:
        raise ValueError(
            _("Enter a date between %(first)d and %(last)d.") % {"first": MIN_EVENT_YEAR, "last": MAX_EVENT_YEAR}
        )
    return value


def is_short_id(value: str) -> bool:
    """``value`` (lower-cased) is the start of an id: 8 to 31 hex digits, dashes allowed (``a1b2c3d4``)."""
    return bool(SHORT_ID.fullmatch(value)) and MIN_SHORT_ID <= len(value.replace("-", "")) < 32


def too_many_participants(count: int) -> str:
    return _("At most %(max)d participants (this has %(count)d).") % {"max": MAX_PARTICIPANTS, "count": count}


def _free_text(max_length: int) -> Callable[[str], str]:
    return lambda value: text.clean(value, max_length=max_length, multiline=True)


def _collect(errors: dict[str, list[str]], key: str, func: Callable[[Any], Any], value: Any) -> Any:
    try:
        return func(value)
    except ValueError as error:
        errors.setdefault(key, []).append(str(error))
        return None


# --- The whole answer ------------------------------------------------------------------


def validate(answer: Answer, *, complete: bool = True) -> Answer:
    """The answer normalised (trimmed, CRLF → LF), or ``AnswerInvalid``.

    ``complete=False`` is for the live preview: every rule about what was
    typed still applies, but an answer still missing a purpose or a
    participant is let through so the preview can show it half done.
    """
    errors: dict[str, list[str]] = {}
    cleaned: Answer
    if isinstance(answer, RepresentationAnswer):
        cleaned = _validate_representation(answer, errors, complete=complete)
    elif isinstance(answer, ContextAnswer):
        note = _collect(errors, "text", _free_text(MAX_TEXT_LENGTH), answer.text)
        if complete and note == "":
            errors.setdefault("text", []).append(_("Write what the purchase was for."))
        cleaned = ContextAnswer(text=note or "", **_typed(answer, errors, complete=complete))
    elif isinstance(answer, ResendAnswer):
        cleaned = _validate_resend(answer, errors, complete=complete)
    else:
        raise AnswerInvalid({"question": [_("Unknown question type.")]})
    if errors:
        raise AnswerInvalid(errors)
    return cleaned


def _typed(answer: TypedAnswer, errors: dict[str, list[str]], *, complete: bool = True) -> dict[str, Any]:
    """The customer's own words (free text, trimmed, optional) with their source, and the amendment, checked."""
    words = _collect(errors, "raw_answer", _free_text(MAX_RAW_ANSWER_LENGTH), answer.raw_answer)
    via = answer.raw_answer_via.strip()
    if via and via not in WORDS_SOURCES:
        errors["raw_answer_via"] = [
            _("Unknown source; use one of: %(sources)s.") % {"sources": ", ".join(WORDS_SOURCES)}
        ]
    elif words and not via and complete:
        # raw_answer is evidence: words without where they came from cannot be told from a guess.
        errors["raw_answer_via"] = [_("Say where the customer's words came from: phone, e-mail or a message.")]
    elif via and not words and "raw_answer" not in errors:
        errors["raw_answer_via"] = [
            _("A source belongs to the customer's words: write them, or leave the source empty.")
        ]
    if answer.amend and not _VERSION.fullmatch(answer.expected_version or ""):
        errors["answer_version"] = [
            _("Send the answer_version of the answer you are correcting (from the item's current state).")
        ]
    return {
        "raw_answer": words or "",
        "raw_answer_via": via if words else "",
        "amend": answer.amend,
        "expected_version": answer.expected_version,
    }


def _validate_representation(
    answer: RepresentationAnswer, errors: dict[str, list[str]], *, complete: bool
) -> RepresentationAnswer:
    if answer.denied:
        # A denial carries no participants and no purpose: refuse a
        # contradiction instead of silently dropping what was sent.
        if answer.participants:
            errors["participants"] = [_("A denial names no participants.")]
        if not text.is_blank(answer.purpose):
            errors["purpose"] = [_("A denial has no purpose.")]
        if not text.is_blank(answer.event_date):
            errors["event_date"] = [_("A denial has no event date.")]
        return RepresentationAnswer(denied=True, **_typed(answer, errors, complete=complete))

    participants: list[ParticipantInput] = []
    if len(answer.participants) > MAX_PARTICIPANTS:
        errors["participants"] = [too_many_participants(len(answer.participants))]
    for index, person in enumerate(answer.participants[: MAX_PARTICIPANTS + 1]):
        name = _collect(errors, f"participants.{index}.name", clean_name, person.name)
        company = _collect(errors, f"participants.{index}.company", clean_company, person.company)
        if name is not None:
            participants.append(ParticipantInput(name=name, company=company))
    purpose = _collect(errors, "purpose", _free_text(MAX_PURPOSE_LENGTH), answer.purpose)
    event_date = _collect(errors, "event_date", clean_event_date, answer.event_date)
    if complete:
        # The question asked for both; anything less is not an answer.
        if not answer.participants:
            errors.setdefault("participants", []).append(
                _("Name at least one participant, or answer “Not representation”.")
            )
        if purpose == "":
            errors.setdefault("purpose", []).append(_("Write the purpose of the representation."))
    return RepresentationAnswer(
        participants=tuple(participants),
        purpose=purpose or "",
        event_date=event_date or "",
        **_typed(answer, errors, complete=complete),
    )


def _validate_resend(answer: ResendAnswer, errors: dict[str, list[str]], *, complete: bool) -> ResendAnswer:
    chosen = [answer.readable, answer.upload is not None, bool(answer.replaced_by)]
    if sum(chosen) > 1:
        errors["readable"] = [
            _("Choose one: the current document is readable, another item replaces it, or upload a sharper file.")
        ]
    elif sum(chosen) == 0 and complete:
        errors["file"] = [_("Upload a sharper file, name the item that replaces this one, or declare it readable.")]
    if answer.upload is not None:
        try:
            check_file(answer.upload)
        except ValueError as error:
            errors["file"] = [str(error)]
    replaced_by = answer.replaced_by.strip().lower()
    if replaced_by:
        try:
            replaced_by = str(uuid.UUID(replaced_by))
        except ValueError:
            if not is_short_id(replaced_by):
                errors["replaced_by"] = [
                    _(
                        "Enter the id of the item that replaces this one: the whole id, "
                        "or its first 8 or more characters as the list shows them."
                    )
                ]
    return ResendAnswer(
        readable=answer.readable, upload=answer.upload, replaced_by=replaced_by, confirmed=answer.confirmed
    )


# --- The JSON API's body ---------------------------------------------------------------


def answer_from_json(data: object) -> Answer:
    """The answer a JSON body describes, or ``AnswerInvalid`` for its shape.

    Only the shape is checked here (types, known fields); the rules are
    ``validate``'s, applied by ``answer_question`` like for the page.
    ``raw_answer`` is the customer's own words (optional), and then
    ``raw_answer_via`` is required: ``"phone"``, ``"email"`` or ``"message"``;
    ``amend: true`` with ``answer_version`` (from the item's state) corrects
    the app's answer; ``confirm: true`` with ``replaced_by`` settles a resend
    with an item that differs sharply (``resend.sharp_differences``).
    """
    if not isinstance(data, dict):
        raise AnswerInvalid({"question": [_("The body must be a JSON object.")]})
    question = data.get("question")
    if question not in QUESTION_TYPES:
        raise AnswerInvalid(
            {"question": [_("Unknown question type; use one of: %(types)s.") % {"types": ", ".join(QUESTION_TYPES)}]}
        )
    errors: dict[str, list[str]] = {
        key: [_("Unknown field for this question.")] for key in data if key not in API_FIELDS[question]
    }
    answer: Answer
    if question == RESEND:
        replaced_by = _json_text(data, "replaced_by", errors)
        readable = data.get("readable", False)
        if readable is not True and not replaced_by:
            errors["readable"] = [
                _(
                    'Send "readable": true, or "replaced_by": "<id of the newer item>". '
                    "Upload a sharper file as multipart/form-data with question=resend and the file in file."
                )
            ]
        confirm = data.get("confirm", False)
        if not isinstance(confirm, bool):
            errors["confirm"] = [_("Must be true or false.")]
        answer = ResendAnswer(readable=readable is True, replaced_by=replaced_by, confirmed=confirm is True)
    else:
        amend = data.get("amend", False)
        if not isinstance(amend, bool):
            errors["amend"] = [_("Must be true or false.")]
            amend = False
        typed: dict[str, Any] = {
            "raw_answer": _json_text(data, "raw_answer", errors),
            "raw_answer_via": _json_text(data, "raw_answer_via", errors),
            "amend": amend,
            "expected_version": _json_text(data, "answer_version", errors),
        }
        if question == REPRESENTATION:
            denied = data.get("denied", False)
            if not isinstance(denied, bool):
                errors["denied"] = [_("Must be true or false.")]
            answer = RepresentationAnswer(
                participants=_json_participants(data.get("participants"), errors),
                purpose=_json_text(data, "purpose", errors),
                event_date=_json_text(data, "event_date", errors),
                denied=denied is True,
                **typed,
            )
        else:
            if "text" not in data:
                errors["text"] = [_("Write what the purchase was for.")]
            answer = ContextAnswer(text=_json_text(data, "text", errors), **typed)
    if errors:
        raise AnswerInvalid(errors)
    return answer


def upload_from_form(data: Any, files: Any) -> ResendAnswer:
    """A sharper file posted to the JSON API as ``multipart/form-data``: ``question=resend`` and ``file``.

    Only the shape is checked here, as for a JSON body; ``validate`` checks the file.
    """
    errors: dict[str, list[str]] = {
        key: [_("Unknown field for this question.")] for key in data if key not in ("question", "file")
    }
    if data.get("question") != RESEND:
        errors["question"] = [_("Only a resend question is answered with a file; send other answers as JSON.")]
    errors |= {key: [_("Unknown field for this question.")] for key in files if key != "file"}
    uploads = files.getlist("file")
    if len(uploads) != 1:
        errors["file"] = [_("Send exactly one file, in the field named file.")]
    if errors:
        raise AnswerInvalid(errors)
    return ResendAnswer(upload=uploads[0])


def _json_text(data: dict[str, Any], key: str, errors: dict[str, list[str]]) -> str:
    """An optional string field; ``null`` and absent read as empty."""
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        errors.setdefault(key, []).append(_("Must be a string."))
        return ""
    return value


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
