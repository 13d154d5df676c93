"""Building the ``ItemView`` from an item and its history, and the item's API JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import storages
from django.db.models import OuterRef, Subquery

import clarifications
from clarifications.model import new_analysis
from reviewapp.answers.log import app_answers
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, InboxItemQuerySet, WhatsappMessage
from reviewapp.core import states
from reviewapp.core.rendering_caps import (
    AGENT_VIEW_MAX_CHARS,
    HUMAN_TEXT_MAX_CHARS,
    LINES_MAX_CHARS,
    PARTICIPANTS_MAX,
    PERSON_TEXT_MAX_CHARS,
    PROBLEM_MAX_CHARS,
    PROBLEMS_MAX,
    RENDERED_VALUE_MAX_CHARS,
    SHORT_TEXT_MAX_CHARS,
    capped_json,
)
from reviewapp.core.stored_json import Undecodable
from reviewapp.inbox import holds
from reviewapp.items import notes
from reviewapp.items.caps import Cuts, shrink_json, with_cuts
from reviewapp.items.history import chat_ask, corrections, item_history
from reviewapp.items.item_view import (
    EventView,
    HeaderView,
    HumanSaid,
    ItemIds,
    ItemQuestion,
    ItemView,
    PersonView,
    UnreadableColumn,
)
from reviewapp.items.labels import (
    agent_explanation,
    channel_label,
    notes_explanation,
    question_what,
)
from reviewapp.items.links import ItemLinks, item_links
from reviewapp.items.raw_answers import raw_pieces
from reviewapp.items.transcript import MessageView, item_transcript, photo_wamid
from reviewapp.models import ClarificationEvent, IndexedItem


def _text(value: object) -> str | None:
    """A non-blank string as stored, else None."""
    return value if isinstance(value, str) and value.strip() else None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def page_queryset() -> InboxItemQuerySet:
    """The live rows with what the page shows beside them: the company, the document and the photo's wamid."""
    # The document's extraction mirror (a copy of a read result, possibly large) is not shown: not read.
    return (
        InboxItem.objects.select_related("company", "document")
        .defer("document__extracted_data")
        .annotate(
            photo_message_wamid=Subquery(
                WhatsappMessage.objects.filter(pk=OuterRef("whatsapp_message_id")).values("wamid")[:1]
            )
        )
    )


def document_id_of(item: InboxItem) -> str | None:
    """The document id as the agent is told it: the stored value as a string.

    A saved row's UUID prints in its canonical lower-case hyphenated form,
    which is what the bookkeeping application passes to the agent; an
    in-memory item may carry any string (the golden cases use ``doc-1``).
    """
    value = item.document_id
    return None if value is None else str(value)


def unreadable_columns(item: InboxItem) -> tuple[UnreadableColumn, ...]:
    """The row's JSON columns Python cannot decode, with why and how large they are."""
    return tuple(
        UnreadableColumn(column=name, reason=value.reason, size=value.size)
        for name, value in (("channel_context", item.channel_context), ("extracted_data", item.extracted_data))
        if isinstance(value, Undecodable)
    )


def _open_question(
    summary: clarifications.Clarifications | None,
    ctx: object,
    lines: tuple[str, ...],
    events: Sequence[EventView],
) -> ItemQuestion | None:
    question = summary.open_question if summary is not None else None
    if question is None or summary is None:
        return None
    asked_at = states.parse_iso(_dict(_dict(ctx).get("pending_question")).get("asked_at"))
    chat_keeps_until = asked_at + states.CHAT_WINDOW if asked_at is not None else None
    # Whether the customer was ever asked, and when the app took over, from accounted's own events.
    ask = chat_ask(ctx, events) if question.status == "moved_to_app" else None
    asked_in_chat = ask is None or ask.asked_in_chat
    gave_up_at = ask.moved_at if ask is not None else None
    if ask is not None and ask.asked_at is not None:
        asked_at = ask.asked_at
    prompt_line = next((line for line in lines if line.startswith(clarifications.phrases.OPEN_QUESTION_MARKER)), None)
    # The type and channel are stored strings (an unknown one is shown as stored).
    cuts = Cuts()
    return ItemQuestion(
        type=cuts.text("type", question.type, max_chars=SHORT_TEXT_MAX_CHARS),
        status=question.status,
        what=question_what(question.type),
        prompt_line=cuts.text("prompt_line", prompt_line, max_chars=SHORT_TEXT_MAX_CHARS),
        channel_label=cuts.required("channel", channel_label(summary.channel), max_chars=SHORT_TEXT_MAX_CHARS),
        asked_at=asked_at if asked_in_chat else None,
        chat_keeps_until=chat_keeps_until if question.status == "open" else None,
        gave_up_at=gave_up_at,
        asked_in_chat=asked_in_chat,
        cut=cuts.original,
    )


def _person(participant: clarifications.Participant) -> PersonView:
    cuts = Cuts()
    return PersonView(
        name=cuts.required("name", participant.name.strip(), max_chars=PERSON_TEXT_MAX_CHARS),
        company=cuts.text("company", _text(participant.company), max_chars=PERSON_TEXT_MAX_CHARS),
        cut=cuts.original,
    )


def _human_said(
    summary: clarifications.Clarifications | None, ctx: object, log: Sequence[ClarificationEvent] = ()
) -> HumanSaid:
    """What the human said, each text cut to ``HUMAN_TEXT_MAX_CHARS``, at most ``PARTICIPANTS_MAX`` participants.

    ``log``: the app's answers to the item (oldest first), which tell the
    customer's words from the firm's text in each ``raw_answer``.
    """
    record = _dict(ctx)
    rep = _dict(record.get("representation"))
    answer = _dict(record.get("context_answer"))
    representation = summary.representation if summary is not None else None
    cuts = Cuts()
    people = cuts.entries(
        "participants", representation.participants if representation else (), max_entries=PARTICIPANTS_MAX
    )
    event_date = summary.event_date if summary is not None else None

    def said(name: str, value: str | None) -> str | None:
        return cuts.text(name, value or None, max_chars=HUMAN_TEXT_MAX_CHARS)

    return HumanSaid(
        participants=tuple(_person(p) for p in people),
        purpose=said("purpose", representation.purpose if representation else None),
        purpose_missing=bool(summary and summary.representation_purpose_missing),
        event_date=said("event_date", event_date if isinstance(event_date, str) else None),
        denied=bool(summary and summary.representation_denied),
        representation_raw_answer=said("representation_raw_answer", _text(rep.get("raw_answer"))),
        representation_answered_at=states.parse_iso(rep.get("answered_at")),
        user_note=said("user_note", summary.user_note if summary is not None else None),
        context_answer_raw=said("context_answer_raw", summary.context_answer_raw if summary is not None else None),
        context_answered_at=states.parse_iso(answer.get("answered_at")),
        caption=said("caption", _text(record.get("caption"))),
        cut=cuts.original,
        representation_raw_pieces=raw_pieces(ctx, "representation", log),
        context_answer_raw_pieces=raw_pieces(ctx, "context", log),
    )


def _state_keys(item: InboxItem) -> tuple[str, ...]:
    found = states.compute(item.channel_context, item.extracted_data, booked=item.is_booked).states
    return tuple(key for key in states.STATE_KEYS if key in found)


def _rendered_state_keys(item: InboxItem, rendered: clarifications.RenderedItem) -> tuple[str, ...]:
    """``_state_keys`` of a readable row from its rendering: ``states.compute`` also builds the
    search text, lower-casing every stored text whole (1.7 s of a 26 MB note's page)."""
    analysis = new_analysis(rendered.summary, rendered.context_problems)
    found = states.states_of(analysis, booked=item.is_booked)
    return tuple(key for key in states.STATE_KEYS if key in found)


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def item_ids(item: InboxItem, *, wamid: str | None = None) -> ItemIds:
    cuts = Cuts()
    return ItemIds(
        item_id=str(item.pk),
        document_id=cuts.text("document_id", document_id_of(item), max_chars=SHORT_TEXT_MAX_CHARS),
        correlation_id=_str(item.correlation_id),
        whatsapp_message_id=_str(item.whatsapp_message_id),
        photo_wamid=cuts.text("photo_wamid", wamid, max_chars=SHORT_TEXT_MAX_CHARS),
        cut=cuts.original,
    )


def _header(item: InboxItem, document: DocumentAttachment | None) -> HeaderView:
    cuts = Cuts()

    def short(name: str, value: str | None) -> str | None:
        return cuts.text(name, value, max_chars=SHORT_TEXT_MAX_CHARS)

    return HeaderView(
        supplier=short("supplier", item.supplier_name),
        company_name=short("company", item.company.name) or "",
        currency=short("currency", item.currency) or "",
        invoice_date=short("invoice_date", item.invoice_date),
        source=short("source", item.source) or "",
        status=short("status", item.status) or "",
        file_name=short("file_name", document.file_name) if document else None,
        mime_type=short("mime_type", document.mime_type) if document else None,
        cut=cuts.original,
    )


def _document(item: InboxItem, *, pure: bool) -> DocumentAttachment | None:
    """The item's document row; a pure render reads only one already loaded (``page_queryset``)."""
    if item.document_id is None:
        return None
    if pure and not InboxItem.document.is_cached(item):
        return None
    return item.document


@dataclass(frozen=True, slots=True)
class _Related:
    """What the page shows beside the row, read from both databases (or nothing, for a pure render)."""

    events: tuple[EventView, ...]
    ids: ItemIds
    messages: tuple[MessageView, ...] = ()
    full_conversation: bool = False
    links: ItemLinks = field(default_factory=ItemLinks)
    app_log: tuple[ClarificationEvent, ...] = ()


def _related(
    item: InboxItem,
    events: Sequence[EventView] | None,
    full_conversation: bool,
    user: Any,
    app_log: Sequence[ClarificationEvent] | None,
) -> _Related:
    if events is not None:
        return _Related(
            events=tuple(events), ids=item_ids(item), full_conversation=full_conversation, app_log=tuple(app_log or ())
        )
    messages = item_transcript(item, full=full_conversation)
    return _Related(
        events=tuple(item_history(item, messages=messages)),
        ids=item_ids(item, wamid=photo_wamid(item)),
        messages=messages,
        full_conversation=full_conversation,
        links=item_links(item.pk, user),
        app_log=tuple(app_answers(item.pk) if app_log is None else app_log),
    )


def _unreadable_view(
    item: InboxItem, unreadable: tuple[UnreadableColumn, ...], related: _Related, header: HeaderView
) -> ItemView:
    """A row whose JSON cannot be decoded: no rendering, only why."""
    return ItemView(
        document_id=document_id_of(item),
        booked=item.is_booked,
        unreadable=unreadable,
        summary=None,
        summary_json=None,
        problems=(),
        states=_state_keys(item),
        lines=None,
        agent_view=None,
        notes=None,
        notes_explanation=None,
        agent_explanation=None,
        open_question=None,
        human=None,
        events=related.events,
        corrections=corrections(related.app_log),
        channel_context=item.channel_context,
        ids=related.ids,
        messages=related.messages,
        full_conversation=related.full_conversation,
        links=related.links,
        header=header,
    )


def describe_item(
    item: InboxItem,
    events: Sequence[EventView] | None = None,
    *,
    full_conversation: bool = False,
    user: Any = None,
    app_log: Sequence[ClarificationEvent] | None = None,
) -> ItemView:
    """Build the item page's content from one live row, its history, conversation and links.

    ``events`` defaults to the item's merged history (``item_history``) and
    brings the conversation and the linked items with it; pass a list (even
    empty) to render without touching the databases (no conversation, no
    links). ``full_conversation``: the whole transcript (Support and QA),
    else only the customer's replies. ``user``: leave out linked items of
    companies this user may not see (the caller has checked the item itself).
    ``app_log``: the app's answers to the item, oldest first, when the caller
    has them already (read otherwise; none for a render without databases,
    where every stored ``raw_answer`` is labelled the chat's).

    Every stored text is cut to its cap (``reviewapp.core.rendering_caps``) and
    each view part says what was cut (``cut``). The agent view and the
    prompt lines are only cut when together they pass
    ``AGENT_VIEW_MAX_CHARS`` / ``LINES_MAX_CHARS``: up to there they are
    exactly what the model receives.
    """
    related = _related(item, events, full_conversation, user, app_log)
    events = related.events
    header = _header(item, _document(item, pure=events is not None))
    unreadable = unreadable_columns(item)
    if unreadable:
        return _unreadable_view(item, unreadable, related, header)
    ctx = item.channel_context
    document_id = document_id_of(item)
    # The outputs are render_case's (what `python -m clarifications` prints
    # for this item), rendered once for the page and its answer panel, with
    # each value of the prompt lines bounded (``rendered_outputs``).
    rendered = rendered_outputs(item)
    summary = rendered.summary
    lines = tuple(rendered.lines)
    notes = rendered.notes
    problems = tuple(rendered.problems)
    cuts = Cuts()
    summary_json, summary_cut = shrink_json(rendered.summary_json)
    if summary_cut:
        cuts.original["summary"] = _json_chars(rendered.summary_json)
    shown_lines = cuts.lines("lines", lines, max_chars=LINES_MAX_CHARS)
    agent_view = cuts.lines("agent_view", rendered.agent_view, max_chars=AGENT_VIEW_MAX_CHARS)
    if not rendered.whole:
        # A value was too long to render whole: what is shown is the exact
        # start of the outputs, and the lengths are bounds (the page says so).
        cuts.original["lines"] = rendered.lines_most_chars
        cuts.original["agent_view"] = rendered.agent_view_most_chars
    return ItemView(
        document_id=document_id,
        booked=item.is_booked,
        unreadable=(),
        summary=summary,
        summary_json=cast("dict[str, Any] | None", summary_json),
        problems=tuple(
            cuts.required(f"problems[{index}]", problem, max_chars=PROBLEM_MAX_CHARS)
            for index, problem in enumerate(cuts.entries("problems", problems, max_entries=PROBLEMS_MAX))
        ),
        states=_rendered_state_keys(item, rendered),
        lines=shown_lines,
        agent_view=agent_view,
        notes=notes,
        notes_explanation=notes_explanation(summary, notes, problems),
        agent_explanation=agent_explanation(summary, notes, problems),
        open_question=_open_question(summary, ctx, lines, events),
        human=_human_said(summary, ctx, related.app_log),
        events=related.events,
        corrections=corrections(related.app_log),
        channel_context=ctx,
        ids=related.ids,
        messages=related.messages,
        full_conversation=related.full_conversation,
        links=related.links,
        header=header,
        cut=cuts.original,
        rendered_whole=rendered.whole,
    )


_RENDERED: Final = "_rendered_outputs"


def rendered_outputs(item: InboxItem, ctx: object | None = None) -> clarifications.RenderedItem:
    """The outputs of ``ctx`` (the item's own ``channel_context`` by default) for this item, in bounded time.

    Each value of the prompt lines is rendered to at most
    ``RENDERED_VALUE_MAX_CHARS`` characters (more than the page ever shows of
    the lines), so a 26 MB note costs what a 2 MB one does, and whatever
    fits is exactly the reference's output. The rendering of the item's own
    context is kept on the item, so the page and its answer panel
    (``answers.view_models.preview.outputs``) render it once. Unreadable JSON
    reads as none.
    """
    own = ctx is None or ctx is item.channel_context
    context = item.channel_context if own else ctx
    data = item.extracted_data
    kept = getattr(item, _RENDERED, None) if own else None
    if kept is not None and kept[0] is context and kept[1] is data:
        return cast("clarifications.RenderedItem", kept[2])
    rendered = clarifications.render_item(
        None if isinstance(context, Undecodable) else context,
        document_id_of(item),
        None if isinstance(data, Undecodable) else data,
        max_value_chars=RENDERED_VALUE_MAX_CHARS,
    )
    if own:
        setattr(item, _RENDERED, (context, data, rendered))
    return rendered


def _json_chars(value: object) -> int:
    """The length of ``value``'s JSON as the API counts it (``capped_json`` with no indenting), in C where it can."""
    try:
        return len(json.dumps(value, ensure_ascii=False))
    except ValueError:  # an integer past Python's digit limit: the slow writer spells it
        return capped_json(value, max_chars=0, max_depth=0).original_chars


_IMAGE_TYPES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")
_IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def document_kind(document: DocumentAttachment | None) -> str | None:
    """How the page shows the receipt file: ``image``, ``pdf``, ``file`` or None.

    Decided from the stored mime type and name so the page never opens the
    file; the file view checks the bytes and refuses to show anything but an
    image or a PDF inline.
    """
    if document is None:
        return None
    mime = (document.mime_type or "").split(";")[0].strip().lower()
    name = document.file_name.lower()
    if mime in _IMAGE_TYPES or (not mime and name.endswith(_IMAGE_SUFFIXES)):
        return "image"
    if mime == "application/pdf" or (not mime and name.endswith(".pdf")):
        return "pdf"
    return "file"


MISSING: Final = "missing"


def shown_receipt_kind(document: DocumentAttachment | None) -> str | None:
    """``document_kind``, or ``"missing"`` when the row is there but its file is not in the documents storage.

    The page then says so with the document's id instead of an ``<img>`` whose
    request ends in a 404 (a broken image and a console error). One existence
    check (a ``stat`` on the file system, a HEAD on a bucket) per page.
    """
    kind = document_kind(document)
    if document is None or kind is None:
        return kind
    try:
        present = storages["documents"].exists(document.storage_path)
    except (SuspiciousFileOperation, OSError, ValueError):  # as the file view: a key it could never open
        present = False
    return kind if present else MISSING


def document_json(document: DocumentAttachment | None, header: HeaderView) -> dict[str, Any] | None:
    """The document's facts, its file name and type as ``header`` cut them."""
    if document is None:
        return None
    return with_cuts(
        {
            "id": str(document.pk),
            "file_name": header.file_name,
            "mime_type": header.mime_type,
            "size_bytes": document.file_size_bytes,
        },
        {key: header.cut[key] for key in ("file_name", "mime_type") if key in header.cut},
    )


def item_json(
    item: InboxItem, *, include_raw_context: bool, full_conversation: bool = False, user: Any = None
) -> dict[str, Any]:
    """``GET /api/items/<id>``: the item's header and the page's content.

    Every stored text is cut to its cap; an object with a cut field says so
    in ``"truncated"`` (field: length before). The raw ``channel_context``
    past ``RAW_JSON_MAX_CHARS`` is replaced by ``{"truncated": true,
    "original_chars": n, "download": url}``.
    """
    view = describe_item(item, full_conversation=full_conversation, user=user)
    indexed = IndexedItem.objects.filter(pk=item.pk).first()
    header = view.header or _header(item, item.document)
    view_json = view.to_json(include_raw_context=include_raw_context)
    cut: dict[str, int] = {
        key: header.cut[key]
        for key in ("supplier", "currency", "invoice_date", "source", "status")
        if key in header.cut
    }
    cut.update(view_json.pop("truncated", {}))
    company = with_cuts(
        {"id": str(item.company_id), "name": header.company_name},
        {"name": header.cut["company"]} if "company" in header.cut else {},
    )
    return with_cuts(
        {
            "id": str(item.id),
            "company": company,
            "source": header.source,
            "status": header.status,
            "received_at": states.to_iso(item.created_at),
            "document_id": view.document_id,
            "document": document_json(item.document, header),
            "supplier": header.supplier,
            "total": item.total,
            "vat_amount": item.vat_amount,
            "currency": header.currency,
            "invoice_date": header.invoice_date,
            **view_json,
            # The team's own: an active hold (null when none) and colleagues' notes, oldest first
            # ("notes" is taken: the library's notes line for the agent).
            "hold": holds.hold_json(holds.active_hold(indexed) if indexed is not None else None),
            "team_notes": [notes.note_json(note) for note in notes.notes_of(item.pk)],
        },
        cut,
    )
