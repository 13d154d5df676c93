"""Answering a ``moved_to_app`` question: the item page's form, its live preview, the JSON API.

All three go through ``reviewapp.answers``: the forms only turn fields into
an answer, ``answers.answer_question`` validates and writes it. The panel
also corrects an answer the app gave ("amend"), asks before saving a denial,
shows the link between a resent item and its replacement, and says so when
another program has replaced an answer the app wrote.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Final

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from reviewapp import answers, queue, roles, states
from reviewapp.answers.next_item import NextStep, next_to_answer
from reviewapp.answers.panel import answered_by, error_slots, panel_context, preview_of
from reviewapp.api_auth import api_view, json_error
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.forms.answer import (
    ACTIONS,
    ADD_ROW,
    DENY,
    EDIT,
    SAVE,
    RepresentationForm,
    answer_form,
    representation_form_with_extra_row,
)
from reviewapp.http import HtmxHttpRequest
from reviewapp.models import IndexedItem

PANEL = "items/_answer_panel.html#answer-panel"
PREVIEW = "items/_answer_panel.html#answer-preview"
PAGE = "items/answer.html"

# Posted fields that are not part of what was typed (never carried through the denial's confirmation).
_NOT_TYPED: Final = frozenset({"csrfmiddlewaretoken", "action"})


def _clean_query(raw: str) -> str:
    """The list's query string, re-encoded: nothing but parameters survives."""
    return QueryDict(raw[:2000]).urlencode()


def _say_what_is_next(request: HttpRequest, step: NextStep) -> None:
    if not step.empty:
        return
    if step.held:
        messages.info(
            request,
            ngettext(
                "Nothing else in this list is free: the %(count)d item left is being answered by someone else.",
                "Nothing else in this list is free: the %(count)d items left are being answered by others.",
                step.held,
            )
            % {"count": step.held},
        )
    else:
        messages.info(request, _("The queue is empty: nothing else in this list is waiting for an answer."))


def _answerer(request: HttpRequest) -> User:
    """The signed-in user, who passed the permission check on the way in."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


# --- The page --------------------------------------------------------------------------


def _render(request: HtmxHttpRequest, item: InboxItem, panel: dict[str, Any], *, status: int = 200) -> HttpResponse:
    context = {"item": item, **panel}
    if request.htmx:
        # htmx 2 does not swap a 4xx: the panel goes back with 200 and says what happened.
        return render(request, PANEL, context)
    return render(request, PAGE, context, status=status)


@require_http_methods(["GET", "POST"])
@permission_required(roles.ANSWER, raise_exception=True)
def answer_question(request: HtmxHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """The answer form: GET shows it on its own page, POST saves it (or asks to confirm a denial).

    Invalid input re-renders the form with the errors and everything typed;
    a conflict shows the answer that won next to what was typed.
    """
    item = get_object_or_404(InboxItem.objects.select_related("company", "document"), pk=item_id)
    list_query = _clean_query(request.POST.get("list_query", "") or request.GET.urlencode())
    if request.method == "GET":
        return _render(request, item, panel_context(item, request.user, list_query=list_query))

    question = request.POST.get("question", "")
    if question not in answers.QUESTION_TYPES:
        return HttpResponseBadRequest(_("Unknown question type."))
    action = request.POST.get("action", SAVE)
    action = action if action in ACTIONS else SAVE
    form = answer_form(
        question, channel_context=item.channel_context, data=request.POST, files=request.FILES, action=action
    )

    def again(**extra: Any) -> HttpResponse:
        return _render(request, item, panel_context(item, request.user, list_query=list_query, **extra))

    # The question may have been settled while the page was open: say so
    # before asking anybody to fix a field. (answer_question checks again
    # under the row lock; this early look only saves a pointless form.)
    reason = answers.conflict_reason(item.channel_context, question, booked=item.is_booked, amend=form.is_amendment)
    if reason is not None:
        conflict = answers.AnswerConflict(item, reason)
        panel = panel_context(item, request.user, form=form, list_query=list_query, conflict=conflict)
        return _render(request, item, panel, status=409)
    if action == ADD_ROW and isinstance(form, RepresentationForm):
        # Without JavaScript, "Add a participant" posts the form: show it again with one more row.
        return again(form=representation_form_with_extra_row(form, item.channel_context))
    if action == EDIT:
        # Back from the denial's confirmation: the form as it was typed, no errors yet.
        return again(form=form)
    if action == DENY and isinstance(form, RepresentationForm):
        typed = [(key, value) for key, values in request.POST.lists() if key not in _NOT_TYPED for value in values]
        return again(form=form, confirm_deny=typed)
    if not form.is_valid():
        return again(form=form)

    listed = IndexedItem.objects.filter(pk=item.pk).first()
    try:
        answers.answer_question(item_id=item.pk, user=_answerer(request), answer=form.valid_answer)
    except answers.AnswerInvalid as invalid:
        form.apply_errors(invalid.errors)
        return again(form=form)
    except answers.AnswerConflict as conflict:
        panel = panel_context(conflict.item, request.user, form=form, list_query=list_query, conflict=conflict)
        return _render(request, conflict.item, panel, status=409)

    user = _answerer(request)
    queue.release(item.pk, user)
    if form.is_amendment:
        # A correction is about this item: back to it, not on to the next question.
        messages.success(request, _("Answer corrected."))
        url = reverse("item_detail", args=[item.pk]) + (f"?{list_query}" if list_query else "")
    else:
        messages.success(request, _("Answer saved."))
        step = next_to_answer(listed, list_query, user)
        _say_what_is_next(request, step)
        url = step.url
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


@require_POST
@permission_required(roles.ANSWER, raise_exception=True)
def answer_preview(request: HtmxHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """The agent view and verifikat line as they would be after saving; nothing is saved."""
    item = get_object_or_404(InboxItem.objects.select_related("company"), pk=item_id)
    question = request.POST.get("question", "")
    if question not in answers.QUESTION_TYPES:
        return HttpResponseBadRequest(_("Unknown question type."))
    panel = panel_context(item, request.user)["answer_panel"]
    if panel["mode"] in ("answer", "answered") and panel["form"] is not None and panel["question"] == question:
        form = answer_form(question, channel_context=item.channel_context, data=request.POST, files=request.FILES)
        panel["preview"] = preview_of(item, form)
        # The error messages the page shows, each cleared once its field is fixed.
        shown = [name for value in request.POST.getlist("shown_errors") for name in value.split()]
        panel["error_slots"] = error_slots(question, request.POST, shown)
    else:
        panel["current"] = answers.outputs(item, item.channel_context)
        panel["preview"] = {"after": None, "note": _("This question is no longer waiting for an answer here.")}
    return render(request, PREVIEW, {"item": item, "answer_panel": panel})


# --- The JSON API --------------------------------------------------------------------------


def state_json(item: InboxItem) -> dict[str, Any]:
    """The item's clarification state as the API reports it after an answer or a conflict.

    ``answer_version`` is what an amendment sends back (``null`` when the
    item holds no answer the app may correct); ``replaced_answer`` is the
    app's answer another program replaced, if any.
    """
    out = answers.outputs(item, item.channel_context)
    pending = answers.pending_question(item.channel_context)
    log = answers.app_answers(item.pk)
    by = answered_by(item, log)
    question = pending.get("type") if pending else None
    amendable = (
        isinstance(question, str)
        and not item.is_booked
        and answers.app_answer_in_place(item.channel_context, question, log) is not None
    )
    replaced = answers.replaced_answer(item, log)
    links = answers.resend_links(item.pk)
    return {
        "id": str(item.pk),
        "summary": out["summary"],
        "lines": out["lines"],
        "notes": out["notes"],
        "pending_question": pending,
        "states": sorted(states.compute(item.channel_context, item.extracted_data, booked=item.is_booked).states),
        "answered_by": by.to_json() if by else None,
        "answer_version": answers.answer_version(answers.answer_value(item.channel_context, str(question)))
        if amendable
        else None,
        "replaced_answer": replaced.to_json() if replaced else None,
        "replaced_by_item": links["replaced_by"]["item_id"] if links["replaced_by"] else None,
        "replaces_items": [link["item_id"] for link in links["replaces"]],
    }


@api_view(methods=["POST"], permission=roles.ANSWER)
def api_answer(request: HtmxHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """``POST /api/items/<id>/answer`` with a JSON answer; see the README for the bodies."""
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(413, "the body is larger than the server accepts")
    if request.content_type != "application/json":
        return json_error(400, "send the answer as JSON with Content-Type: application/json")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return json_error(400, "the body is not valid JSON")
    if not InboxItem.objects.filter(pk=item_id).exists():
        return json_error(404, "no such item")
    try:
        answer = answers.answer_from_json(data)
        result = answers.answer_question(item_id=item_id, user=_answerer(request), answer=answer)
    except answers.AnswerInvalid as invalid:
        return json_error(400, "the answer is not valid", errors=invalid.errors)
    except answers.AnswerConflict as conflict:
        return json_error(409, conflict.message, reason=conflict.reason, current=state_json(conflict.item))
    except InboxItem.DoesNotExist:
        return json_error(404, "no such item")
    return JsonResponse(
        {
            **state_json(result.item),
            "event_id": result.event.pk,
            "history_event_id": str(result.history.pk),
            "new_item_id": str(result.new_item.pk) if result.new_item else None,
        }
    )
