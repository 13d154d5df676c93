"""A simulator of accounted's WhatsApp intake, for demos and tests: never for a real database.

Each function performs one of the intake's steps on the replica (contract
steps 2 to 9) with the intake's own semantics:

- ``invoice_inbox_items.channel_context`` is read, changed and written back
  whole, without a lock (what the intake does, so it can undo a concurrent
  write: that is the point of simulating it);
- conversations are written with accounted's compare-and-set, ``UPDATE …
  WHERE id = ? AND updated_at = <read>``, retried up to 4 times;
- the question events go to ``processing_history`` with the intake's actors.

Every entry point calls ``require_replica()`` first. ``late_reply`` routes a
reply as the intake does: to the newest ``recent_questions`` entry (of the
last 7 days) that is not ``'answered'`` — including ``'moved_to_app'`` —
writing over what is there; an entry already ``'answered'`` only gets a
follow-up appended to ``user_note``.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db import connections
from django.utils import timezone

from reviewapp import states
from reviewapp.answers.channel_context import to_millis, utc_stamp
from reviewapp.answers.inputs import QUESTION_TYPES
from reviewapp.answers.writing import append_question_event
from reviewapp.bookkeeping.models import InboxItem, decode_json
from reviewapp.bookkeeping.replica import require_replica
from reviewapp.routers import BOOKKEEPING_DB

INBOUND: Final = {"type": "system", "id": "whatsapp-inbound"}
CRON: Final = {"type": "cron", "id": "whatsapp-question-expiry"}
ROUTING_WINDOW: Final = dt.timedelta(days=7)
RECENT_LIMIT: Final = 10
CAS_ATTEMPTS: Final = 4
DENIALS: Final = frozenset({"nej", "no", "nej tack", "inte representation"})


class IntakeError(Exception):
    """The step cannot be performed on this item (no question, no conversation, …)."""


@dataclass(frozen=True, slots=True)
class Participant:
    name: str
    company: str | None = None


# --- Reading and writing, the intake's way ------------------------------------------


def _now(now: dt.datetime | None) -> dt.datetime:
    return to_millis(now or timezone.now())


def read_context(item_id: uuid.UUID | str) -> dict[str, Any]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT channel_context::text FROM public.invoice_inbox_items WHERE id = %s", [item_id])
        row = cursor.fetchone()
    if row is None:
        raise IntakeError(f"no item {item_id}")
    ctx = decode_json(row[0])
    return ctx if isinstance(ctx, dict) else {}


def write_context(item_id: uuid.UUID | str, ctx: dict[str, Any]) -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "UPDATE public.invoice_inbox_items SET channel_context = %s::jsonb WHERE id = %s",
            [json.dumps(ctx), item_id],
        )


def update_item(
    item_id: uuid.UUID | str,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Read the whole object, change it, write it back: no lock, no compare (the intake's write).

    ``between`` runs after the read and before the write (tests use it to
    make a race happen at that exact point).
    """
    ctx = read_context(item_id)
    new = change(ctx)
    if between is not None:
        between()
    write_context(item_id, new)
    return new


def write_key(
    item_id: uuid.UUID | str, key: str, value: Any, *, between: Callable[[], None] | None = None
) -> dict[str, Any]:
    """Set one key of ``channel_context`` the intake's way (read, modify, write back)."""
    require_replica()
    return update_item(item_id, lambda ctx: {**ctx, key: value}, between=between)


def _conversation_of(item_id: str) -> uuid.UUID | None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT id FROM public.whatsapp_conversations WHERE context -> 'recent_questions' @> %s::jsonb"
            " ORDER BY updated_at DESC LIMIT 1",
            [json.dumps([{"inbox_item_id": item_id}])],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _conversation_for_user(user_id: uuid.UUID, company_id: uuid.UUID) -> uuid.UUID:
    """The conversation of the item owner's linked phone, created (with the link) when missing."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT c.id FROM public.whatsapp_conversations c JOIN public.whatsapp_phone_links l"
            " ON l.id = c.phone_link_id WHERE l.user_id = %s ORDER BY c.created_at LIMIT 1",
            [user_id],
        )
        row = cursor.fetchone()
        if row:
            return row[0]
        cursor.execute(
            "INSERT INTO public.whatsapp_phone_links (user_id, phone_hash, phone_masked, default_company_id)"
            " VALUES (%s, %s, %s, %s) RETURNING id",
            [user_id, uuid.uuid4().hex, "+46 70 *** ** 00", company_id],
        )
        link_id = cursor.fetchone()[0]
        cursor.execute(
            "INSERT INTO public.whatsapp_conversations (phone_link_id, company_id) VALUES (%s, %s) RETURNING id",
            [link_id, company_id],
        )
        return cursor.fetchone()[0]


def read_conversation(conversation_id: uuid.UUID) -> tuple[dict[str, Any], str, dt.datetime]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT context::text, state, updated_at FROM public.whatsapp_conversations WHERE id = %s",
            [conversation_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise IntakeError(f"no conversation {conversation_id}")
    context = decode_json(row[0])
    return (context if isinstance(context, dict) else {}), row[1], row[2]


def update_conversation(
    conversation_id: uuid.UUID, change: Callable[[dict[str, Any], str], tuple[dict[str, Any], str]]
) -> dict[str, Any]:
    """accounted's conversation write: compare-and-set on ``updated_at``, up to 4 attempts."""
    for _attempt in range(CAS_ATTEMPTS):
        context, state, updated_at = read_conversation(conversation_id)
        new, new_state = change(context, state)
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(
                "UPDATE public.whatsapp_conversations SET context = %s::jsonb, state = %s"
                " WHERE id = %s AND updated_at = %s",
                [json.dumps(new), new_state, conversation_id, updated_at],
            )
            if cursor.rowcount == 1:
                return new
    raise IntakeError(f"conversation {conversation_id} kept changing")


def _entries(context: dict[str, Any]) -> list[dict[str, Any]]:
    recent = context.get("recent_questions")
    return [e for e in recent if isinstance(e, dict)] if isinstance(recent, list) else []


def _recent(entries: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """The entries asked in the last 7 days (an entry without a usable ``asked_at`` counts as recent)."""
    return [e for e in entries if (states.parse_iso(e.get("asked_at")) or now) >= now - ROUTING_WINDOW]


def _pruned(entries: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """The last 10 entries of the last 7 days (the intake's pruning)."""
    return _recent(entries, now)[-RECENT_LIMIT:]


def _set_entry_status(item_id: str, question: str, status: str, *, clear_pending: bool) -> None:
    conversation_id = _conversation_of(item_id)
    if conversation_id is None:
        return

    def change(context: dict[str, Any], state: str) -> tuple[dict[str, Any], str]:
        new = dict(context)
        new["recent_questions"] = [
            {**e, "status": status}
            if e.get("inbox_item_id") == item_id and e.get("type") == question and e.get("status") != "answered"
            else e
            for e in _entries(context)
        ]
        pending = context.get("pending_question")
        if clear_pending and isinstance(pending, dict) and pending.get("inbox_item_id") == item_id:
            del new["pending_question"]
            state = "idle"
        return new, state

    update_conversation(conversation_id, change)


def _item(item_id: uuid.UUID | str) -> InboxItem:
    item = InboxItem.objects.filter(pk=item_id).first()
    if item is None:
        raise IntakeError(f"no item {item_id}")
    return item


def _event(item: InboxItem, event_type: str, question: str, actor: dict[str, str], at: dt.datetime) -> None:
    append_question_event(item, event_type=event_type, question=question, actor=actor, occurred_at=at)


# --- The steps --------------------------------------------------------------------------


def ask(
    item_id: uuid.UUID | str, question: str, *, over_budget: bool = False, now: dt.datetime | None = None
) -> dict[str, Any]:
    """Step 2: ask ``question`` about the item (``over_budget``: straight to ``moved_to_app``, no chat)."""
    require_replica()
    if question not in QUESTION_TYPES:
        raise IntakeError(f"unknown question type {question!r}")
    item = _item(item_id)
    at = _now(now)
    stamp = utc_stamp(at)
    key = str(item.pk)

    def change(ctx: dict[str, Any]) -> dict[str, Any]:
        new = {**ctx, "pending_question": {"type": question, "asked_at": stamp, "status": "open"}}
        if over_budget:
            new["pending_question"]["status"] = "moved_to_app"
        if question == "resend":
            quality = ctx.get("quality")
            new["quality"] = {**(quality if isinstance(quality, dict) else {}), "resend_requested_at": stamp}
        return new

    ctx = update_item(item.pk, change)
    if over_budget:
        return ctx
    conversation_id = _conversation_for_user(item.user_id, item.company_id)

    def converse(context: dict[str, Any], state: str) -> tuple[dict[str, Any], str]:
        entry = {"type": question, "inbox_item_id": key, "asked_at": stamp, "status": "open"}
        found = context.get("budget")
        budget: dict[str, Any] = found if isinstance(found, dict) else {}
        day = at.date().isoformat()
        count = budget.get("count", 0) if budget.get("day_key") == day and isinstance(budget.get("count"), int) else 0
        return {
            **context,
            "pending_question": {"type": question, "inbox_item_id": key, "asked_at": stamp},
            "recent_questions": _pruned([*_entries(context), entry], at),
            "budget": {"day_key": day, "count": count + 1},
        }, f"awaiting_{question}"

    update_conversation(conversation_id, converse)
    _event(item, "ChannelQuestionAsked", question, INBOUND, at)
    return ctx


def _answered_pending(ctx: dict[str, Any], question: str) -> dict[str, Any]:
    pending = ctx.get("pending_question")
    base = pending if isinstance(pending, dict) else {"type": question}
    return {**base, "status": "answered"}


def _answer_in_chat(
    item_id: uuid.UUID | str,
    question: str,
    change: Callable[[dict[str, Any], str], dict[str, Any]],
    *,
    settles: bool = True,
    now: dt.datetime | None,
    between: Callable[[], None] | None,
) -> dict[str, Any]:
    """The customer's reply written the intake's way; when it ``settles`` the question, marked and logged too.

    ``change`` gets the context and the reply's ``answered_at`` stamp.
    """
    require_replica()
    item = _item(item_id)
    at = _now(now)
    ctx = update_item(item.pk, lambda c: change(c, utc_stamp(at)), between=between)
    if settles:
        _set_entry_status(str(item.pk), question, "answered", clear_pending=True)
        _event(item, "ChannelQuestionAnswered", question, INBOUND, at)
    return ctx


def answer_representation(
    item_id: uuid.UUID | str,
    *,
    text: str,
    participants: Sequence[Participant] = (),
    purpose: str | None = None,
    event_date: str | None = None,
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step 3 (or 4, without a purpose: the question stays open). A second message appends to raw_answer."""

    def change(ctx: dict[str, Any], stamp: str) -> dict[str, Any]:
        raw = text.strip()
        old = ctx.get("representation")
        pending = ctx.get("pending_question")
        still_open = isinstance(pending, dict) and pending.get("status") == "open"
        if isinstance(old, dict) and still_open and old.get("purpose") is None and not old.get("denied"):
            raw = f"{old.get('raw_answer') or ''}\n{raw}".strip()
        new = {
            **ctx,
            "representation": {
                "participants": [{"name": p.name, "company": p.company} for p in participants],
                "purpose": purpose or None,
                "event_date": event_date or None,
                "raw_answer": raw,
                "answered_at": stamp,
            },
        }
        if purpose:
            new["pending_question"] = _answered_pending(ctx, "representation")
        return new

    return _answer_in_chat(item_id, "representation", change, settles=bool(purpose), now=now, between=between)


def half_answer(
    item_id: uuid.UUID | str, *, text: str, participants: Sequence[Participant], now: dt.datetime | None = None
) -> dict[str, Any]:
    """Step 4: names, no purpose; the question stays open."""
    return answer_representation(item_id, text=text, participants=participants, purpose=None, now=now)


def deny(
    item_id: uuid.UUID | str,
    *,
    text: str = "Nej",
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step 5: "nej": the denial, the only shape with ``denied``."""

    def change(ctx: dict[str, Any], stamp: str) -> dict[str, Any]:
        denial: dict[str, Any] = {"participants": [], "purpose": None, "event_date": None}
        return {
            **ctx,
            "representation": {**denial, "raw_answer": text.strip(), "answered_at": stamp, "denied": True},
            "pending_question": _answered_pending(ctx, "representation"),
        }

    return _answer_in_chat(item_id, "representation", change, now=now, between=between)


def answer_context(
    item_id: uuid.UUID | str,
    *,
    text: str,
    note: str | None = None,
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step 6: ``user_note`` (the paraphrase; the text itself without one) and ``context_answer``."""

    def change(ctx: dict[str, Any], stamp: str) -> dict[str, Any]:
        return {
            **ctx,
            "user_note": (note or text).strip(),
            "context_answer": {"raw_answer": text.strip(), "answered_at": stamp},
            "pending_question": _answered_pending(ctx, "context"),
        }

    return _answer_in_chat(item_id, "context", change, now=now, between=between)


def expire(item_id: uuid.UUID | str, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """Step 8: the 48-hour sweep: ``open`` → ``moved_to_app``, conversation back to idle."""
    require_replica()
    item = _item(item_id)
    at = _now(now)
    ctx = read_context(item.pk)
    pending = ctx.get("pending_question")
    if not isinstance(pending, dict) or pending.get("status") != "open":
        raise IntakeError("the item has no open question to expire")
    question = str(pending.get("type"))
    ctx = update_item(item.pk, lambda c: {**c, "pending_question": {**c["pending_question"], "status": "moved_to_app"}})
    _set_entry_status(str(item.pk), question, "moved_to_app", clear_pending=True)
    _event(item, "ChannelQuestionExpired", question, CRON, at)
    return ctx


def follow_up(item_id: uuid.UUID | str, *, text: str, between: Callable[[], None] | None = None) -> dict[str, Any]:
    """A reply about an already answered question: appended to ``user_note``."""
    require_replica()

    def change(ctx: dict[str, Any]) -> dict[str, Any]:
        old = ctx.get("user_note")
        note = f"{old}\n{text.strip()}" if isinstance(old, str) and old.strip() else text.strip()
        return {**ctx, "user_note": note}

    return update_item(item_id, change, between=between)


@dataclass(frozen=True, slots=True)
class Routed:
    """Where a late reply went: ``answered`` (written as the answer) or ``follow_up``."""

    outcome: str
    item_id: str
    question: str | None


def late_reply(
    item_id: uuid.UUID | str,
    *,
    text: str,
    quoted: bool = True,
    participants: Sequence[Participant] = (),
    purpose: str | None = None,
    event_date: str | None = None,
    now: dt.datetime | None = None,
) -> Routed:
    """Step 9: a reply arriving after the chat stopped waiting, routed by ``recent_questions``.

    ``quoted``: a reply quoting the question about ``item_id`` (only that
    item's entries are relevant); else the conversation's newest entry that
    is not ``'answered'``. Only entries of the last 7 days count. If the
    newest relevant entry is already ``'answered'``, the reply is a follow-up.
    """
    require_replica()
    at = _now(now)
    key = str(item_id)
    conversation_id = _conversation_of(key)
    if conversation_id is None:
        raise IntakeError("no conversation holds a question about this item")
    context, _state, _updated = read_conversation(conversation_id)
    recent = _recent(_entries(context), at)
    if quoted:
        recent = [e for e in recent if e.get("inbox_item_id") == key]
    if not recent:
        raise IntakeError("no question of the last 7 days to route the reply to")
    open_entries = [e for e in recent if e.get("status") != "answered"]
    newest = recent[-1]
    if newest.get("status") == "answered" or not open_entries:
        follow_up(str(newest.get("inbox_item_id")), text=text)
        return Routed("follow_up", str(newest.get("inbox_item_id")), None)
    target = open_entries[-1]
    target_item = str(target.get("inbox_item_id"))
    question = str(target.get("type"))
    if question == "representation":
        if text.strip().lower().rstrip(".!") in DENIALS:
            deny(target_item, text=text, now=at)
        else:
            answer_representation(
                target_item, text=text, participants=participants, purpose=purpose, event_date=event_date, now=at
            )
    elif question == "context":
        answer_context(target_item, text=text, now=at)
    else:
        # A text reply to a resend request is no new photo: the intake keeps it as a note.
        follow_up(target_item, text=text)
        return Routed("follow_up", target_item, question)
    return Routed("answered", target_item, question)
