"""The answer in ``channel_context``: reading the open question, writing the answer in, what it renders to.

Functions over the parsed JSON; nothing here touches the database. The
shapes are the WhatsApp intake's own (the contract's steps 3 to 7), so the
agent, the intake and the verifikat read an answer given in the app exactly
like one given in the chat. ``outputs`` is what a context renders to (the
summary, prompt lines, agent view and verifikat line): the page shows it
before and after an answer, the preview without saving anything.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from typing import Any, Final

import clarifications
from reviewapp import states
from reviewapp.answers.inputs import (
    CONTEXT,
    REPRESENTATION,
    Answer,
    ContextAnswer,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.validation import MAX_NAME_LENGTH
from reviewapp.bookkeeping.models import InboxItem, Undecodable
from reviewapp.items.describe import document_id_of
from reviewapp.text import utf8, without_controls

# The plain rendering written to ``raw_answer`` when the customer's own words
# were not given. Stored text is Swedish, like everything the intake stores;
# never translated.
RAW_LABELS: Final = {"participants": "Deltagare", "purpose": "Syfte", "date": "Datum"}
RAW_DENIED: Final = "Inte representation"


# --- Time -------------------------------------------------------------------------


def to_millis(moment: dt.datetime) -> dt.datetime:
    """``moment`` cut to whole milliseconds, the precision a JavaScript ``Date`` holds."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def utc_stamp(moment: dt.datetime) -> str:
    """``Date.prototype.toISOString()``: UTC, milliseconds, ``Z``: ``2026-08-12T09:31:07.123Z``."""
    utc = moment.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S") + f".{utc.microsecond // 1000:03d}Z"


# --- Building the JSON --------------------------------------------------------


def rendered_raw_answer(answer: RepresentationAnswer | ContextAnswer) -> str:
    """A plain, readable rendering of what was entered, for ``raw_answer`` without the customer's words.

    ``Deltagare: Anna Berg (Volvo), Jakob W\\nSyfte: Möte\\nDatum: 2026-07-29``;
    a denial is ``Inte representation``; a context answer is its text.
    """
    if isinstance(answer, ContextAnswer):
        return answer.text
    if answer.denied:
        return RAW_DENIED
    names = ", ".join(f"{p.name} ({p.company})" if p.company else p.name for p in answer.participants)
    lines = [f"{RAW_LABELS['participants']}: {names}"] if names else []
    if answer.purpose:
        lines.append(f"{RAW_LABELS['purpose']}: {answer.purpose}")
    if answer.event_date:
        lines.append(f"{RAW_LABELS['date']}: {answer.event_date}")
    return "\n".join(lines)


def raw_answer_of(answer: RepresentationAnswer | ContextAnswer) -> str:
    """What goes in ``raw_answer``: the customer's own words when given, else the rendering."""
    return answer.raw_answer or rendered_raw_answer(answer)


def representation_json(answer: RepresentationAnswer, answered_at: str) -> dict[str, Any]:
    """The intake's representation (step 3), or its denial (step 5: the only place ``denied`` exists)."""
    if answer.denied:
        return {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw_answer_of(answer),
            "answered_at": answered_at,
            "denied": True,
        }
    return {
        "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
        "purpose": answer.purpose or None,
        "event_date": answer.event_date or None,
        "raw_answer": raw_answer_of(answer),
        "answered_at": answered_at,
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """What was entered, for the app's own log."""
    if isinstance(answer, RepresentationAnswer):
        words = answer.raw_answer or None
        if answer.denied:
            return {"denied": True, "customer_words": words}
        return {
            "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
            "purpose": answer.purpose,
            "event_date": answer.event_date or None,
            "customer_words": words,
        }
    if isinstance(answer, ContextAnswer):
        return {"text": answer.text, "customer_words": answer.raw_answer or None}
    if answer.upload is not None:
        # The client's file name is kept for the record only, made storable.
        name = without_controls(answer.upload.name or "")[:MAX_NAME_LENGTH]
        return {"choice": answer.choice, "file_name": name, "size": answer.upload.size}
    if answer.replaced_by:
        return {"choice": answer.choice, "replaced_by": answer.replaced_by}
    return {"choice": answer.choice}


def answered_context(ctx: dict[str, Any], answer: Answer, *, answered_at: str) -> dict[str, Any]:
    """``ctx`` with ``answer`` written in; every other key carried over as is.

    ``ctx`` is not changed. The pending question keeps its type, ``asked_at``
    and any other key; only its status becomes ``answered``. A resend settled
    by a newer item or an upload marks the old one as the intake does (step 7):
    ``quality`` gains ``resent`` and ``superseded``, keeping ``resend_requested_at``.
    """
    new = dict(ctx)
    pending = ctx.get("pending_question")
    new["pending_question"] = {**(pending if isinstance(pending, dict) else {}), "status": "answered"}
    if isinstance(answer, RepresentationAnswer):
        new["representation"] = representation_json(answer, answered_at)
    elif isinstance(answer, ContextAnswer):
        new["user_note"] = answer.text
        new["context_answer"] = {"raw_answer": raw_answer_of(answer), "answered_at": answered_at}
    elif isinstance(answer, ResendAnswer) and answer.choice != "readable":
        old_quality = ctx.get("quality")
        quality = copy.deepcopy(old_quality) if isinstance(old_quality, dict) else {}
        quality["resent"] = True
        quality["superseded"] = True
        new["quality"] = quality
    return new


# --- Reading the open question -------------------------------------------------


def pending_question(ctx: object) -> dict[str, Any] | None:
    if not isinstance(ctx, dict):
        return None
    pending = ctx.get("pending_question")
    return pending if isinstance(pending, dict) else None


def conflict_reason(ctx: object, question: str, *, booked: bool = False, amend: bool = False) -> str | None:
    """Why ``question`` may not be answered (or amended) on ``ctx`` now, or None when it may.

    ``booked``: the item is booked, an answer can no longer reach the
    verifikat. Answering: ``in_chat`` (still open in the chat), ``not_open``
    (answered, or no question), ``other_question``. Amending:
    ``not_answered`` (nothing answered to correct) or ``other_question``.
    """
    if booked:
        return "booked"
    pending = pending_question(ctx)
    status = pending.get("status") if pending else None
    if amend:
        if status != "answered":
            return "not_answered"
    elif status == "open":
        return "in_chat"
    elif status != "moved_to_app":
        return "not_open"
    if pending is None or pending.get("type") != question:
        return "other_question"
    return None


def answer_value(ctx: object, question: str) -> Any:
    """The part of ``ctx`` an answer to ``question`` wrote: what an amendment compares and replaces."""
    record = ctx if isinstance(ctx, dict) else {}
    if question == REPRESENTATION:
        return record.get("representation")
    if question == CONTEXT:
        return {"user_note": record.get("user_note"), "context_answer": record.get("context_answer")}
    return None


def answer_version(value: Any) -> str:
    """A short fingerprint of an answer's stored value: the compare-and-set token of an amendment."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(utf8(text)).hexdigest()[:32]


def chat_window_ends(ctx: object) -> dt.datetime | None:
    """When the chat stops waiting for a reply: ``asked_at`` plus 48 hours."""
    pending = pending_question(ctx)
    asked_at = states.parse_iso(pending.get("asked_at")) if pending else None
    return asked_at + states.CHAT_WINDOW if asked_at else None


# --- What it renders to ---------------------------------------------------------


def outputs(item: InboxItem, ctx: object) -> dict[str, Any]:
    """The summary, prompt lines, agent view and verifikat line for ``ctx`` (unreadable JSON reads as none)."""
    if isinstance(ctx, Undecodable):
        ctx = None
    data = item.extracted_data if not isinstance(item.extracted_data, Undecodable) else None
    summary = clarifications.summarise(ctx)
    agent_view = clarifications.render_agent_view(document_id_of(item), data, ctx)
    return {
        "summary": summary.to_json() if summary else None,
        "lines": clarifications.render_lines(summary) if summary else [],
        "notes": clarifications.render_notes(ctx),
        "agent_view": agent_view,
        # One line per entry, exactly as the model receives them.
        "agent_view_text": "\n".join(agent_view),
    }
