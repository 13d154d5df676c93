"""The overview (``/overview/``) and its JSON twin (``/api/overview``)."""

from __future__ import annotations

from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from reviewapp.core import roles
from reviewapp.overview import numbers, screen
from reviewapp.web.api_auth import api_view, json_error, json_response
from reviewapp.web.forms.overview import OverviewForm
from reviewapp.web.htmx import AuthenticatedHttpRequest


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def overview_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    # An invalid ?days= shows its error under the menu and the default period.
    form = OverviewForm(request.GET)
    days = form.period()
    data = numbers.overview(request.user, days, whole_team=request.user.has_perm(roles.VIEW_TEAM_OVERVIEW))
    context = {"form": form, "days": days, **screen.build(data)}
    return render(request, "overview/page.html", context)


@api_view(methods=["GET"], permission=roles.VIEW_ITEMS)
def api_overview(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = OverviewForm(request.GET)
    if not form.is_valid():
        return json_error(400, "days must be one of 7, 30 or 90", fields=form.errors.get_json_data())
    data = numbers.overview(request.user, form.period(), whole_team=False)
    queue = data.queue
    return json_response(
        {
            "days": [
                {
                    "date": day.date.isoformat(),
                    "moved_to_app": day.moved_to_app,
                    "answered_in_app": day.answered_in_app,
                    "answered_in_chat": day.answered_in_chat,
                    "denied": day.denied,
                }
                for day in data.days
            ],
            "waiting": queue.waiting,
            "on_hold": queue.on_hold,
            "oldest_waiting_hours": queue.oldest_waiting_hours,
            "median_wait_hours": queue.median_wait_hours,
        }
    )
