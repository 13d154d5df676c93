"""The prompt preview (playground), saving a golden case from it, and ``POST /api/preview``.

The golden cases list and each case's page are ``reviewapp.web.views.golden``.
An inbox item (``?item=``, or saved as a golden case) is loaded only for a
user who may see its company (``reviewapp.core.access``; else 404, as a missing
one), and only when its JSON fits what the preview accepts.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Final

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DataError, IntegrityError, transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

import clarifications
from clarifications.cli import dump_line
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import access, roles, states
from reviewapp.core.rendering_caps import capped_json
from reviewapp.models import GoldenCase
from reviewapp.previews.gallery import EXAMPLES, find_example
from reviewapp.previews.golden import save_golden_case
from reviewapp.previews.parsing import MAX_FORM_BYTES, MAX_INPUT_BYTES, InvalidJson, JsonDict, parse_json
from reviewapp.previews.rendering import Rendering, input_for_item, render_input
from reviewapp.web.api_auth import api_view, json_error
from reviewapp.web.forms.preview import GoldenCaseNameForm, PreviewForm, PreviewSourceForm
from reviewapp.web.htmx import AuthenticatedHttpRequest
from reviewapp.web.jinja import render_block
from reviewapp.web.visible import get_visible_item_or_404

# Indent every level, as the editor shows the JSON (``pretty``).
_EVERY_LEVEL: Final = 1_000_000_000


def _content_length(request: AuthenticatedHttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _too_large_message() -> str:
    return _("The request is larger than the %(limit)s KiB the preview accepts.") % {"limit": MAX_INPUT_BYTES // 1024}


def _load_item(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> InboxItem:
    """The inbox item, if it exists and the user may see its company; else Http404."""
    # The playground shows the raw channel_context, so it takes that permission too.
    if not request.user.has_perm(roles.VIEW_RAW):
        raise PermissionDenied
    return get_visible_item_or_404(
        request, item_id, InboxItem.objects.only("id", "company_id", "channel_context", "document", "extracted_data")
    )


def _unreadable_message(item: InboxItem) -> str:
    """Why a live row cannot be loaded into the editor, or "" when it can.

    Undecodable JSON cannot be shown; JSON whose indented text is larger
    than the preview accepts (``MAX_INPUT_BYTES`` per field) could not be
    rendered from the editor either, and would make the page as large as
    the stored value.
    """
    reason = states.undecodable_reason(item.channel_context, item.extracted_data)
    if reason:
        return _("Inbox item %(id)s cannot be loaded: its stored JSON cannot be decoded (%(reason)s).") % {
            "id": item.pk,
            "reason": reason,
        }
    for column in ("channel_context", "extracted_data"):
        text = capped_json(getattr(item, column), max_chars=MAX_INPUT_BYTES, max_depth=_EVERY_LEVEL)
        if text.truncated or len(text.text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
            return _(
                "Inbox item %(id)s cannot be loaded: its %(column)s is more than the %(limit)s KiB the preview accepts."
            ) % {"id": item.pk, "column": column, "limit": MAX_INPUT_BYTES // 1024}
    return ""


def _visible_source(request: AuthenticatedHttpRequest, item_id: uuid.UUID | None) -> uuid.UUID | None:
    """``item_id`` as a golden case's source item, or None when the user may not see that item.

    The playground carries the id it loaded (``source_item``); a forged id
    of another company's item is not linked to the case.
    """
    if item_id is None or access.company_ids(request.user) is None:
        return item_id
    return item_id if InboxItem.objects.visible_to(request.user).filter(pk=item_id).exists() else None


def _source_data(
    request: AuthenticatedHttpRequest, source: PreviewSourceForm
) -> tuple[dict[str, str] | None, str, str]:
    """Form data for ``?example=``, ``?item=`` or ``?case=``, what it was loaded from, and why it could not be."""
    data = source.cleaned_data
    if data.get("item"):
        item = _load_item(request, data["item"])
        unreadable = _unreadable_message(item)
        if unreadable:
            return None, "", unreadable
        return PreviewForm.data_for(input_for_item(item)), _("inbox item %(id)s") % {"id": item.pk}, ""
    if data.get("case"):
        case = get_object_or_404(GoldenCase, pk=data["case"])
        if not isinstance(case.input, dict) or "channel_context" not in case.input:
            raise Http404("This golden case has no channel_context to preview.")
        return PreviewForm.data_for(case.input), _("golden case “%(name)s”") % {"name": case.name}, ""
    if data.get("example"):
        example = find_example(data["example"])
        if example is not None:
            return PreviewForm.data_for(example.as_input()), _("example “%(title)s”") % {"title": example.title}, ""
    return None, "", ""


#: The largest input kept as the last good one (the form carries it on every
#: round trip; a larger input is rendered, just not kept while invalid).
LAST_GOOD_MAX_BYTES: Final = 64 * 1024


def _remembered(value: JsonDict) -> str:
    """The input line the page carries as ``last_good``, or "" when it is too large to carry."""
    line = dump_line(value)
    return line.decode("utf-8") if len(line) <= LAST_GOOD_MAX_BYTES else ""


def _stale_rendering(text: str) -> Rendering | None:
    """The renderings of the last valid input the page carried, or None when there is no usable one."""
    if not text or len(text) > LAST_GOOD_MAX_BYTES:
        return None
    try:
        value = parse_json(text)
    except InvalidJson:
        return None
    if not isinstance(value, dict) or "channel_context" not in value:
        return None
    return render_input(value)


def _item_of(data: Any) -> uuid.UUID | None:
    """The inbox item the playground's input came from, carried by its forms as ``source_item``."""
    try:
        return uuid.UUID(data.get("source_item") or "")
    except (ValueError, TypeError):
        return None


def _page(
    request: AuthenticatedHttpRequest,
    form: PreviewForm,
    *,
    name_form: GoldenCaseNameForm | None = None,
    source: PreviewSourceForm | None = None,
    source_item: uuid.UUID | None = None,
    loaded_from: str = "",
    load_error: str = "",
    status: int = 200,
    too_large: bool = False,
) -> HttpResponse:
    rendering = stale_rendering = None
    last_good = ""
    if form.is_bound and form.is_valid():
        value = form.case_input()
        rendering = render_input(value)
        last_good = _remembered(value)
    elif form.is_bound and request.method == "POST":
        # While the JSON is invalid (half typed), the last good renderings
        # stay, marked as not the current input, with the error beside them.
        last_good = request.POST.get("last_good", "")
        stale_rendering = _stale_rendering(last_good)
        if stale_rendering is None:
            last_good = ""
    can_save = request.user.has_perm(roles.SAVE_GOLDEN)
    source_item = source_item or (_item_of(request.POST) if request.method == "POST" else None)
    context = {
        "form": form,
        "rendering": rendering,
        "stale_rendering": stale_rendering,
        "last_good": last_good,
        "source_item": source_item,
        "examples": EXAMPLES,
        "selected_example": source.cleaned_data.get("example") if source and source.is_valid() else "",
        "source": source,
        "loaded_from": loaded_from,
        "load_error": load_error,
        "name_form": name_form or (GoldenCaseNameForm(initial={"source_item": source_item}) if can_save else None),
        "too_large": too_large,
        "too_large_message": _too_large_message() if too_large else "",
    }
    if request.htmx and request.method == "POST":
        response = HttpResponse(render_block("preview/page.html", "results", context, request), status=status)
        if too_large:
            # Into the results it replaces, not #request-refused where base.html's htmx-config sends a 413.
            response = reswap(retarget(response, "#preview-results"), "outerHTML")
        return response
    return render(request, "preview/page.html", context, status=status)


@require_http_methods(["GET", "POST"])
@permission_required(roles.PREVIEW, raise_exception=True)
def preview_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            if _content_length(request) > MAX_FORM_BYTES:
                raise RequestDataTooBig
            form = PreviewForm(request.POST)
        except RequestDataTooBig:
            return _page(request, PreviewForm(), status=413, too_large=True)
        return _page(request, form)
    source = PreviewSourceForm(request.GET)
    data, loaded_from, load_error = _source_data(request, source) if source.is_valid() else (None, "", "")
    form = PreviewForm(data) if data else PreviewForm()
    item = source.cleaned_data.get("item") if source.is_valid() and data else None
    return _page(request, form, source=source, source_item=item, loaded_from=loaded_from, load_error=load_error)


@require_POST
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Save the previewed input (or an inbox item's, with ``item``) with its current outputs."""
    try:
        if _content_length(request) > MAX_FORM_BYTES:
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
        data = {
            **PreviewForm.data_for(input_for_item(item)),
            "name": posted.get("name", ""),
            "source_item": str(item.pk),
        }
    form = PreviewForm(data)
    name_form = GoldenCaseNameForm(data)
    if form.is_valid() and name_form.is_valid():
        try:
            with transaction.atomic():
                case = save_golden_case(
                    name=name_form.cleaned_data["name"],
                    value=form.case_input(),
                    user=request.user,
                    source_item_id=_visible_source(request, name_form.cleaned_data.get("source_item")),
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
    return _page(request, form, name_form=name_form, source_item=_item_of(data))


@api_view(methods=["POST"], permission=roles.PREVIEW)
def api_preview(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Render one input line; the body answered is what ``python -m clarifications`` prints for it."""
    if _content_length(request) > MAX_INPUT_BYTES:
        return json_error(413, _too_large_message(), limit_bytes=MAX_INPUT_BYTES)
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(413, _too_large_message(), limit_bytes=MAX_INPUT_BYTES)
    if len(body) > MAX_INPUT_BYTES:
        return json_error(413, _too_large_message(), limit_bytes=MAX_INPUT_BYTES)
    try:
        value = parse_json(body)
    except InvalidJson as exc:
        return HttpResponse(dump_line(exc.as_json()), status=400, content_type="application/json")
    result = clarifications.render_case(value)
    # The command line prints a lone {"error": …} for an input of the wrong shape.
    status = 400 if set(result) == {"error"} else 200
    return HttpResponse(dump_line(result), status=status, content_type="application/json")
