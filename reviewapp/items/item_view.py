"""``ItemView`` and its parts: what the item page and ``GET /api/items/<id>`` show, and its JSON."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _

import clarifications
from reviewapp.core.rendering_caps import RAW_JSON_MAX_CHARS, CappedText, capped_json
from reviewapp.core.states import to_iso
from reviewapp.core.stored_json import Undecodable
from reviewapp.items.caps import with_cuts
from reviewapp.items.labels import actor_type_label, state_label
from reviewapp.items.links import ItemLinks
from reviewapp.items.transcript import MessageView


@dataclass(frozen=True, slots=True)
class ItemQuestion:
    """The one unanswered question and who owns it now.

    ``open``: the chat still waits until ``chat_keeps_until``.
    ``moved_to_app``: the app owns it since ``gave_up_at``: after the chat
    asked it at ``asked_at`` and had no reply within 48 h, or, when
    ``asked_in_chat`` is False, straight away without asking (over the chat's
    question budget; ``asked_at`` is then None).
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
    asked_in_chat: bool = True
    cut: dict[str, int] = field(default_factory=dict)

    @property
    def owned_by_app(self) -> bool:
        return self.status == "moved_to_app"

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "type": self.type,
                "status": self.status,
                "what": self.what,
                "owner": "app" if self.owned_by_app else "chat",
                "channel": self.channel_label,
                "prompt_line": self.prompt_line,
                "asked_at": to_iso(self.asked_at),
                "chat_keeps_until": to_iso(self.chat_keeps_until),
                "gave_up_at": to_iso(self.gave_up_at),
                "asked_in_chat": self.asked_in_chat,
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class PersonView:
    name: str
    company: str | None
    cut: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return with_cuts({"name": self.name, "company": self.company}, self.cut)


@dataclass(frozen=True, slots=True)
class RawPieceView:
    """One piece of a stored ``raw_answer``, labelled by who wrote it (``reviewapp.answers.evidence``).

    ``customer_words``: the piece is the customer's own words (quoted on the
    page); else the firm's text the app composed. ``original_chars``: the
    piece's length before it was cut, when it was.
    """

    text: str
    source: str
    label: str
    customer_words: bool
    original_chars: int | None = None

    def to_json(self) -> dict[str, Any]:
        cut = {"text": self.original_chars} if self.original_chars is not None else {}
        return with_cuts({"text": self.text, "source": self.source}, cut)


@dataclass(frozen=True, slots=True)
class HumanSaid:
    """What the human actually said, read from the record as stored.

    ``participants``, ``purpose`` and ``event_date`` are the summary's (what
    the prompt is built from); the raw answers and times come straight from
    ``channel_context``, and each raw answer again in pieces labelled by who
    wrote them (``*_raw_pieces``: the customer's words, or the firm's text).
    ``caption`` is never shown to the agent.
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
    cut: dict[str, int] = field(default_factory=dict)
    representation_raw_pieces: tuple[RawPieceView, ...] = ()
    context_answer_raw_pieces: tuple[RawPieceView, ...] = ()

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
        return with_cuts(
            {
                "participants": [person.to_json() for person in self.participants],
                "purpose": self.purpose,
                "purpose_missing": self.purpose_missing,
                "event_date": self.event_date,
                "denied": self.denied,
                "representation_raw_answer": self.representation_raw_answer,
                "representation_raw_answer_pieces": [piece.to_json() for piece in self.representation_raw_pieces],
                "representation_answered_at": to_iso(self.representation_answered_at),
                "user_note": self.user_note,
                "context_answer_raw": self.context_answer_raw,
                "context_answer_raw_pieces": [piece.to_json() for piece in self.context_answer_raw_pieces],
                "context_answered_at": to_iso(self.context_answered_at),
                "caption": self.caption,
                "caption_shown_to_agent": False,
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class KeyChange:
    key: str
    kind: str  # "added", "removed" or "changed"
    cut: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return with_cuts({"key": self.key, "change": self.kind}, self.cut)


@dataclass(frozen=True, slots=True)
class CorrectionView:
    """One earlier version of an answer that a correction (or the context fix) replaced, from the app's log.

    ``replaced``: the version as it was (summary and its stored raw_answer),
    ``lines``: what the agent read then; ``written_at``/``written_by``: the
    app answer that wrote it (None when it came from outside the app);
    ``corrected_at``/``corrected_by``/``reason``: what replaced it, and why.
    """

    question: str
    question_label: str
    replaced_summary: str
    replaced_raw: str | None
    lines: tuple[str, ...]
    written_at: dt.datetime | None
    written_by: str
    corrected_at: dt.datetime
    corrected_by: str
    reason: str

    @property
    def lines_text(self) -> str:
        return "\n".join(self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "replaced": {"summary": self.replaced_summary, "raw_answer": self.replaced_raw},
            "lines": list(self.lines),
            "written_at": self.written_at.isoformat() if self.written_at else None,
            "written_by": self.written_by,
            "corrected_at": self.corrected_at.isoformat(),
            "corrected_by": self.corrected_by,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class AnswerChange:
    """What an answer written by the app did to ``channel_context``."""

    changed_keys: tuple[KeyChange, ...]
    lines_before: tuple[str, ...]
    lines_after: tuple[str, ...]
    cut: dict[str, int] = field(default_factory=dict)

    @property
    def before_text(self) -> str:
        return "\n".join(self.lines_before)

    @property
    def after_text(self) -> str:
        return "\n".join(self.lines_after)

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "changed_keys": [change.to_json() for change in self.changed_keys],
                "lines_before": list(self.lines_before),
                "lines_after": list(self.lines_after),
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class EventView:
    """One entry of the item's history: accounted's ``processing_history``, the app's own log or the chat.

    ``source`` is ``accounted``, ``app``, ``chat`` (a message of the
    conversation) or ``record`` (read from the item's channel_context where
    no event records it: a question moved to the app without being asked);
    an app answer that accounted's log records too is shown once, as the
    app's (it has the before/after), with ``also_in_accounted``.
    ``about_document``: accounted's event is about the item's document
    (aggregate ``Document``), not the item itself.
    """

    event_type: str
    label: str
    question_type: str
    question_label: str
    occurred_at: dt.datetime
    actor: str
    actor_type: str
    channel: str
    channel_label: str
    change: AnswerChange | None
    source: str
    also_in_accounted: bool = False
    about_document: bool = False
    detail: str = ""
    cut: dict[str, int] = field(default_factory=dict)
    # accounted's row (its event_id), or the one an app log entry says it wrote: how the two logs' twins are paired.
    event_id: str = ""

    @property
    def css_class(self) -> str:
        return "event-" + slugify(self.event_type)

    @property
    def actor_type_text(self) -> str:
        """The actor's kind in the page's language ("kund" for ``customer``); the API keeps ``actor_type``."""
        return actor_type_label(self.actor_type)

    @property
    def source_text(self) -> str:
        """Which log the entry comes from, in words."""
        if self.source == "app":
            return _("this app's log and accounted's") if self.also_in_accounted else _("this app's log")
        if self.source == "record":
            # Made from the item's channel_context: no event of accounted's records it.
            return _("accounted's channel_context")
        return _("the WhatsApp chat") if self.source == "chat" else _("accounted's log")

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "event_type": self.event_type,
                "label": self.label,
                "question_type": self.question_type or None,
                "detail": self.detail or None,
                "occurred_at": to_iso(self.occurred_at),
                "actor": self.actor or None,
                "actor_type": self.actor_type or None,
                "channel": self.channel or None,
                "source": self.source,
                "about_document": self.about_document,
                "also_in_accounted": self.also_in_accounted,
                "change": self.change.to_json() if self.change else None,
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class UnreadableColumn:
    """A JSON column of the row that Python cannot decode (see ``bookkeeping.models.Undecodable``)."""

    column: str
    reason: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"column": self.column, "reason": self.reason, "size": self.size}


@dataclass(frozen=True, slots=True)
class StateBadge:
    key: str
    label: str


@dataclass(frozen=True, slots=True)
class ItemIds:
    """The ids support is asked about, each findable in the list's search by itself.

    ``photo_wamid``: WhatsApp's own id of the photo message the item was made from.
    """

    item_id: str
    document_id: str | None
    correlation_id: str | None
    whatsapp_message_id: str | None
    photo_wamid: str | None
    cut: dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> list[tuple[str, str, str | None]]:
        """(key, label, value) for each id, in the order the page lists them."""
        return [
            ("item", _("Item id"), self.item_id),
            ("document", _("Document id"), self.document_id),
            ("correlation", _("Correlation id"), self.correlation_id),
            ("whatsapp-message", _("WhatsApp message id"), self.whatsapp_message_id),
            ("photo-wamid", _("WhatsApp wamid of the photo"), self.photo_wamid),
        ]

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "item": self.item_id,
                "document": self.document_id,
                "correlation": self.correlation_id,
                "whatsapp_message": self.whatsapp_message_id,
                "photo_wamid": self.photo_wamid,
            },
            self.cut,
        )


@dataclass(frozen=True, slots=True)
class HeaderView:
    """The short facts at the top of the page, each cut to ``SHORT_TEXT_MAX_CHARS``.

    ``currency`` is the stored one or SEK; ``file_name`` and ``mime_type``
    are the document's, None without one.
    """

    supplier: str | None
    company_name: str
    currency: str
    invoice_date: str | None
    source: str
    status: str
    file_name: str | None = None
    mime_type: str | None = None
    cut: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ItemView:
    """Everything the item page and its API show about one item.

    A row with ``unreadable`` columns has no rendering at all (``lines``,
    ``agent_view`` and ``notes`` are None): what the agent is told cannot be
    known without the stored JSON.
    """

    document_id: str | None
    booked: bool
    unreadable: tuple[UnreadableColumn, ...]
    summary: clarifications.Clarifications | None
    summary_json: dict[str, Any] | None
    problems: tuple[str, ...]
    states: tuple[str, ...]
    lines: tuple[str, ...] | None
    agent_view: tuple[str, ...] | None
    notes: str | None
    notes_explanation: str | None
    agent_explanation: str | None
    open_question: ItemQuestion | None
    human: HumanSaid | None
    events: tuple[EventView, ...]
    channel_context: Any
    ids: ItemIds | None = None
    # The conversation the reader may see: the whole transcript for Support
    # and QA (``full_conversation``), the customer's replies for the others.
    messages: tuple[MessageView, ...] = ()
    full_conversation: bool = False
    links: ItemLinks = field(default_factory=ItemLinks)
    header: HeaderView | None = None
    # Every earlier version of an answer the app corrected, oldest first (``history.corrections``).
    corrections: tuple[CorrectionView, ...] = ()
    # The fields of this object cut to their caps: lines, agent_view,
    # problems (entries), problems[i], summary (see ``reviewapp.items.caps``).
    cut: dict[str, int] = field(default_factory=dict)
    # False when a stored value was too long to render whole: the lines and
    # agent view shown are the exact start of the outputs, and their lengths
    # in ``cut`` are upper bounds (``reviewapp.items.describe.rendered_outputs``).
    rendered_whole: bool = True

    @property
    def readable(self) -> bool:
        return not self.unreadable

    @property
    def malformed_reason(self) -> str | None:
        """Why the row is malformed, as the list's read model says it: unreadable JSON, else the problems."""
        if self.unreadable:
            return "; ".join(f"{u.column}: {u.reason}" for u in self.unreadable)
        return "; ".join(self.problems) or None

    @property
    def problem_rows(self) -> list[tuple[str, int]]:
        """Each problem with its length before it was cut (0: not cut)."""
        return [(problem, self.cut.get(f"problems[{index}]", 0)) for index, problem in enumerate(self.problems)]

    @property
    def state_badges(self) -> list[StateBadge]:
        return [StateBadge(key, state_label(key)) for key in self.states]

    @property
    def agent_view_text(self) -> str:
        """Exactly the characters the model receives, one line per list entry (up to ``AGENT_VIEW_MAX_CHARS``)."""
        return "\n".join(self.agent_view or ())

    @property
    def raw_context(self) -> CappedText:
        """The stored channel_context as indented JSON, indented to a fixed depth and cut at ``RAW_JSON_MAX_CHARS``."""
        return capped_json(self.channel_context, max_chars=RAW_JSON_MAX_CHARS)

    def _raw_context_json(self) -> Any:
        """The API's ``channel_context``: the value itself, or where to download it when it is too long."""
        if isinstance(self.channel_context, Undecodable):
            return None  # it cannot be shown; "unreadable" says why
        size = capped_json(self.channel_context, max_chars=RAW_JSON_MAX_CHARS, max_depth=0)
        if not size.truncated:
            return self.channel_context
        download = reverse("item_raw", args=[self.ids.item_id, "channel_context"]) if self.ids else None
        return {"truncated": True, "original_chars": size.original_chars, "download": download}

    def to_json(self, *, include_raw_context: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "booked": self.booked,
            "malformed": self.malformed_reason,
            "unreadable": [column.to_json() for column in self.unreadable],
            "summary": self.summary_json,
            "lines": None if self.lines is None else list(self.lines),
            "agent_view": None if self.agent_view is None else list(self.agent_view),
            "notes": self.notes,
            "problems": list(self.problems),
            "states": list(self.states),
            "notes_explanation": self.notes_explanation,
            "agent_explanation": self.agent_explanation,
            "open_question": self.open_question.to_json() if self.open_question else None,
            "human": self.human.to_json() if self.human else None,
            "events": [event.to_json() for event in self.events],
            "corrections": [correction.to_json() for correction in self.corrections],
            "ids": self.ids.to_json() if self.ids else None,
            "conversation": {
                "scope": "all" if self.full_conversation else "replies",
                "messages": [message.to_json() for message in self.messages],
            },
            "replaced_by": self.links.replaced_by.to_json() if self.links.replaced_by else None,
            "replaces": [link.to_json() for link in self.links.replaces],
        }
        if include_raw_context:
            data["channel_context"] = self._raw_context_json()
        if not self.rendered_whole:
            data["rendered_whole"] = False
        return with_cuts(data, self.cut)
