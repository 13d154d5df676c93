"""What an item's ``channel_context`` renders to, now and after saving what a form holds; nothing is written.

``outputs`` is the summary, prompt lines, agent view and verifikat line of a
context: the answer panel shows it before and after an answer, the live
preview for what is typed. ``preview_of`` builds the context an answer
would write, in memory, with the very function the write uses
(``channel_context.answered_context``), and renders that. ``error_slots``
re-checks what is typed for the live preview's error areas.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.answers.channel_context import answered_context, utc_stamp
from reviewapp.answers.dates import item_event_date_warning
from reviewapp.answers.inputs import RESEND, Answer, RepresentationAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid, validate
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.items.describe import rendered_outputs
from reviewapp.web.forms.answer import AnswerForm, RepresentationForm, answer_form

# The error slot of the errors about the whole answer, not one field (as the page posts its name).
WHOLE_ANSWER: Final = "__all__"
_MAX_SLOTS: Final = 200


def outputs(item: InboxItem, ctx: object) -> dict[str, Any]:
    """The summary, prompt lines, agent view and verifikat line for ``ctx`` (unreadable JSON reads as none).

    Rendered by ``rendered_outputs`` (issue 35): in bounded time, each prompt
    value cut past what a page shows (``whole`` is then False), and the
    item's own context rendered once for the item page and this panel.
    """
    rendered = rendered_outputs(item, ctx)
    return {
        "summary": rendered.summary_json,
        "lines": rendered.lines,
        "notes": rendered.notes,
        "agent_view": rendered.agent_view,
        # One line per entry, exactly as the model receives them.
        "agent_view_text": "\n".join(rendered.agent_view),
        "whole": rendered.whole,
    }


@dataclass(frozen=True, slots=True)
class Preview:
    """The outputs after saving (``after``: summary, lines, agent view, notes), or a note why there are none."""

    after: dict[str, Any] | None = None
    note: str | None = None
    # A warning that does not stop the save (an event date that looks mistyped).
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class ErrorSlot:
    """One error message area of the form, re-rendered by the live preview (``whole``: the answer's own)."""

    id: str
    errors: list[str]
    whole: bool = False


def preview_of(item: InboxItem, form: AnswerForm, *, denial: bool = False) -> Preview:
    """The outputs after saving what ``form`` holds (a denial, with ``denial``), or why there are none yet.

    Nothing is written: the new context is built in memory by the same
    function the write uses.
    """
    answer: Answer
    # The date on screen is warned about as soon as it is there: before
    # anything else is typed, and while another field is still wrong.
    warning = None
    if isinstance(form, RepresentationForm) and not denial:
        warning = item_event_date_warning(item, form.event_date_as_typed())
    if denial:
        answer = RepresentationAnswer(denied=True)
    elif form.question == RESEND:
        # Every choice settles the question the same way for the prompt and
        # the verifikat; the file is not sent just to preview.
        answer = ResendAnswer(readable=True)
    elif not form.is_bound:
        return Preview(warning=warning)
    else:
        # A fresh form: the one shown may carry a save's "incomplete" errors,
        # and a half answer is still worth previewing.
        typed = answer_form(form.question, data=form.data)
        if not typed.is_valid(complete=False):
            return Preview(note=_("Fix the marked fields to see the preview."), warning=warning)
        answer = typed.valid_answer
    note = None
    try:
        validate(answer)
    except AnswerInvalid as invalid:
        note = " ".join(message for messages_ in invalid.errors.values() for message in messages_)
    ctx = item.channel_context if isinstance(item.channel_context, dict) else {}
    after_ctx = answered_context(ctx, answer, answered_at=utc_stamp(timezone.now()))
    return Preview(after=outputs(item, after_ctx), note=note, warning=warning)


def error_slots(question: str, data: Any, shown: Iterable[str]) -> list[ErrorSlot]:
    """The error slots named in ``shown``, each with what the posted answer still gets wrong.

    The answer is validated as on saving, so "Write the purpose" stays until
    a purpose is written and goes as soon as one is; no field that shows no
    error is given one while the person is still typing.
    """
    wanted = set(list(shown)[:_MAX_SLOTS])
    if not wanted:
        return []
    form = answer_form(question, data=data)
    form.is_valid()
    slots = [
        ErrorSlot(id=f"{bound.auto_id}_error", errors=[str(error) for error in bound.errors])
        for bound in form.fields_in_order()
        if bound.html_name in wanted
    ]
    if WHOLE_ANSWER in wanted:
        slots.append(
            ErrorSlot(id="answer-form_error", errors=[str(error) for error in form.non_field_errors()], whole=True)
        )
    return slots
