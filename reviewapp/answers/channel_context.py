"""The answer in ``channel_context``: reading the open question, writing the answer in.

Pure functions over the parsed JSON; nothing here touches the database.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any, Final

from reviewapp import states
from reviewapp.answers.inputs import QUESTION_TYPES, Answer, ContextAnswer, RepresentationAnswer
from reviewapp.answers.validation import _SINGLE_LINE_BAD, MAX_NAME_LENGTH

# Stored text is Swedish, like everything the chat stores; never translated.
RAW_PARTICIPANTS: Final = "deltagare"
RAW_PURPOSE: Final = "syfte"
RAW_DATE: Final = "datum"
RAW_DENIED: Final = "inte representation"
RAW_PREFIX: Final = "besvarat i appen"


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
