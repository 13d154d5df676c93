"""The answers for a request the app refuses as a whole: a body too large (413), a database that does not answer (503).

They are built without the session, the user, the database or the context
processors, because they are sent exactly when those are not there yet
(the body cap runs before the session middleware) or do not work (the
review database is down). ``refusal`` renders ``refused.html`` with its
own few values; ``json_refusal`` is the same for the JSON API.

For htmx, base.html's ``htmx-config`` (``responseHandling``) swaps a 413
or a 503 into the page's ``#request-refused`` region, which these name
themselves too (``HX-Retarget``): the form and what was typed in it stay
on the page, with the reason beside it.
"""

from __future__ import annotations

from typing import Any, Final

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.cache import patch_vary_headers
from django.utils.csp import CSP, build_policy
from django.utils.translation import get_language

from reviewapp.web import request_id

REGION: Final = "#request-refused"
API_PREFIX: Final = "/api/"


def is_api(request: HttpRequest) -> bool:
    """A JSON API request (``/api/…``), which gets ``{"error": …}`` instead of a page."""
    return request.path_info.startswith(API_PREFIX)


def _finish(request: HttpRequest, response: HttpResponse, retry_after: int | None) -> HttpResponse:
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    patch_vary_headers(response, ("HX-Request",))
    # Sent before (or without) the CSP middleware: the same policy, set here.
    if settings.SECURE_CSP:
        policy: dict[str, Any] = settings.SECURE_CSP
        response.headers.setdefault(str(CSP.HEADER_ENFORCE), build_policy(policy))
    return response


def refusal(
    request: HttpRequest, *, status: int, title: str, message: str, retry_after: int | None = None
) -> HttpResponse:
    """A plain page saying why the request was refused; for htmx, the message alone, aimed at ``REGION``."""
    htmx = request.headers.get("HX-Request") == "true"
    rid = getattr(request, "request_id", None) or request_id.current() or "-"
    context = {"title": title, "message": message, "request_id": rid, "LANGUAGE_CODE": get_language(), "htmx": htmx}
    response = HttpResponse(loader.get_template("refused.html").render(context), status=status)
    if htmx:
        response["HX-Retarget"] = REGION
        response["HX-Reswap"] = "innerHTML"
    return _finish(request, response, retry_after)


def json_refusal(request: HttpRequest, *, status: int, message: str, retry_after: int | None = None) -> HttpResponse:
    return _finish(request, JsonResponse({"error": message}, status=status), retry_after)
