"""Answering a ``moved_to_app`` question: the item page's form, its live preview, the JSON API.

All three go through ``reviewapp.answers``: the forms only turn fields into
an answer, ``answers.answer_question`` validates and writes it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from reviewapp import answers, inbox, items, roles, states
from reviewapp.api_auth import api_view, json_error
from reviewapp.forms.answer import (
    ADD_ROW,
    DENY,
    SAVE,
    RepresentationForm,
    answer_form,
    representation_form_with_extra_row,
)
from reviewapp.http import HtmxHttpRequest
from reviewapp.bookkeeping.models import InboxItem

PANEL = "items/_answer_panel.html#answer-panel"
PREVIEW = "items/_answer_panel.html#answer-preview"
PAGE = "items/answer.html"

AnswerForm = Any  # one of reviewapp.forms.answer's three answer forms


# --- What the panel shows ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnsweredBy:
    """Who settled the question, from the latest answer event."""

    actor: str
    channel: str
    at: Any

    def to_json(self) -> dict[str, Any]:
        return {"actor": self.actor or None, "channel": self.channel, "at": answers.utc_stamp(self.at)}


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


def answered_by(item: InboxItem) -> AnsweredBy | None:
    event = answers.latest_answer_event(item)
    if event is None:
        return None
    return AnsweredBy(actor=event.actor_label, channel=items.channel_label(event.channel), at=event.occurred_at)


def conflict_view(conflict: answers.AnswerConflict) -> ConflictView:
    item = conflict.item
    now = answers.outputs(item, item.channel_context)
    pending = answers.pending_question(item.channel_context)
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


def preview_of(item: InboxItem, form: AnswerForm) -> dict[str, Any]:
    """The outputs after saving what ``form`` holds, or why there are none yet.

    Nothing is written: the new context is built in memory by the same
    function the write uses.
    """
    if form.question == answers.RESEND:
        # Both choices settle the question the same way for the prompt and
        # the verifikat; the file is not sent just to preview.
        answer: answers.Answer = answers.ResendAnswer(readable=True)
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
        answers.validate(answer)
    except answers.AnswerInvalid as invalid:
        note = " ".join(message for messages_ in invalid.errors.values() for message in messages_)
    ctx = item.channel_context if isinstance(item.channel_context, dict) else {}
    after_ctx = answers.answered_context(ctx, answer, answered_at=answers.utc_stamp(timezone.now()))
    return {"after": answers.outputs(item, after_ctx), "note": note}


def panel_context(
    item: InboxItem,
    user: AbstractBaseUser | AnonymousUser,
    *,
    form: AnswerForm | None = None,
    list_query: str = "",
    conflict: answers.AnswerConflict | None = None,
) -> dict[str, Any]:
    """The context ``items/_answer_panel.html`` needs, under ``answer_panel``.

    The item page calls this with the item alone; the answer views pass the
    bound form (invalid input, or a conflict) so what was typed stays.
    """
    ctx = item.channel_context
    pending = answers.pending_question(ctx)
    status = pending.get("status") if pending else None
    question = pending.get("type") if pending else None
    may_answer = isinstance(user, User) and user.has_perm(roles.ANSWER)
    panel: dict[str, Any] = {
        "mode": None,
        "question": question,
        "question_label": states.QUESTION_TYPE_LABELS.get(str(question), question),
        "may_answer": may_answer,
        "list_query": list_query,
        "form": None,
        "max_participants": answers.MAX_PARTICIPANTS,
    }
    if conflict is not None:
        panel["mode"] = "conflict"
        panel["conflict"] = conflict_view(conflict)
        if form is not None:
            form.make_readonly()
            panel["form"] = form
            panel["question"] = form.question
    elif status == "open":
        panel["mode"] = "waiting"
        ends = answers.chat_window_ends(ctx)
        panel["window_ends"] = ends
        panel["window_passed"] = ends is not None and ends <= timezone.now()
    elif status == "moved_to_app" and question in answers.QUESTION_TYPES:
        panel["mode"] = "answer"
        if may_answer:
            form = form or answer_form(question, channel_context=ctx)
            panel["form"] = form
            panel["current"] = answers.outputs(item, ctx)
            panel["preview"] = preview_of(item, form)
    elif status == "moved_to_app":
        panel["mode"] = "unknown_type"
    return {"answer_panel": panel}


# --- After saving -------------------------------------------------------------------


def _clean_query(raw: str) -> str:
    """The list's query string, re-encoded: nothing but parameters survives."""
    return QueryDict(raw[:2000]).urlencode()


def next_item_url(item: InboxItem, list_query: str) -> str:
    """Where Ctrl+Enter goes after saving: the next item still needing an answer.

    First in the list the user came from (its filters, plus "needs answer",
    after this item in its order), else the oldest question waiting for the
    app anywhere, else the list. ``item`` is the item as it was before the
    answer, so its position in a "question age" order is where it was listed.
    """
    query = QueryDict(list_query, mutable=True)
    query.setlist("state", [*query.getlist("state"), states.NEEDS_ANSWER])
    query.pop("page", None)
    _previous, following = inbox.neighbours(item, query)
    suffix = f"?{list_query}" if list_query else ""
    if following is not None:
        return reverse("item_detail", args=[following.pk]) + suffix
    oldest = (
        InboxItem.objects.filter(state_needs_answer=True)
        .exclude(pk=item.pk)
        .order_by(*(key.order_by() for key in inbox.SORTS["question_age"]))
        .first()
    )
    if oldest is not None:
        return reverse("item_detail", args=[oldest.pk]) + suffix
    return reverse("inbox") + suffix


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
    """The answer form: GET shows it on its own page, POST saves it.

    Invalid input re-renders the form with the errors and everything typed;
    a conflict shows the answer that won next to what was typed.
    """
    item = get_object_or_404(InboxItem.objects.select_related("company"), pk=item_id)
    list_query = _clean_query(request.POST.get("list_query", "") or request.GET.urlencode())
    if request.method == "GET":
        return _render(request, item, panel_context(item, request.user, list_query=list_query))

    question = request.POST.get("question", "")
    if question not in answers.QUESTION_TYPES:
        return HttpResponseBadRequest(_("Unknown question type."))
    action = request.POST.get("action", SAVE)
    form = answer_form(
        question,
        channel_context=item.channel_context,
        data=request.POST,
        files=request.FILES,
        action=DENY if action == DENY else SAVE,
    )
    # The question may have been settled while the page was open: say so
    # before asking anybody to fix a field. (answer_question checks again
    # under the row lock; this early look only saves a pointless form.)
    reason = answers.conflict_reason(item.channel_context, question)
    if reason is not None:
        conflict = answers.AnswerConflict(item, reason)
        panel = panel_context(item, request.user, form=form, list_query=list_query, conflict=conflict)
        return _render(request, item, panel, status=409)
    if action == ADD_ROW and isinstance(form, RepresentationForm):
        # Without JavaScript, "Add a participant" posts the form: show it again with one more row.
        form = representation_form_with_extra_row(form, item.channel_context)
        return _render(request, item, panel_context(item, request.user, form=form, list_query=list_query))
    if not form.is_valid():
        return _render(request, item, panel_context(item, request.user, form=form, list_query=list_query))

    try:
        answers.answer_question(item_id=item.pk, user=_answerer(request), answer=form.valid_answer)
    except answers.AnswerInvalid as invalid:
        form.apply_errors(invalid.errors)
        return _render(request, item, panel_context(item, request.user, form=form, list_query=list_query))
    except answers.AnswerConflict as conflict:
        panel = panel_context(conflict.item, request.user, form=form, list_query=list_query, conflict=conflict)
        return _render(request, conflict.item, panel, status=409)

    messages.success(request, _("Answer saved."))
    url = next_item_url(item, list_query)
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
    if panel["mode"] == "answer" and panel["question"] == question:
        form = answer_form(question, channel_context=item.channel_context, data=request.POST, files=request.FILES)
        panel["preview"] = preview_of(item, form)
    else:
        panel["current"] = answers.outputs(item, item.channel_context)
        panel["preview"] = {"after": None, "note": _("This question is no longer waiting for an answer here.")}
    return render(request, PREVIEW, {"item": item, "answer_panel": panel})


# --- The JSON API --------------------------------------------------------------------------


def state_json(item: InboxItem) -> dict[str, Any]:
    """The item's clarification state as the API reports it after an answer or a conflict."""
    out = answers.outputs(item, item.channel_context)
    pending = answers.pending_question(item.channel_context)
    by = answered_by(item)
    return {
        "id": str(item.pk),
        "summary": out["summary"],
        "lines": out["lines"],
        "notes": out["notes"],
        "pending_question": pending,
        "states": sorted(states.compute(item.channel_context, item.extracted_data).states),
        "answered_by": by.to_json() if by else None,
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
            "new_item_id": str(result.new_item.pk) if result.new_item else None,
        }
    )
