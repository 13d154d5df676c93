"""The item page, its receipt file and its JSON twin."""

from __future__ import annotations

import re
import uuid
from pathlib import PurePath
from typing import Any, Final

from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import AnonymousUser, PermissionsMixin
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import storages
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from reviewapp import inbox, items, roles
from reviewapp.api_auth import api_view
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.http import HtmxHttpRequest
from reviewapp.models import IndexedItem
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
    # Previous/next come from the list's read model, where the item is placed
    # as the list showed it; an item sync_index has not reached yet has none.
    indexed = IndexedItem.objects.filter(pk=item.pk).first()
    prev_item, next_item = inbox.neighbours(indexed, request.GET) if indexed is not None else (None, None)
    context: dict[str, Any] = {
        "item": item,
        "view": items.describe_item(item, full_conversation=_may(request, items.FULL_PERMISSION)),
        "document": item.document,
        "document_kind": items.document_kind(item.document),
        "history_limit": items.HISTORY_LIMIT,
        "transcript_limit": items.TRANSCRIPT_LIMIT,
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


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _download_name(file_name: str) -> str:
    """The stored file name, safe for a Content-Disposition header: no folders, no control characters."""
    name = _CONTROL.sub("", PurePath(file_name.replace("\\", "/")).name).strip()
    return name or "document"


def _document_missing(
    request: HtmxHttpRequest, item_id: uuid.UUID, document: DocumentAttachment | None, reason: str
) -> HttpResponse:
    context = {"item_id": item_id, "document": document, "reason": reason}
    return render(request, "items/document_missing.html", context, status=404)


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def item_document(request: HtmxHttpRequest, item_id: uuid.UUID) -> HttpResponseBase:
    """The receipt file, read from accounted's ``documents`` bucket by its ``storage_path``."""
    item = get_object_or_404(
        InboxItem.objects.select_related("document").only(
            "id", "document", "document__storage_path", "document__file_name", "document__mime_type"
        ),
        pk=item_id,
    )
    document = item.document
    if document is None:
        return _document_missing(request, item_id, None, _("This item has no document."))
    try:
        handle = storages["documents"].open(document.storage_path, "rb")
    except FileNotFoundError:
        return _document_missing(
            request, item_id, document, _("The receipt file is missing from the documents storage.")
        )
    except (SuspiciousFileOperation, OSError, ValueError):
        # A key that leaves the bucket ("../", an absolute path), names a
        # folder, is too long for the file system or holds a NUL byte.
        return _document_missing(
            request, item_id, document, _("The receipt file cannot be read from the documents storage.")
        )
    head = handle.read(16)
    handle.seek(0)
    # The bytes decide, not the stored mime type: a file that is not an
    # image or a PDF is only ever offered as a download.
    content_type = _sniff(head)
    response = FileResponse(
        handle,
        content_type=content_type or "application/octet-stream",
        as_attachment=content_type is None,
        filename=_download_name(document.file_name),
    )
    response["X-Content-Type-Options"] = "nosniff"
    response._csp_config = _PDF_CSP if content_type == "application/pdf" else _FILE_CSP  # type: ignore[attr-defined]
    return response


@api_view(methods=["GET"], permission=roles.VIEW_ITEMS)
def api_item_detail(request: HtmxHttpRequest, item_id: uuid.UUID) -> JsonResponse:
    item = items.page_queryset().filter(pk=item_id).first()
    if item is None:
        return JsonResponse({"error": "no such item"}, status=404)
    return JsonResponse(
        items.item_json(
            item,
            include_raw_context=_may(request, roles.VIEW_RAW),
            full_conversation=_may(request, items.FULL_PERMISSION),
        )
    )
