"""What the answer panel shows: the form, its preview, a denial to confirm, the app's answer to correct.

``panel_context`` builds the context of ``items/_answer_panel.html`` for the
item page and the answer views alike. It reads the live item and the app's
own log: an answer the item still holds as the app wrote it can be
corrected here; one another program replaced is shown with both versions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp import items, roles, states
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
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.forms.answer import answer_form
from reviewapp.models import ClarificationEvent

AnswerForm = Any  # one of reviewapp.forms.answer's three answer forms


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


def panel_context(
    item: InboxItem,
    user: AbstractBaseUser | AnonymousUser,
    *,
    form: AnswerForm | None = None,
    list_query: str = "",
    conflict: AnswerConflict | None = None,
    confirm_deny: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The context ``items/_answer_panel.html`` needs, under ``answer_panel``.

    The item page calls this with the item alone; the answer views pass the
    bound form (invalid input, a conflict, a denial to confirm) so what was
    typed stays. ``confirm_deny`` holds the typed fields to carry through the
    confirmation.
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
    }
    if conflict is not None:
        panel["mode"] = "conflict"
        panel["conflict"] = conflict_view(conflict)
        if form is not None:
            form.make_readonly()
            panel["form"] = form
            panel["question"] = form.question
    elif confirm_deny is not None and form is not None:
        panel["mode"] = "confirm_deny"
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
    return {"answer_panel": panel}
