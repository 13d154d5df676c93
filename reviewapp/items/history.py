"""The item's history from every source, in one timeline, each entry with its actor.

accounted's log (``processing_history``, the bookkeeping database) records
what the intake, its cron and other programs did, about the item (a
question asked in the chat, answered there, expired) and about its document
(aggregate ``Document``: ingested, classified). The app's log (the review
database) records the answers written here, with the whole
``channel_context`` before and after. The conversation
(``reviewapp.items.transcript``) adds each message received or sent. Each
source is read separately, bounded, and merged by time. The merged
timeline's texts are then cut to their caps (``cap_events``).

accounted's log never names a person: an event the app wrote there carries
a pseudonymous actor (the bookkeeper's accounted user id, or the app). The
app's own log keeps the id of each event it wrote (``history_event_id``;
an upload's ``DocumentIngested`` as ``resend.ingested_event_id``), so those
events are shown with the review user's name from there, and an app answer
is matched to its twin in accounted's log by that id.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any, Final

from django.db.models import Q
from django.utils.translation import gettext as _

from reviewapp.answers.channel_context import answer_value
from reviewapp.answers.inputs import CONTEXT, READABLE, REPLACED, REPRESENTATION, RESEND, UPLOAD
from reviewapp.answers.log import answer_text
from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
from reviewapp.core import states
from reviewapp.core.people import actor_name, person_name
from reviewapp.core.rendering_caps import CHANGE_LINES_MAX_CHARS, HISTORY_MAX_CHARS, SHORT_TEXT_MAX_CHARS, TextBudget
from reviewapp.inbox import holds
from reviewapp.items import notes
from reviewapp.items.caps import CHANGED_KEYS_MAX, Cuts
from reviewapp.items.changes import answer_change, lines_of
from reviewapp.items.item_view import AnswerChange, CorrectionView, EventView
from reviewapp.items.labels import channel_label, event_label
from reviewapp.items.transcript import MessageView
from reviewapp.models import ClarificationEvent, IndexedItem

#: The most recent entries shown; an item's history is short, a runaway writer's is not.
HISTORY_LIMIT: Final = 200

#: How far apart the two logs' records of one app answer may be. The answer
#: path writes both in one request; anything further apart is two events.
SAME_ANSWER_WINDOW: Final = dt.timedelta(seconds=5)

ACCOUNTED: Final = "accounted"
APP: Final = "app"
CHAT: Final = "chat"
RECORD: Final = "record"

# The history's entry for a question accounted wrote straight as moved_to_app (over
# the chat's question budget): no event of accounted's records it, so the entry is
# made from channel_context.pending_question (``budget_move``).
MOVED_UNASKED: Final = "QuestionMovedUnasked"
#: How much earlier than pending_question.asked_at accounted's ChannelQuestionAsked may
#: be stamped and still be that question's (both are written in one pass of the intake).
ASK_CLOCK_SLACK: Final = dt.timedelta(minutes=1)
MESSAGE_RECEIVED: Final = "MessageReceived"
MESSAGE_SENT: Final = "MessageSent"

# At the same moment (to the millisecond): a message received first, as
# whatever else happened then may be its consequence (the answer it
# carried); then accounted's record, then a message sent (the question
# accounted logged as asked), then the app's. accounted's worker answers
# after a debounce (DEBOUNCE_WINDOW_MS, 12 s, in
# extensions/general/whatsapp-inbox/lib/conversation.ts at 2164c38), so live
# data rarely ties; imported and seeded data do, to the millisecond.
_RECEIVED_FIRST: Final = -1
_SOURCE_ORDER: Final = {ACCOUNTED: 0, CHAT: 1, APP: 2}

#: How long an app answer's summary in the history may be (the item page shows the answer whole).
ANSWER_SUMMARY_MAX_CHARS: Final = 160


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _question_label(question_type: str) -> str:
    return str(states.QUESTION_TYPE_LABELS.get(question_type, question_type))


def accounted_event(row: ProcessingHistory, *, written_by: str | None = None) -> EventView:
    """One ``processing_history`` row; its actor is ``{"type": ..., "id": ..., "label"?: ...}``.

    A row about the document (aggregate ``Document``) is marked ``about_document``.
    ``written_by``: the review user the app wrote the row for (from its own
    log), shown instead of the row's pseudonymous actor.
    """
    actor = _dict(row.actor)
    payload = _dict(row.payload)
    question_type = _text(payload.get("question_type"))
    channel = _text(payload.get("channel"))
    actor_id = actor.get("id")
    return EventView(
        event_type=row.event_type,
        label=event_label(row.event_type, payload),
        question_type=question_type,
        question_label=_question_label(question_type),
        occurred_at=row.occurred_at,
        actor=written_by or _text(actor.get("label")).strip() or (str(actor_id) if actor_id not in (None, "") else "?"),
        actor_type="review_user" if written_by else _text(actor.get("type")),
        channel=channel,
        channel_label=channel_label(channel) if channel else "",
        change=None,
        source=ACCOUNTED,
        about_document=row.aggregate_type == "Document",
        event_id=str(row.pk),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ChatAsk:
    """Whether the chat ever asked the item's question, from accounted's own events.

    accounted's intake logs ``ChannelQuestionAsked`` when it asks in the chat
    and ``ChannelQuestionExpired`` when its sweep moves an unanswered question
    to the app 48 h later (the contract's steps 2 and 8). Over the question
    budget it writes the question straight as ``moved_to_app`` with neither
    event: then the customer was never asked. An expiry alone still means it
    was asked (the sweep moves only open questions).
    """

    question_type: str
    status: str
    asked_in_chat: bool
    asked_at: dt.datetime | None  # when the chat asked it (its event; else pending_question.asked_at)
    moved_at: dt.datetime | None  # when it moved to the app (None: not moved, or not known)


def chat_ask(channel_context: object, events: Iterable[EventView]) -> ChatAsk | None:
    """What the chat did with the item's ``pending_question`` (None when it has none)."""
    pending = _dict(_dict(channel_context).get("pending_question"))
    question_type, status = _text(pending.get("type")), _text(pending.get("status"))
    if not question_type or not status:
        return None
    written_at = states.parse_iso(pending.get("asked_at"))

    def about_it(event: EventView, event_type: str) -> bool:
        return (
            event.source == ACCOUNTED
            and event.event_type == event_type
            and event.question_type in ("", question_type)
            and (written_at is None or event.occurred_at >= written_at - ASK_CLOCK_SLACK)
        )

    asks = [event.occurred_at for event in events if about_it(event, ClarificationEvent.ASKED)]
    expiries = [event.occurred_at for event in events if about_it(event, ClarificationEvent.EXPIRED)]
    asked = bool(asks or expiries) or status == "open"
    asked_at = min(asks) if asks else written_at
    moved_at: dt.datetime | None = None
    if expiries:
        moved_at = max(expiries)
    elif not asked:
        moved_at = written_at  # written straight as moved_to_app: moved when it was written
    elif status == "moved_to_app" and asked_at is not None:
        moved_at = asked_at + states.CHAT_WINDOW
    return ChatAsk(question_type, status, asked, asked_at if asked else None, moved_at)


def budget_move(ask: ChatAsk | None, app_answered: bool) -> EventView | None:
    """The history's entry for a question moved to the app without being asked in the chat, or None.

    Shown while it waits in the app, and after the app answered it; an
    answered question the app never touched was answered in the chat, so it
    was asked (accounted's log says so, or it predates the log).
    """
    if ask is None or ask.asked_in_chat or ask.moved_at is None:
        return None
    if ask.status != "moved_to_app" and not (ask.status == "answered" and app_answered):
        return None
    return EventView(
        event_type=MOVED_UNASKED,
        label=_("Moved to the app, never asked in the chat"),
        question_type=ask.question_type,
        question_label=_question_label(ask.question_type),
        occurred_at=ask.moved_at,
        actor="",
        actor_type="",
        channel="",
        channel_label="",
        change=None,
        source=RECORD,
        detail=_("over the day's question budget"),
    )


def reviewer_name(event: ClarificationEvent) -> str:
    """The review user who wrote ``event``: their name now, else the name logged with it."""
    return actor_name(event.actor, event.actor_label)


def _written_ids(event: ClarificationEvent) -> list[str]:
    """The ids of the rows of accounted's log that the app wrote with ``event``."""
    payload = _dict(event.payload)
    resend = _dict(payload.get("resend"))
    ids = [payload.get("history_event_id"), resend.get("ingested_event_id"), resend.get("extraction_event_id")]
    return [value for value in ids if isinstance(value, str) and value]


def answer_summary(event: ClarificationEvent) -> str:
    """What an app answer said, in a few words: ``"Anna Berg (Kund AB); purpose: Kundmöte"``, "" when unknown.

    From the app's log (the channel_context after the answer, and for a
    resend the choice), never from accounted's, which holds no answer.
    """
    payload = _dict(event.payload)
    if event.event_type != ClarificationEvent.ANSWERED or "after" not in payload:
        return ""
    question = event.question_type
    if question == RESEND:
        resend = _dict(payload.get("resend"))
        choice = resend.get("choice")
        if choice == READABLE:
            return _("the photo is readable as it is")
        if choice == UPLOAD:
            return _("a sharper photo was uploaded")
        if choice == REPLACED:
            newer = _text(resend.get("new_item_id"))
            return _("settled by the newer item %(id)s") % {"id": newer[:8]}
        return ""
    text = answer_text(question, answer_value(payload["after"], question))
    if text is None or not text.summary:
        return ""
    summary = " ".join(text.summary.split())
    if len(summary) > ANSWER_SUMMARY_MAX_CHARS:
        summary = summary[: ANSWER_SUMMARY_MAX_CHARS - 1] + "…"
    return summary


def app_event(event: ClarificationEvent) -> EventView:
    """One event of the app's own log; its actor is the review user who answered, its detail what the answer said."""
    user = event.actor
    actor = reviewer_name(event)
    logged_change = event.event_type in (ClarificationEvent.ANSWERED, ClarificationEvent.FIXED)
    change = answer_change(event.payload) if logged_change else None
    return EventView(
        event_type=event.event_type,
        label=event_label(event.event_type, event.payload),
        question_type=event.question_type,
        question_label=_question_label(event.question_type),
        occurred_at=event.occurred_at,
        actor=actor,
        actor_type="review_user" if user is not None else "",
        channel=event.channel,
        channel_label=channel_label(event.channel),
        change=change,
        source=APP,
        detail=answer_summary(event),
        event_id=_text(_dict(event.payload).get("history_event_id")),
    )


NOTE_ADDED: Final = "NoteAdded"
HOLD_EVENT: Final = "Hold"


def _team_event(event_type: str, label: str, at: dt.datetime, actor: str, detail: str) -> EventView:
    return EventView(
        event_type=event_type,
        label=label,
        question_type="",
        question_label="",
        occurred_at=at,
        actor=actor,
        actor_type="review_user" if actor else "",
        channel="",
        channel_label="",
        change=None,
        source=APP,
        detail=detail,
    )


def team_events(item_id: uuid.UUID) -> list[EventView]:
    """What colleagues did in the app besides answering: notes (items.notes) and holds (inbox.holds)."""
    found = []
    for note in notes.notes_of(item_id):
        label = _("Note (edited)") if note.edited_at else _("Note")
        found.append(_team_event(NOTE_ADDED, label, note.created_at, person_name(note.author), note.text))
    indexed = IndexedItem.objects.filter(pk=item_id).first()
    for step in holds.hold_story(indexed, item_id):
        found.append(_team_event(f"{HOLD_EVENT}-{step.kind}", step.text, step.at, step.by, step.note))
    return found


def chat_event(message: MessageView) -> EventView:
    """A message of the conversation as a history entry: the customer's (masked phone) or the intake's."""
    if message.inbound:
        actor, actor_type = message.phone_masked or _("the customer"), "customer"
    else:
        actor, actor_type = "whatsapp-outbound", "system"
    event_type = MESSAGE_RECEIVED if message.inbound else MESSAGE_SENT
    return EventView(
        event_type=event_type,
        label=message.label,
        question_type="",
        question_label="",
        occurred_at=message.created_at,
        actor=actor,
        actor_type=actor_type,
        channel="whatsapp",
        channel_label=channel_label("whatsapp"),
        change=None,
        source=CHAT,
        detail=message.detail,
    )


def _same_happening(app: EventView, accounted: EventView) -> bool:
    if app.event_id and accounted.event_id:
        # The app's log names the row it wrote: no guessing by time.
        return app.event_id == accounted.event_id
    return (
        app.event_type == accounted.event_type
        and (not app.question_type or not accounted.question_type or app.question_type == accounted.question_type)
        and abs(app.occurred_at - accounted.occurred_at) <= SAME_ANSWER_WINDOW
    )


def _moment(event: EventView) -> tuple[dt.datetime, int]:
    """Where ``event`` sorts: its time to the millisecond, then ``_SOURCE_ORDER``.

    accounted writes its times as JavaScript's ``toISOString()`` (whole
    milliseconds); a message's ``created_at`` is PostgreSQL's ``now()``
    (microseconds). Compared exactly, the answer a message carried, logged
    in the same millisecond, sorted before the message by the microseconds
    the log cannot hold.
    """
    moment = event.occurred_at.replace(microsecond=event.occurred_at.microsecond // 1000 * 1000)
    if event.source == CHAT and event.event_type == MESSAGE_RECEIVED:
        return moment, _RECEIVED_FIRST
    return moment, _SOURCE_ORDER.get(event.source, 3)


def merge(
    accounted: Iterable[EventView],
    app: Iterable[EventView],
    *,
    chat: Iterable[EventView] = (),
    limit: int = HISTORY_LIMIT,
) -> list[EventView]:
    """Every source in one timeline, oldest first, at most the ``limit`` most recent entries.

    An app answer that accounted's log records too (same event type and
    question, within ``SAME_ANSWER_WINDOW``) is one entry: the app's, which
    names the person and holds the before/after. Entries in the same
    millisecond: a message received first, then accounted's, then a message
    sent, then the app's (``_moment``).
    """
    # Each log comes oldest first; the sorts are stable, so each keeps its own order within a moment.
    theirs = sorted(accounted, key=lambda e: e.occurred_at)
    ours: list[EventView] = []
    for event in sorted(app, key=lambda e: e.occurred_at):
        twin = next((other for other in theirs if _same_happening(event, other)), None)
        if twin is not None:
            theirs.remove(twin)
            event = dataclasses.replace(event, also_in_accounted=True)
        ours.append(event)
    messages = sorted(chat, key=lambda e: e.occurred_at)
    timeline = sorted([*theirs, *messages, *ours], key=_moment)
    return timeline[-limit:] if limit else []


def item_history(
    item: InboxItem, *, messages: Iterable[MessageView] = (), limit: int = HISTORY_LIMIT
) -> list[EventView]:
    """The item's merged history, oldest first: accounted's log about the item and its document,
    the app's answer log, and ``messages`` (the conversation the reader may see, already read),
    its texts cut to their caps."""
    about = Q(aggregate_type__in=ProcessingHistory.AGGREGATE_TYPES, aggregate_id=item.pk)
    if item.document_id is not None:
        about |= Q(aggregate_type="Document", aggregate_id=item.document_id)
    rows = list(
        ProcessingHistory.objects.filter(about, company_id=item.company_id)
        .only("event_id", "event_type", "occurred_at", "seq", "actor", "payload", "aggregate_type")
        .order_by("-occurred_at", "-seq")[:limit]
    )
    # The item's own log, and the upload that made this item (logged on the item it replaced), in one read.
    logged = list(
        ClarificationEvent.objects.filter(
            Q(item_id=item.pk) | Q(question_type="resend", payload__resend__new_item_id=str(item.pk))
        )
        .select_related("actor")
        .order_by("-occurred_at", "-id")[:limit]
    )
    events = [event for event in logged if event.item_id == item.pk]
    writers = {row_id: reviewer_name(event) for event in logged for row_id in _written_ids(event)}
    theirs = [accounted_event(row, written_by=writers.get(str(row.pk))) for row in reversed(rows)]
    unasked = budget_move(
        chat_ask(item.channel_context, theirs),
        app_answered=any(event.event_type == ClarificationEvent.ANSWERED for event in events),
    )
    timeline = merge(
        [*theirs, *([unasked] if unasked else [])],
        [*(app_event(event) for event in reversed(events)), *team_events(item.pk)],
        chat=[chat_event(message) for message in messages],
        limit=limit,
    )
    return cap_events(timeline)


def _capped_change(change: AnswerChange, budget: TextBudget) -> AnswerChange:
    cuts = Cuts(budget)
    keys = []
    for key in cuts.entries("changed_keys", change.changed_keys, max_entries=CHANGED_KEYS_MAX):
        key_cuts = Cuts(budget)
        name = key_cuts.required("key", key.key, max_chars=SHORT_TEXT_MAX_CHARS)
        keys.append(dataclasses.replace(key, key=name, cut=key_cuts.original))
    return dataclasses.replace(
        change,
        changed_keys=tuple(keys),
        lines_before=cuts.lines("lines_before", change.lines_before, max_chars=CHANGE_LINES_MAX_CHARS),
        lines_after=cuts.lines("lines_after", change.lines_after, max_chars=CHANGE_LINES_MAX_CHARS),
        cut=cuts.original,
    )


def cap_events(events: Iterable[EventView]) -> list[EventView]:
    """The entries with every text cut to its cap and all together to ``HISTORY_MAX_CHARS``.

    The budget is spent from the newest entry back, so a history flooded
    with long entries still shows its latest ones whole.
    """
    budget = TextBudget(HISTORY_MAX_CHARS)
    capped: list[EventView] = []
    for event in reversed(list(events)):
        cuts = Cuts(budget)

        def short(name: str, value: str, cuts: Cuts = cuts) -> str:
            return cuts.required(name, value, max_chars=SHORT_TEXT_MAX_CHARS)

        capped.append(
            dataclasses.replace(
                event,
                event_type=short("event_type", event.event_type),
                label=short("label", event.label),
                question_type=short("question_type", event.question_type),
                question_label=short("question_label", event.question_label),
                actor=short("actor", event.actor),
                actor_type=short("actor_type", event.actor_type),
                channel=short("channel", event.channel),
                channel_label=short("channel_label", event.channel_label),
                detail=short("detail", event.detail),
                change=_capped_change(event.change, budget) if event.change else None,
                cut=cuts.original,
            )
        )
    return capped[::-1]


def _correction_reason(event: ClarificationEvent) -> str:
    if event.event_type == ClarificationEvent.FIXED:
        return _("The firm's text was taken out of the customer's own words (fix_context_answers).")
    return _("Corrected in the review app.")


def corrections(log: Iterable[ClarificationEvent]) -> tuple[CorrectionView, ...]:
    """Every earlier version of a representation or context answer the app replaced, oldest first.

    From the app's own log (``app_answers``: its answers and its fixes), each
    with who wrote it and when (the app answer before it, if any), what
    replaced it, who and when, and why. The agent reads only the current
    version (the row); these are the versions it no longer reads.
    """
    found: list[CorrectionView] = []
    latest: dict[str, ClarificationEvent] = {}
    for event in sorted(log, key=lambda e: (e.occurred_at, e.pk or 0)):
        question = event.question_type
        payload = _dict(event.payload)
        if question not in (REPRESENTATION, CONTEXT) or "before" not in payload:
            continue
        replacing = event.event_type == ClarificationEvent.FIXED or (
            event.event_type == ClarificationEvent.ANSWERED and payload.get("amended") is True
        )
        if replacing:
            text = answer_text(question, answer_value(payload["before"], question))
            earlier = latest.get(question)
            found.append(
                CorrectionView(
                    question=question,
                    question_label=_question_label(question),
                    replaced_summary=text.summary if text else "",
                    replaced_raw=text.raw_answer if text else None,
                    lines=lines_of(payload["before"]),
                    written_at=earlier.occurred_at if earlier else None,
                    written_by=reviewer_name(earlier) if earlier else "",
                    corrected_at=event.occurred_at,
                    corrected_by=reviewer_name(event),
                    reason=_correction_reason(event),
                )
            )
        if event.event_type in (ClarificationEvent.ANSWERED, ClarificationEvent.FIXED):
            latest[question] = event
    return tuple(found)
