"""The prompt preview (playground), golden cases, and ``POST /api/preview``."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DataError, IntegrityError, transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

import clarifications
from clarifications.cli import dump_line
from reviewapp import previews, roles, states
from reviewapp.api_auth import api_view, json_error
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.forms.preview import GoldenCaseFilterForm, GoldenCaseNameForm, PreviewForm, PreviewSourceForm
from reviewapp.http import HtmxHttpRequest
from reviewapp.models import GoldenCase


def _content_length(request: HtmxHttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _may(request: HtmxHttpRequest, permission: str) -> bool:
    user = request.user
    return isinstance(user, PermissionsMixin) and user.has_perm(permission)


def _too_large_message() -> str:
    return _("The request is larger than the %(limit)s KiB the preview accepts.") % {
        "limit": previews.MAX_INPUT_BYTES // 1024
    }


def _load_item(request: HtmxHttpRequest, item_id: Any) -> InboxItem:
    # The playground shows the raw channel_context, so it takes that permission too.
    if not _may(request, roles.VIEW_RAW):
        raise PermissionDenied
    return get_object_or_404(InboxItem.objects.only("id", "channel_context", "document", "extracted_data"), pk=item_id)


def _unreadable_message(item: InboxItem) -> str:
    """Why a live row cannot be loaded into the editor, or "" when it can."""
    reason = states.undecodable_reason(item.channel_context, item.extracted_data)
    if not reason:
        return ""
    return _("Inbox item %(id)s cannot be loaded: its stored JSON cannot be decoded (%(reason)s).") % {
        "id": item.pk,
        "reason": reason,
    }


def _source_data(request: HtmxHttpRequest, source: PreviewSourceForm) -> tuple[dict[str, str] | None, str, str]:
    """Form data for ``?example=``, ``?item=`` or ``?case=``, what it was loaded from, and why it could not be."""
    data = source.cleaned_data
    if data.get("item"):
        item = _load_item(request, data["item"])
        unreadable = _unreadable_message(item)
        if unreadable:
            return None, "", unreadable
        return PreviewForm.data_for(previews.input_for_item(item)), _("inbox item %(id)s") % {"id": item.pk}, ""
    if data.get("case"):
        case = get_object_or_404(GoldenCase, pk=data["case"])
        if not isinstance(case.input, dict) or "channel_context" not in case.input:
            raise Http404("This golden case has no channel_context to preview.")
        return PreviewForm.data_for(case.input), _("golden case “%(name)s”") % {"name": case.name}, ""
    if data.get("example"):
        example = previews.example(data["example"])
        if example is not None:
            return PreviewForm.data_for(example.as_input()), _("example “%(title)s”") % {"title": example.title}, ""
    return None, "", ""


def _page(
    request: HtmxHttpRequest,
    form: PreviewForm,
    *,
    name_form: GoldenCaseNameForm | None = None,
    source: PreviewSourceForm | None = None,
    loaded_from: str = "",
    load_error: str = "",
    status: int = 200,
    too_large: bool = False,
) -> HttpResponse:
    rendering = previews.render_input(form.case_input()) if form.is_bound and form.is_valid() else None
    can_save = _may(request, roles.SAVE_GOLDEN)
    context = {
        "form": form,
        "rendering": rendering,
        "examples": previews.EXAMPLES,
        "selected_example": source.cleaned_data.get("example") if source and source.is_valid() else "",
        "source": source,
        "loaded_from": loaded_from,
        "load_error": load_error,
        "can_save": can_save,
        "name_form": name_form or (GoldenCaseNameForm() if can_save else None),
        "too_large": too_large,
        "too_large_message": _too_large_message() if too_large else "",
    }
    template = "preview/page.html#results" if request.htmx and request.method == "POST" else "preview/page.html"
    return render(request, template, context, status=status)


@require_http_methods(["GET", "POST"])
@permission_required(roles.PREVIEW, raise_exception=True)
def preview_page(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            if _content_length(request) > previews.MAX_FORM_BYTES:
                raise RequestDataTooBig
            form = PreviewForm(request.POST)
        except RequestDataTooBig:
            return _page(request, PreviewForm(), status=413, too_large=True)
        return _page(request, form)
    source = PreviewSourceForm(request.GET)
    data, loaded_from, load_error = _source_data(request, source) if source.is_valid() else (None, "", "")
    form = PreviewForm(data) if data else PreviewForm()
    return _page(request, form, source=source, loaded_from=loaded_from, load_error=load_error)


@require_POST
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_create(request: HtmxHttpRequest) -> HttpResponse:
    """Save the previewed input (or an inbox item's, with ``item``) with its current outputs."""
    try:
        if _content_length(request) > previews.MAX_FORM_BYTES:
            raise RequestDataTooBig
        posted = request.POST
    except RequestDataTooBig:
        return _page(request, PreviewForm(), status=413, too_large=True)
    data: Any = posted
    if posted.get("item"):
        source = PreviewSourceForm({"item": posted["item"]})
        if not source.is_valid():
            raise Http404("No such inbox item.")
        item = _load_item(request, source.cleaned_data["item"])
        unreadable = _unreadable_message(item)
        if unreadable:
            return _page(request, PreviewForm(), load_error=unreadable)
        data = {**PreviewForm.data_for(previews.input_for_item(item)), "name": posted.get("name", "")}
    form = PreviewForm(data)
    name_form = GoldenCaseNameForm(data)
    if form.is_valid() and name_form.is_valid():
        try:
            with transaction.atomic():
                case = previews.save_golden_case(
                    name=name_form.cleaned_data["name"], value=form.case_input(), user=request.user
                )
        except IntegrityError:  # saved by someone else since the form was checked
            name_form.add_error("name", _("A golden case with this name already exists."))
        except DataError:
            # PostgreSQL's jsonb cannot hold U+0000, nor a lone UTF-16
            # surrogate, which the notes cap leaves when it cuts an emoji in half.
            if "\\u0000" in json.dumps(form.case_input()):
                name_form.add_error(None, _("This case cannot be stored: its input holds a NUL character (\\u0000)."))
            else:
                name_form.add_error(None, _("This case cannot be stored: its input or output holds half an emoji."))
        else:
            messages.success(request, _("Saved golden case “%(name)s”.") % {"name": case.name})
            target = reverse("golden_case_detail", args=[case.pk])
            if request.htmx:
                return HttpResponseClientRedirect(target)
            return redirect(target)
    return _page(request, form, name_form=name_form)


@require_safe
@permission_required(roles.PREVIEW, raise_exception=True)
def golden_case_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = GoldenCaseFilterForm(request.GET)
    wanted = filters.cleaned_data.get("status", "") if filters.is_valid() else ""
    results = previews.check_all(GoldenCase.objects.all())
    failing = sum(1 for result in results if not result.passed)
    # Failing cases first: they are what the page is opened for.
    shown = sorted((r for r in results if not wanted or (wanted == "pass") == r.passed), key=lambda r: r.passed)
    context = {
        "filters": filters,
        "results": shown,
        "total": len(results),
        "failing": failing,
        "passing": len(results) - failing,
    }
    return render(request, "preview/cases.html", context)


@require_safe
@permission_required(roles.PREVIEW, raise_exception=True)
def golden_case_detail(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    case = get_object_or_404(GoldenCase.objects.select_related("created_by"), pk=case_id)
    result = previews.check_case(case)
    context = {
        "case": case,
        "result": result,
        "diff": previews.classify_diff(result.diff()),
        "input_json": previews.pretty(case.input),
        "expected_json": previews.pretty(case.expected),
        "actual_json": previews.pretty(result.actual),
        "can_open": isinstance(case.input, dict) and "channel_context" in case.input,
    }
    return render(request, "preview/case_detail.html", context)


@api_view(methods=["POST"], permission=roles.PREVIEW)
def api_preview(request: HtmxHttpRequest) -> HttpResponse:
    """Render one input line; the body answered is what ``python -m clarifications`` prints for it."""
    if _content_length(request) > previews.MAX_INPUT_BYTES:
        return json_error(413, _too_large_message(), limit_bytes=previews.MAX_INPUT_BYTES)
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(413, _too_large_message(), limit_bytes=previews.MAX_INPUT_BYTES)
    if len(body) > previews.MAX_INPUT_BYTES:
        return json_error(413, _too_large_message(), limit_bytes=previews.MAX_INPUT_BYTES)
    try:
        value = previews.parse_json(body)
    except previews.InvalidJson as exc:
        return HttpResponse(dump_line(exc.as_json()), status=400, content_type="application/json")
    result = clarifications.render_case(value)
    # The command line prints a lone {"error": …} for an input of the wrong shape.
    status = 400 if set(result) == {"error"} else 200
    return HttpResponse(dump_line(result), status=status, content_type="application/json")
