"""The item page, its receipt file and its JSON twin."""

from __future__ import annotations

import uuid
from pathlib import PurePath
from typing import Any, Final

from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import AnonymousUser, PermissionsMixin
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.csp import CSP
from django.views.decorators.http import require_safe

from reviewapp import inbox, items, roles
from reviewapp.api_auth import api_view
from reviewapp.http import HtmxHttpRequest
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.views import answers

# Receipt files we show in the browser, recognised by their first bytes, not
# their name: anything else is offered as a download so an uploaded HTML or
# SVG file can never run in our origin.
_SIGNATURES: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)

# Chrome draws an inline PDF through an internal <embed>, which the site-wide
# object-src 'none' would block (crbug.com/271452); the file response only
# needs to say who may frame it.
_PDF_CSP: Final = {"frame-ancestors": [CSP.SELF]}
_FILE_CSP: Final = {"default-src": [CSP.NONE], "frame-ancestors": [CSP.SELF]}


def _may(request: HttpRequest, permission: str) -> bool:
    user = request.user
    return isinstance(user, PermissionsMixin | AnonymousUser) and user.has_perm(permission)


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def item_detail(request: HtmxHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = get_object_or_404(items.page_queryset(), pk=item_id)
    if item.states_stale:
        # Another program rewrote channel_context: place the item in the list
        # by what it says now (in memory; neighbours() refreshes the rows).
        item.refresh_states()
    prev_item, next_item = inbox.neighbours(item, request.GET)
    context: dict[str, Any] = {
        "item": item,
        "view": items.describe_item(item),
        "document_kind": items.document_kind(item),
        "prev_item": prev_item,
        "next_item": next_item,
        # The list's filter and sort, carried on prev/next and "Back to list".
        "list_query": request.GET.urlencode(),
        "can_answer": _may(request, roles.ANSWER),
        "can_view_raw": _may(request, roles.VIEW_RAW),
        "can_preview": _may(request, roles.PREVIEW),
        "can_save_golden": _may(request, roles.SAVE_GOLDEN),
        # The answer form under the open question (issue 6 owns it).
        **answers.panel_context(item, request.user, list_query=request.GET.urlencode()),
    }
    return render(request, "items/detail.html", context)


def _sniff(head: bytes) -> str | None:
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for signature, kind in _SIGNATURES if head.startswith(signature)), None)


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def item_document(request: HtmxHttpRequest, item_id: uuid.UUID) -> FileResponse:
    item = get_object_or_404(InboxItem.objects.only("id", "document_file"), pk=item_id)
    if not item.document_file:
        raise Http404("This item has no document.")
    try:
        handle = item.document_file.open("rb")
    except FileNotFoundError:
        raise Http404("The document file is missing from storage.") from None
    except (OSError, ValueError):
        # A path another program stored that names no readable file: a
        # directory, a name too long for the file system, a NUL byte.
        raise Http404("The document file cannot be read from storage.") from None
    head = handle.read(16)
    handle.seek(0)
    content_type = _sniff(head)
    response = FileResponse(
        handle,
        content_type=content_type or "application/octet-stream",
        as_attachment=content_type is None,
        filename=PurePath(item.document_file.name or "").name,
    )
    response["X-Content-Type-Options"] = "nosniff"
    response._csp_config = _PDF_CSP if content_type == "application/pdf" else _FILE_CSP  # type: ignore[attr-defined]
    return response


@api_view(methods=["GET"], permission=roles.VIEW_ITEMS)
def api_item_detail(request: HtmxHttpRequest, item_id: uuid.UUID) -> JsonResponse:
    item = items.page_queryset().filter(pk=item_id).first()
    if item is None:
        return JsonResponse({"error": "no such item"}, status=404)
    return JsonResponse(items.item_json(item, include_raw_context=_may(request, roles.VIEW_RAW)))
