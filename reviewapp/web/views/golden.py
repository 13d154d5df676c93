"""Golden cases: the list with its filters, one case with its word diff, and QA's changes to it.

Support and QA see the cases (``roles.PREVIEW``); only QA change them
(``roles.SAVE_GOLDEN``): accept the current output, rename, tag, delete.
Every change is logged (``GoldenCaseChange``) and shown on the case's page.
Saving a new case is the playground's (``reviewapp.web.views.preview``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db import IntegrityError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import access, roles
from reviewapp.models import GoldenCase
from reviewapp.previews.golden import canonical_pretty, check_all, check_case, natural_key, word_diff
from reviewapp.previews.maintenance import (
    CaseChanged,
    accept_current_output,
    all_tags,
    delete_case,
    digest,
    rename_case,
    set_tags,
)
from reviewapp.previews.rendering import pretty
from reviewapp.web.forms.golden import GoldenCaseAcceptForm, GoldenCaseRenameForm, GoldenCaseTagsForm
from reviewapp.web.forms.preview import GoldenCaseFilterForm
from reviewapp.web.htmx import AuthenticatedHttpRequest

#: The most recent changes shown on a case's page.
CHANGES_SHOWN = 50


@require_safe
@permission_required(roles.PREVIEW, raise_exception=True)
def golden_case_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    filters = GoldenCaseFilterForm(request.GET)
    valid = filters.is_valid()
    wanted = filters.cleaned_data.get("status", "") if valid else ""
    tag = filters.cleaned_data.get("tag", "") if valid else ""
    found = GoldenCase.objects.all()
    if tag:
        found = found.filter(tags__contains=[tag])
    cases = list(found)
    results = check_all(cases)
    tags_of = {case.pk: case.tags for case in cases}
    failing = sum(1 for result in results if not result.passed)
    # Failing cases first: they are what the page is opened for. Then by
    # name, numbers as numbers ("case 2" before "case 10").
    shown = sorted(
        (r for r in results if not wanted or (wanted == "pass") == r.passed),
        key=lambda r: (r.passed, natural_key(r.name)),
    )
    filters.fields["tag"].widget.attrs["list"] = "golden-tag-list"
    context = {
        "filters": filters,
        "results": [(result, tags_of.get(result.case_id or 0) or []) for result in shown],
        "total": len(results),
        "failing": failing,
        "passing": len(results) - failing,
        "tag": tag,
        "all_tags": all_tags(),
    }
    return render(request, "preview/cases.html", context)


def _detail(
    request: AuthenticatedHttpRequest,
    case: GoldenCase,
    *,
    rename_form: GoldenCaseRenameForm | None = None,
    tags_form: GoldenCaseTagsForm | None = None,
) -> HttpResponse:
    result = check_case(case)
    can_change = request.user.has_perm(roles.SAVE_GOLDEN)
    # An item of a company the user may not see is not linked; a user
    # limited to some companies is told the same for it and for a missing one.
    source_exists = (
        case.source_item_id is not None
        and InboxItem.objects.visible_to(request.user).filter(pk=case.source_item_id).exists()
    )
    context: dict[str, Any] = {
        "case": case,
        "result": result,
        "diff": word_diff(result.diff()),
        "input_json": pretty(case.input),
        # Keys sorted, as the diff compares them: jsonb's order is not the renderer's.
        "expected_json": canonical_pretty(case.expected),
        "actual_json": canonical_pretty(result.actual),
        # The preview's item form takes a channel_context; other inputs only show here.
        "opens_in_preview": isinstance(case.input, dict) and "channel_context" in case.input,
        "source_exists": source_exists,
        "source_restricted": not source_exists and access.company_ids(request.user) is not None,
        "changes": [
            (change, canonical_pretty(change.old), canonical_pretty(change.new))
            for change in case.changes.select_related("changed_by")[:CHANGES_SHOWN]
        ],
    }
    if can_change:
        context["rename_form"] = rename_form or GoldenCaseRenameForm(initial={"name": case.name}, case=case)
        context["tags_form"] = tags_form or GoldenCaseTagsForm(initial={"tags": ", ".join(case.tags or [])})
    return render(request, "preview/case_detail.html", context)


@require_safe
@permission_required(roles.PREVIEW, raise_exception=True)
def golden_case_detail(request: AuthenticatedHttpRequest, case_id: int) -> HttpResponse:
    return _detail(request, get_object_or_404(GoldenCase.objects.select_related("created_by"), pk=case_id))


@require_http_methods(["GET", "POST"])
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_accept(request: AuthenticatedHttpRequest, case_id: int) -> HttpResponse:
    """GET shows the diff and asks; POST makes what the current code renders the case's expected output.

    The POST must come from the confirmation page: it carries the digests of
    the two outputs that page showed (refused if either moved since) and
    ``confirm``, which only that page's button sends.
    """
    case = get_object_or_404(GoldenCase, pk=case_id)
    if request.method == "GET":
        result = check_case(case)
        context = {
            "case": case,
            "result": result,
            "diff": word_diff(result.diff()),
            "accept_form": GoldenCaseAcceptForm(
                initial={"expected_digest": digest(case.expected), "actual_digest": digest(result.actual)}
            ),
        }
        return render(request, "preview/case_accept.html", context)
    form = GoldenCaseAcceptForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Nothing was accepted: open the case again and compare before accepting."))
        return redirect("golden_case_detail", case.pk)
    try:
        accept_current_output(
            case.pk,
            user=request.user,
            seen_expected=form.cleaned_data["expected_digest"],
            seen_actual=form.cleaned_data["actual_digest"],
        )
    except CaseChanged as changed:
        if changed.reason == "expected":
            messages.error(request, _("Someone changed this case since you opened it; nothing was accepted."))
        else:
            messages.error(request, _("The current output changed since you compared it; nothing was accepted."))
    else:
        messages.success(
            request, _("The current output is now the expected output of “%(name)s”.") % {"name": case.name}
        )
    return redirect("golden_case_detail", case.pk)


@require_POST
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_rename(request: AuthenticatedHttpRequest, case_id: int) -> HttpResponse:
    case = get_object_or_404(GoldenCase.objects.select_related("created_by"), pk=case_id)
    form = GoldenCaseRenameForm(request.POST, case=case)
    if form.is_valid():
        old = case.name
        try:
            rename_case(case.pk, name=form.cleaned_data["name"], user=request.user)
        except IntegrityError:  # taken by someone else since the form was checked
            form.add_error("name", _("A golden case with this name already exists."))
        else:
            messages.success(
                request, _("Renamed “%(old)s” to “%(new)s”.") % {"old": old, "new": form.cleaned_data["name"]}
            )
            return redirect("golden_case_detail", case.pk)
    return _detail(request, case, rename_form=form)


@require_POST
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_tags(request: AuthenticatedHttpRequest, case_id: int) -> HttpResponse:
    case = get_object_or_404(GoldenCase.objects.select_related("created_by"), pk=case_id)
    form = GoldenCaseTagsForm(request.POST)
    if not form.is_valid():
        return _detail(request, case, tags_form=form)
    set_tags(case.pk, tags=form.cleaned_data["tags"], user=request.user)
    messages.success(request, _("Saved the tags of “%(name)s”.") % {"name": case.name})
    return redirect("golden_case_detail", case.pk)


@require_http_methods(["GET", "POST"])
@permission_required(roles.SAVE_GOLDEN, raise_exception=True)
def golden_case_delete(request: AuthenticatedHttpRequest, case_id: int) -> HttpResponse:
    """GET asks for confirmation; POST deletes (the change log keeps the case's input and output)."""
    case = get_object_or_404(GoldenCase, pk=case_id)
    if request.method == "POST":
        name = delete_case(case.pk, user=request.user)
        messages.success(request, _("Deleted the golden case “%(name)s”.") % {"name": name})
        return redirect("golden_cases")
    return render(request, "preview/case_delete.html", {"case": case})
