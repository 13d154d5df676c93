"""The rules an answer must pass before anything is written.

Limits (the issue leaves them to us; generous for a receipt, small enough
that nobody pastes a novel into a prompt line):

- at most ``MAX_PARTICIPANTS`` (20) participants; a name or company of at most
  200 characters, a purpose or context text of at most 2000;
- a name must not be blank or white space only; a company may be left empty;
- every text goes through ``reviewapp.text``: single-line fields (name,
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
  2000 characters; a replacing item is named by its id (a UUID).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any, Final

from django.utils.translation import gettext as _

from reviewapp import text
from reviewapp.answers.inputs import (
    Answer,
    ContextAnswer,
    ParticipantInput,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.uploads import check_file

MAX_PARTICIPANTS: Final = 20
MAX_NAME_LENGTH: Final = 200
MAX_COMPANY_LENGTH: Final = 200
MAX_PURPOSE_LENGTH: Final = 2000
MAX_TEXT_LENGTH: Final = 2000
MAX_RAW_ANSWER_LENGTH: Final = 2000
MIN_EVENT_YEAR: Final = 2000
MAX_EVENT_YEAR: Final = 2099

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class AnswerInvalid(Exception):
    """The answer breaks a rule; ``errors`` maps a field path to messages.

    Paths: ``question``, ``participants``, ``participants.<i>.name``,
    ``participants.<i>.company``, ``purpose``, ``event_date``, ``denied``,
    ``text``, ``raw_answer``, ``readable``, ``replaced_by``, ``file``,
    ``answer_version``.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


def clean_line(value: str, *, max_length: int) -> str:
    """One line of text, trimmed, ``""`` when blank; raises ``ValueError`` with the message."""
    return text.clean(value, max_length=max_length)


def clean_text(value: str, *, max_length: int) -> str:
    """Free text that may span lines: CRLF becomes LF, then trimmed; ``""`` when blank."""
    return text.clean(value, max_length=max_length, multiline=True)


def clean_name(value: str) -> str:
    name = clean_line(value, max_length=MAX_NAME_LENGTH)
    if not name:
        raise ValueError(_("Enter the participant's name (white space or invisible characters alone are not a name)."))
    return name


def clean_company(value: str | None) -> str | None:
    if value is None:
        return None
    return clean_line(value, max_length=MAX_COMPANY_LENGTH) or None


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


def too_many_participants(count: int) -> str:
    return _("At most %(max)d participants (this has %(count)d).") % {"max": MAX_PARTICIPANTS, "count": count}


def _collect(errors: dict[str, list[str]], key: str, func: Any, *args: Any) -> Any:
    try:
        return func(*args)
    except ValueError as error:
        errors.setdefault(key, []).append(str(error))
        return None


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
        note = _collect(errors, "text", lambda v: clean_text(v, max_length=MAX_TEXT_LENGTH), answer.text)
        if complete and note == "":
            errors.setdefault("text", []).append(_("Write what the purchase was for."))
        raw = _raw_answer(answer.raw_answer, errors)
        _check_amend(answer.amend, answer.expected_version, errors)
        cleaned = ContextAnswer(
            text=note or "", raw_answer=raw, amend=answer.amend, expected_version=answer.expected_version
        )
    elif isinstance(answer, ResendAnswer):
        cleaned = _validate_resend(answer, errors, complete=complete)
    else:
        raise AnswerInvalid({"question": [_("Unknown question type.")]})
    if errors:
        raise AnswerInvalid(errors)
    return cleaned


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
        raw = _raw_answer(answer.raw_answer, errors)
        _check_amend(answer.amend, answer.expected_version, errors)
        return RepresentationAnswer(
            denied=True, raw_answer=raw, amend=answer.amend, expected_version=answer.expected_version
        )

    participants: list[ParticipantInput] = []
    if len(answer.participants) > MAX_PARTICIPANTS:
        errors["participants"] = [too_many_participants(len(answer.participants))]
    for index, person in enumerate(answer.participants[: MAX_PARTICIPANTS + 1]):
        name = _collect(errors, f"participants.{index}.name", clean_name, person.name)
        company = _collect(errors, f"participants.{index}.company", clean_company, person.company)
        if name is not None:
            participants.append(ParticipantInput(name=name, company=company))
    purpose = _collect(errors, "purpose", lambda v: clean_text(v, max_length=MAX_PURPOSE_LENGTH), answer.purpose)
    event_date = _collect(errors, "event_date", clean_event_date, answer.event_date)
    if complete:
        # The question asked for both; anything less is not an answer.
        if not answer.participants:
            errors.setdefault("participants", []).append(
                _("Name at least one participant, or answer “Not representation”.")
            )
        if purpose == "":
            errors.setdefault("purpose", []).append(_("Write the purpose of the representation."))
    raw = _raw_answer(answer.raw_answer, errors)
    _check_amend(answer.amend, answer.expected_version, errors)
    return RepresentationAnswer(
        participants=tuple(participants),
        purpose=purpose or "",
        event_date=event_date or "",
        raw_answer=raw,
        amend=answer.amend,
        expected_version=answer.expected_version,
    )


def _raw_answer(value: str, errors: dict[str, list[str]]) -> str:
    """The customer's own words: free text, trimmed, optional."""
    cleaned = _collect(errors, "raw_answer", lambda v: clean_text(v, max_length=MAX_RAW_ANSWER_LENGTH), value)
    return cleaned or ""


_VERSION = re.compile(r"[0-9a-f]{16,64}")


def _check_amend(amend: bool, expected_version: str, errors: dict[str, list[str]]) -> None:
    if amend and not _VERSION.fullmatch(expected_version or ""):
        errors["answer_version"] = [
            _("Send the answer_version of the answer you are correcting (from the item's current state).")
        ]


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
    replaced_by = answer.replaced_by.strip()
    if replaced_by:
        try:
            replaced_by = str(uuid.UUID(replaced_by))
        except ValueError:
            errors["replaced_by"] = [_("Enter the id of the item that replaces this one (a UUID).")]
    return ResendAnswer(readable=answer.readable, upload=answer.upload, replaced_by=replaced_by)
