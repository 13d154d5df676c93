"""Small request and response helpers shared by every view.

``render_htmx`` decides, in one place, what a page answers an htmx request:

- the part htmx swaps (a ``{% block %}`` of the page's own template,
  rendered alone) instead of the whole page, with the page's own status: a
  conflict is a 409 either way. htmx swaps the refusals the app answers
  with a fragment because base.html's ``htmx-config`` says so
  (``responseHandling``), not because they pretend to be a 200;
- with ``HX-Push-Url`` when the address bar should show another URL than the
  one requested (a list's canonical query string), built here on the server,
  not in JavaScript.

Caches key on ``HX-Request`` for every response (``VaryOnHtmxMiddleware``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django_htmx.http import HttpResponseClientRedirect, push_url
from django_htmx.middleware import HtmxDetails

from reviewapp.web.jinja import render_block


class HtmxHttpRequest(HttpRequest):
    """The request as our views see it: with django-htmx's details attached."""

    htmx: HtmxDetails
    user: AbstractBaseUser | AnonymousUser  # type: ignore[assignment]


class AuthenticatedHttpRequest(HtmxHttpRequest):
    """The request of a view behind a login or permission check: its user is signed in."""

    user: User  # type: ignore[assignment]


def render_htmx(
    request: HtmxHttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    partial: str,
    status: int = 200,
    url: str | None = None,
) -> HttpResponse:
    """The page ``template`` with ``status``; for htmx, its block ``partial`` alone (and ``url`` pushed)."""
    # Back/forward without htmx's snapshot (``hx-history="false"``) asks for the whole page.
    if not request.htmx or request.htmx.history_restore_request:
        return render(request, template, context, status=status)
    response = HttpResponse(render_block(template, partial, context, request), status=status)
    if url is not None:
        response = push_url(response, url)
    return response


def redirect_htmx(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """Go to ``url``: a redirect, or for htmx the whole page loaded there (``HX-Redirect``)."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)
