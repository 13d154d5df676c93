"""On hold and notes for colleagues: the item page's forms and their JSON twins.

Every view opens the item only for a user who may see its company: another
company's item is a 404, exactly like a missing one. The rules are in
``reviewapp.inbox.holds`` and ``reviewapp.items.notes``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from reviewapp.core import roles
from reviewapp.inbox import holds
from reviewapp.items import notes
from reviewapp.models import IndexedItem, ItemNote
from reviewapp.web.api_auth import api_view, json_error, json_response
from reviewapp.web.forms.holds import HoldForm, NoteForm, json_errors
from reviewapp.web.htmx import AuthenticatedHttpRequest, redirect_htmx, render_htmx


def _visible(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> IndexedItem | None:
    """The item's read-model row if the user may see its company; None otherwise, exactly as for a missing id."""
    return IndexedItem.objects.visible_to(request.user).filter(pk=item_id).first()


def _visible_or_404(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> IndexedItem:
    """The HTML views' twin of ``_visible``: the one 404 a hidden or missing item gets."""
    return get_object_or_404(IndexedItem.objects.visible_to(request.user), pk=item_id)


def _json_body(request: AuthenticatedHttpRequest) -> dict[str, Any] | None:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _note_form_from_json(request: AuthenticatedHttpRequest) -> NoteForm | HttpResponse:
    """The JSON body's ``text`` as a valid note form, or the 400 that says what is wrong with it."""
    data = _json_body(request)
    if data is None:
        return json_error(400, "send a JSON object")
    form = NoteForm({"text": data["text"]} if isinstance(data.get("text"), str) else {})
    if not form.is_valid():
        return json_error(400, "the note is not valid", errors=json_errors(form))
    return form


def _item_url(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> str:
    back = request.POST.get("list_query", "")
    return reverse("item_detail", args=[item_id]) + (f"?{back}" if back and "\n" not in back else "")


# --- JSON API --------------------------------------------------------------


@api_view(methods=["POST", "DELETE"], permission=roles.ANSWER)
def api_item_hold(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = _visible(request, item_id)
    if item is None:
        return json_error(404, "no such item")
    if request.method == "DELETE":
        released = holds.release_hold(item, request.user)
        return json_response({"released": released, "hold": None})
    data = _json_body(request)
    if data is None:
        return json_error(400, "send a JSON object")
    values = {key: value for key, value in data.items() if isinstance(value, str)}
    form = HoldForm(values)
    if not form.is_valid():
        return json_error(400, "the hold is not valid", errors=json_errors(form))
    try:
        hold = holds.put_hold(item, request.user, **form.cleaned_data)
    except holds.HoldRefused as refused:
        return json_error(409, refused.message, code=refused.code)
    return json_response({"hold": holds.hold_json(hold)})


@api_view(methods=["POST"], permission=roles.ADD_NOTE)
def api_item_notes(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = _visible(request, item_id)
    if item is None:
        return json_error(404, "no such item")
    form = _note_form_from_json(request)
    if isinstance(form, HttpResponse):
        return form
    note = notes.add_note(item.pk, item.company_id, request.user, form.cleaned_data["text"])
    return json_response(notes.note_json(note), status=201)


@api_view(methods=["PATCH"], permission=roles.ADD_NOTE)
def api_item_note(request: AuthenticatedHttpRequest, item_id: uuid.UUID, note_id: int) -> HttpResponse:
    item = _visible(request, item_id)
    note = ItemNote.objects.select_related("author").filter(pk=note_id, item_id=item_id).first()
    if item is None or note is None:
        return json_error(404, "no such note")
    form = _note_form_from_json(request)
    if isinstance(form, HttpResponse):
        return form
    try:
        notes.edit_note(note, request.user, form.cleaned_data["text"])
    except notes.NoteLocked as locked:
        return json_error(403, str(locked))
    return json_response(notes.note_json(note))


# --- The item page's forms ---------------------------------------------------


def team_row(item_id: uuid.UUID) -> IndexedItem | None:
    """The item's read-model row with what the panel needs (None before sync_index reached it)."""
    return IndexedItem.objects.only("id", "company_id", "state_needs_answer").filter(pk=item_id).first()


def team_context(indexed: IndexedItem | None) -> dict[str, Any]:
    """What the item and answer pages need for their *On hold and notes* panel (``items/_team.html``)."""
    return {
        "indexed": indexed,
        "hold": holds.hold_view(holds.active_hold(indexed)) if indexed is not None else None,
        "hold_form": HoldForm(),
        "note_form": NoteForm(),
    }


def _form_page(request: AuthenticatedHttpRequest, item: IndexedItem, **forms: Any) -> HttpResponse:
    """The form again with its errors under the fields (the item page's panel, or alone without JavaScript)."""
    context = {
        "indexed": item,
        "hold": holds.hold_view(holds.active_hold(item)),
        "hold_form": forms.get("hold_form") or HoldForm(),
        "note_form": forms.get("note_form") or NoteForm(),
        "list_query": request.POST.get("list_query", ""),
    }
    return render_htmx(request, "items/team.html", context, partial="team")


@require_POST
@permission_required(roles.ANSWER, raise_exception=True)
def item_hold(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = _visible_or_404(request, item_id)
    form = HoldForm(request.POST)
    if not form.is_valid():
        return _form_page(request, item, hold_form=form)
    try:
        holds.put_hold(item, request.user, **form.cleaned_data)
    except holds.HoldRefused as refused:
        form.add_error(None, refused.message)
        return _form_page(request, item, hold_form=form)
    messages.success(request, _("Put on hold until %(until)s.") % {"until": form.cleaned_data["until"].isoformat()})
    return redirect_htmx(request, _item_url(request, item_id))


@require_POST
@permission_required(roles.ANSWER, raise_exception=True)
def item_hold_release(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = _visible_or_404(request, item_id)
    if holds.release_hold(item, request.user):
        messages.success(request, _("Released from hold: the item is back in the queue."))
    return redirect_htmx(request, _item_url(request, item_id))


@require_POST
@permission_required(roles.ADD_NOTE, raise_exception=True)
def item_note_add(request: AuthenticatedHttpRequest, item_id: uuid.UUID) -> HttpResponse:
    item = _visible_or_404(request, item_id)
    form = NoteForm(request.POST)
    if not form.is_valid():
        return _form_page(request, item, note_form=form)
    notes.add_note(item.pk, item.company_id, request.user, form.cleaned_data["text"])
    messages.success(request, _("Note added."))
    return redirect_htmx(request, _item_url(request, item_id) + "#history")
