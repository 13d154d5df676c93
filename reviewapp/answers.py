"""Answering a question that moved from the chat to the app.

This is the only place the app writes ``channel_context``, a column the chat
intake writes too. The page and the JSON API both call ``answer_question``,
which validates the answer and then writes it as a compare-and-set: the row
is locked, ``channel_context`` is re-read under the lock, and the answer is
written only if the very question it answers is still ``moved_to_app``.
Every other key of the locked row's JSON is carried over as it is, so a
writer that changed another key a moment earlier keeps its change.

Limits (the issue leaves them to us; generous for a receipt, small enough
that nobody pastes a novel into a prompt line):

- at most ``MAX_PARTICIPANTS`` (20) participants; a name or company of at most
  200 characters, a purpose or context text of at most 2000;
- a name must not be blank or white space only; a company may be left empty;
- single-line fields (name, company) refuse every control character; the
  free-text fields (purpose, context text) allow line breaks and tabs and
  refuse the other C0/C1 controls. NUL in particular: PostgreSQL cannot store
  ``\\u0000`` in jsonb, so it is a validation message, never a server error;
  lone UTF-16 surrogates (possible in JSON) are refused for the same reason;
- an event date is ``YYYY-MM-DD``, a real date between 2000 and 2099;
- a new document is a JPEG, PNG or PDF recognised by its first bytes (not by
  the name or the browser's content type), images also opened with Pillow,
  at most ``settings.RECEIPT_UPLOAD_MAX_BYTES``.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.files.base import File
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import clarifications
from reviewapp import items, roles, states
from reviewapp.models import ClarificationEvent, InboxItem

REPRESENTATION: Final = "representation"
CONTEXT: Final = "context"
RESEND: Final = "resend"
QUESTION_TYPES: Final = (REPRESENTATION, CONTEXT, RESEND)

MAX_PARTICIPANTS: Final = 20
MAX_NAME_LENGTH: Final = 200
MAX_COMPANY_LENGTH: Final = 200
MAX_PURPOSE_LENGTH: Final = 2000
MAX_TEXT_LENGTH: Final = 2000
MIN_EVENT_YEAR: Final = 2000
MAX_EVENT_YEAR: Final = 2099

# Stored text is Swedish, like everything the chat stores; never translated.
RAW_PARTICIPANTS: Final = "deltagare"
RAW_PURPOSE: Final = "syfte"
RAW_DATE: Final = "datum"
RAW_DENIED: Final = "inte representation"
RAW_PREFIX: Final = "besvarat i appen"

# Control characters: all of C0 and C1, DEL, lone surrogates. Free text keeps
# tab and line feed (carriage returns are normalised away first).
_SINGLE_LINE_BAD = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_MULTI_LINE_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

_SIGNATURES: Final = (
    (b"\xff\xd8\xff", "jpeg", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "png", "png"),
    (b"%PDF-", "pdf", "pdf"),
)


# --- What was entered -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParticipantInput:
    name: str
    company: str | None = None


@dataclass(frozen=True, slots=True)
class RepresentationAnswer:
    """Who was there and why, or ``denied`` (not representation at all)."""

    participants: tuple[ParticipantInput, ...] = ()
    purpose: str = ""
    event_date: str = ""
    denied: bool = False
    question: str = field(default=REPRESENTATION, init=False)


@dataclass(frozen=True, slots=True)
class ContextAnswer:
    """What the purchase was for, as free text."""

    text: str = ""
    question: str = field(default=CONTEXT, init=False)


@dataclass(frozen=True, slots=True)
class ResendAnswer:
    """A sharper document (``upload``), or the current one declared readable."""

    readable: bool = False
    upload: UploadedFile | None = None
    question: str = field(default=RESEND, init=False)

    @property
    def choice(self) -> str:
        return "upload" if self.upload is not None else "readable"


Answer = RepresentationAnswer | ContextAnswer | ResendAnswer


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """An upload whose content was checked: its kind and the extension to store it under."""

    upload: UploadedFile
    kind: str
    extension: str


# --- Outcomes ----------------------------------------------------------------


class AnswerInvalid(Exception):
    """The answer breaks a rule; ``errors`` maps a field path to messages.

    Paths: ``question``, ``participants``, ``participants.<i>.name``,
    ``participants.<i>.company``, ``purpose``, ``event_date``, ``denied``,
    ``text``, ``readable``, ``file``.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


class AnswerConflict(Exception):
    """The question is no longer the one being answered; nothing was written.

    ``reason`` is ``not_open`` (answered, or no question at all),
    ``in_chat`` (still open in the chat) or ``other_question`` (a different
    question is the open one). ``item`` is the row as it is now.
    """

    def __init__(self, item: InboxItem, reason: str) -> None:
        super().__init__(reason)
        self.item = item
        self.reason = reason

    @property
    def message(self) -> str:
        if self.reason == "in_chat":
            return _("This question is still open in the chat; answering it here would race the chat.")
        if self.reason == "other_question":
            return _("Another question is open on this item now; your answer was not saved.")
        return _("Someone else answered this question first; your answer was not saved.")


@dataclass(frozen=True, slots=True)
class AnswerResult:
    item: InboxItem
    event: ClarificationEvent
    new_item: InboxItem | None = None


# --- Validation --------------------------------------------------------------


def _control_message(match: re.Match[str]) -> str:
    code = f"U+{ord(match.group()):04X}"
    if code == "U+0000":
        return _("Remove the NUL character (U+0000): it cannot be stored.")
    return _("Remove the invisible control character %(code)s.") % {"code": code}


def clean_line(value: str, *, max_length: int) -> str:
    """One line of text, trimmed; raises ``ValueError`` with the message."""
    value = value.strip()
    bad = _SINGLE_LINE_BAD.search(value)
    if bad:
        raise ValueError(_control_message(bad))
    if len(value) > max_length:
        raise ValueError(
            _("Use at most %(max)d characters (this has %(count)d).") % {"max": max_length, "count": len(value)}
        )
    return value


def clean_text(value: str, *, max_length: int) -> str:
    """Free text that may span lines: CRLF becomes LF, then trimmed."""
    value = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    bad = _MULTI_LINE_BAD.search(value)
    if bad:
        raise ValueError(_control_message(bad))
    if len(value) > max_length:
        raise ValueError(
            _("Use at most %(max)d characters (this has %(count)d).") % {"max": max_length, "count": len(value)}
        )
    return value


def clean_name(value: str) -> str:
    if not value.strip():
        raise ValueError(_("Enter the participant's name (white space alone is not a name)."))
    return clean_line(value, max_length=MAX_NAME_LENGTH)


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


def check_file(upload: UploadedFile) -> CheckedFile:
    """The upload's real type from its content; raises ``ValueError``."""
    limit = settings.RECEIPT_UPLOAD_MAX_BYTES
    size = upload.size or 0
    if size == 0:
        raise ValueError(_("The file is empty."))
    if size > limit:
        raise ValueError(
            _("The file is %(size)s MB; the limit is %(limit)s MB.")
            % {"size": f"{size / 1_048_576:.1f}", "limit": f"{limit / 1_048_576:.1f}"}
        )
    upload.seek(0)
    head = upload.read(16)
    upload.seek(0)
    found = next(((kind, ext) for signature, kind, ext in _SIGNATURES if head.startswith(signature)), None)
    if found is None:
        raise ValueError(_("Upload a JPEG, PNG or PDF file; this file is none of them."))
    kind, extension = found
    if kind in ("jpeg", "png"):
        _verify_image(upload, kind)
    return CheckedFile(upload=upload, kind=kind, extension=extension)


def _verify_image(upload: UploadedFile, kind: str) -> None:
    from PIL import Image

    try:
        with Image.open(upload) as image:
            image.verify()
            found = (image.format or "").lower()
    except Exception:  # Pillow raises many types for a broken file; any means "unreadable".
        raise ValueError(_("The image is damaged or incomplete; it cannot be opened.")) from None
    finally:
        upload.seek(0)
    if found != kind:
        raise ValueError(_("Upload a JPEG, PNG or PDF file; this file is none of them."))


def _too_many(count: int) -> str:
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
        text = _collect(errors, "text", lambda v: clean_text(v, max_length=MAX_TEXT_LENGTH), answer.text)
        if complete and text == "":
            errors.setdefault("text", []).append(_("Write what the purchase was for."))
        cleaned = ContextAnswer(text=text or "")
    elif isinstance(answer, ResendAnswer):
        if answer.upload is not None and answer.readable:
            errors["readable"] = [_("Choose one: upload a new file, or declare the current document readable.")]
        elif answer.upload is None and not answer.readable and complete:
            errors["file"] = [_("Upload a sharper file, or declare the current document readable.")]
        if answer.upload is not None:
            try:
                check_file(answer.upload)
            except ValueError as error:
                errors["file"] = [str(error)]
        cleaned = answer
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
        if answer.purpose.strip():
            errors["purpose"] = [_("A denial has no purpose.")]
        if answer.event_date.strip():
            errors["event_date"] = [_("A denial has no event date.")]
        return RepresentationAnswer(denied=True)

    participants: list[ParticipantInput] = []
    if len(answer.participants) > MAX_PARTICIPANTS:
        errors["participants"] = [_too_many(len(answer.participants))]
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
    return RepresentationAnswer(participants=tuple(participants), purpose=purpose or "", event_date=event_date or "")


# --- Reading the API's JSON ----------------------------------------------------

_API_FIELDS: Final = {
    REPRESENTATION: frozenset({"question", "participants", "purpose", "event_date", "denied"}),
    CONTEXT: frozenset({"question", "text"}),
    RESEND: frozenset({"question", "readable"}),
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
    if question == REPRESENTATION:
        denied = data.get("denied", False)
        if not isinstance(denied, bool):
            errors["denied"] = [_("Must be true or false.")]
        participants = _json_participants(data.get("participants"), errors)
        purpose = _json_text(data, "purpose", errors)
        event_date = _json_text(data, "event_date", errors)
        answer = RepresentationAnswer(
            participants=participants, purpose=purpose, event_date=event_date, denied=denied is True
        )
    elif question == CONTEXT:
        if "text" not in data:
            errors["text"] = [_("Write what the purchase was for.")]
        answer = ContextAnswer(text=_json_text(data, "text", errors))
    else:
        if data.get("readable") is not True:
            errors["readable"] = [_('Send "readable": true. A sharper file can only be uploaded on the item page.')]
        answer = ResendAnswer(readable=True)
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
        errors["participants"] = [_too_many(len(value))]
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


# --- Building the JSON --------------------------------------------------------


def utc_stamp(moment: dt.datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, to the second, as the chat writes it."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def raw_answer_line(answer: RepresentationAnswer) -> str:
    """The line that records what was entered, like the chat's raw reply.

    ``besvarat i appen: deltagare: Anna Berg (Volvo), Jakob W; syfte: Möte; datum: 2026-07-29``
    """
    if answer.denied:
        return f"{RAW_PREFIX}: {RAW_DENIED}"
    names = ", ".join(f"{p.name} ({p.company})" if p.company else p.name for p in answer.participants)
    parts = [f"{RAW_PARTICIPANTS}: {names}"] if names else []
    if answer.purpose:
        parts.append(f"{RAW_PURPOSE}: {answer.purpose}")
    if answer.event_date:
        parts.append(f"{RAW_DATE}: {answer.event_date}")
    return _one_line(f"{RAW_PREFIX}: " + "; ".join(parts))


def representation_json(answer: RepresentationAnswer, answered_at: str) -> dict[str, Any]:
    if answer.denied:
        return {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw_answer_line(answer),
            "answered_at": answered_at,
            "denied": True,
        }
    return {
        "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
        "purpose": answer.purpose or None,
        "event_date": answer.event_date or None,
        "raw_answer": raw_answer_line(answer),
        "answered_at": answered_at,
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """What was entered, for the event's payload."""
    if isinstance(answer, RepresentationAnswer):
        if answer.denied:
            return {"denied": True}
        return {
            "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
            "purpose": answer.purpose,
            "event_date": answer.event_date or None,
        }
    if isinstance(answer, ContextAnswer):
        return {"text": answer.text}
    if answer.upload is not None:
        # The client's file name is kept for the record only, made storable.
        name = _SINGLE_LINE_BAD.sub("", answer.upload.name or "")[:MAX_NAME_LENGTH]
        return {"choice": "upload", "file_name": name, "size": answer.upload.size}
    return {"choice": "readable"}


def answered_context(
    ctx: dict[str, Any], answer: Answer, *, answered_at: str, new_item_id: str | None = None
) -> dict[str, Any]:
    """``ctx`` with ``answer`` written in; every other key carried over as is.

    ``ctx`` is not changed. The pending question keeps its type, ``asked_at``
    and any other key; only its status becomes ``answered``.
    """
    new = dict(ctx)
    pending = ctx.get("pending_question")
    new["pending_question"] = {**(pending if isinstance(pending, dict) else {}), "status": "answered"}
    if isinstance(answer, RepresentationAnswer):
        new["representation"] = representation_json(answer, answered_at)
    elif isinstance(answer, ContextAnswer):
        new["user_note"] = answer.text
        new["context_answer"] = {"raw_answer": answer.text, "answered_at": answered_at}
    else:
        old_quality = ctx.get("quality")
        quality = copy.deepcopy(old_quality) if isinstance(old_quality, dict) else {}
        quality["resend_choice"] = answer.choice
        if answer.upload is not None:
            quality["superseded"] = True
            quality["superseded_at"] = answered_at
            quality["superseded_by"] = new_item_id
        else:
            quality["readable_confirmed_at"] = answered_at
        new["quality"] = quality
    return new


# --- Reading the open question -------------------------------------------------


def pending_question(ctx: object) -> dict[str, Any] | None:
    if not isinstance(ctx, dict):
        return None
    pending = ctx.get("pending_question")
    return pending if isinstance(pending, dict) else None


def question_to_answer(ctx: object) -> str | None:
    """The question type the app may answer now, or None."""
    pending = pending_question(ctx)
    if pending is None or pending.get("status") != "moved_to_app":
        return None
    question_type = pending.get("type")
    return question_type if question_type in QUESTION_TYPES else None


def conflict_reason(ctx: object, question: str) -> str | None:
    """Why ``question`` may not be answered on ``ctx`` now, or None when it may."""
    pending = pending_question(ctx)
    status = pending.get("status") if pending else None
    if status == "open":
        return "in_chat"
    if status != "moved_to_app":
        return "not_open"
    if pending is None or pending.get("type") != question:
        return "other_question"
    return None


def chat_window_ends(ctx: object) -> dt.datetime | None:
    """When the chat stops waiting for a reply: ``asked_at`` plus 48 hours."""
    pending = pending_question(ctx)
    asked_at = states.parse_iso(pending.get("asked_at")) if pending else None
    return asked_at + states.CHAT_WINDOW if asked_at else None


# --- Writing ------------------------------------------------------------------


def answer_question(
    *, item_id: uuid.UUID | str, user: User, answer: Answer, now: dt.datetime | None = None
) -> AnswerResult:
    """Validate ``answer`` and write it if its question is still ``moved_to_app``.

    Raises ``PermissionDenied``, ``InboxItem.DoesNotExist``, ``AnswerInvalid``
    (nothing written) or ``AnswerConflict`` (nothing written). The check and
    the write happen in one transaction holding the row lock.
    """
    if not user.has_perm(roles.ANSWER):
        raise PermissionDenied
    cleaned = validate(answer)
    stored: list[tuple[Any, str]] = []
    try:
        with transaction.atomic():
            return _write(item_id, user, cleaned, now or timezone.now(), stored)
    except BaseException:
        # A rolled-back upload must not leave its file behind in storage.
        for storage, name in stored:
            storage.delete(name)
        raise


def _write(
    item_id: uuid.UUID | str,
    user: User,
    answer: Answer,
    now: dt.datetime,
    stored: list[tuple[Any, str]],
) -> AnswerResult:
    answered_at = utc_stamp(now)
    # The lock makes a concurrent answer wait here, then read what was
    # committed before it: the check below sees the latest row.
    item = InboxItem.objects.select_for_update().get(pk=item_id)
    before = item.channel_context
    reason = conflict_reason(before, answer.question)
    if reason is not None:
        raise AnswerConflict(item, reason)
    assert isinstance(before, dict)  # conflict_reason found a pending question in it

    new_item = None
    if isinstance(answer, ResendAnswer) and answer.upload is not None:
        new_item = _create_resent_item(item, check_file(answer.upload), now=now, stored=stored)
    after = answered_context(
        before, answer, answered_at=answered_at, new_item_id=str(new_item.id) if new_item else None
    )
    item.channel_context = after
    item.updated_at = now
    item.save(update_fields=["channel_context", "updated_at"])

    payload: dict[str, Any] = {"before": before, "after": after, "answer": answer_json(answer)}
    if isinstance(answer, ResendAnswer):
        payload["choice"] = answer.choice
        if new_item is not None:
            payload["new_item_id"] = str(new_item.id)
    event = ClarificationEvent.objects.create(
        item=item,
        event_type=ClarificationEvent.ANSWERED,
        question_type=answer.question,
        actor=user,
        actor_label=user.get_username(),
        channel=ClarificationEvent.Channel.APP,
        payload=payload,
        occurred_at=now,
    )
    return AnswerResult(item=item, event=event, new_item=new_item)


def _create_resent_item(
    old: InboxItem, checked: CheckedFile, *, now: dt.datetime, stored: list[tuple[Any, str]]
) -> InboxItem:
    """A new item for the same company holding the sharper document."""
    old_ctx = old.channel_context if isinstance(old.channel_context, dict) else {}
    channel = old_ctx.get("channel")
    new_item = InboxItem(
        company_id=old.company_id,
        source="app",
        status="pending",
        channel_context={
            "channel": channel if isinstance(channel, str) and channel else "whatsapp",
            "supersedes": str(old.id),
        },
        created_at=now,
        updated_at=now,
    )
    # The stored name is ours: the client's file name is nothing to trust.
    new_item.document_file.save(f"{new_item.id}.{checked.extension}", File(checked.upload), save=False)
    stored.append((new_item.document_file.storage, new_item.document_file.name or ""))
    new_item.save()
    return new_item


# --- Reading for display ----------------------------------------------------------


def latest_answer_event(item: InboxItem) -> ClarificationEvent | None:
    return item.events.filter(event_type=ClarificationEvent.ANSWERED).order_by("-occurred_at", "-id").first()


def outputs(item: InboxItem, ctx: object) -> dict[str, Any]:
    """The summary, prompt lines, agent view and verifikat line for ``ctx``."""
    summary = clarifications.summarise(ctx)
    agent_view = clarifications.render_agent_view(items.document_id_of(item), item.extracted_data, ctx)
    return {
        "summary": summary.to_json() if summary else None,
        "lines": clarifications.render_lines(summary) if summary else [],
        "notes": clarifications.render_notes(ctx),
        "agent_view": agent_view,
        # One line per entry, exactly as the model receives them.
        "agent_view_text": "\n".join(agent_view),
    }
