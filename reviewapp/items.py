"""The item page's content, built once for the page and the API alike.

``describe_item`` gathers everything the item page shows: the analysis of
``channel_context``, the prompt lines and agent view exactly as
``clarifications`` renders them, the verifikat notes (and why they are empty
when they are), the one open question with its owner and deadlines, what the
human said, and the event history with what each app answer changed. The
HTML page and ``GET /api/items/<id>`` both render this one ``ItemView``, so
they cannot disagree.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Final, cast

from django.db.models import Prefetch, QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

import clarifications
from reviewapp import states
from reviewapp.models import ClarificationEvent, InboxItem

#: The open question in plain words (the prompt names it in Swedish).
QUESTION_WHAT: Final[dict[str, Promise]] = {
    "representation": _("who attended and why (representation)"),
    "context": _("what the purchase was for"),
    "resend": _("a sharper photo of the receipt"),
}

EVENT_LABELS: Final[dict[str, Promise]] = {
    ClarificationEvent.ASKED: _("Question asked"),
    ClarificationEvent.EXPIRED: _("The chat gave up"),
    ClarificationEvent.ANSWERED: _("Question answered"),
}

NOTES_EMPTY_DENIED: Final = _(
    "Nothing goes on the verifikat: the human said this was not representation, and a denial "
    "puts nothing on the voucher by design. The prompt still tells the agent not to ask again."
)
NOTES_EMPTY_NO_ANSWERS: Final = _("Nothing goes on the verifikat: nobody has answered anything about this receipt.")
NOTES_EMPTY_MALFORMED: Final = _(
    "Nothing goes on the verifikat: the fields that would hold an answer have the wrong shape (see the problems)."
)
NOTES_EMPTY_OPEN_QUESTION: Final = _(
    "Nothing goes on the verifikat yet: the only thing on record is the open question, which is still unanswered."
)
NOTES_EMPTY_NOTHING_FOR_VOUCHER: Final = _(
    "Nothing goes on the verifikat: only participants, purpose and the note are verifikat text, "
    "and none of them was given."
)
AGENT_CAPTION_ONLY: Final = _(
    "The photo caption is the verifikat text here, but it never reaches the prompt: nobody asked for it "
    "and nobody reviewed it, so the agent is told nothing about this receipt beyond the extracted data."
)
AGENT_NO_ANSWERS: Final = _("No human answers: the agent sees only the extracted data.")
AGENT_MALFORMED: Final = _(
    "No usable human answers: the fields that would hold them have the wrong shape, so the agent sees only "
    "the extracted data."
)


@dataclass(frozen=True, slots=True)
class OpenQuestionView:
    """The one unanswered question and who owns it now.

    ``open``: the chat still waits until ``chat_keeps_until``.
    ``moved_to_app``: the chat gave up at ``gave_up_at`` and the app owns it.
    Times are None when the record has no usable ``asked_at``.
    """

    type: str | None
    status: str
    what: str
    prompt_line: str | None
    channel_label: str
    asked_at: dt.datetime | None
    chat_keeps_until: dt.datetime | None
    gave_up_at: dt.datetime | None

    @property
    def owned_by_app(self) -> bool:
        return self.status == "moved_to_app"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "status": self.status,
            "what": self.what,
            "owner": "app" if self.owned_by_app else "chat",
            "channel": self.channel_label,
            "prompt_line": self.prompt_line,
            "asked_at": _iso(self.asked_at),
            "chat_keeps_until": _iso(self.chat_keeps_until),
            "gave_up_at": _iso(self.gave_up_at),
        }


@dataclass(frozen=True, slots=True)
class PersonView:
    name: str
    company: str | None


@dataclass(frozen=True, slots=True)
class HumanSaid:
    """What the human actually said, read from the record as stored.

    ``participants``, ``purpose`` and ``event_date`` are the summary's (what
    the prompt is built from); the raw answers and times come straight from
    ``channel_context``. ``caption`` is never shown to the agent.
    """

    participants: tuple[PersonView, ...]
    purpose: str | None
    purpose_missing: bool
    event_date: str | None
    denied: bool
    representation_raw_answer: str | None
    representation_answered_at: dt.datetime | None
    user_note: str | None
    context_answer_raw: str | None
    context_answered_at: dt.datetime | None
    caption: str | None

    @property
    def is_empty(self) -> bool:
        return not (
            self.participants
            or self.purpose
            or self.event_date
            or self.denied
            or self.representation_raw_answer
            or self.user_note
            or self.context_answer_raw
            or self.caption
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "participants": [{"name": p.name, "company": p.company} for p in self.participants],
            "purpose": self.purpose,
            "purpose_missing": self.purpose_missing,
            "event_date": self.event_date,
            "denied": self.denied,
            "representation_raw_answer": self.representation_raw_answer,
            "representation_answered_at": _iso(self.representation_answered_at),
            "user_note": self.user_note,
            "context_answer_raw": self.context_answer_raw,
            "context_answered_at": _iso(self.context_answered_at),
            "caption": self.caption,
            "caption_shown_to_agent": False,
        }


@dataclass(frozen=True, slots=True)
class KeyChange:
    key: str
    kind: str  # "added", "removed" or "changed"


@dataclass(frozen=True, slots=True)
class AnswerChange:
    """What an answer written by the app did to ``channel_context``."""

    changed_keys: tuple[KeyChange, ...]
    lines_before: tuple[str, ...]
    lines_after: tuple[str, ...]

    @property
    def before_text(self) -> str:
        return "\n".join(self.lines_before)

    @property
    def after_text(self) -> str:
        return "\n".join(self.lines_after)

    def to_json(self) -> dict[str, Any]:
        return {
            "changed_keys": [{"key": c.key, "change": c.kind} for c in self.changed_keys],
            "lines_before": list(self.lines_before),
            "lines_after": list(self.lines_after),
        }


@dataclass(frozen=True, slots=True)
class EventView:
    event_type: str
    label: str
    question_type: str
    question_label: str
    occurred_at: dt.datetime
    actor: str
    channel: str
    channel_label: str
    change: AnswerChange | None

    def to_json(self) -> dict[str, Any]:
        return {
            "event_type": self.event_type,
            "label": self.label,
            "question_type": self.question_type or None,
            "occurred_at": _iso(self.occurred_at),
            "actor": self.actor or None,
            "channel": self.channel,
            "change": self.change.to_json() if self.change else None,
        }


@dataclass(frozen=True, slots=True)
class StateBadge:
    key: str
    label: str


def state_label(key: str) -> str:
    return str(states.STATE_LABELS.get(key, key))


@dataclass(frozen=True, slots=True)
class ItemView:
    """Everything the item page and its API show about one item."""

    document_id: str | None
    summary: clarifications.Clarifications | None
    summary_json: dict[str, Any] | None
    problems: tuple[str, ...]
    states: tuple[str, ...]
    lines: tuple[str, ...]
    agent_view: tuple[str, ...]
    notes: str | None
    notes_explanation: str | None
    agent_explanation: str | None
    open_question: OpenQuestionView | None
    human: HumanSaid
    events: tuple[EventView, ...]
    channel_context: Any

    @property
    def state_badges(self) -> list[StateBadge]:
        return [StateBadge(key, state_label(key)) for key in self.states]

    @property
    def agent_view_text(self) -> str:
        """Exactly the characters the model receives, one line per list entry."""
        return "\n".join(self.agent_view)

    @property
    def raw_context_json(self) -> str:
        return json.dumps(self.channel_context, indent=2, ensure_ascii=False)

    def to_json(self, *, include_raw_context: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "summary": self.summary_json,
            "lines": list(self.lines),
            "agent_view": list(self.agent_view),
            "notes": self.notes,
            "problems": list(self.problems),
            "states": list(self.states),
            "notes_explanation": self.notes_explanation,
            "agent_explanation": self.agent_explanation,
            "open_question": self.open_question.to_json() if self.open_question else None,
            "human": self.human.to_json(),
            "events": [event.to_json() for event in self.events],
        }
        if include_raw_context:
            data["channel_context"] = self.channel_context
        return data


def _iso(moment: dt.datetime | None) -> str | None:
    """UTC ISO 8601 with a ``Z``, as the chat intake writes its timestamps."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _text(value: object) -> str | None:
    """A non-blank string as stored, else None."""
    return value if isinstance(value, str) and value.strip() else None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def page_queryset() -> QuerySet[InboxItem]:
    """Items with everything ``describe_item`` reads, in a fixed number of queries."""
    events = ClarificationEvent.objects.select_related("actor").order_by("occurred_at", "id")
    return InboxItem.objects.select_related("company").prefetch_related(Prefetch("events", queryset=events))


def document_id_of(item: InboxItem) -> str | None:
    """The document id as the agent is told it: the stored value as a string.

    A saved row's UUID prints in its canonical lower-case hyphenated form,
    which is what the bookkeeping application passes to the agent; an
    in-memory item may carry any string (the golden cases use ``doc-1``).
    """
    value = item.document_id
    return None if value is None else str(value)


def question_what(question_type: str | None) -> str:
    # An unknown type is asked as "what the purchase was for", as the prompt does.
    return str(QUESTION_WHAT.get(question_type or "", QUESTION_WHAT["context"]))


def channel_label(channel: object) -> str:
    if channel == "whatsapp":
        return "WhatsApp"
    if channel == "app":
        return str(ClarificationEvent.Channel.APP.label)
    return channel if isinstance(channel, str) and channel else "?"


def _open_question(
    summary: clarifications.Clarifications | None,
    ctx: object,
    lines: tuple[str, ...],
    events: list[ClarificationEvent],
) -> OpenQuestionView | None:
    question = summary.open_question if summary is not None else None
    if question is None or summary is None:
        return None
    asked_at = states.parse_iso(_dict(_dict(ctx).get("pending_question")).get("asked_at"))
    chat_keeps_until = asked_at + states.CHAT_WINDOW if asked_at is not None else None
    gave_up_at = None
    if question.status == "moved_to_app":
        gave_up_at = chat_keeps_until
        # The expire job's own record of when it moved the question wins over arithmetic.
        for event in events:
            if (
                event.event_type == ClarificationEvent.EXPIRED
                and event.question_type in ("", question.type)
                and (asked_at is None or event.occurred_at >= asked_at)
            ):
                gave_up_at = event.occurred_at
    prompt_line = next((line for line in lines if line.startswith(clarifications.phrases.OPEN_QUESTION_MARKER)), None)
    return OpenQuestionView(
        type=question.type,
        status=question.status,
        what=question_what(question.type),
        prompt_line=prompt_line,
        channel_label=channel_label(summary.channel),
        asked_at=asked_at,
        chat_keeps_until=chat_keeps_until if question.status == "open" else None,
        gave_up_at=gave_up_at,
    )


def _human_said(summary: clarifications.Clarifications | None, ctx: object) -> HumanSaid:
    record = _dict(ctx)
    rep = _dict(record.get("representation"))
    answer = _dict(record.get("context_answer"))
    representation = summary.representation if summary is not None else None
    participants = tuple(
        PersonView(name=p.name.strip(), company=_text(p.company))
        for p in (representation.participants if representation else ())
    )
    event_date = summary.event_date if summary is not None else None
    return HumanSaid(
        participants=participants,
        purpose=representation.purpose if representation else None,
        purpose_missing=bool(summary and summary.representation_purpose_missing),
        event_date=event_date if isinstance(event_date, str) and event_date else None,
        denied=bool(summary and summary.representation_denied),
        representation_raw_answer=_text(rep.get("raw_answer")),
        representation_answered_at=states.parse_iso(rep.get("answered_at")),
        user_note=summary.user_note if summary is not None else None,
        context_answer_raw=summary.context_answer_raw if summary is not None else None,
        context_answered_at=states.parse_iso(answer.get("answered_at")),
        caption=_text(record.get("caption")),
    )


def _notes_explanation(
    summary: clarifications.Clarifications | None, notes: str | None, problems: tuple[str, ...]
) -> str | None:
    """Why the verifikat gets no notes text, when it gets none."""
    if notes:
        return None
    if summary is None:
        return str(NOTES_EMPTY_MALFORMED if problems else NOTES_EMPTY_NO_ANSWERS)
    if summary.representation_denied:
        return str(NOTES_EMPTY_DENIED)
    if summary.open_question is not None and not (
        summary.representation or summary.user_note or summary.context_answer_raw
    ):
        return str(NOTES_EMPTY_OPEN_QUESTION)
    return str(NOTES_EMPTY_NOTHING_FOR_VOUCHER)


def _agent_explanation(
    summary: clarifications.Clarifications | None, notes: str | None, problems: tuple[str, ...]
) -> str | None:
    """Why the agent is told nothing beyond the extracted data, when it is not."""
    if summary is not None:
        return None
    if notes:
        return str(AGENT_CAPTION_ONLY)
    return str(AGENT_MALFORMED if problems else AGENT_NO_ANSWERS)


def lines_of(channel_context: object) -> tuple[str, ...]:
    summary = clarifications.analyse(channel_context).summary
    return tuple(clarifications.render_lines(summary)) if summary is not None else ()


def answer_change(payload: object) -> AnswerChange | None:
    """The before/after of an answer, from an event payload holding both.

    Only the app's answers carry ``{"before": ..., "after": ...}``; a chat
    answer's payload does not, and gets None.
    """
    data = _dict(payload)
    if "before" not in data or "after" not in data:
        return None
    before, after = data["before"], data["after"]
    old, new = _dict(before), _dict(after)
    changes = [
        KeyChange(key, "added" if key not in old else "changed") for key in new if old.get(key, _MISSING) != new[key]
    ]
    changes += [KeyChange(key, "removed") for key in old if key not in new]
    return AnswerChange(changed_keys=tuple(changes), lines_before=lines_of(before), lines_after=lines_of(after))


_MISSING: Final = object()


def _actor(event: ClarificationEvent) -> str:
    user = event.actor
    if user is not None:
        return user.get_full_name() or user.get_username()
    return event.actor_label


def _event_view(event: ClarificationEvent) -> EventView:
    change = answer_change(event.payload) if event.event_type == ClarificationEvent.ANSWERED else None
    return EventView(
        event_type=event.event_type,
        label=str(EVENT_LABELS.get(event.event_type, event.event_type)),
        question_type=event.question_type,
        question_label=str(states.QUESTION_TYPE_LABELS.get(event.question_type, event.question_type)),
        occurred_at=event.occurred_at,
        actor=_actor(event),
        channel=event.channel,
        channel_label=channel_label(event.channel),
        change=change,
    )


def describe_item(item: InboxItem, events: list[ClarificationEvent] | None = None) -> ItemView:
    """Build the item page's content from one item and its events.

    ``events`` defaults to ``item.events.all()``, which costs no query when
    the item came from ``page_queryset()``.
    """
    if events is None:
        events = list(item.events.all())
    ctx = item.channel_context
    document_id = document_id_of(item)
    # The five outputs come from render_case, so the page and the API show
    # exactly what `python -m clarifications` prints for this item; the
    # structured summary drives the rest of the page.
    case = clarifications.render_case(
        {"channel_context": ctx, "item": {"document_id": document_id, "extracted_data": item.extracted_data}}
    )
    analysis = clarifications.analyse(ctx)
    summary = analysis.summary
    lines = tuple(cast("list[str]", case["lines"]))
    notes = cast("str | None", case["notes"])
    problems = tuple(cast("list[str]", case["problems"]))
    found = states.states_of(analysis)
    return ItemView(
        document_id=document_id,
        summary=summary,
        summary_json=cast("dict[str, Any] | None", case["summary"]),
        problems=problems,
        states=tuple(key for key in states.STATE_KEYS if key in found),
        lines=lines,
        agent_view=tuple(cast("list[str]", case["agent_view"])),
        notes=notes,
        notes_explanation=_notes_explanation(summary, notes, problems),
        agent_explanation=_agent_explanation(summary, notes, problems),
        open_question=_open_question(summary, ctx, lines, events),
        human=_human_said(summary, ctx),
        events=tuple(_event_view(event) for event in events),
        channel_context=ctx,
    )


_IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def document_kind(item: InboxItem) -> str | None:
    """How the page shows the receipt file: ``image``, ``pdf``, ``file`` or None.

    Decided from the name so the page never opens the file; the file view
    checks the bytes and refuses to show anything but an image or a PDF inline.
    """
    name = item.document_file.name if item.document_file else ""
    if not name:
        return None
    lower = name.lower()
    if lower.endswith(_IMAGE_SUFFIXES):
        return "image"
    if lower.endswith(".pdf"):
        return "pdf"
    return "file"


def item_json(item: InboxItem, *, include_raw_context: bool) -> dict[str, Any]:
    """``GET /api/items/<id>``: the item's header and the page's content."""
    view = describe_item(item)
    return {
        "id": str(item.id),
        "company": {"id": str(item.company_id), "name": item.company.name},
        "source": item.source,
        "status": item.status,
        "received_at": _iso(item.created_at),
        "document_id": view.document_id,
        "has_document_file": bool(item.document_file),
        "supplier": item.supplier_name,
        "total": item.total,
        "vat_amount": item.vat_amount,
        "currency": item.currency,
        "invoice_date": item.invoice_date,
        **view.to_json(include_raw_context=include_raw_context),
    }
