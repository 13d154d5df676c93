"""The item page, its receipt file and its JSON twin.

Each of them opens an item only for a user who may see its company
(``reviewapp.web.visible``); another company's item is a 404, exactly like a
missing one.
"""

from __future__ import annotations

import re
import uuid
from pathlib import PurePath
from typing import Any, Final

from django.contrib.auth.decorators import permission_required
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import storages
from django.http import FileResponse, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from reviewapp.answers.log import app_answers
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.core import files, roles
from reviewapp.inbox.sorting import POSITION_FIELDS, neighbours
from reviewapp.items.describe import describe_item, item_json, page_queryset, shown_receipt_kind
from reviewapp.items.history import HISTORY_LIMIT
from reviewapp.items.transcript import FULL_PERMISSION, TRANSCRIPT_LIMIT
from reviewapp.models import IndexedItem
from reviewapp.web.api_auth import api_view, json_response
from reviewapp.web.forms.inbox import parse_list_query
from reviewapp.web.htmx import AuthenticatedHttpRequest, HtmxHttpRequest
from reviewapp.web.view_models.panel import answer_panel
from reviewapp.web.view_models.unread import unread_notice
from reviewapp.web.views import holds, raw
from reviewapp.web.visible import get_visible_item_or_404

# Chrome draws an inline PDF through an internal <embed>, which the site-wide
# object-src 'none' would block (crbug.com/271452); the file response only
# needs to say who may frame it.
_PDF_CSP: Final = {"frame-ancestors": [CSP.SELF]}
_FILE_CSP: Final = {"default-src": [CSP.NONE], "frame-ancestors": [CSP.SELF]}


def _raw_downloads(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> dict[str, str]:
    """Where a cut value's "Show all" downloads the stored JSON, for those who may see it ("": no download)."""
    may = request.user.has_perm(roles.VIEW_RAW)
    return {column: reverse("item_raw", args=[item_id, column]) if may else "" for column in raw.COLUMNS}


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def item_detail(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = get_visible_item_or_404(request, item_id, page_queryset())
    # Previous/next come from the list's read model, where the item is placed
    # as the list showed it; an item sync_index has not reached yet has none.
    # They are the neighbours in the list as this user sees it.
    # With what the hold panel needs (reviewapp.web.views.holds.team_context).
    indexed = IndexedItem.objects.only(*POSITION_FIELDS, "state_needs_answer", "company_id").filter(pk=item.pk).first()
    list_query = parse_list_query(request.GET, user=request.user)
    prev_item, next_item = neighbours(indexed, list_query) if indexed is not None else (None, None)
    log = app_answers(item.pk)
    view = describe_item(item, full_conversation=request.user.has_perm(FULL_PERMISSION), user=request.user, app_log=log)
    context: dict[str, Any] = {
        "item": item,
        "view": view,
        "header": view.header,
        "raw_downloads": _raw_downloads(request, item.pk),
        "document": item.document,
        "document_kind": shown_receipt_kind(item.document),
        "history_limit": HISTORY_LIMIT,
        "transcript_limit": TRANSCRIPT_LIMIT,
        "prev_item": prev_item,
        "next_item": next_item,
        # The list's filter and sort, carried on prev/next and "Back to list".
        "list_query": request.GET.urlencode(),
        # The answer form under the open question.
        "answer_panel": answer_panel(item, request.user, list_query=request.GET.urlencode(), links=view.links, log=log),
        # accounted has not read the photo: what that means and how to have it read.
        "unread_notice": unread_notice() if item.extraction_skipped else None,
        # On hold and notes (reviewapp.web.views.holds).
        **holds.team_context(indexed),
    }
    return render(request, "items/detail.html", context)


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
def item_document(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponseBase:
    """The receipt file, read from accounted's ``documents`` bucket by its ``storage_path``."""
    item = get_visible_item_or_404(
        request,
        item_id,
        InboxItem.objects.select_related("document").only(
            "id", "company_id", "document", "document__storage_path", "document__file_name", "document__mime_type"
        ),
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
    content_type = files.mime_type_of(head)
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
def api_item_detail(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = page_queryset().visible_to(request.user).filter(pk=item_id).first()
    if item is None:
        # Another company's item answers exactly as a missing one.
        return json_response({"error": "no such item"}, status=404)
    return json_response(
        item_json(
            item,
            include_raw_context=request.user.has_perm(roles.VIEW_RAW),
            full_conversation=request.user.has_perm(FULL_PERMISSION),
            user=request.user,
        )
    )
