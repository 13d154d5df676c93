"""One answer for several ticked items of one company: its page (``/answers/bulk/``) and ``POST /api/answers``.

HTTP only: ``reviewapp.answers.bulk`` writes each item as its own single
answer and reports each outcome.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import permission_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from reviewapp.answers import bulk
from reviewapp.answers.channel_context import pending_question
from reviewapp.answers.inputs import CONTEXT, Answer, ContextAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid, answer_from_json, validate
from reviewapp.core import roles
from reviewapp.web.api_auth import api_view, json_error, json_response
from reviewapp.web.htmx import AuthenticatedHttpRequest

PAGE = "answers/bulk.html"


def _question_of(items: list[Any]) -> str | None:
    """The question the items waiting in the app wait for, if it is one and a bulk answer settles it.

    An item answered meanwhile is left to its own 409 outcome, not a reason to refuse the others.
    """
    types = set()
    for item in items:
        pending = pending_question(item.channel_context) or {}
        if pending.get("status") == "moved_to_app":
            types.add(pending.get("type"))
    if len(types) == 1:
        (question,) = types
        return question if question in bulk.BULK_TYPES else None
    return None


@require_http_methods(["GET", "POST"])
@permission_required(roles.ANSWER, raise_exception=True)
def bulk_answer(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: the ticked items and one form for all; POST: each item answered on its own, each outcome shown."""
    params = request.POST if request.method == "POST" else request.GET
    list_query = QueryDict(params.get("list_query", "")[:2000]).urlencode()
    # Every name the page reads, so it says "none" itself (the templates fail on a missing one).
    context: dict[str, Any] = {
        "list_query": list_query,
        "text": "",
        "errors": {},
        "refusal": "",
        "outcomes": [],
        "ids": [],
        "items": [],
        "missing": 0,
        "question": None,
    }
    try:
        ids = bulk.item_ids(params.getlist("items"))
        items = bulk.visible_items(ids, request.user)
    except AnswerInvalid as invalid:
        context["refusal"] = " ".join(invalid.errors["items"])
        return render(request, PAGE, context, status=400)
    except bulk.MixedCompanies as mixed:
        context["refusal"] = mixed.message
        return render(request, PAGE, context, status=400)
    shown = [items[item_id] for item_id in ids if item_id in items]
    question = _question_of(shown)
    posted = params.get("question") if request.method == "POST" else None
    if posted in bulk.BULK_TYPES:
        # The form said which answer it gives: an item that changed since the
        # page was shown is that item's own outcome (409), not a refusal of all.
        question = posted
    context |= {"ids": ids, "items": shown, "missing": len(ids) - len(shown), "question": question}
    if shown and question is None:
        context["refusal"] = _(
            "A bulk answer is one context text, or “readable” for resend questions, and every ticked item must "
            "wait in the app for that same question. Untick the others, or answer them one by one."
        )
    if request.method == "GET" or context["refusal"]:
        return render(request, PAGE, context, status=400 if context["refusal"] else 200)
    answer: Answer = ContextAnswer(text=params.get("text", "")) if question == CONTEXT else ResendAnswer(readable=True)
    try:
        validate(answer)
    except AnswerInvalid as invalid:
        # The same mistake for every item: said once, under the field, with what was typed kept.
        context |= {"text": params.get("text", ""), "errors": invalid.errors}
        return render(request, PAGE, context)
    context["outcomes"] = bulk.answer_items(ids, request.user, answer)
    return render(request, PAGE, context)


def _body(request: AuthenticatedHttpRequest) -> dict[str, Any] | HttpResponse:
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(413, "the body is larger than the server accepts")
    if request.content_type != "application/json":
        return json_error(400, "send the answers as JSON with Content-Type: application/json")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return json_error(400, "the body is not valid JSON")
    if not isinstance(data, dict) or set(data) != {"items", "answer"}:
        return json_error(400, 'send {"items": [item ids], "answer": {the answer}}')
    return data


@api_view(methods=["POST"], permission=roles.ANSWER)
def api_answers(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``POST /api/answers``: ``{"items": [ids], "answer": {…}}``, each item answered on its own; see the README."""
    data = _body(request)
    if isinstance(data, HttpResponse):
        return data
    try:
        ids = bulk.item_ids(data["items"])
        answer = answer_from_json(data["answer"])
        problem = bulk.bulk_problem(answer)
        if problem is not None:
            raise AnswerInvalid({"question": [problem]})
        # An answer that breaks a rule breaks it for every item: one 400, not a hundred.
        validate(answer)
    except AnswerInvalid as invalid:
        return json_error(400, "the answer is not valid", errors=invalid.errors)
    try:
        outcomes = bulk.answer_items(ids, request.user, answer)
    except bulk.MixedCompanies as mixed:
        return json_error(400, mixed.message, code="mixed_companies")
    except AnswerInvalid as invalid:
        return json_error(400, "the answer is not valid", errors=invalid.errors)
    return json_response({"results": [outcome.to_json() for outcome in outcomes]})
