"""Answering a ``moved_to_app`` question: the answer form and its page, its live preview, the JSON API.

HTTP only: ``reviewapp.web.view_models.outcome`` decides what a posted form leads to
and ``reviewapp.answers.writing.answer_question`` writes the answer. Each
view opens the item only for a user who may see its company
(``reviewapp.web.visible``); another company's item is a 404, like a missing one.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, HttpResponseBadRequest, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from reviewapp.answers.dates import warnings_json
from reviewapp.answers.inputs import QUESTION_TYPES, Answer, RepresentationAnswer
from reviewapp.answers.resend import DuplicateFile, ReplacementUnconfirmed
from reviewapp.answers.validation import AnswerInvalid, answer_from_json, upload_from_form
from reviewapp.answers.writing import AnswerConflict, answer_question
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.web.api_auth import api_view, json_error, json_response
from reviewapp.web.htmx import AuthenticatedHttpRequest, redirect_htmx, render_htmx
from reviewapp.web.view_models.outcome import state_json, submit
from reviewapp.web.view_models.panel import AnswerPanel, answer_panel, preview_panel
from reviewapp.web.views import holds
from reviewapp.web.visible import get_visible_item_or_404

PAGE = "items/answer.html"
PREVIEW = "items/_answer_preview.html"


def _question(request: AuthenticatedHttpRequest) -> str | None:
    question = request.POST.get("question", "")
    return question if question in QUESTION_TYPES else None


def _list_query(raw: str) -> str:
    """The list's query string, re-encoded: nothing but parameters survives."""
    return QueryDict(raw[:2000]).urlencode()


def _panel(request: AuthenticatedHttpRequest, panel: AnswerPanel) -> HttpResponse:
    context: dict[str, Any] = {"item": panel.item, "answer_panel": panel}
    if not request.htmx:
        # The page of its own also lets a bookkeeper put the question on hold or leave a note.
        context.update(holds.team_context(holds.team_row(panel.item.pk)))
    status = 409 if panel.mode == "conflict" else 200
    return render_htmx(request, PAGE, context, partial="answer_panel", status=status)


@require_http_methods(["GET", "POST"])
@permission_required(roles.ANSWER, raise_exception=True)
def item_answer(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """The answer form: GET shows it on its own page, POST saves it (or asks to confirm a denial)."""
    item = get_visible_item_or_404(request, item_id, InboxItem.objects.select_related("company", "document"))
    list_query = _list_query(request.POST.get("list_query", "") or request.GET.urlencode())
    if request.method == "GET":
        return _panel(request, answer_panel(item, request.user, list_query=list_query))
    question = _question(request)
    if question is None:
        return HttpResponseBadRequest(_("Unknown question type."))
    outcome = submit(item, request.user, question, request.POST, request.FILES, list_query=list_query)
    if isinstance(outcome, AnswerPanel):
        return _panel(request, outcome)
    messages.success(request, outcome.message)
    if outcome.note:
        messages.info(request, outcome.note)
    if outcome.warning:
        messages.warning(request, outcome.warning)
    return redirect_htmx(request, outcome.url)


@require_POST
@permission_required(roles.ANSWER, raise_exception=True)
def item_answer_preview(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """The agent view and verifikat line as they would be after saving; nothing is saved."""
    item = get_visible_item_or_404(request, item_id, InboxItem.objects.select_related("company", "document"))
    question = _question(request)
    if question is None:
        return HttpResponseBadRequest(_("Unknown question type."))
    panel = preview_panel(item, request.user, question, request.POST, request.FILES)
    return render(request, PREVIEW, {"item": item, "answer_panel": panel})


def _api_answer(request: AuthenticatedHttpRequest) -> Answer | HttpResponse:
    """The answer the request's body holds (JSON, or a sharper file as multipart), or the error response."""
    if request.content_type == "multipart/form-data":
        try:
            return upload_from_form(request.POST, request.FILES)
        except RequestDataTooBig:
            return json_error(413, "the body is larger than the server accepts")
        except MultiPartParserError:
            return json_error(400, "the multipart body cannot be read")
        except AnswerInvalid as invalid:
            return json_error(400, "the answer is not valid", errors=invalid.errors)
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(413, "the body is larger than the server accepts")
    if request.content_type != "application/json":
        return json_error(
            400, "send the answer as JSON with Content-Type: application/json (a sharper file as multipart/form-data)"
        )
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return json_error(400, "the body is not valid JSON")
    try:
        return answer_from_json(data)
    except AnswerInvalid as invalid:
        return json_error(400, "the answer is not valid", errors=invalid.errors)


@api_view(methods=["POST"], permission=roles.ANSWER)
def api_item_answer(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """``POST /api/items/<id>/answer`` with a JSON answer, or a sharper file as multipart; see the README."""
    answer = _api_answer(request)
    if isinstance(answer, HttpResponse):
        return answer
    if not InboxItem.objects.visible_to(request.user).filter(pk=item_id).exists():
        return json_error(404, "no such item")
    try:
        result = answer_question(item_id=item_id, user=request.user, answer=answer)
    except ReplacementUnconfirmed as unconfirmed:
        # Not a bad answer: the same body with "confirm": true is written.
        return json_error(
            409,
            unconfirmed.message,
            reason="differs",
            errors=unconfirmed.errors,
            differences=[difference.to_json() for difference in unconfirmed.differences],
            replacing_item_id=str(unconfirmed.new.pk),
            confirm_with={"confirm": True},
        )
    except DuplicateFile as duplicate:
        return json_error(
            400, "the answer is not valid", errors=duplicate.errors, existing_item_id=str(duplicate.holder.item_id)
        )
    except AnswerInvalid as invalid:
        return json_error(400, "the answer is not valid", errors=invalid.errors)
    except AnswerConflict as conflict:
        current = state_json(conflict.item, request.user)
        return json_error(409, conflict.message, reason=conflict.reason, current=current)
    except InboxItem.DoesNotExist:
        return json_error(404, "no such item")
    return json_response(
        {
            **state_json(result.item, request.user),
            "event_id": result.event.pk,
            "history_event_id": str(result.history.pk),
            "new_item_id": str(result.new_item.pk) if result.new_item else None,
            # Saved as typed; what looks mistyped (an event date in the future) is said here.
            "warnings": warnings_json(result.item, answer.event_date)
            if isinstance(answer, RepresentationAnswer)
            else [],
        }
    )
