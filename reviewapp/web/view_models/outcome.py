"""What a posted answer leads to: the page to go to and what to say, the panel again, or the API's state.

- ``submit``: a posted answer form either saves (``Saved``: where to go and
  what to say) or shows the panel again: with the errors, the answer that
  won a conflict, the denial to confirm, or one more participant row;
- ``state_json``: the item's state as the JSON API reports it after an
  answer or a conflict;
- ``next_to_answer``: save and next, inside the list the person works through.

Save and next: the list is the one the item page was opened from (its query
string, filters and order), or the person's landing list (a bookkeeper's
queue) when the page was opened from nowhere. Only items of that list whose
question waits for an answer in the app are offered, never one outside it,
in the list's order from where the answered item stood, then from the top
(someone let go of an earlier one); when none is left the person is told so
on the list itself. ``reservations.claim_next`` skips the items someone else is
answering and reserves the one it offers, so two people finishing at the
same moment are sent to different items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, User
from django.http import QueryDict
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from reviewapp.answers.channel_context import answer_value, answer_version, conflict_reason, pending_question
from reviewapp.answers.dates import item_event_date_warning
from reviewapp.answers.inputs import RepresentationAnswer
from reviewapp.answers.log import app_answer_in_place, app_answers, replaced_answer
from reviewapp.answers.resend import DuplicateFile, ReplacementUnconfirmed
from reviewapp.answers.validation import AnswerInvalid
from reviewapp.answers.writing import AnswerConflict, answer_question
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import states
from reviewapp.core.rendering_caps import AGENT_VIEW_MAX_CHARS, LINES_MAX_CHARS, capped_json
from reviewapp.inbox import reservations
from reviewapp.inbox.page import AmountFormat
from reviewapp.inbox.query import filtered_items
from reviewapp.items.caps import SUMMARY_MAX_CHARS, Cuts, shrink_json, with_cuts
from reviewapp.items.links import item_links
from reviewapp.models import IndexedItem
from reviewapp.web.forms.answer import ACTIONS, ADD_ROW, DENY, EDIT, SAVE, RepresentationForm, answer_form
from reviewapp.web.forms.inbox import parse_list_query
from reviewapp.web.landing import landing_query
from reviewapp.web.view_models.panel import AnswerPanel, Viewer, answer_panel, answered_by
from reviewapp.web.view_models.preview import outputs
from reviewapp.web.view_models.unread import uploaded_notice

# Posted fields that are not part of what was typed (never carried through the denial's confirmation).
NOT_TYPED: Final = frozenset({"csrfmiddlewaretoken", "action"})


@dataclass(frozen=True, slots=True)
class Saved:
    """The answer is saved: where the person goes now, what they are told, and a note about the queue."""

    url: str
    message: str
    note: str | None = None
    warning: str | None = None


def saved_message(item: InboxItem, listed: IndexedItem | None, *, corrected: bool = False) -> str:
    """The toast after a save: which item (supplier, amount), with links to correct it and to open it.

    Shown on the next item's page, so it names the saved one. Safe HTML (format_html escapes the
    supplier); Django's message storage keeps it safe across the redirect.
    """
    supplier = (listed.supplier_name if listed else None) or _("Unknown supplier")
    total = listed.total if listed else None
    what = supplier if total is None else f"{supplier}, {AmountFormat()(total)} {listed.currency if listed else ''}"
    text = (_("Corrected: %(what)s") if corrected else _("Saved: %(what)s")) % {"what": what}
    url = reverse("item_detail", args=[item.pk])
    # "#answer-form": the correction form inside the folded "Correct this answer"; the browser
    # unfolds a <details> around a fragment's target (answer.js does it too).
    return format_html(
        '{} <a href="{}#answer-form">{}</a> · <a href="{}">{}</a>', text, url, _("Correct it"), url, _("Open it")
    )


def submit(
    item: InboxItem, user: User, question: str, data: QueryDict, files: Any, *, list_query: str
) -> AnswerPanel | Saved:
    """Save the answer form posted for ``question``, or the panel to show again.

    Invalid input comes back with the errors and everything typed; a
    conflict shows the answer that won next to what was typed.
    """
    action = data.get("action", SAVE)
    action = action if action in ACTIONS else SAVE
    form = answer_form(question, data, files, channel_context=item.channel_context, action=action)

    def again(**extra: Any) -> AnswerPanel:
        return answer_panel(item, user, list_query=list_query, **extra)

    # The question may have been settled while the page was open: say so
    # before asking anybody to fix a field. (answer_question checks again
    # under the row lock; this early look only saves a pointless form.)
    reason = conflict_reason(item.channel_context, question, booked=item.is_booked, amend=form.is_amendment)
    if reason is not None:
        return again(form=form, conflict=AnswerConflict(item, reason))
    if action == ADD_ROW and isinstance(form, RepresentationForm):
        # Without JavaScript, "Add a participant" posts the form: show it again with one more row.
        return again(form=form.with_extra_row())
    if action == EDIT:
        # Back from the denial's confirmation: the form as it was typed, no errors yet.
        return again(form=form)
    if action == DENY and isinstance(form, RepresentationForm):
        typed = [(key, value) for key, values in data.lists() if key not in NOT_TYPED for value in values]
        return again(form=form, confirm_deny=typed)
    if not form.is_valid():
        return again(form=form)

    listed = IndexedItem.objects.filter(pk=item.pk).first()
    try:
        result = answer_question(item_id=item.pk, user=user, answer=form.valid_answer)
    except ReplacementUnconfirmed as unconfirmed:
        # Nothing written: the form again, with the differences and a button that confirms them.
        return again(form=form, unconfirmed=unconfirmed)
    except DuplicateFile as duplicate:
        form.apply_errors(duplicate.errors)
        return again(form=form, duplicate=duplicate.holder)
    except AnswerInvalid as invalid:
        form.apply_errors(invalid.errors)
        return again(form=form)
    except AnswerConflict as conflict:
        return answer_panel(conflict.item, user, form=form, list_query=list_query, conflict=conflict)
    reservations.release(item.pk, user)
    answer = form.valid_answer
    warning = item_event_date_warning(item, answer.event_date) if isinstance(answer, RepresentationAnswer) else None
    if result.new_item is not None and result.new_item.extraction_skipped:
        # The uploaded photo is a new item accounted has not read: said now, where it is acted on.
        warning = uploaded_notice(result.new_item.pk)
    if form.is_amendment:
        # A correction is about this item: back to it, not on to the next question.
        url = reverse("item_detail", args=[item.pk]) + (f"?{list_query}" if list_query else "")
        return Saved(url=url, message=saved_message(item, listed, corrected=True), warning=warning)
    step = next_to_answer(listed, list_query, user)
    return Saved(url=step.url, message=saved_message(item, listed), note=step.note, warning=warning)


def state_json(item: InboxItem, user: Viewer) -> dict[str, Any]:
    """The item's clarification state as the JSON API reports it after an answer or a conflict.

    ``answer_version`` is what an amendment sends back (``null`` when the
    item holds no answer the app may correct); ``replaced_answer`` is the
    app's answer another program replaced, if any.
    """
    ctx = item.channel_context
    out = outputs(item, ctx)
    pending = pending_question(ctx)
    question = pending.get("type") if pending else None
    log = app_answers(item.pk)
    by = answered_by(item, log)
    amendable = isinstance(question, str) and not item.is_booked and app_answer_in_place(ctx, question, log) is not None
    replaced = replaced_answer(item, log)
    links = item_links(item.pk, user)
    # Cut as GET /api/items/<id> cuts them (reviewapp.items.caps): a stored
    # text of any length gives an answer of a bounded size.
    cuts = Cuts()
    summary, summary_cut = shrink_json(out["summary"])
    pending_shown, pending_cut = shrink_json(pending, max_chars=SUMMARY_MAX_CHARS // 10)
    for name, value, cut in (("summary", out["summary"], summary_cut), ("pending_question", pending, pending_cut)):
        if cut:
            cuts.original[name] = capped_json(value, max_chars=0, max_depth=0).original_chars
    return with_cuts(
        {
            "id": str(item.pk),
            "summary": summary,
            "lines": list(cuts.lines("lines", out["lines"], max_chars=LINES_MAX_CHARS)),
            "notes": cuts.text("notes", out["notes"], max_chars=AGENT_VIEW_MAX_CHARS),
            "pending_question": pending_shown,
            "states": sorted(states.compute(ctx, item.extracted_data, booked=item.is_booked).states),
            "answered_by": by.to_json() if by else None,
            "answer_version": answer_version(answer_value(ctx, str(question))) if amendable else None,
            "replaced_answer": replaced.to_json() if replaced else None,
            "replaced_by_item": str(links.replaced_by.item_id) if links.replaced_by else None,
            "replaces_items": [str(link.item_id) for link in links.replaces],
        },
        cuts.original,
    )


@dataclass(frozen=True, slots=True)
class NextStep:
    """Where to go after saving: the next item, or the list (``item`` None) when nothing is left.

    ``held`` counts the items left that others are answering.
    """

    url: str
    item: IndexedItem | None
    held: int = 0

    @property
    def note(self) -> str | None:
        """What the person is told when nothing is left for them."""
        if self.item is not None:
            return None
        if self.held:
            return ngettext(
                "Nothing else in this list is free: the %(count)d item left is being answered by someone else.",
                "Nothing else in this list is free: the %(count)d items left are being answered by others.",
                self.held,
            ) % {"count": self.held}
        return _("The queue is empty: nothing else in this list is waiting for an answer.")


def next_to_answer(listed: IndexedItem | None, list_query: str, user: AbstractBaseUser) -> NextStep:
    """The next item of the list that needs an answer and nobody else holds, reserved for ``user``.

    ``listed`` is the answered item's read-model row as it was listed (before
    the answer), so "next" is counted from where it stood.
    """
    params = QueryDict(list_query) if list_query else landing_query(user)
    suffix = "?" + params.urlencode() if params else ""
    query = parse_list_query(params, user=user)
    for after in (listed, None) if listed is not None else (None,):
        found = reservations.claim_next(after, query, user, waiting_only=True)
        if found is not None:
            return NextStep(url=reverse("item_detail", args=[found.pk]) + suffix, item=found)
    waiting = filtered_items(query).filter(state_needs_answer=True)
    held = waiting.filter(pk__in=reservations.held_by_others(user)).count()
    return NextStep(url=reverse("inbox") + suffix, item=None, held=held)
