"""What the answer panel shows: the form, its preview, a denial to confirm, the app's answer to correct.

``answer_panel`` builds the ``AnswerPanel`` that ``items/_answer_panel.html``
shows, for the item page and the answer views alike. It reads the live item
and the app's own log: an answer the item still holds as the app wrote it
can be corrected here; one another program replaced is shown with both
versions. Showing the form to answer reserves the item for the person it is
shown to (``reviewapp.inbox.reservations``), and says so when someone else holds it;
nothing stops either from saving.

The panel's ``mode`` says which of these it is: ``answer``, ``answered``
(the app's answer, with a form to correct it), ``confirm_deny``,
``conflict``, ``waiting`` (still open in the chat), ``booked``,
``unknown_type``, or None (nothing to show).

``preview_panel`` is the panel of the live preview (what is typed, rendered;
nothing saved; the rendering is ``view_models.preview``'s), and
``newer_items`` what a resend question's form offers as the replacing item.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.answers.channel_context import (
    answer_value,
    answer_version,
    chat_window_ends,
    pending_question,
    utc_stamp,
)
from reviewapp.answers.inputs import QUESTION_TYPES, RESEND
from reviewapp.answers.log import (
    AnswerText,
    ReplacedAnswer,
    answer_text,
    app_answer_in_place,
    app_answers,
    replaced_answer,
)
from reviewapp.answers.resend import Holder, ReplacementUnconfirmed
from reviewapp.answers.suggestions import Suggestion, suggestions_for
from reviewapp.answers.validation import MAX_PARTICIPANTS
from reviewapp.answers.writing import AnswerConflict
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.core import roles, states
from reviewapp.core.people import actor_name, person_name
from reviewapp.inbox import reservations
from reviewapp.items.describe import document_kind, shown_receipt_kind
from reviewapp.items.item_view import RawPieceView
from reviewapp.items.labels import channel_label
from reviewapp.items.links import ItemLinks, item_links
from reviewapp.items.raw_answers import raw_pieces
from reviewapp.models import ClarificationEvent, Reservation
from reviewapp.web.forms.answer import AnswerForm, answer_form
from reviewapp.web.view_models.preview import ErrorSlot, Preview, error_slots, outputs, preview_of

# How many of the company's newer items the resend form offers to pick from.
MAX_NEWER: Final = 10

Viewer = AbstractBaseUser | AnonymousUser


@dataclass(frozen=True, slots=True)
class AnsweredBy:
    """Who settled the question, from the app's log entry whose answer the item still holds."""

    actor: str
    channel: str
    at: dt.datetime

    @classmethod
    def of(cls, event: ClarificationEvent) -> AnsweredBy:
        actor = actor_name(event.actor, event.actor_label)
        return cls(actor=actor, channel=channel_label(event.channel), at=event.occurred_at)

    def to_json(self) -> dict[str, Any]:
        return {"actor": self.actor or None, "channel": self.channel, "at": utc_stamp(self.at)}


@dataclass(frozen=True, slots=True)
class ConflictView:
    """The answer that won, as the item holds it now."""

    reason: str
    message: str
    lines: list[str]
    notes: str | None
    answered_by: AnsweredBy | None

    @property
    def lines_text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True, slots=True)
class AppAnswer:
    """The app's answer the item holds: who gave it, in words, and the version a correction names."""

    by: AnsweredBy
    text: AnswerText | None
    # The stored raw_answer, piece by piece, each labelled by who wrote it:
    # only the customer's words are quoted as theirs.
    raw_parts: tuple[RawPieceView, ...]
    version: str


@dataclass(frozen=True, slots=True)
class HeldBy:
    """Someone else is answering the item: who, and since when (their latest opening of it)."""

    name: str
    since: dt.datetime | None


@dataclass(frozen=True, slots=True)
class NewerItem:
    """An item the resend form offers as the replacing one: what the bookkeeper recognises it by."""

    item_id: uuid.UUID
    received_at: dt.datetime
    supplier: str | None
    total: float | int | None
    currency: str
    # The document can be shown as a thumbnail (an image), else None.
    image: bool


@dataclass(slots=True)
class AnswerPanel:
    """Everything ``items/_answer_panel.html`` shows about the item's question (see the module doc for ``mode``)."""

    item: InboxItem
    mode: str | None = None
    question: str | None = None
    # The list the page was opened from, carried to the next item.
    list_query: str = ""
    form: AnswerForm | None = None
    replaced: ReplacedAnswer | None = None
    links: ItemLinks = field(default_factory=ItemLinks)
    receipt: str | None = None
    held_by: HeldBy | None = None
    # Where the keyboard goes: a field (marked ``autofocus`` on the form), "conflict", "confirm" or "group".
    focus: str | None = None
    conflict: ConflictView | None = None
    # The denial to confirm: the fields as typed, carried through the confirmation; and whether it corrects.
    typed: list[tuple[str, str]] = field(default_factory=list)
    amending: bool = False
    current: dict[str, Any] | None = None
    preview: Preview | None = None
    answered: AppAnswer | None = None
    window_ends: dt.datetime | None = None
    error_slots: list[ErrorSlot] = field(default_factory=list)
    # An uploaded file the company already has: the item holding it, offered as the replacing item.
    duplicate: Holder | None = None
    # Earlier answers of the same company to take with one key (answers/_suggestions.html).
    suggestions: list[Suggestion] = field(default_factory=list)
    # The company's newer items, offered as the one that replaces this item (a resend question).
    newer_items: list[NewerItem] = field(default_factory=list)
    # The replacing item named differs sharply from this one: the differences, to confirm (a resend question).
    unconfirmed: ReplacementUnconfirmed | None = None

    @property
    def question_label(self) -> object:
        return states.QUESTION_TYPE_LABELS.get(str(self.question), self.question)

    @property
    def max_participants(self) -> int:
        return MAX_PARTICIPANTS

    @property
    def window_passed(self) -> bool:
        return self.window_ends is not None and self.window_ends <= timezone.now()

    @property
    def receipt_beside_form(self) -> bool:
        """Answering, the receipt stays beside the form (a sticky column on wide screens)."""
        return self.mode in ("answer", "confirm_deny") and self.form is not None

    def show_form(self, form: AnswerForm) -> None:
        """The form to fill in, with the outputs now and after saving what it holds."""
        self.form = form
        self.current = outputs(self.item, self.item.channel_context)
        self.preview = preview_of(self.item, form)


def answer_panel(
    item: InboxItem,
    user: Viewer,
    *,
    form: AnswerForm | None = None,
    list_query: str = "",
    conflict: AnswerConflict | None = None,
    confirm_deny: list[tuple[str, str]] | None = None,
    reserve: bool = True,
    links: ItemLinks | None = None,
    duplicate: Holder | None = None,
    log: list[ClarificationEvent] | None = None,
    unconfirmed: ReplacementUnconfirmed | None = None,
) -> AnswerPanel:
    """The panel for ``item`` as ``user`` sees it.

    The item page calls this with the item alone; the answer views pass the
    bound form (invalid input, a conflict, a denial to confirm) so what was
    typed stays. ``confirm_deny`` holds the typed fields to carry through the
    confirmation. Offering the form to answer reserves the item for ``user``
    unless ``reserve`` is false. ``links``: the item's resend links when the
    caller has them already (the item page's description does); ``log``: the
    app's answers to the item (``app_answers``), likewise. ``duplicate``: the
    item already holding an uploaded file (``resend.DuplicateFile``);
    ``unconfirmed``: the replacing item's sharp differences, to confirm
    (``resend.ReplacementUnconfirmed``; the keyboard goes to the question).
    """
    ctx = item.channel_context
    pending = pending_question(ctx) or {}
    status, question = pending.get("status"), pending.get("type")
    may_answer = isinstance(user, User) and user.has_perm(roles.ANSWER)
    log = app_answers(item.pk) if log is None else log
    panel = AnswerPanel(
        item=item,
        question=question,
        list_query=list_query,
        replaced=replaced_answer(item, log),
        links=links if links is not None else item_links(item.pk, user),
        receipt=_receipt_kind(item),
        duplicate=duplicate,
        unconfirmed=unconfirmed,
        focus="confirm" if unconfirmed is not None else None,
    )
    if conflict is not None:
        panel.mode, panel.focus = "conflict", "conflict"
        panel.conflict = conflict_view(conflict)
        if form is not None:
            form.make_readonly()
            panel.form, panel.question = form, form.question
    elif confirm_deny is not None and form is not None:
        panel.mode, panel.focus = "confirm_deny", "confirm"
        panel.form, panel.typed, panel.amending = form, confirm_deny, form.is_amendment
        panel.current = outputs(item, ctx)
        panel.preview = preview_of(item, form, denial=True)
    elif item.is_booked and status in ("open", "moved_to_app"):
        panel.mode = "booked"
    elif status == "open":
        panel.mode = "waiting"
        panel.window_ends = chat_window_ends(ctx)
    elif status == "moved_to_app" and question in QUESTION_TYPES:
        panel.mode = "answer"
        if may_answer:
            panel.show_form(form or answer_form(question, channel_context=ctx, raw_download=_raw_download(item, user)))
            panel.suggestions = suggestions_for(item, question)
            panel.newer_items = newer_items(item) if question == RESEND else []
            if reserve and isinstance(user, User):
                panel.held_by = hold(item, user)
    elif status == "moved_to_app":
        panel.mode = "unknown_type"
    elif status == "answered" and isinstance(question, str):
        event = app_answer_in_place(ctx, question, log)
        if event is not None:
            panel.mode = "answered"
            panel.answered = app_answer(event, question, ctx, log)
            if may_answer and not item.is_booked:
                version = panel.answered.version
                panel.show_form(
                    form
                    or answer_form(
                        question, channel_context=ctx, amend_version=version, raw_download=_raw_download(item, user)
                    )
                )
    panel.focus = panel.focus or _focus(panel)
    return panel


def _raw_download(item: InboxItem, user: Viewer) -> str:
    """Where the stored channel_context downloads whole, for a user who may see it (the form quotes it cut)."""
    may = isinstance(user, User | AnonymousUser) and user.has_perm(roles.VIEW_RAW)
    return reverse("item_raw", args=[item.pk, "channel_context"]) if may else ""


def _focus(panel: AnswerPanel) -> str | None:
    """Where the keyboard goes on a form to fill in: its first field, the first error, or the answer's errors."""
    form = panel.form
    if form is None or panel.mode not in ("answer", "answered"):
        return None
    if panel.mode == "answered" and not form.is_bound:
        return None  # folded away until the person opens "Correct this answer"
    return form.focus_first()


def app_answer(event: ClarificationEvent, question: str, ctx: object, log: list[ClarificationEvent]) -> AppAnswer:
    """The app's answer ``event`` that ``ctx`` holds, with its ``raw_answer`` read into labelled pieces."""
    value = answer_value(ctx, question)
    text = answer_text(question, value)
    return AppAnswer(
        by=AnsweredBy.of(event),
        text=text.shown() if text else None,
        raw_parts=raw_pieces(ctx, question, log),
        version=answer_version(value),
    )


def answered_by(item: InboxItem, log: list[ClarificationEvent] | None = None) -> AnsweredBy | None:
    """Who answered the item's question in the app, if the item still holds that answer."""
    pending = pending_question(item.channel_context) or {}
    question = pending.get("type")
    if not isinstance(question, str) or pending.get("status") != "answered":
        return None
    log = app_answers(item.pk) if log is None else log
    if question == RESEND:
        event = next((e for e in reversed(log) if e.question_type == RESEND), None)
    else:
        event = app_answer_in_place(item.channel_context, question, log)
    return AnsweredBy.of(event) if event is not None else None


def conflict_view(conflict: AnswerConflict) -> ConflictView:
    now = outputs(conflict.item, conflict.item.channel_context)
    return ConflictView(
        reason=conflict.reason,
        message=conflict.message,
        lines=now["lines"],
        notes=now["notes"],
        answered_by=answered_by(conflict.item),
    )


def _receipt_kind(item: InboxItem) -> str | None:
    """How the receipt is shown beside the form (``image``, ``pdf``, ``file``), or None without one."""
    try:
        return shown_receipt_kind(item.document)
    except DocumentAttachment.DoesNotExist:  # the id points at no row
        return None


def hold(item: InboxItem, user: User) -> HeldBy | None:
    """Reserve the item for ``user``; who else holds it, if anyone (then the reservation stays theirs)."""
    holder = reservations.reserve(item.pk, user)
    if holder.pk == user.pk:
        return None
    expires = Reservation.objects.filter(item_id=item.pk, user_id=holder.pk).values_list("expires_at", flat=True)
    until = expires.first()
    # A reservation records when it ends; it began (or was last renewed) one term before.
    since = until - dt.timedelta(minutes=reservations.DEFAULT_MINUTES) if until else None
    return HeldBy(name=person_name(holder), since=since)


def preview_panel(item: InboxItem, user: Viewer, question: str, data: Any, files: Any = None) -> AnswerPanel:
    """The live preview of what is typed on the page (nothing is saved), and the page's errors re-checked.

    ``data["shown_errors"]`` names the fields whose errors the page shows
    (their posted names, ``WHOLE_ANSWER`` for the answer's own): each is
    re-rendered with what the posted answer still gets wrong.
    """
    panel = answer_panel(item, user)
    if panel.mode in ("answer", "answered") and panel.form is not None and panel.question == question:
        form = answer_form(question, data, files, channel_context=item.channel_context)
        panel.preview = preview_of(item, form)
        shown = [name for value in data.getlist("shown_errors") for name in value.split()]
        panel.error_slots = error_slots(question, data, shown)
    else:
        panel.current = outputs(item, item.channel_context)
        panel.preview = Preview(note=_("This question is no longer waiting for an answer here."))
    return panel


def newer_items(old: InboxItem) -> list[NewerItem]:
    """The company's items received after ``old``, the nearest first: the customer's new photo is usually next.

    Read from the live table through accounted's ``(company_id, created_at)`` index.
    """
    found = (
        InboxItem.objects.filter(company_id=old.company_id, created_at__gt=old.created_at)
        .select_related("document")
        .order_by("created_at", "id")[:MAX_NEWER]
    )
    return [
        NewerItem(
            item_id=item.pk,
            received_at=item.created_at,
            supplier=item.supplier_name,
            total=item.total,
            currency=item.currency,
            image=_is_image(item),
        )
        for item in found
    ]


def _is_image(item: InboxItem) -> bool:
    try:
        return document_kind(item.document) == "image"
    except DocumentAttachment.DoesNotExist:  # the id points at no row
        return False
