"""The answer in ``channel_context``: reading the open question, writing the answer in.

Functions over the parsed JSON; nothing here touches the database. The
shapes are the WhatsApp intake's own (the contract's steps 3 to 7), so the
agent, the intake and the verifikat read an answer given in the app exactly
like one given in the chat. What a context renders to (summary, prompt
lines, agent view) is the screens' business: ``view_models.preview``.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from reviewapp.answers import evidence
from reviewapp.answers.inputs import (
    CONTEXT,
    REPRESENTATION,
    Answer,
    ContextAnswer,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.validation import MAX_NAME_LENGTH
from reviewapp.core import states
from reviewapp.core.text import utf8, without_controls

# --- Time -------------------------------------------------------------------------


def to_millis(moment: dt.datetime) -> dt.datetime:
    """``moment`` cut to whole milliseconds, the precision a JavaScript ``Date`` holds."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def utc_stamp(moment: dt.datetime) -> str:
    """``Date.prototype.toISOString()``: UTC, milliseconds, ``Z``: ``2026-08-12T09:31:07.123Z``."""
    utc = moment.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S") + f".{utc.microsecond // 1000:03d}Z"


# --- Building the JSON --------------------------------------------------------


def answer_words(answer: RepresentationAnswer | ContextAnswer) -> str:
    """What was entered, in words: the answer part of ``evidence.ENTERED_BY_FIRM``.

    ``Deltagare: Anna Berg (Volvo), Jakob W; syfte: Möte; datum: 2026-07-29``;
    a denial is ``Inte representation``; a context answer is its text.
    """
    if isinstance(answer, ContextAnswer):
        return answer.text
    people = [(p.name, p.company) for p in answer.participants]
    return evidence.representation_words(people, answer.purpose, answer.event_date, denied=answer.denied)


def raw_answer_added(answer: RepresentationAnswer | ContextAnswer, answered_at: str) -> str | None:
    """The text this answer writes to a ``raw_answer``, or None when it writes none.

    A representation adds the customer's words verbatim, else the firm's
    attributed text (``answered_at`` is the answer's ``toISOString()``
    stamp; the text names the same moment, in Stockholm time). A context
    answer writes only the customer's words: ``context_answer.raw_answer``
    reaches the agent as "användarens egna ord", so without them it writes
    nothing there (None).
    """
    if answer.raw_answer:
        return answer.raw_answer
    if isinstance(answer, ContextAnswer):
        return None
    return evidence.entered_by_firm(answer_words(answer), dt.datetime.fromisoformat(answered_at))


def representation_json(answer: RepresentationAnswer, answered_at: str, *, earlier: object = None) -> dict[str, Any]:
    """The intake's representation (step 3), or its denial (step 5: the only place ``denied`` exists).

    ``earlier`` is the ``raw_answer`` the item held: the new text is appended to it, never written over it.
    """
    added = raw_answer_added(answer, answered_at)
    assert added is not None  # a representation always adds its text
    raw_answer = evidence.appended(earlier, added)
    if answer.denied:
        return {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw_answer,
            "answered_at": answered_at,
            "denied": True,
        }
    return {
        "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
        "purpose": answer.purpose or None,
        "event_date": answer.event_date or None,
        "raw_answer": raw_answer,
        "answered_at": answered_at,
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """What was entered, for the app's own log (with where the customer's words came from)."""
    if isinstance(answer, RepresentationAnswer | ContextAnswer):
        words = {"customer_words": answer.raw_answer or None, "customer_words_via": answer.raw_answer_via or None}
        if isinstance(answer, ContextAnswer):
            return {"text": answer.text, **words}
        if answer.denied:
            return {"denied": True, **words}
        return {
            "participants": [{"name": p.name, "company": p.company} for p in answer.participants],
            "purpose": answer.purpose,
            "event_date": answer.event_date or None,
            **words,
        }
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
    and any other key; only its status becomes ``answered``. A
    representation's ``raw_answer`` gains the answer's text after what it
    held (``evidence.appended``); a context answer's ``user_note`` and
    ``context_answer`` hold only the current answer (``context_answer_kept``).
    ``answered_at`` is this answer's: accounted's intake sets ``answered_at:
    nowIso`` on a second message too (``process-inbound.ts``, 66851ff). A
    resend settled by a newer item or an upload marks the old one as the
    intake's ``resolveResendQuestion`` does (same file): ``quality`` becomes
    exactly ``{resend_requested_at, resent, superseded}``.
    """
    new = dict(ctx)
    pending = ctx.get("pending_question")
    new["pending_question"] = {**(pending if isinstance(pending, dict) else {}), "status": "answered"}
    if isinstance(answer, RepresentationAnswer):
        earlier = evidence.stored_raw_answer(ctx, REPRESENTATION)
        new["representation"] = representation_json(answer, answered_at, earlier=earlier)
    elif isinstance(answer, ContextAnswer):
        new["user_note"] = answer.text
        kept = context_answer_kept(ctx, answer, answered_at)
        if kept is None:
            new.pop("context_answer", None)
        else:
            new["context_answer"] = kept
    elif isinstance(answer, ResendAnswer) and answer.choice != "readable":
        new["quality"] = superseded_quality(ctx)
    return new


def context_answer_kept(ctx: dict[str, Any], answer: ContextAnswer, answered_at: str) -> dict[str, Any] | None:
    """The ``context_answer`` a context answer leaves in ``ctx``, or None to leave it out.

    accounted's only reader of it, the agent's prompt
    (``lib/agent-context/chat-clarifications.ts``), shows its ``raw_answer``
    as "användarens egna ord" beside ``user_note``, so it holds the
    customer's own words and nothing else:

    - the customer's words given now replace what it held, as accounted's
      intake replaces it with every context reply (``process-inbound.ts``,
      66851ff: ``context_answer: { raw_answer: text, answered_at: nowIso }``);
    - without them, a first answer keeps the customer's words already there
      (the chat's): they are still what the customer said, and the preview
      shows them beside the new note before anything is saved; a correction
      (``amend``) drops them, because the words given with the app's earlier
      answer belong to the answer it replaces, and the agent reads one current
      answer (the app's log keeps them, the item page shows them among the
      history of corrections);
    - text the app wrote there under the old rule (``evidence.ENTERED_BY_FIRM``)
      is not the customer's: it goes (the app's log keeps it), and
      ``context_answer`` is left out, a shape accounted's type allows
      (``context_answer?``). ``manage.py fix_context_answers`` reads the
      app's log to split rows that mix the two.
    """
    words = raw_answer_added(answer, answered_at)
    if words is not None:
        return {"raw_answer": words, "answered_at": answered_at}
    if answer.amend:
        return None
    held = ctx.get("context_answer")
    raw = evidence.stored_raw_answer(ctx, CONTEXT)
    if raw is not None and evidence.holds_firm_text(raw):
        return None
    return copy.deepcopy(held) if held is not None else None


@dataclass(frozen=True, slots=True)
class Written:
    """What one answer writes into ``channel_context``, and what the app's log keeps of it.

    ``after``: the new context (``answered_context``); ``answered_at``: its
    ``toISOString()`` stamp; ``entered``: what was entered (``answer_json``);
    ``raw_answer_added``: the text the answer wrote to a ``raw_answer``
    (None for a resend, and for a context answer without the customer's words).
    """

    after: dict[str, Any]
    answered_at: str
    entered: dict[str, Any]
    raw_answer_added: str | None


def written_answer(ctx: dict[str, Any], answer: Answer, *, at: dt.datetime) -> Written:
    """``answer`` written into ``ctx`` at ``at``: the whole JSON side of one write, built in one place."""
    stamp = utc_stamp(at)
    added = raw_answer_added(answer, stamp) if isinstance(answer, RepresentationAnswer | ContextAnswer) else None
    return Written(answered_context(ctx, answer, answered_at=stamp), stamp, answer_json(answer), added)


def superseded_quality(ctx: dict[str, Any]) -> dict[str, Any]:
    """``quality`` of an item a newer one replaces, key for key as accounted writes it.

    ``{resend_requested_at: itemContext.quality?.resend_requested_at ??
    pending.asked_at, resent: true, superseded: true}``
    (``resolveResendQuestion``, ``process-inbound.ts`` 66851ff): every other
    key of ``quality`` is dropped. A question moved to the app over the daily
    budget was never asked in the chat, so it has no ``resend_requested_at``
    and the question's ``asked_at`` stands in. JavaScript's ``??`` passes
    over ``null`` as over a missing key, and ``JSON.stringify`` leaves out a
    key whose value is ``undefined``: so does this.
    """
    quality = ctx.get("quality")
    requested = quality.get("resend_requested_at") if isinstance(quality, dict) else None
    new: dict[str, Any] = {}
    if requested is not None:
        new["resend_requested_at"] = copy.deepcopy(requested)
    else:
        pending = ctx.get("pending_question")
        if isinstance(pending, dict) and "asked_at" in pending:
            new["resend_requested_at"] = copy.deepcopy(pending["asked_at"])
    new["resent"] = True
    new["superseded"] = True
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
