"""A simulator of accounted's WhatsApp intake, for demos and tests: never for a real database.

Each function performs one of the intake's steps on the replica (contract
steps 2 to 9) as accounted's code does it (``erp-mafia/accounted`` at
``66851ff``, ``extensions/general/whatsapp-inbox/lib/``: ``process-inbound.ts``,
``conversation.ts``, ``sweep.ts``), so the tests that race the app against
it test the program the app really shares the database with:

- ``invoice_inbox_items.channel_context`` is read, changed and written back
  whole, without a lock (``updateItemContext``: that is how it can undo a
  concurrent write, the point of simulating it);
- the answer worker writes the conversation with accounted's compare-and-set,
  ``UPDATE … WHERE id = ? AND updated_at = <read>``, retried up to 4 times
  (``updateConversation``); the 48-hour sweep does NOT: it writes the context
  it read by ``id`` and ``state`` only (``sweep.ts`` pass 3), so it can undo a
  mark written meanwhile (``sweep(between=…)`` makes that happen on cue);
- question events go to ``processing_history`` with the intake's actor,
  ``{"type": "system", "id": "whatsapp-inbound"}``, the sweep's too.

The answer worker's rules (``process-inbound.ts`` ``processAnswerMessage``):

- only a reply that is exactly "nej" (any case, trimmed) is a denial without
  the AI interpreter; the interpreter's reading of any other text is what the
  caller passes (``participants``, ``purpose``, ``event_date``, ``note``,
  ``denied``);
- a representation answer with names and no purpose keeps the item's
  question ``'open'`` only when it is the item's first answer; a later
  message appends to ``raw_answer`` with ``"\\n"`` and keeps the purpose and
  date the new message leaves out;
- a representation reply the interpreter cannot read stores it as
  ``user_note``, an empty representation and status ``'answered'``;
- every answer marks all of the item's ``recent_questions`` entries
  ``'answered'``; only an answer to the question the conversation awaits
  (not ``late``) also removes ``pending_question`` and idles the conversation;
- a late reply is routed as ``conversation.ts`` ``resolveAnswerTarget`` does:
  a quoted reply to a question already answered is a follow-up appended to
  ``user_note``; otherwise the reply goes to the awaited question, else to
  the newest representation/context entry of the last 7 days that is not
  ``'answered'`` (``'moved_to_app'`` included, a resend never).

The daily question budget counts Europe/Stockholm days (``stockholmDayKey``).
Not simulated: messages, the burst queue (``ask`` always asks, or moves
straight to the app with ``over_budget``), asking the next queued question
after an answer, the 48-hour clock (``expire`` and ``sweep`` expire when
called). Every entry point calls ``require_replica()`` first.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo

from django.db import connections
from django.utils import timezone

from clarifications.jstext import js_trim
from reviewapp.answers.channel_context import to_millis, utc_stamp
from reviewapp.answers.inputs import QUESTION_TYPES
from reviewapp.answers.writing import append_question_event
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.replica import require_replica
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.core.stored_json import decode_json

# The intake's actor for every question event, the sweep's ChannelQuestionExpired included.
INBOUND: Final = {"type": "system", "id": "whatsapp-inbound"}
ROUTING_WINDOW: Final = dt.timedelta(days=7)
RECENT_LIMIT: Final = 10
CAS_ATTEMPTS: Final = 4
BUDGET_ZONE: Final = ZoneInfo("Europe/Stockholm")
# A free-text reply can answer these; a resend needs a new photo.
TEXT_ANSWERABLE: Final = ("representation", "context")
AWAITING_TEXT: Final = ("awaiting_representation", "awaiting_context")


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


def _within_window(entry: dict[str, Any], now: dt.datetime) -> bool:
    """Asked in the last 7 days (accounted: ``now - asked_at <= 7 days``; an unreadable time is NaN: never)."""
    asked = states.parse_iso(entry.get("asked_at"))
    return asked is not None and now - asked <= ROUTING_WINDOW


def _recent(entries: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """The entries asked in the last 7 days."""
    return [e for e in entries if _within_window(e, now)]


def _pruned(entries: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """The last 10 entries of the last 7 days (the intake's pruning)."""
    return _recent(entries, now)[-RECENT_LIMIT:]


def stockholm_day(moment: dt.datetime) -> str:
    """The budget's day key, the civil day in Stockholm (``stockholmDayKey``): 2026-08-10T22:30Z is "2026-08-11"."""
    return moment.astimezone(BUDGET_ZONE).date().isoformat()


def _awaiting_conversation(item_key: str) -> uuid.UUID | None:
    """The conversation waiting for an answer about the item (the one the sweep would expire)."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT id FROM public.whatsapp_conversations"
            " WHERE state <> 'idle' AND context -> 'pending_question' ->> 'inbox_item_id' = %s"
            " ORDER BY updated_at DESC LIMIT 1",
            [item_key],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _awaited(context: dict[str, Any], state: str) -> tuple[str, str] | None:
    """The (item, type) a free-text reply answers because the conversation awaits it, else None."""
    pending = context.get("pending_question")
    if (
        state in AWAITING_TEXT
        and isinstance(pending, dict)
        and pending.get("type") in TEXT_ANSWERABLE
        and isinstance(pending.get("inbox_item_id"), str)
        and pending["inbox_item_id"]
    ):
        return pending["inbox_item_id"], str(pending["type"])
    return None


def _with_status(ctx: dict[str, Any], status: str) -> dict[str, Any]:
    """``pending_question: p ? {...p, status} : undefined`` (an absent question stays absent)."""
    new = dict(ctx)
    pending = ctx.get("pending_question")
    if pending:
        new["pending_question"] = {**(pending if isinstance(pending, dict) else {}), "status": status}
    else:
        new.pop("pending_question", None)
    return new


def _mark_answered(conversation_id: uuid.UUID, item_key: str, *, settle_pending: bool) -> None:
    """The answer worker's conversation write ("Conversation bookkeeping" in ``processAnswerMessage``)."""

    def change(context: dict[str, Any], state: str) -> tuple[dict[str, Any], str]:
        recent = context.get("recent_questions")
        new = {
            **context,
            "recent_questions": [
                {**e, "status": "answered"} if isinstance(e, dict) and e.get("inbox_item_id") == item_key else e
                for e in (recent if isinstance(recent, list) else [])
            ],
        }
        pending = context.get("pending_question")
        if settle_pending and isinstance(pending, dict) and pending.get("inbox_item_id") == item_key:
            del new["pending_question"]
            state = "idle"
        return new, state

    update_conversation(conversation_id, change)


def _item(item_id: uuid.UUID | str) -> InboxItem:
    item = InboxItem.objects.filter(pk=item_id).first()
    if item is None:
        raise IntakeError(f"no item {item_id}")
    return item


def _event(item: InboxItem, event_type: str, question: str, at: dt.datetime) -> None:
    append_question_event(item, event_type=event_type, question=question, actor=INBOUND, occurred_at=at)


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
        status = "moved_to_app" if over_budget else "open"
        new = {**ctx, "pending_question": {"type": question, "asked_at": stamp, "status": status}}
        if question == "resend" and not over_budget:
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
        day = stockholm_day(at)
        count = budget.get("count") if budget.get("day_key") == day and isinstance(budget.get("count"), int) else 0
        return {
            **context,
            "pending_question": {"type": question, "inbox_item_id": key, "asked_at": stamp},
            "recent_questions": _pruned([*_entries(context), entry], at),
            "budget": {"day_key": day, "count": max(0, (count or 0) + 1)},
        }, f"awaiting_{question}"

    update_conversation(conversation_id, converse)
    _event(item, "ChannelQuestionAsked", question, at)
    return ctx


def _answer_in_chat(
    item_id: uuid.UUID | str,
    question: str,
    change: Callable[[dict[str, Any], str], tuple[dict[str, Any], bool]],
    *,
    late: bool | None,
    now: dt.datetime | None,
    between: Callable[[], None] | None,
) -> dict[str, Any]:
    """The answer worker: the item written (read, modify, write back), the conversation settled, the event.

    ``change(ctx, stamp)`` gives the new context and whether the question
    stays open (a first half answer). ``late``: the reply was routed outside
    the awaited question; None: as an unquoted reply would be (not late only
    when the conversation awaits this item).
    """
    require_replica()
    item = _item(item_id)
    at = _now(now)
    key = str(item.pk)
    conversation_id = _conversation_of(key)
    if conversation_id is not None and late is None:
        context, state, _ = read_conversation(conversation_id)
        awaited = _awaited(context, state)
        late = awaited is None or awaited[0] != key
    kept_open = False

    def write(ctx: dict[str, Any]) -> dict[str, Any]:
        nonlocal kept_open
        new, kept_open = change(ctx, utc_stamp(at))
        return new

    ctx = update_item(item.pk, write, between=between)
    if conversation_id is not None:
        _mark_answered(conversation_id, key, settle_pending=not late and not kept_open)
    _event(item, "ChannelQuestionAnswered", question, at)
    return ctx


def _empty_representation(text: str, stamp: str) -> dict[str, Any]:
    return {"participants": [], "purpose": None, "event_date": None, "raw_answer": text, "answered_at": stamp}


def _denial(ctx: dict[str, Any], stamp: str, text: str) -> tuple[dict[str, Any], bool]:
    denial = {**_empty_representation(text, stamp), "denied": True}
    return _with_status({**ctx, "representation": denial}, "answered"), False


def answer_representation(
    item_id: uuid.UUID | str,
    *,
    text: str,
    participants: Sequence[Participant] = (),
    purpose: str | None = None,
    event_date: str | None = None,
    note: str | None = None,
    denied: bool = False,
    late: bool | None = None,
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Steps 3 to 5: the person's reply to a representation question, as the answer worker writes it.

    ``participants``/``purpose``/``event_date``/``note``/``denied``: what
    accounted's AI interpreter read in ``text`` (an exact "nej" never reaches
    it: a denial). Names without a purpose keep the question ``'open'`` on the
    first answer only; nothing readable stores the text as ``user_note`` and
    an empty representation, ``'answered'``.
    """
    body = js_trim(text)

    def change(ctx: dict[str, Any], stamp: str) -> tuple[dict[str, Any], bool]:
        if body.lower() == "nej" or denied:
            return _denial(ctx, stamp, body)
        if not participants and not purpose:
            unread = {**ctx, "user_note": body, "representation": _empty_representation(body, stamp)}
            return _with_status(unread, "answered"), False
        old = ctx.get("representation")
        earlier = old if isinstance(old, dict) else {}
        keep_open = old is None and bool(participants) and not purpose
        representation = {
            "participants": [{"name": p.name, "company": p.company} for p in participants],
            # A follow-up must not erase what an earlier message gave.
            "purpose": purpose if purpose is not None else earlier.get("purpose"),
            "event_date": event_date if event_date is not None else earlier.get("event_date"),
            "raw_answer": f"{_js_string(earlier.get('raw_answer', _UNDEFINED))}\n{body}" if old else body,
            "answered_at": stamp,
        }
        new = {**ctx, "representation": representation, **({"user_note": note} if note else {})}
        return _with_status(new, "open" if keep_open else "answered"), keep_open

    return _answer_in_chat(item_id, "representation", change, late=late, now=now, between=between)


_UNDEFINED: Final = object()


def _js_string(value: object) -> str:
    """``${value}`` for the values a stored raw_answer can hold."""
    if value is _UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    return value if isinstance(value, str) else json.dumps(value)


def half_answer(
    item_id: uuid.UUID | str, *, text: str, participants: Sequence[Participant], now: dt.datetime | None = None
) -> dict[str, Any]:
    """Step 4: names, no purpose (the question stays open if it is the item's first answer)."""
    return answer_representation(item_id, text=text, participants=participants, purpose=None, now=now)


def deny(
    item_id: uuid.UUID | str,
    *,
    text: str = "Nej",
    late: bool | None = None,
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step 5: the denial, the only shape with ``denied`` (an exact "nej", or the interpreter's reading)."""
    body = js_trim(text)
    return _answer_in_chat(
        item_id, "representation", lambda ctx, stamp: _denial(ctx, stamp, body), late=late, now=now, between=between
    )


def answer_context(
    item_id: uuid.UUID | str,
    *,
    text: str,
    note: str | None = None,
    late: bool | None = None,
    now: dt.datetime | None = None,
    between: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Step 6: ``user_note`` (the interpreter's paraphrase, else the text) and ``context_answer``."""
    body = js_trim(text)

    def change(ctx: dict[str, Any], stamp: str) -> tuple[dict[str, Any], bool]:
        new = {**ctx, "user_note": note or body, "context_answer": {"raw_answer": body, "answered_at": stamp}}
        return _with_status(new, "answered"), False

    return _answer_in_chat(item_id, "context", change, late=late, now=now, between=between)


def sweep(
    conversation_id: uuid.UUID, *, now: dt.datetime | None = None, between: Callable[[], None] | None = None
) -> str | None:
    """Step 8 for one conversation, as ``sweep.ts`` pass 3 does it; the expired item's id.

    The awaited question ``open`` → ``moved_to_app`` and ``ChannelQuestionExpired``;
    queued questions moved to the app; the item's ``recent_questions`` entry
    ``open`` → ``moved_to_app``; ``pending_question`` and ``question_queue``
    removed, state ``idle``. The conversation is written from what was read
    at the start, by ``id`` and ``state``, with no compare on ``updated_at``:
    a mark written meanwhile (``between`` runs just before the write) is undone.
    """
    require_replica()
    at = _now(now)
    context, state, _ = read_conversation(conversation_id)
    if state == "idle":
        raise IntakeError("the conversation awaits nothing: the sweep passes it by")
    found = context.get("pending_question")
    pending: dict[str, Any] = found if isinstance(found, dict) else {}
    item_key = pending.get("inbox_item_id")
    if isinstance(item_key, str) and item_key:

        def moved(ctx: dict[str, Any]) -> dict[str, Any]:
            question = ctx.get("pending_question")
            if isinstance(question, dict) and question.get("status") == "open":
                return {**ctx, "pending_question": {**question, "status": "moved_to_app"}}
            return ctx

        update_item(item_key, moved)
        _event(_item(item_key), "ChannelQuestionExpired", str(pending.get("type")), at)
    queue = context.get("question_queue")
    for queued in queue if isinstance(queue, list) else []:
        if not isinstance(queued, dict) or not isinstance(queued.get("inbox_item_id"), str):
            continue
        update_item(queued["inbox_item_id"], _moved_unless_asked(queued.get("type"), utc_stamp(at)))
    recent = context.get("recent_questions")
    expired = {
        **context,
        "recent_questions": [
            {**e, "status": "moved_to_app"}
            if isinstance(e, dict) and e.get("status") == "open" and item_key and e.get("inbox_item_id") == item_key
            else e
            for e in (recent if isinstance(recent, list) else [])
        ],
    }
    for key in ("pending_question", "company_options", "question_queue"):
        expired.pop(key, None)
    if between is not None:
        between()
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "UPDATE public.whatsapp_conversations SET state = 'idle', context = %s::jsonb WHERE id = %s AND state = %s",
            [json.dumps(expired), conversation_id, state],
        )
    return item_key if isinstance(item_key, str) else None


def _moved_unless_asked(question: object, stamp: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A queued question expiring with the episode: ``pending_question ?? {…, 'moved_to_app'}``."""

    def change(ctx: dict[str, Any]) -> dict[str, Any]:
        if ctx.get("pending_question") is not None:
            return ctx
        return {**ctx, "pending_question": {"type": question, "asked_at": stamp, "status": "moved_to_app"}}

    return change


def expire(
    item_id: uuid.UUID | str, *, now: dt.datetime | None = None, between: Callable[[], None] | None = None
) -> dict[str, Any]:
    """Step 8 for the conversation awaiting this item (``sweep``); the item's context after it."""
    require_replica()
    item = _item(item_id)
    pending = read_context(item.pk).get("pending_question")
    if not isinstance(pending, dict) or pending.get("status") != "open":
        raise IntakeError("the item has no open question to expire")
    conversation_id = _awaiting_conversation(str(item.pk))
    if conversation_id is None:
        raise IntakeError("no conversation awaits this item: only the sweep of an awaiting conversation moves it")
    sweep(conversation_id, now=now, between=between)
    return read_context(item.pk)


def follow_up(item_id: uuid.UUID | str, *, text: str, between: Callable[[], None] | None = None) -> dict[str, Any]:
    """``appendUserNote``: the text added to ``user_note`` with ``"\\n"`` (or as it, when there is none)."""
    require_replica()
    body = js_trim(text)

    def change(ctx: dict[str, Any]) -> dict[str, Any]:
        old = ctx.get("user_note")
        return {**ctx, "user_note": f"{old}\n{body}" if isinstance(old, str) and old else body}

    return update_item(item_id, change, between=between)


@dataclass(frozen=True, slots=True)
class Routed:
    """Where a late reply went: ``answered`` (written as the answer) or ``follow_up`` (appended to ``user_note``)."""

    outcome: str
    item_id: str
    question: str | None


def _asked(entry: dict[str, Any]) -> dt.datetime:
    return states.parse_iso(entry.get("asked_at")) or dt.datetime.min.replace(tzinfo=dt.UTC)


def route(
    context: dict[str, Any], state: str, quoted_item: str | None, now: dt.datetime
) -> tuple[str, str, bool, bool] | None:
    """``resolveAnswerTarget``: (item, question type, late, follow-up) for a free-text reply, or None.

    A quoted reply names its item and wins: a question of it already answered
    makes the reply a follow-up. Then the awaited question; then the newest
    representation/context entry of the last 7 days not ``'answered'``.
    """
    awaited = _awaited(context, state)
    entries = [
        e
        for e in _entries(context)
        if e.get("type") in TEXT_ANSWERABLE and isinstance(e.get("inbox_item_id"), str) and _within_window(e, now)
    ]
    if quoted_item is not None:
        if awaited is not None and awaited[0] == quoted_item:
            return awaited[0], awaited[1], False, False
        quoted = [e for e in entries if e["inbox_item_id"] == quoted_item]
        if quoted:
            newest = max(quoted, key=_asked)
            return quoted_item, str(newest["type"]), True, newest.get("status") == "answered"
    if awaited is not None:
        return awaited[0], awaited[1], False, False
    waiting = [e for e in entries if e.get("status") != "answered"]
    if waiting:
        newest = max(waiting, key=_asked)
        return newest["inbox_item_id"], str(newest["type"]), True, False
    return None


def late_reply(
    item_id: uuid.UUID | str,
    *,
    text: str,
    quoted: bool = True,
    participants: Sequence[Participant] = (),
    purpose: str | None = None,
    event_date: str | None = None,
    note: str | None = None,
    denied: bool = False,
    now: dt.datetime | None = None,
) -> Routed:
    """Step 9: a free-text reply in the conversation that holds the item's question, routed as accounted routes it.

    ``quoted``: the reply quotes the message about ``item_id``; else it quotes
    nothing and ``item_id`` only names the conversation. A text while the
    conversation awaits a resend is kept as a note on that item. The rest
    (what the interpreter read) as for ``answer_representation``. Raises
    ``IntakeError`` when nothing matches: accounted then sends its fallback
    message and writes nothing.
    """
    require_replica()
    at = _now(now)
    key = str(item_id)
    body = js_trim(text)
    conversation_id = _conversation_of(key)
    if conversation_id is None:
        raise IntakeError("no conversation holds a question about this item")
    if not body:
        raise IntakeError("an empty reply answers nothing")
    context, state, _ = read_conversation(conversation_id)
    pending = context.get("pending_question")
    if state == "awaiting_resend" and isinstance(pending, dict) and pending.get("type") == "resend":
        resend_item = pending.get("inbox_item_id")
        if isinstance(resend_item, str) and resend_item:
            follow_up(resend_item, text=body)
            return Routed("follow_up", resend_item, "resend")
    target = route(context, state, key if quoted else None, at)
    if target is None:
        raise IntakeError("the reply matches no question of the last 7 days")
    target_item, question, late, is_follow_up = target
    if is_follow_up:
        follow_up(target_item, text=body)
        return Routed("follow_up", target_item, question)
    if question == "representation":
        answer_representation(
            target_item,
            text=body,
            participants=participants,
            purpose=purpose,
            event_date=event_date,
            note=note,
            denied=denied,
            late=late,
            now=at,
        )
    else:
        answer_context(target_item, text=body, note=note, late=late, now=at)
    return Routed("answered", target_item, question)
