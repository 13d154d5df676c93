"""Building the ``ItemView`` from an item and its events, and the item's API JSON."""

from __future__ import annotations

from typing import Any, Final, cast

from django.db.models import Prefetch, QuerySet

import clarifications
from reviewapp import states
from reviewapp.items.item_view import (
    AnswerChange,
    EventView,
    HumanSaid,
    ItemView,
    KeyChange,
    OpenQuestionView,
    PersonView,
    _iso,
)
from reviewapp.items.labels import (
    EVENT_LABELS,
    _agent_explanation,
    _notes_explanation,
    channel_label,
    question_what,
)
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent


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
