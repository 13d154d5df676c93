"""What the answer panel shows: the form, its preview, a denial to confirm, the app's answer to correct.

``panel_context`` builds the context of ``items/_answer_panel.html`` for the
item page and the answer views alike. It reads the live item and the app's
own log: an answer the item still holds as the app wrote it can be
corrected here; one another program replaced is shown with both versions.
Showing the form to answer reserves the item for the person it is shown to
(``reviewapp.queue``), and says so when someone else holds it; nothing stops
either from saving.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp import items, queue, roles, states
from reviewapp.answers.channel_context import (
    answer_value,
    answer_version,
    answered_context,
    chat_window_ends,
    pending_question,
    utc_stamp,
)
from reviewapp.answers.display import outputs
from reviewapp.answers.inputs import QUESTION_TYPES, RESEND, Answer, RepresentationAnswer, ResendAnswer
from reviewapp.answers.log import answer_text, app_answer_in_place, app_answers, replaced_answer, resend_links
from reviewapp.answers.validation import MAX_PARTICIPANTS, AnswerInvalid, validate
from reviewapp.answers.writing import AnswerConflict
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.forms.answer import answer_form
from reviewapp.models import ClarificationEvent, Reservation

AnswerForm = Any  # one of reviewapp.forms.answer's three answer forms

# The error slot of the errors about the whole answer, not one field.
GROUP_ERRORS: Final = "__all__"
_MAX_SLOTS: Final = 200


@dataclass(frozen=True, slots=True)
class AnsweredBy:
    """Who settled the question, from the app's log entry whose answer the item still holds."""

    actor: str
    channel: str
    at: Any

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
    open_question: dict[str, Any] | None

    @property
    def lines_text(self) -> str:
        return "\n".join(self.lines)


def _app_event(item: InboxItem, log: list[ClarificationEvent]) -> ClarificationEvent | None:
    """The app's answer the item holds for its question now, or None (the chat's, or none)."""
    pending = pending_question(item.channel_context)
    question = pending.get("type") if pending else None
    if not isinstance(question, str) or not pending or pending.get("status") != "answered":
        return None
    if question == RESEND:
        return next((e for e in reversed(log) if e.question_type == RESEND), None)
    return app_answer_in_place(item.channel_context, question, log)


def answered_by(item: InboxItem, log: list[ClarificationEvent] | None = None) -> AnsweredBy | None:
    event = _app_event(item, app_answers(item.pk) if log is None else log)
    if event is None:
        return None
    return AnsweredBy(actor=event.actor_label, channel=items.channel_label(event.channel), at=event.occurred_at)


def conflict_view(conflict: AnswerConflict) -> ConflictView:
    item = conflict.item
    now = outputs(item, item.channel_context)
    pending = pending_question(item.channel_context)
    open_question = (
        {"type": pending.get("type"), "status": pending.get("status")}
        if pending and pending.get("status") in ("open", "moved_to_app")
        else None
    )
    return ConflictView(
        reason=conflict.reason,
        message=conflict.message,
        lines=now["lines"],
        notes=now["notes"],
        answered_by=answered_by(item),
        open_question=open_question,
    )


def preview_of(item: InboxItem, form: AnswerForm, *, denial: bool = False) -> dict[str, Any]:
    """The outputs after saving what ``form`` holds (a denial, with ``denial``), or why there are none yet.

    Nothing is written: the new context is built in memory by the same
    function the write uses.
    """
    answer: Answer
    if denial:
        answer = RepresentationAnswer(denied=True)
    elif form.question == RESEND:
        # Every choice settles the question the same way for the prompt and
        # the verifikat; the file is not sent just to preview.
        answer = ResendAnswer(readable=True)
    elif not form.is_bound:
        return {"after": None, "note": None}
    else:
        # A fresh form: the one shown may carry a save's "incomplete" errors,
        # and a half answer is still worth previewing.
        typed = answer_form(form.question, channel_context=None, data=form.data)
        if not typed.is_valid(complete=False):
            return {"after": None, "note": _("Fix the marked fields to see the preview.")}
        answer = typed.valid_answer
    note = None
    try:
        validate(answer)
    except AnswerInvalid as invalid:
        note = " ".join(message for messages_ in invalid.errors.values() for message in messages_)
    ctx = item.channel_context if isinstance(item.channel_context, dict) else {}
    after_ctx = answered_context(ctx, answer, answered_at=utc_stamp(timezone.now()))
    return {"after": outputs(item, after_ctx), "note": note}


def _answered(item: InboxItem, question: str, log: list[ClarificationEvent], user: Any, form: Any) -> dict[str, Any]:
    """The app's answer the item holds, and the form to correct it (bookkeepers, unbooked items)."""
    ctx = item.channel_context
    event = app_answer_in_place(ctx, question, log)
    if event is None:
        return {}
    value = answer_value(ctx, question)
    from_customer = event.payload.get("raw_answer_source") == "customer"
    text = answer_text(question, value)
    view: dict[str, Any] = {
        "by": AnsweredBy(event.actor_label, items.channel_label(event.channel), event.occurred_at),
        "text": text,
        # raw_answer is quoted only when it holds a person's words.
        "customer_words": text.raw_answer if text and from_customer else None,
        "version": answer_version(value),
        "form": None,
    }
    if isinstance(user, User) and user.has_perm(roles.ANSWER) and not item.is_booked:
        words = text.raw_answer if text and from_customer and text.raw_answer else ""
        view["form"] = form or answer_form(
            question, channel_context=ctx, amend_version=view["version"], customer_words=words
        )
    return view


@dataclass(frozen=True, slots=True)
class HeldBy:
    """Someone else is answering the item: who, and since when (their latest opening of it)."""

    name: str
    since: dt.datetime | None


def _receipt_kind(item: InboxItem) -> str | None:
    """How the receipt is shown beside the form (``image``, ``pdf``, ``file``), or None without one."""
    try:
        return items.document_kind(item.document)
    except DocumentAttachment.DoesNotExist:  # the id points at no row
        return None


def hold(item: InboxItem, user: User) -> HeldBy | None:
    """Reserve the item for ``user``; who else holds it, if anyone (then the reservation stays theirs)."""
    holder = queue.reserve(item.pk, user)
    if holder.pk == user.pk:
        return None
    expires = Reservation.objects.filter(item_id=item.pk, user_id=holder.pk).values_list("expires_at", flat=True)
    until = expires.first()
    # A reservation records when it ends; it began (or was last renewed) one term before.
    since = until - dt.timedelta(minutes=queue.DEFAULT_MINUTES) if until else None
    name = holder.get_full_name() if isinstance(holder, User) else ""
    return HeldBy(name=name or holder.get_username(), since=since)


def error_slots(question: str, data: Any, shown: Iterable[str]) -> list[dict[str, Any]]:
    """The error slots the page shows now, each re-rendered with what the posted answer still gets wrong.

    ``shown`` names the fields (their posted names, ``GROUP_ERRORS`` for the
    whole answer) whose errors the page shows. The answer is validated as
    on saving, so "Write the purpose" stays until a purpose is written and
    goes as soon as one is; no field that shows no error is given one while
    the person is still typing.
    """
    wanted = set(list(shown)[:_MAX_SLOTS])
    if not wanted:
        return []
    form = answer_form(question, channel_context=None, data=data)
    form.is_valid()
    slots: list[dict[str, Any]] = [
        {"id": f"{bound.auto_id}_error", "errors": list(bound.errors)}
        for bound in form.fields_in_order()
        if bound.html_name in wanted
    ]
    if GROUP_ERRORS in wanted:
        slots.append({"id": "answer-form_error", "errors": list(form.group_errors), "group": True})
    return slots


def panel_context(
    item: InboxItem,
    user: AbstractBaseUser | AnonymousUser,
    *,
    form: AnswerForm | None = None,
    list_query: str = "",
    conflict: AnswerConflict | None = None,
    confirm_deny: list[tuple[str, str]] | None = None,
    reserve: bool = True,
) -> dict[str, Any]:
    """The context ``items/_answer_panel.html`` needs, under ``answer_panel``.

    The item page calls this with the item alone; the answer views pass the
    bound form (invalid input, a conflict, a denial to confirm) so what was
    typed stays. ``confirm_deny`` holds the typed fields to carry through the
    confirmation. Offering the form to answer reserves the item for ``user``
    unless ``reserve`` is false.

    ``focus`` says where the keyboard goes when the panel is shown: a field
    (marked ``autofocus`` on the form), or ``"conflict"``, ``"confirm"`` or
    ``"group"`` for the box of that name.
    """
    ctx = item.channel_context
    pending = pending_question(ctx)
    status = pending.get("status") if pending else None
    question = pending.get("type") if pending else None
    may_answer = isinstance(user, User) and user.has_perm(roles.ANSWER)
    log = app_answers(item.pk)
    panel: dict[str, Any] = {
        "mode": None,
        "question": question,
        "question_label": states.QUESTION_TYPE_LABELS.get(str(question), question),
        "may_answer": may_answer,
        "list_query": list_query,
        "form": None,
        "max_participants": MAX_PARTICIPANTS,
        "replaced": replaced_answer(item, log),
        "links": resend_links(item.pk),
        "booked": item.is_booked,
        "receipt": _receipt_kind(item),
        "held_by": None,
        "focus": None,
    }
    if conflict is not None:
        panel["mode"] = "conflict"
        panel["focus"] = "conflict"
        panel["conflict"] = conflict_view(conflict)
        if form is not None:
            form.make_readonly()
            panel["form"] = form
            panel["question"] = form.question
    elif confirm_deny is not None and form is not None:
        panel["mode"] = "confirm_deny"
        panel["focus"] = "confirm"
        panel["typed"] = confirm_deny
        panel["current"] = outputs(item, ctx)
        panel["preview"] = preview_of(item, form, denial=True)
        panel["amending"] = form.is_amendment
    elif item.is_booked and status in ("open", "moved_to_app"):
        panel["mode"] = "booked"
    elif status == "open":
        panel["mode"] = "waiting"
        ends = chat_window_ends(ctx)
        panel["window_ends"] = ends
        panel["window_passed"] = ends is not None and ends <= timezone.now()
    elif status == "moved_to_app" and question in QUESTION_TYPES:
        panel["mode"] = "answer"
        if may_answer:
            form = form or answer_form(question, channel_context=ctx)
            panel["form"] = form
            panel["current"] = outputs(item, ctx)
            panel["preview"] = preview_of(item, form)
            if reserve and isinstance(user, User):
                panel["held_by"] = hold(item, user)
    elif status == "moved_to_app":
        panel["mode"] = "unknown_type"
    elif status == "answered" and isinstance(question, str):
        answered = _answered(item, question, log, user, form)
        if answered:
            panel["mode"] = "answered"
            panel["answered"] = answered
            panel["form"] = answered["form"]
            if answered["form"] is not None:
                panel["current"] = outputs(item, ctx)
                panel["preview"] = preview_of(item, answered["form"])
    panel["focus"] = panel["focus"] or _focus(panel)
    # Answering, the receipt stays beside the form (a sticky column on wide screens).
    panel["receipt_beside_form"] = panel["mode"] in ("answer", "confirm_deny") and may_answer
    return {"answer_panel": panel}


def _focus(panel: dict[str, Any]) -> str | None:
    """Where the keyboard goes on a form to fill in: its first field, the first error, or the answer's errors."""
    form = panel["form"]
    if form is None or panel["mode"] not in ("answer", "answered"):
        return None
    if panel["mode"] == "answered" and not form.is_bound:
        return None  # folded away until the person opens "Correct this answer"
    return str(form.focus_first())
